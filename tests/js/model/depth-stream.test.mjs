// Depth streaming (GraphModule.forward(x, { maxMemoryBytes })): the streamed
// output's bytes equal the untiled run's on odd sizes (D, H, W not multiples
// of the chunk, D smaller than a layer's reach), on every dilation 1..8, with
// quantized and float convs, with chunks of 1 slice, of a few and of the
// whole depth; graphs that do not stream run untiled under the budget or are
// refused; the budget's memory is measured (depth-stream-memory.test.mjs).
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, graphModel, node, output, ref } from '../model-files.mjs';
import { initGolden } from '../util.mjs';

const { io, tensor } = qwasm;

// QWASM_TEST_THREADS / QWASM_TEST_WINOGRAD (scripts/test-all) run it threaded and on each conv path.
beforeAll(() => initGolden(qwasm));

const SEED = 20261204;
// mulberry32: a seeded generator (the seed is printed by each failing case's name).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const quantize = { type: 'Quantize', scale: 0.03, zero_point: 100, dtype: 'quint8' };
const dequantize = { type: 'DeQuantize' };

// A k x k x k conv with padding = dilation (MeshNet's 'same'), or a 1x1x1 one.
function qconv(name, cin, cout, dil, relu, zeroPoint, k = 3) {
  return {
    type: 'QuantizedConv',
    dims: 3,
    relu,
    in_channels: cin,
    out_channels: cout,
    kernel_size: [k, k, k],
    stride: [1, 1, 1],
    padding: k === 1 ? [0, 0, 0] : [dil, dil, dil],
    dilation: [dil, dil, dil],
    groups: 1,
    scale: 0.05,
    zero_point: zeroPoint,
    weight: { qscheme: 'per_tensor_affine', ints: name, scale: 0.02, zero_point: 0 },
    bias: `${name}_b`,
  };
}
function fconv(name, cin, cout, dil, relu, k = 3) {
  return {
    type: 'Conv',
    dims: 3,
    relu,
    in_channels: cin,
    out_channels: cout,
    kernel_size: [k, k, k],
    stride: [1, 1, 1],
    padding: k === 1 ? [0, 0, 0] : [dil, dil, dil],
    dilation: [dil, dil, dil],
    groups: 1,
    weight: name,
    bias: `${name}_b`,
  };
}
function weights(random, tensors, name, cin, cout, k, float) {
  const n = cout * cin * k ** 3;
  tensors[name] = float
    ? { dtype: 'F32', shape: [cout, cin, k, k, k], data: Array.from({ length: n }, () => random() * 0.6 - 0.3) }
    : {
        dtype: 'I8',
        shape: [cout, cin, k, k, k],
        data: Array.from({ length: n }, () => Math.floor(random() * 61) - 30),
      };
  tensors[`${name}_b`] = { dtype: 'F32', shape: [cout], data: Array.from({ length: cout }, () => random() - 0.5) };
}

/** A MeshNet-like chain: quantize, dilated convs (+ ReLU), a 1x1x1 classifier, dequantize. */
function stackModel(shape, dilations, { channels = 4, classes = 3, float = false, seed = SEED } = {}) {
  const random = rng(seed);
  const tensors = {};
  const modules = float ? [] : [quantize];
  let cin = shape[1];
  dilations.forEach((d, i) => {
    weights(random, tensors, `w${i}`, cin, channels, 3, float);
    modules.push(float ? fconv(`w${i}`, cin, channels, d, true) : qconv(`w${i}`, cin, channels, d, true, 0));
    cin = channels;
  });
  weights(random, tensors, 'wc', cin, classes, 1, float);
  modules.push(float ? fconv('wc', cin, classes, 1, false, 1) : qconv('wc', cin, classes, 1, false, 128, 1));
  if (!float) modules.push(dequantize);
  return chainModel(shape, modules, tensors);
}

function input(shape, seed) {
  const random = rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  return tensor(
    Float32Array.from({ length: n }, () => random() * 6 - 3),
    shape,
  );
}

const bytesOf = (t) => new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);

