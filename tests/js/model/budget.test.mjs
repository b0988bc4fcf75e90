// A loaded model's budget charges what the core really spends: each node kind
// by its measured time per element (web/src/ops/work-rates.mjs, re-measured
// by bench/budget.bench.mjs), a convolution's scratch as the core allocates it
// (int16 padded input, channels padded to the kernel's tile, Winograd's whole
// tiles and per-thread buffers), and what one forward holds at once
// (maxLiveBytes: a value is held until its last reader, floats included).
import * as qwasm from '../../../web/src/index.node.mjs';
import { WORK_PER_ELEMENT } from '../../../web/src/ops/work-rates.mjs';
import {
  chainModel,
  graphModel,
  loadError as loadErrorOf,
  node,
  output,
  quantize,
  quantizedConv3d,
  ref,
} from '../model-files.mjs';

const { io, nn, tensor } = qwasm;

beforeAll(() => qwasm.init());

const loadError = (bytes, options) => loadErrorOf(io, bytes, options);
const relu = { type: 'ReLU' };

describe('work: every node kind charged by its measured rate', () => {
  test('20 float ReLUs over 64M floats: refused at load (about a minute of work); it was charged 1 per element', () => {
    const n = 2 ** 26; // 256 MiB of float32: at maxActivationBytes
    const bytes = chainModel([1, n], Array(20).fill(relu));
    const e = loadError(bytes);
    expect(e?.message).toMatch(/node 'm\d+' would bring one forward's work to .* over maxWork 500000000000/);
    // Charged per element at the float element-wise rate: the 8th node passes, the 13th does not.
    const perNode = n * WORK_PER_ELEMENT.floatElement;
    const refusedAt = Math.floor(5e11 / perNode); // index of the first node over the budget
    expect(e.message).toMatch(new RegExp(`node 'm${refusedAt}'`));
    expect(WORK_PER_ELEMENT.floatElement).toBeGreaterThanOrEqual(100);
  });

  test('an upsampling AdaptiveAvgPool from 4 values is charged per output, not per input', () => {
    // 1 x 1 x 2 x 2 -> 8192 x 8192: 67M outputs (256 MiB), each reading 2 x 2 inputs.
    const pool = { type: 'AdaptiveAvgPool', dims: 2, output_size: [8192, 8192] };
    const model = io.loadModel(chainModel([1, 1, 2, 2], [pool]));
    const planned = model.nodes.find((n) => n.name === 'm0').output;
    expect(planned.shape).toEqual([1, 1, 8192, 8192]);
    model.dispose();
    // Three in a row: 3 x 67M outputs x 4 window elements x the adaptive rate, under 5e11.
    expect(WORK_PER_ELEMENT.adaptiveWindowElement * 4 * 8192 ** 2 * 3).toBeLessThan(5e11);
    expect(loadError(chainModel([1, 1, 2, 2], Array(3).fill(pool)))).toBeNull();
    // Then twelve float ReLUs on its output: over.
    const e = loadError(chainModel([1, 1, 2, 2], [pool, ...Array(12).fill(relu)]));
    expect(e?.message).toMatch(/over maxWork/);
  });

  test("profile() reports each node's charged work, and the charges add up to what maxWork refuses", () => {
    const bytes = chainModel([1, 4, 1000], [quantize(), relu, { type: 'DeQuantize' }]);
    const model = io.loadModel(bytes);
    const { output: y, layers } = model.profile(tensor(new Float32Array(4000), [1, 4, 1000]));
    expect(layers.map((l) => l.work)).toEqual([
      4000 * WORK_PER_ELEMENT.quantizeElement,
      4000 * WORK_PER_ELEMENT.quantizedElement,
      4000 * WORK_PER_ELEMENT.dequantizeElement,
    ]);
    expect(y.shape).toEqual([1, 4, 1000]);
    model.dispose();
    const total = layers.reduce((a, l) => a + l.work, 0);
    expect(loadError(bytes, { maxWork: total })).toBeNull();
    expect(loadError(bytes, { maxWork: total - 1 })?.message).toMatch(/node 'm2' .* over maxWork/);
  });
});

describe('scratch: a convolution is charged what the core allocates', () => {
  const qconv = (cin, cout, k, groups, pad = 1) => quantizedConv3d({ cin, cout, k, pad, groups });
  const weights = (cout, cinPerGroup, k) => ({
    w: {
      dtype: 'I8',
      shape: [cout, cinPerGroup, k, k, k],
      data: Array.from({ length: cout * cinPerGroup * k ** 3 }, (_, i) => (i % 7) - 3),
    },
  });

  test.each([
    ['generic 3 -> 8', 3, 8, 3, 1, [1, 3, 6, 10, 12]],
    ['depthwise 2 -> 2 (channels padded to the kernel tile)', 2, 2, 3, 2, [1, 2, 5, 9, 11]],
    ['Winograd 16 -> 16 (whole tiles)', 16, 16, 3, 1, [1, 16, 7, 9, 13]],
    ['pointwise 4 -> 4', 4, 4, 1, 1, [2, 4, 3, 5, 7]],
  ])('%s: profile() scratch and peak heap stay within the charge', (_name, cin, cout, k, groups, shape) => {
    const file = chainModel(
      shape,
      [quantize(), qconv(cin, cout, k, groups, k === 1 ? 0 : 1), { type: 'DeQuantize' }],
      weights(cout, cin / groups, k),
    );
    const model = io.loadModel(file, { winograd: true });
    const conv = model.getSubmodule('m1');
    const bound = conv._scratchBound(shape);
    const n = shape.reduce((a, b) => a * b, 1);
    const x = tensor(
      Float32Array.from({ length: n }, (_, i) => Math.sin(i)),
      shape,
    );
    const { output: y, layers } = model.profile(x);
    expect(y.shape).toEqual([shape[0], cout, ...shape.slice(2)]);
    const layer = layers.find((l) => l.name === 'm1');
    expect(conv.lastScratchBytes()).toBeGreaterThan(0);
    expect(conv.lastScratchBytes()).toBeLessThanOrEqual(bound);
    // The padded input alone is 2 bytes per padded element (int16), more than the old 1-byte charge.
    const padded = cin * shape.slice(2).reduce((a, d) => a * (d + (k === 1 ? 0 : 2)), 1);
    expect(bound).toBeGreaterThanOrEqual(2 * padded);
    // The heap at the conv: what was there before it, its output and its scratch
    // (plus the allocator's headers and the output tensor's metadata: under 4 KiB).
    expect(layer.heapBytes).toBeLessThanOrEqual(layers[0].heapBytes + bound + layer.outputBytes + 4096);
    model.dispose();
  });

  test('a depthwise conv whose int16, tile-padded input exceeds maxActivationBytes is refused (1 byte per element was charged)', () => {
    // 2 channels, 160^3 padded: 8.4 MB at 1 byte per element; the core pads
    // the channels to its tile (8 on wasmsimd) and stores int16: 16x that.
    const shape = [1, 2, 158, 158, 158];
    const file = chainModel(shape, [quantize(), qconv(2, 2, 3, 2), { type: 'DeQuantize' }], weights(2, 1, 3));
    const old = 2 * 160 ** 3; // the old charge
    const e = loadError(file, { maxActivationBytes: 4 * old });
    expect(e?.message).toMatch(/node 'm1' would need (\d+) bytes .* over maxActivationBytes/);
    const needed = Number(e.message.match(/would need (\d+) bytes/)[1]);
    expect(needed).toBeGreaterThan(4 * old);
  });
});

describe('live bytes: what one forward holds at once', () => {
  const n = 1000; // 4,000 bytes per float value
  test('a chain of 8 float ReLUs holds two values at a time; 8 ReLUs all read by one cat hold all 8', () => {
    const limit = { maxLiveBytes: 3 * 4 * n };
    expect(loadError(chainModel([1, n], Array(8).fill(relu)), limit)).toBeNull();
    const nodes = [];
    for (let i = 0; i < 8; i++) nodes.push(node(`r${i}`, 'call_function', 'relu', [ref('x')]));
    nodes.push(node('c', 'call_function', 'cat', [nodes.map((m) => ref(m.name))], { dim: 0 }));
    nodes.push(output('c'));
    const fanOut = graphModel([1, n], {}, nodes);
    const e = loadError(fanOut, limit);
    expect(e?.message).toMatch(
      /node 'r2' would bring what one forward holds at once to 16000 bytes \(12000 held for later nodes, its output and scratch 4000\), over maxLiveBytes 12000/,
    );
    // Raised, it loads and runs, PyTorch's result (8 copies of relu(x)).
    const model = io.loadModel(fanOut, { maxLiveBytes: 64 * 4 * n });
    const x = tensor(
      Float32Array.from({ length: n }, (_, i) => i - 500),
      [1, n],
    );
    const y = model.forward(x);
    expect(y.shape).toEqual([8, n]);
    expect(y.data[7 * n + 10]).toBe(0);
    expect(y.data[7 * n + 900]).toBe(400);
    // forward() charges the real input: a larger one is refused before it runs.
    const big = tensor(new Float32Array(16 * n), [16, n]);
    expect(() => model.forward(big)).toThrow(/over maxLiveBytes 256000/);
    model.dispose();
  });

  test('maxLiveBytes is checked like the other limits', () => {
    const bytes = chainModel([1, 4], [relu]);
    expect(loadError(bytes, { maxLiveBytes: 0 })?.message).toMatch(/maxLiveBytes must be > 0/);
    expect(loadError(bytes, { maxLiveBytes: '1' })).toBeInstanceOf(TypeError);
    expect(loadError(bytes, { maxLiveBytes: Number.POSITIVE_INFINITY })).toBeNull();
  });

  test('a float graph gives the same values with its intermediates dropped after their last use', () => {
    // Run twice, the same result: each value is read before it is dropped.
    const model = io.loadModel(chainModel([2, 3], [relu, { type: 'ReLU6' }, relu]));
    const x = tensor([-1, 0.5, 7, -0, 3, 9], [2, 3]);
    const a = model.forward(x);
    const b = model.forward(x);
    expect(Array.from(a.data)).toEqual([0, 0.5, 6, -0, 3, 6]);
    expect(Array.from(b.data)).toEqual(Array.from(a.data));
    model.dispose();
    expect(new nn.ReLU().forward(x).shape).toEqual([2, 3]);
  });
});
