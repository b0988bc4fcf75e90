// The exact integer Winograd option as users reach it: the modules'
// `winograd` option ('auto' | true | false), quantization.setWinograd's
// default, fromFloat's and io.loadModel's options; which path a call took
// (lastPath, profile) and what the transformed weights cost
// (winogradWeightBytes, weightBytes). Every path gives the same bytes; a call
// whose input zero point could overflow the transform takes the direct path.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { expectThrows, rng, seed } from '../util.mjs';

const { nn, quantization } = qwasm;
const SEED = seed();

beforeAll(() => qwasm.init());
afterEach(() => quantization.setWinograd('auto'));

// A quantized conv of `Cls` with random per-channel weights (seeded) and the given option.
function makeConv(Cls, cin, cout, kernel, options, next) {
  const m = new Cls(cin, cout, kernel, options);
  const k = m.kernelSize;
  const taps = k.reduce((a, b) => a * b, 1);
  const w = qwasm.makePerChannelQuantizedTensor(
    {
      data: Int8Array.from({ length: (cout * cin * taps) / m.groups }, () => Math.floor(next() * 256) - 128),
      shape: [cout, cin / m.groups, ...k],
    },
    Float64Array.from({ length: cout }, () => 0.001 + next() * 0.01),
    new Int32Array(cout),
    0,
    'qint8',
  );
  m.setWeightBias(
    w,
    Float32Array.from({ length: cout }, () => next() * 2 - 1),
  );
  w.dispose();
  m.scale = 0.05 * Math.sqrt(cin * taps);
  m.zeroPoint = 20;
  return m;
}

function input(shape, zeroPoint, next) {
  const n = shape.reduce((a, b) => a * b, 1);
  return qwasm.makePerTensorQuantizedTensor(
    { data: Uint8Array.from({ length: n }, () => Math.floor(next() * 256)), shape },
    0.02,
    zeroPoint,
    'quint8',
  );
}

const ints = (q) => Array.from(q.intRepr());