// The smallest budget under which the plan's chunk is T (the memory model grows with T).
function budgetFor(model, shape, T) {
  const { minBytes } = model.depthStreamPlan(shape);
  let lo = minBytes;
  let hi = model.depthStreamPlan(shape).bytes;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (model.depthStreamPlan(shape, { maxMemoryBytes: mid }).depthChunk >= T) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// Streamed with each chunk in `chunks` (clamped to the depth): the same bytes as untiled.
function expectStreamedEqual(bytes, shape, chunks, seed) {
  const model = io.loadModel(bytes);
  try {
    const x = input(shape, seed);
    const untiled = model.forward(x);
    for (const T of chunks) {
      const t = Math.min(T, shape[2]);
      const maxMemoryBytes = budgetFor(model, shape, t);
      expect(model.depthStreamPlan(shape, { maxMemoryBytes }).depthChunk).toBe(t);
      const streamed = model.forward(x, { maxMemoryBytes });
      expect(streamed.shape).toEqual(untiled.shape);
      expect([`T=${t}`, Buffer.from(bytesOf(streamed)).equals(Buffer.from(bytesOf(untiled)))]).toEqual([
        `T=${t}`,
        true,
      ]);
    }
  } finally {
    model.dispose();
  }
}

describe(`bytes equal to the untiled run (seed ${SEED})`, () => {
  for (let d = 1; d <= 8; d++) {
    test(`quantized ConvReLU3d of dilation ${d} on [1, 2, 13, 7, 5] (and D = 3, less than its reach ${2 * d})`, () => {
      const bytes = stackModel([1, 2, 13, 7, 5], [d], { seed: SEED + d });
      expectStreamedEqual(bytes, [1, 2, 13, 7, 5], [1, 2, 5, 13], SEED + d);
      expectStreamedEqual(stackModel([1, 2, 3, 7, 5], [d], { seed: SEED + d }), [1, 2, 3, 7, 5], [1, 2, 3], SEED);
    });
    test(`float ConvReLU3d of dilation ${d} on [2, 1, 11, 6, 9]`, () => {
      const bytes = stackModel([2, 1, 11, 6, 9], [d], { float: true, seed: SEED + 10 + d });
      expectStreamedEqual(bytes, [2, 1, 11, 6, 9], [1, 3, 11], SEED + 10 + d);
    });
  }

  test("MeshNet's dilations 1,1,1,2,4,8,1,1 (reach 19 each side) on [1, 1, 23, 9, 7], quantized and float", () => {
    const dil = [1, 1, 1, 2, 4, 8, 1, 1];
    expectStreamedEqual(stackModel([1, 1, 23, 9, 7], dil), [1, 1, 23, 9, 7], [1, 4, 7, 23], SEED + 20);
    expectStreamedEqual(stackModel([1, 1, 23, 9, 7], dil, { float: true }), [1, 1, 23, 9, 7], [1, 6, 23], SEED + 21);
    // D = 5: every layer's window is clipped at both borders at once.
    expectStreamedEqual(stackModel([1, 1, 5, 4, 3], dil), [1, 1, 5, 4, 3], [1, 2, 5], SEED + 22);
  });

  // Quantized convs run in blocks of whole Winograd tiles along depth (2 x dilation outputs), a
  // dilated one depth phase at a time (depth-stream.mjs, runPhases): several blocks and a partial
  // last one, phases cut at both borders, chunks that are not multiples of the block.
  test('dilated layers by depth phase: several blocks, a partial last one, on [1, 2, 37, 6, 5]', () => {
    for (const d of [2, 3, 5, 8]) {
      const shape = [1, 2, 37, 6, 5];
      expectStreamedEqual(stackModel(shape, [d, 1], { seed: SEED + 100 + d }), shape, [1, 3, 7, 37], SEED + 100 + d);
    }
    const dil = [1, 1, 1, 2, 4, 8, 1, 1];
    expectStreamedEqual(stackModel([1, 1, 41, 5, 4], dil), [1, 1, 41, 5, 4], [1, 5, 9, 17], SEED + 110);
  });

  test('a dilated layer wide enough for Winograd runs it when streamed (blocks of whole tiles), same bytes', () => {
    const shape = [1, 1, 24, 16, 16]; // H, W: whole tiles of the dilation (no waste there either)
    const bytes = stackModel(shape, [1, 4], { channels: 16, seed: SEED + 120 });
    expectStreamedEqual(bytes, shape, [2, 5], SEED + 120);
    // 'auto' whatever the suite's default (QWASM_TEST_WINOGRAD): the policy that sends wasteful tiles direct.
    const model = io.loadModel(bytes, { winograd: 'auto' });
    try {
      model.forward(input(shape, SEED), { maxMemoryBytes: budgetFor(model, shape, 3) });
      // m2 is the dilation-4 layer: each phase call is one tile deep, no slot past the block.
      expect(model.m2.lastPath()).toBe('winograd');
    } finally {
      model.dispose();
    }
  });

  test('the exported MeshNet (PT2E and eager flow, tests/golden/exported) on odd shapes', () => {
    for (const file of ['zoo3d_meshnet', 'zoo3d_meshnet_eager']) {
      const bytes = new Uint8Array(
        readFileSync(new URL(`../../golden/exported/${file}.qwasm.safetensors`, import.meta.url)),
      );
      expectStreamedEqual(bytes, [1, 1, 24, 24, 24], [1, 5, 24], SEED + 30);
      expectStreamedEqual(bytes, [1, 1, 19, 13, 11], [3, 8], SEED + 31);
    }
  });

  test('argmax over the channels at the end (labels), BatchNorm3d and ReLU between convs', () => {
    const random = rng(SEED + 40);
    const tensors = {};
    weights(random, tensors, 'w0', 1, 3, 3, true);
    weights(random, tensors, 'w1', 3, 4, 3, true);
    for (const k of ['mean', 'var', 'g', 'b']) {
      tensors[k] = { dtype: 'F32', shape: [3], data: [0.2, k === 'var' ? 1.5 : 0.7, 0.9] };
    }
    const bn = {
      type: 'BatchNorm',
      dims: 3,
      num_features: 3,
      eps: 1e-5,
      weight: 'g',
      bias: 'b',
      running_mean: 'mean',
      running_var: 'var',
    };
    const modules = { c0: fconv('w0', 1, 3, 2, false), bn, relu: { type: 'ReLU' }, c1: fconv('w1', 3, 4, 3, false) };
    const bytes = graphModel(
      [1, 1, 10, 5, 6],
      modules,
      [
        node('c0', 'call_module', 'c0', [ref('x')]),
        node('bn', 'call_module', 'bn', [ref('c0')]),
        node('relu', 'call_module', 'relu', [ref('bn')]),
        node('c1', 'call_module', 'c1', [ref('relu')]),
        node('labels', 'call_function', 'argmax', [ref('c1'), 1, false]),
        output('labels'),
      ],
      tensors,
    );
    expectStreamedEqual(bytes, [1, 1, 10, 5, 6], [1, 3, 10], SEED + 41);
    // softmax / log_softmax over the channels instead: each voxel's probabilities, the same bits.
    for (const f of ['softmax', 'log_softmax']) {
      const probs = graphModel(
        [1, 1, 10, 5, 6],
        modules,
        [
          node('c0', 'call_module', 'c0', [ref('x')]),
          node('bn', 'call_module', 'bn', [ref('c0')]),
          node('relu', 'call_module', 'relu', [ref('bn')]),
          node('c1', 'call_module', 'c1', [ref('relu')]),
          node('p', 'call_function', f, [ref('c1'), 1]),
          output('p'),
        ],
        tensors,
      );
      expectStreamedEqual(probs, [1, 1, 10, 5, 6], [1, 4, 10], SEED + 42);
    }
    const model = io.loadModel(bytes);
    expect(model.depthStreamPlan([1, 1, 10, 5, 6])).toMatchObject({ streamable: true, reason: null, depthChunk: 10 });
    model.dispose();
  });
});

test('depthwise (FBGEMM fast path included) and grouped convs, a 4x1x1 kernel with padding 1, stride 2 in height and width', () => {
  const random = rng(SEED + 90);
  const ints = (name, shape) => {
    const n = shape.reduce((a, b) => a * b, 1);
    return { [name]: { dtype: 'I8', shape, data: Array.from({ length: n }, () => Math.floor(random() * 61) - 30) } };
  };
  const conv = (name, cin, cout, kernel, padding, dilation, groups, stride = [1, 1, 1]) => ({
    ...qconv(name, cin, cout, 1, true, 0),
    kernel_size: kernel,
    padding,
    dilation,
    groups,
    stride,
    bias: null,
  });
  const tensors = {
    ...ints('w0', [8, 2, 3, 3, 3]),
    ...ints('dw', [8, 1, 3, 3, 3]),
    ...ints('dw1', [8, 1, 3, 3, 3]),
    ...ints('g', [6, 4, 3, 3, 3]),
    ...ints('t', [3, 6, 4, 1, 1]),
  };
  const modules = [
    quantize,
    conv('w0', 2, 8, [3, 3, 3], [1, 1, 1], [1, 1, 1], 1),
    conv('dw', 8, 8, [3, 3, 3], [2, 2, 2], [2, 2, 2], 8), // depthwise, dilation 2
    // Depthwise 3x3x3, 8 channels: FBGEMM's fast path (int16 pair saturation, padding with the
    // zero point), chosen at packing from the layer's own padding.
    conv('dw1', 8, 8, [3, 3, 3], [1, 1, 1], [1, 1, 1], 8),
    conv('g', 8, 6, [3, 3, 3], [3, 1, 1], [3, 1, 1], 2, [1, 2, 2]), // groups 2, stride 2 in H and W
    conv('t', 6, 3, [4, 1, 1], [1, 0, 0], [1, 1, 1], 1), // 4 taps, padding 1: the output is one slice shallower
    dequantize,
  ];
  const bytes = chainModel([1, 2, 15, 9, 8], modules, tensors);
  // A format-1 file records no engine: the loader packs it for FBGEMM, whose depthwise fast path dw1 takes.
  const model = io.loadModel(bytes);
  model.forward(input([1, 2, 3, 9, 8], SEED));
  expect(model.m3.lastKernel()).toContain('sat16');
  model.dispose();
  expectStreamedEqual(bytes, [1, 2, 15, 9, 8], [1, 3, 15], SEED + 91);
  expectStreamedEqual(bytes, [1, 2, 4, 9, 8], [1, 4], SEED + 92);
});

test('arithmetic with numbers between the nodes (in-graph normalisation; quantized add_scalar)', () => {
  const random = rng(SEED + 80);
  const tensors = {};
  weights(random, tensors, 'w0', 1, 3, 3, false);
  weights(random, tensors, 'w1', 3, 2, 3, false);
  const modules = {
    q: quantize,
    c0: qconv('w0', 1, 3, 2, true, 0),
    c1: qconv('w1', 3, 2, 5, false, 120),
    dq: dequantize,
  };
  const bytes = graphModel(
    [1, 1, 14, 6, 5],
    modules,
    [
      node('centred', 'call_function', 'sub', [ref('x'), 0.25]),
      node('scaled', 'call_function', 'div', [ref('centred'), 1.7]),
      node('q', 'call_module', 'q', [ref('scaled')]),
      node('c0', 'call_module', 'c0', [ref('q')]),
      node('shifted', 'call_function', 'quantized.add_scalar', [ref('c0'), 0.3]),
      node('c1', 'call_module', 'c1', [ref('shifted')]),
      node('dq', 'call_module', 'dq', [ref('c1')]),
      node('doubled', 'call_function', 'mul', [ref('dq'), 2.5]),
      output('doubled'),
    ],
    tensors,
  );
  const model = io.loadModel(bytes);
  expect(model.depthStreamPlan([1, 1, 14, 6, 5]).reason).toBeNull();
  model.dispose();
  expectStreamedEqual(bytes, [1, 1, 14, 6, 5], [1, 4, 14], SEED + 81);
});

describe('budgets and graphs that do not stream', () => {
  test('automatic under the load budget: forward(x) streams within maxLiveBytes where the untiled run would go over it', () => {
    const shape = [1, 1, 20, 12, 12];
    const small = stackModel([1, 1, 4, 4, 4], [1, 4, 1], { channels: 8 }); // declared on a small input
    const roomy = io.loadModel(small);
    const tightBytes = budgetFor(roomy, shape, 3);
    const tight = io.loadModel(small, { maxLiveBytes: tightBytes });
    const x = input(shape, SEED + 70);
    // The smallest maxActivationBytes under which forward(x) runs (streamed): found by search, since
    // a node's scratch depends on the conv path and the thread count (QWASM_TEST_THREADS / _WINOGRAD).
    const runsUnder = (maxActivationBytes) => {
      let m;
      try {
        m = io.loadModel(small, { maxActivationBytes });
        m.forward(x);
        return true;
      } catch {
        return false;
      } finally {
        m?.dispose();
      }
    };
    let lo = 1;
    let hi = 1 << 30;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (runsUnder(mid)) hi = mid;
      else lo = mid + 1;
    }
    const activationBytes = lo;
    const maxActivation = io.loadModel(small, { maxActivationBytes: activationBytes });
    try {
      // The untiled run on this input goes over both limits: a file declaring it is refused at load.
      const declared = stackModel(shape, [1, 4, 1], { channels: 8 });
      expect(() => io.loadModel(declared, { maxLiveBytes: tightBytes })).toThrow(/over maxLiveBytes/);
      expect(() => io.loadModel(declared, { maxActivationBytes: activationBytes })).toThrow(/over maxActivationBytes/);
      const want = roomy.forward(x);
      expect(Buffer.from(bytesOf(tight.forward(x))).equals(Buffer.from(bytesOf(want)))).toBe(true);
      expect(Buffer.from(bytesOf(maxActivation.forward(x))).equals(Buffer.from(bytesOf(want)))).toBe(true);
      // Under a budget that cannot hold one slice per chunk: refused as before, naming the node.
      const under = roomy.depthStreamPlan(shape).minBytes - 1;
      const tiny = io.loadModel(small, { maxLiveBytes: under });
      expect(() => tiny.forward(x)).toThrow(
        new RegExp(
          `node 'm\\d' would bring what one forward holds at once to \\d+ bytes .* over maxLiveBytes ${under}`,
        ),
      );
      tiny.dispose();
    } finally {
      roomy.dispose();
      tight.dispose();
      maxActivation.dispose();
    }
  });

  test('a budget under one slice per chunk is a RangeError naming what one slice needs', () => {
    const model = io.loadModel(stackModel([1, 1, 9, 8, 8], [1, 2]));
    const { minBytes } = model.depthStreamPlan([1, 1, 9, 8, 8]);
    expect(() => model.forward(input([1, 1, 9, 8, 8], SEED), { maxMemoryBytes: minBytes - 1 })).toThrow(
      new RangeError(
        `GraphModule.forward(x): maxMemoryBytes ${minBytes - 1} cannot hold the streamed run: one depth slice per chunk needs ${minBytes} bytes`,
      ),
    );
    for (const bad of [0, -1, 1.5, '1000', Number.NaN]) {
      expect(() => model.forward(input([1, 1, 9, 8, 8], SEED), { maxMemoryBytes: bad })).toThrow(
        /maxMemoryBytes must be a positive integer/,
      );
    }
    expect(() => model.forward(input([1, 1, 9, 8, 8], SEED), { maxMemory: 5 })).toThrow(/unknown option 'maxMemory'/);
    model.dispose();
  });

  test('a graph with a pool does not stream: it runs untiled within the budget, or is refused naming why', () => {
    const pool = {
      type: 'MaxPool',
      dims: 3,
      kernel_size: [2, 2, 2],
      stride: [2, 2, 2],
      padding: [0, 0, 0],
      dilation: [1, 1, 1],
      ceil_mode: false,
    };
    const model = io.loadModel(chainModel([1, 2, 8, 8, 8], [quantize, pool, dequantize]));
    const plan = model.depthStreamPlan([1, 2, 8, 8, 8]);
    expect(plan).toEqual({
      streamable: false,
      reason: expect.stringMatching(/node 'm1': a MaxPool3d module/),
      depthChunk: 0,
      bytes: null,
      minBytes: null,
    });
    const x = input([1, 2, 8, 8, 8], SEED);
    const untiled = model.forward(x);
    expect(
      Buffer.from(bytesOf(model.forward(x, { maxMemoryBytes: 1 << 20 }))).equals(Buffer.from(bytesOf(untiled))),
    ).toBe(true);
    expect(() => model.forward(x, { maxMemoryBytes: 600 })).toThrow(
      /maxMemoryBytes 600; the graph cannot stream along depth: node 'm1': a MaxPool3d module/,
    );
    model.dispose();
  });

  test("an input that is not a float tensor matching its shape gets the untiled run's error", () => {
    const model = io.loadModel(stackModel([1, 1, 6, 4, 4], [1]));
    const short = { data: new Float32Array(95), shape: [1, 1, 6, 4, 4] };
    const untiled = (() => {
      try {
        model.forward(short);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(untiled).toBeInstanceOf(Error);
    expect(() => model.forward(short, { maxMemoryBytes: 1 << 24 })).toThrow(untiled.message);
    const q = qwasm.quantizePerTensor(input([1, 1, 6, 4, 4], SEED), 0.1, 3, 'quint8');
    expect(() => model.forward(q, { maxMemoryBytes: 1 << 24 })).toThrow(/GraphModule\.forward\(x\): node 'm0'/);
    q.dispose();
    model.dispose();
  });

  test("depthStreamPlan of a shape past the core's limits names the node, as the untiled run would", () => {
    const url = new URL('../../golden/exported/zoo3d_meshnet.qwasm.safetensors', import.meta.url);
    const model = io.loadModel(new Uint8Array(readFileSync(url)), { maxWork: Infinity });
    expect(() => model.depthStreamPlan([1, 1, 2e6, 2000, 2000])).toThrow(
      /^GraphModule\.depthStreamPlan\(inputShape, options\): node 'conv3d': tensor too large/,
    );
    expect(model.depthStreamPlan([1, 1, 0, 4, 4]).reason).toBe(
      'the input is not a non-empty 5-D tensor [N, C, D, H, W]',
    );
    model.dispose();
  });

  test('a conv with depth stride 2 does not stream', () => {
    const random = rng(SEED + 50);
    const tensors = {};
    weights(random, tensors, 'w0', 1, 2, 3, false);
    const conv = { ...qconv('w0', 1, 2, 1, true, 0), stride: [2, 1, 1] };
    const model = io.loadModel(chainModel([1, 1, 8, 4, 4], [quantize, conv, dequantize], tensors));
    expect(model.depthStreamPlan([1, 1, 8, 4, 4]).reason).toBe("node 'm1': its depth stride is 2, not 1");
    model.dispose();
  });

  test('the work of a streamed run is charged against the load budget', () => {
    // Declared on a small input (loads within maxWork); forwarded on a larger one.
    const bytes = stackModel([1, 1, 2, 4, 4], [1, 2]);
    const model = io.loadModel(bytes, { maxWork: 1e5 });
    expect(() => model.forward(input([1, 1, 16, 16, 16], SEED), { maxMemoryBytes: 1 << 24 })).toThrow(
      /over maxWork 100000/,
    );
    model.dispose();
  });
});

test('in the model worker: forward(x, { maxMemoryBytes }) streams there, with the same bytes', async () => {
  const url = new URL('../../golden/exported/zoo3d_meshnet.qwasm.safetensors', import.meta.url);
  // The worker plans as this thread does (the scratch bounds depend on both): the same Winograd
  // policy and threads (QWASM_TEST_WINOGRAD / QWASM_TEST_THREADS set this thread's only).
  const local = io.loadModel(new Uint8Array(readFileSync(url)), { winograd: 'auto' });
  const { numThreads } = qwasm.runtimeInfo();
  const worker = await io.loadModel(url, { worker: true, winograd: 'auto', numThreads });
  try {
    const shape = [1, 1, 17, 12, 10];
    const x = input(shape, SEED + 60);
    const maxMemoryBytes = budgetFor(local, shape, 4);
    const want = local.forward(x);
    const got = await worker.forward(x, { transfer: false, maxMemoryBytes });
    expect(Buffer.from(bytesOf(got)).equals(Buffer.from(bytesOf(want)))).toBe(true);
    await expect(worker.forward(x, { transfer: false, maxMemoryBytes: 10 })).rejects.toThrow(
      /^WorkerModel\.forward\(x\): maxMemoryBytes 10 cannot hold the streamed run/,
    );
    await expect(worker.forward(x, { transfer: false, maxMemoryBytes: '1' })).rejects.toThrow(
      /maxMemoryBytes must be a number/,
    );
  } finally {
    local.dispose();
    worker.dispose();
  }
}, 60_000);
