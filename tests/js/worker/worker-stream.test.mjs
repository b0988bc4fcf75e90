// Depth streaming through the model worker: WorkerModel.forward(x, { maxMemoryBytes })
// gives the bytes of a whole run on this thread, and WorkerModel.heap() shows
// the worker's wasm heap holding to the budget (a fresh worker: its high-water
// mark is this run's), where an untiled run then goes over it. The model: a
// MeshNet-like chain (21 channels, dilations 1,1,1,2,4,8,1,1), seeded integers.
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel } from '../model-files.mjs';

const SEED = 4343;
const SHAPE = [1, 1, 48, 40, 40];
const BUDGET = 10 * 2 ** 20; // the plan's one-slice bound is 5.9 MB here; untiled grows the heap by about 18 MB

function meshnetChain(seed) {
  let s = seed;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  const tensors = {};
  const modules = [{ type: 'Quantize', scale: 0.03, zero_point: 100, dtype: 'quint8' }];
  let cin = 1;
  [1, 1, 1, 2, 4, 8, 1, 1, 0].forEach((d, i) => {
    const k = d === 0 ? 1 : 3;
    const cout = d === 0 ? 3 : 21;
    tensors[`w${i}`] = {
      dtype: 'I8',
      shape: [cout, cin, k, k, k],
      data: Array.from({ length: cout * cin * k ** 3 }, () => Math.floor(next() * 41) - 20),
    };
    const dil = Math.max(d, 1);
    modules.push({
      type: 'QuantizedConv',
      dims: 3,
      relu: d !== 0,
      in_channels: cin,
      out_channels: cout,
      kernel_size: [k, k, k],
      stride: [1, 1, 1],
      padding: [d, d, d],
      dilation: [dil, dil, dil],
      groups: 1,
      scale: 0.05,
      zero_point: d === 0 ? 128 : 0,
      weight: { qscheme: 'per_tensor_affine', ints: `w${i}`, scale: 0.01, zero_point: 0 },
      bias: null,
    });
    cin = cout;
  });
  modules.push({ type: 'DeQuantize' });
  const n = SHAPE.reduce((a, b) => a * b, 1);
  const x = Float32Array.from({ length: n }, () => next() * 6 - 3);
  return { bytes: chainModel(SHAPE, modules, tensors), x };
}

const bits = (data) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

test(`a streamed forward in the worker: a whole run's bytes, the worker's heap within maxMemoryBytes ${BUDGET} (seed ${SEED})`, async () => {
  console.log(`worker-stream seed ${SEED}`);
  await qwasm.init();
  const { bytes, x } = meshnetChain(SEED);
  const local = qwasm.io.loadModel(bytes);
  const want = local.forward(qwasm.tensor(x, SHAPE));
  local.dispose();
  const model = await qwasm.io.loadModel(bytes, { worker: true });
  try {
    const before = await model.heap();
    expect(Number.isSafeInteger(before.inUse) && before.inUse > 0).toBe(true);
    expect(before.highWater).toBeGreaterThanOrEqual(before.inUse);
    const streamed = await model.forward({ data: x.slice(), shape: SHAPE }, { maxMemoryBytes: BUDGET });
    const afterStreamed = await model.heap();
    expect(streamed.shape).toEqual([1, 3, 48, 40, 40]);
    expect(bits(streamed.data)).toBe(bits(want.data));
    expect(afterStreamed.inUse).toBe(before.inUse); // nothing left behind
    expect(afterStreamed.highWater - before.inUse).toBeLessThanOrEqual(BUDGET);
    const untiled = await model.forward({ data: x.slice(), shape: SHAPE });
    const afterUntiled = await model.heap();
    expect(bits(untiled.data)).toBe(bits(want.data));
    expect(afterUntiled.highWater - before.inUse).toBeGreaterThan(BUDGET);
  } finally {
    model.dispose();
  }
  await expect(model.heap()).rejects.toThrow(/WorkerModel\.heap\(\)/);
}, 120_000);

// forward's onProgress: {done, total} in work units, done never decreasing and ending at total; the
// worker relays the same calls as the run on this thread makes; what it throws rejects the forward.
test(`onProgress, streamed and untiled, in the worker as on this thread (seed ${SEED})`, async () => {
  await qwasm.init();
  const { bytes, x } = meshnetChain(SEED + 1);
  const local = qwasm.io.loadModel(bytes);
  const model = await qwasm.io.loadModel(bytes, { worker: true });
  const check = (calls) => {
    expect(calls.length).toBeGreaterThan(2);
    const { total } = calls[0];
    expect(total).toBeGreaterThan(0);
    for (const [i, c] of calls.entries()) {
      expect(c.total).toBe(total);
      expect(c.done).toBeGreaterThanOrEqual(i === 0 ? 0 : calls[i - 1].done);
      expect(c.done).toBeLessThanOrEqual(total);
    }
    expect(calls.at(-1).done).toBe(total);
  };
  try {
    for (const options of [{ maxMemoryBytes: BUDGET }, {}]) {
      const here = [];
      const want = local.forward(qwasm.tensor(x, SHAPE), { ...options, onProgress: (p) => here.push(p) });
      check(here);
      const there = [];
      const got = await model.forward(
        { data: x.slice(), shape: SHAPE },
        { ...options, onProgress: (p) => there.push(p) },
      );
      expect(bits(got.data)).toBe(bits(want.data));
      expect(there).toEqual(here);
    }
    // A streamed run reports after each call: many more times than the untiled run's nodes.
    const streamedCalls = [];
    local.forward(qwasm.tensor(x, SHAPE), { maxMemoryBytes: BUDGET, onProgress: (p) => streamedCalls.push(p) });
    expect(streamedCalls.length).toBeGreaterThan(local.nodes.length);
    // The caller's throw rejects (unchanged); the worker goes on serving.
    const mine = new Error('stop here');
    await expect(
      model.forward(
        { data: x.slice(), shape: SHAPE },
        {
          maxMemoryBytes: BUDGET,
          onProgress: () => {
            throw mine;
          },
        },
      ),
    ).rejects.toBe(mine);
    expect(() =>
      local.forward(qwasm.tensor(x, SHAPE), {
        onProgress: () => {
          throw mine;
        },
      }),
    ).toThrow(mine);
    await expect(model.forward({ data: x.slice(), shape: SHAPE }, { onProgress: 5 })).rejects.toThrow(
      /^WorkerModel\.forward\(x\): onProgress must be a function, got/,
    );
    expect(() => local.forward(qwasm.tensor(x, SHAPE), { onProgress: 'no' })).toThrow(
      /^GraphModule\.forward\(x\): onProgress must be a function/,
    );
    const again = await model.forward({ data: x.slice(), shape: SHAPE }, { maxMemoryBytes: BUDGET });
    expect(again.shape).toEqual([1, 3, 48, 40, 40]);
  } finally {
    local.dispose();
    model.dispose();
  }
}, 120_000);