describe(`the winograd option gives the same bytes on every path (seed ${SEED})`, () => {
  const cases = [
    ['Conv3d 3x3x3', nn.quantized.Conv3d, 16, 24, 3, [1, 16, 5, 9, 10], { padding: 1 }],
    [
      'ConvReLU3d 1x3x3',
      nn.intrinsic.quantized.ConvReLU3d,
      20,
      18,
      [1, 3, 3],
      [2, 20, 3, 7, 8],
      { padding: [0, 1, 1] },
    ],
    ['Conv3d 3x1x1', nn.quantized.Conv3d, 96, 48, [3, 1, 1], [1, 96, 7, 3, 5], { padding: [1, 0, 0] }],
    ['Conv2d 3x3', nn.quantized.Conv2d, 16, 16, 3, [1, 16, 9, 11], { padding: 'same' }],
    ['Conv1d 3', nn.quantized.Conv1d, 64, 64, 3, [2, 64, 17], {}],
    // Dilated (MeshNet's 3x3x3, padding = dilation; mixed; padding not the
    // dilation; a size below the dilation): interleaved undilated tiles.
    [
      'ConvReLU3d 3x3x3 dilation 2',
      nn.intrinsic.quantized.ConvReLU3d,
      21,
      21,
      3,
      [1, 21, 7, 8, 9],
      { padding: 2, dilation: 2 },
    ],
    [
      'Conv3d 3x3x3 dilation [4, 1, 3]',
      nn.quantized.Conv3d,
      16,
      24,
      3,
      [1, 16, 9, 5, 7],
      { padding: [3, 1, 2], dilation: [4, 1, 3] },
    ],
    ['Conv3d 3x3x3 dilation 8', nn.quantized.Conv3d, 8, 16, 3, [1, 8, 5, 10, 17], { padding: 8, dilation: 8 }],
    ['Conv2d 3x3 dilation 3', nn.quantized.Conv2d, 16, 16, 3, [1, 16, 11, 13], { padding: 3, dilation: 3 }],
  ];
  test.each(cases)('%s', (name, Cls, cin, cout, kernel, shape, options) => {
    const heap = qwasm.heapInUse();
    const next = rng(SEED ^ cin);
    const x = input(shape, 117, next);
    const outs = {};
    const paths = {};
    const bytes = {};
    for (const mode of [true, false, 'auto']) {
      const m = makeConv(Cls, cin, cout, kernel, { ...options, winograd: mode }, rng(SEED));
      expect(m.winograd).toBe(mode);
      const y = m.forward(x);
      outs[mode] = ints(y);
      paths[mode] = m.lastPath();
      bytes[mode] = m.winogradWeightBytes();
      expect(m.packedWeightBytes()).toBeGreaterThan(bytes[mode]);
      y.dispose();
      m.dispose();
    }
    expect({ name, onEqualsOff: outs[true].join() === outs[false].join() }).toEqual({ name, onEqualsOff: true });
    expect(outs.auto).toEqual(outs[false]);
    expect({ on: paths.true, off: paths.false }).toEqual({ on: 'winograd', off: 'direct' });
    expect(bytes.true).toBeGreaterThan(0);
    expect(bytes.false).toBe(0);
    x.dispose();
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

test('auto keeps small layers direct and holds no transformed weights for them', () => {
  const next = rng(SEED);
  // 4 -> 4 channels: h = 2, below what pays.
  const m = makeConv(nn.quantized.Conv3d, 4, 4, 3, { padding: 1 }, next);
  expect(m.winograd).toBe('auto');
  const x = input([1, 4, 4, 4, 4], 100, next);
  m.forward(x).dispose();
  expect(m.lastPath()).toBe('direct');
  expect(m.winogradWeightBytes()).toBe(0);
  m.dispose();
  x.dispose();
});

test('a shape Winograd does not take (stride 2, kernel 5, groups) runs direct even when forced', () => {
  const next = rng(SEED);
  for (const [kernel, options] of [
    [3, { padding: 1, stride: 2 }],
    [5, { padding: 2 }],
    [3, { padding: 1, groups: 2 }],
    [3, { padding: 2, dilation: 2, stride: 2 }],
  ]) {
    const m = makeConv(nn.quantized.Conv3d, 8, 8, kernel, { ...options, winograd: true }, next);
    expect(m.lastPath()).toBe('');
    const x = input([1, 8, 6, 6, 6], 90, next);
    m.forward(x).dispose();
    expect({ options, path: m.lastPath(), bytes: m.winogradWeightBytes() }).toEqual({
      options,
      path: 'direct',
      bytes: 0,
    });
    m.dispose();
    x.dispose();
  }
});

// 200 input channels at the extremes (w = 127, zero point -128): with input
// zero point 0 the accumulators can reach 200 * 27 * 255 * 255 > 2^28, past
// what the 3x3x3 transform keeps exact, and the call goes direct; with zero
// point 128 they stay within it and the Winograd path runs. The bytes equal
// the direct module's either way.
test('the guard: a call whose input could overflow the transform runs direct, exactly', () => {
  const cin = 200;
  const make = (winograd) => {
    const m = new nn.quantized.Conv3d(cin, 8, 3, { padding: 1, bias: false, winograd });
    const w = qwasm.makePerTensorQuantizedTensor(
      { data: new Int8Array(8 * cin * 27).fill(127), shape: [8, cin, 3, 3, 3] },
      1,
      -128,
      'qint8',
    );
    m.setWeightBias(w, null);
    w.dispose();
    m.scale = (cin * 27 * 255 * 255) / 200;
    m.zeroPoint = 20;
    return m;
  };
  const fast = make(true);
  const direct = make(false);
  for (const [zp, path] of [
    [0, 'direct'],
    [128, 'winograd'],
  ]) {
    const x = qwasm.makePerTensorQuantizedTensor(
      { data: new Uint8Array(cin * 60).fill(255), shape: [1, cin, 3, 4, 5] },
      1,
      zp,
      'quint8',
    );
    const a = fast.forward(x);
    const b = direct.forward(x);
    expect({ zp, path: fast.lastPath() }).toEqual({ zp, path });
    expect(ints(a)).toEqual(ints(b));
    expect(new Set(ints(b)).size).toBeGreaterThan(1); // the borders differ: a real check
    a.dispose();
    b.dispose();
    x.dispose();
  }
  fast.dispose();
  direct.dispose();
});

// The diagnostics of where a Winograd call's time goes (timeWinogradPhases /
// lastWinogradPhaseMs): off by default, a split only for calls timed on the
// Winograd path, the same bytes timed or not.
test('timeWinogradPhases: a timed Winograd call reports its time per phase; other calls report null', () => {
  const next = rng(SEED);
  const m = makeConv(nn.quantized.Conv3d, 32, 32, 3, { padding: 1, winograd: true }, next);
  const x = input([1, 32, 6, 12, 12], 100, next);
  const untimed = m.forward(x);
  expect(m.lastPath()).toBe('winograd');
  expect(m.lastWinogradPhaseMs()).toBeNull(); // off by default
  m.timeWinogradPhases(true);
  expect(m.lastWinogradPhaseMs()).toBeNull(); // the last call was not timed
  const start = performance.now();
  const timed = m.forward(x);
  const wallMs = performance.now() - start;
  const ms = m.lastWinogradPhaseMs();
  expect(Object.keys(ms)).toEqual(['inputTransform', 'gemm', 'outputTransform']);
  for (const [phase, value] of Object.entries(ms)) expect([phase, value > 0]).toEqual([phase, true]);
  // Summed over threads: each thread's share fits in the call.
  const total = ms.inputTransform + ms.gemm + ms.outputTransform;
  expect(total).toBeLessThanOrEqual(wallMs * qwasm.getNumThreads());
  expect(ints(timed)).toEqual(ints(untimed));
  // Kept across setWeightBias (new packed weights).
  const w = m.weight();
  m.setWeightBias(w, m.bias());
  w.dispose();
  expect(m.lastWinogradPhaseMs()).toBeNull(); // nothing ran on the new weights yet
  m.forward(x).dispose();
  expect(m.lastWinogradPhaseMs()).not.toBeNull();
  m.timeWinogradPhases(false);
  m.forward(x).dispose();
  expect(m.lastWinogradPhaseMs()).toBeNull();
  // A direct call is not a Winograd split.
  const direct = makeConv(nn.quantized.Conv3d, 32, 32, 3, { padding: 1, winograd: false }, next);
  direct.timeWinogradPhases(true);
  direct.forward(x).dispose();
  expect(direct.lastPath()).toBe('direct');
  expect(direct.lastWinogradPhaseMs()).toBeNull();
  expectThrows(() => m.timeWinogradPhases(1), TypeError, 'Conv3d.timeWinogradPhases(on): on must be a boolean');
  for (const d of [untimed, timed, x, m, direct]) d.dispose();
  expectThrows(() => m.lastWinogradPhaseMs(), Error, 'lastWinogradPhaseMs()');
});

test('quantization.setWinograd sets the default of the modules built after it', () => {
  expect(quantization.getWinograd()).toBe('auto');
  quantization.setWinograd(false);
  const next = rng(SEED);
  const off = makeConv(nn.quantized.Conv3d, 16, 16, 3, { padding: 1 }, next);
  expect(off.winograd).toBe(false);
  expect(off.winogradWeightBytes()).toBe(0);
  const on = makeConv(nn.quantized.Conv3d, 16, 16, 3, { padding: 1, winograd: true }, next);
  expect(on.winograd).toBe(true); // the option wins over the default
  quantization.setWinograd(true);
  expect(quantization.getWinograd()).toBe(true);
  expect(off.winograd).toBe(false); // built before: unchanged
  // fromFloat and convert build through the constructor: the default reaches them.
  const f = new nn.Conv3d(16, 16, 3, { padding: 1 });
  const q = nn.quantized.Conv3d.fromFloat(f, { outputScale: 0.1, outputZeroPoint: 3 });
  expect(q.winograd).toBe(true);
  expect(q.winogradWeightBytes()).toBeGreaterThan(0);
  const q2 = nn.quantized.Conv3d.fromFloat(f, { outputScale: 0.1, outputZeroPoint: 3, winograd: false });
  expect(q2.winograd).toBe(false);
  for (const m of [off, on, f, q, q2]) m.dispose();
});

test('bad winograd values are TypeErrors that name the option', () => {
  const ctor = 'new nn.quantized.Conv3d(...)';
  for (const bad of ['on', 1, null, 'AUTO']) {
    expectThrows(() => new nn.quantized.Conv3d(2, 2, 3, { winograd: bad }), TypeError, `${ctor}: winograd must be`);
    expectThrows(() => quantization.setWinograd(bad), TypeError, 'quantization.setWinograd(mode): winograd must be');
    expectThrows(
      () => qwasm.io.loadModel(new Uint8Array(8), { winograd: bad }),
      TypeError,
      'io.loadModel(bytes): winograd must be',
    );
  }
  expectThrows(() => new nn.quantized.Linear(2, 2, { winograd: true }), TypeError, "unknown option 'winograd'");
  expectThrows(() => new nn.Conv3d(2, 2, 3, { winograd: true }), TypeError, "unknown option 'winograd'");
  const lin = new nn.Linear(2, 2);
  expectThrows(
    () => nn.quantized.Linear.fromFloat(lin, { outputScale: 1, outputZeroPoint: 0, winograd: true }),
    TypeError,
    'winograd applies to convolutions',
  );
  lin.dispose();
  expect(quantization.getWinograd()).toBe('auto');
});

describe('io.loadModel: the option, what the model holds, which path each layer took', () => {
  const bytes = readFileSync(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url));
  const clip = () => {
    const shape = [1, 3, 4, 16, 16];
    const next = rng(SEED);
    return { data: Float32Array.from({ length: 3 * 4 * 16 * 16 }, () => next() * 2 - 1), shape };
  };
  test.each([
    [true, 'winograd'],
    [false, 'direct'],
  ])('winograd: %s', (winograd, eligiblePath) => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(bytes, { winograd });
    const { packed, winograd: transformed } = model.weightBytes();
    expect(packed).toBeGreaterThan(transformed);
    if (winograd) expect(transformed).toBeGreaterThan(0);
    else expect(transformed).toBe(0);
    const prof = model.profile(clip());
    const convs = prof.layers.filter((l) => l.path !== null);
    const stride1x3 = (l) => {
      const m = model.getSubmodule(l.target);
      return m.kernelSize.length === 3 && m.stride.every((s) => s === 1) && m.kernelSize.every((k) => k === 3);
    };
    // r3d_18's stem (3x7x7, stride (1, 2, 2)) runs Winograd along D under winograd: true only.
    const stem = (l) => l.target === 'stem.0';
    expect(new Set(convs.filter(stride1x3).map((l) => l.path))).toEqual(new Set([eligiblePath]));
    expect(convs.filter(stem).map((l) => l.path)).toEqual([eligiblePath]);
    expect(new Set(convs.filter((l) => !stride1x3(l) && !stem(l)).map((l) => l.path))).toEqual(new Set(['direct']));
    expect(convs.filter(stride1x3).length).toBe(13); // r3d_18's stride-1 3x3x3 convs
    expect(prof.layers.find((l) => l.op === 'call_function').path).toBeNull(); // an add
    const out = model.forward(clip());
    expect(out.shape).toEqual([1, 400]);
    model.dispose();
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

// Issue 34's memory target: under 'auto', a model's packed weights take at
// most twice its int8 weights' bytes (the direct int16 packing for the layers
// off the Winograd path, the int8 taps on it), on r3d_18's architecture.
test("io.loadModel under 'auto': packed weights <= 2x the int8 weights, the same logits", () => {
  const bytes = readFileSync(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url));
  const heap = qwasm.heapInUse();
  const model = qwasm.io.loadModel(bytes);
  let int8 = 0;
  let winogradLayers = 0;
  for (const [, m] of model.namedModules()) {
    if (typeof m.packedWeightBytes !== 'function') continue;
    const w = m.weight();
    int8 += w.shape.reduce((a, b) => a * b, 1);
    w.dispose();
    if (typeof m.winogradWeightBytes === 'function' && m.winogradWeightBytes() > 0) winogradLayers++;
  }
  const { packed, winograd } = model.weightBytes();
  expect(winogradLayers).toBeGreaterThanOrEqual(1); // the layers the bound is about are on Winograd
  expect(winograd).toBeGreaterThan(0);
  expect(packed / int8).toBeLessThanOrEqual(2);
  // The same logits as the direct path's (which holds more: int16 for every layer).
  const direct = qwasm.io.loadModel(bytes, { winograd: false });
  expect(direct.weightBytes().packed).toBeGreaterThan(packed);
  const next = rng(SEED);
  const clip = { data: Float32Array.from({ length: 3 * 4 * 16 * 16 }, () => next() * 2 - 1), shape: [1, 3, 4, 16, 16] };
  expect(Array.from(model.forward(clip).data)).toEqual(Array.from(direct.forward(clip).data));
  model.dispose();
  direct.dispose();
  expect(qwasm.heapInUse()).toBe(heap);
});

// The numbers README.md and docs/winograd.md give: a layer on the Winograd
// path holds its weights as int8, half the direct int16 packing; a call's
// transformed weights take 4^nd / 3^nd of the direct packing (64/27 in 3-D)
// in scratch memory, a pass of at most 8 MiB; 'auto' takes the path from
// h = Cin * Cout / (Cin + Cout) = 8 (in 1-D for F(4, 3); F(2, 3) from 40
// there), and while the transformed weights take at most 64 MiB per layer.
test("the README's and docs' Winograd numbers hold", () => {
  const text = (path) => readFileSync(new URL(path, import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const readme = text('../../../README.md');
  const docs = text('../../../docs/winograd.md');
  expect(readme).toContain('at most 64 MiB per layer');
  expect(readme).toContain('transformed weights take 64/27 of the direct packing in 3-D');
  expect(readme).toContain('holds its weights as int8, half the direct packing');
  expect(docs).toContain('`h >= 8`, with one active dimension on F(4, 3) too; on F(2, 3) in one dimension, `h >= 40`');
  expect(docs).toContain('at most 64 MiB per layer');
  expect(docs).toContain('64/27 in 3-D, 16/9 in 2-D, 4/3 in 1-D');
  expect(docs).toContain('a pass of at most 8 MiB');
  // 64 -> 64 channels (no padding in any block), scales and bias (8 bytes per channel) aside.
  for (const [kernel, taps, ratio] of [
    [[3, 3, 3], 27, [64, 27]],
    [[1, 3, 3], 9, [16, 9]],
    [[3, 1, 1], 3, [4, 3]],
  ]) {
    const wino = new nn.quantized.Conv3d(64, 64, kernel, { winograd: true });
    const direct = new nn.quantized.Conv3d(64, 64, kernel, { winograd: false });
    const x = input([1, 64, 4, 4, 4], 128, rng(SEED));
    wino.forward(x).dispose();
    direct.forward(x).dispose();
    x.dispose();
    expect(wino.lastPath()).toBe('winograd');
    const int8 = wino.winogradWeightBytes();
    const held = { int8, all: wino.packedWeightBytes() - 64 * 8, direct: direct.packedWeightBytes() - 64 * 8 };
    expect({ kernel, held }).toEqual({ kernel, held: { int8: 64 * 64 * taps, all: int8, direct: 2 * int8 } });
    // The call's scratch holds the transformed weights (64 x 64 x 4^nd int16) and more.
    expect(wino.lastScratchBytes()).toBeGreaterThan((held.direct * ratio[0]) / ratio[1]);
    wino.dispose();
    direct.dispose();
  }
  // The policy's thresholds, each side of them.
  const packedUnderAuto = (cin, cout, kernel) => {
    const m = new nn.quantized.Conv3d(cin, cout, kernel);
    const held = m.winogradWeightBytes() > 0;
    m.dispose();
    return held;
  };
  expect({
    h8: packedUnderAuto(16, 16, 3),
    h7: packedUnderAuto(14, 14, 3),
    h8in2d: packedUnderAuto(16, 16, [1, 3, 3]),
    h8in1d: packedUnderAuto(16, 16, [3, 1, 1]),
    h7in1d: packedUnderAuto(14, 14, [3, 1, 1]),
    // 3x3x3, 720 -> 720: 63.3 MiB of transformed weights; 728 -> 728: 64.7 MiB.
    under64MiB: packedUnderAuto(720, 720, 3),
    over64MiB: packedUnderAuto(728, 728, 3),
  }).toEqual({ h8: true, h7: false, h8in2d: true, h8in1d: true, h7in1d: false, under64MiB: true, over64MiB: false });
});
