// Every public function of qwasm on small inputs, as named checks whose
// results are plain JSON (floats as the hex of their bytes, numbers as their
// exact decimal strings). The same module runs in Node.js (the expected
// results) and in each browser engine, in a page and in a module worker: the
// WebAssembly is the same, so every result must be equal bit for bit.
//
// Inputs come from mulberry32 (integer arithmetic and one exact division)
// scaled by powers of two, so that every engine builds the same floats: no
// Math.log / Math.sin here, whose last bits differ between engines.
import { mulberry32 } from '../../../demo/random.mjs';
import { loadStateDict, MODELS } from '../../models/three-models.mjs';

/** n floats in [lo, hi) from seed, identical in every engine. */
function uniform(seed, n, lo = -1, hi = 1) {
  const next = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = lo + (hi - lo) * next();
  return out;
}

const hex = (ta) =>
  Array.from(new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength), (b) => b.toString(16).padStart(2, '0')).join('');

/** Plain JSON for any result: typed arrays of floats as hex, numbers as exact strings, errors by name and message. */
export function canon(v) {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Float32Array || v instanceof Float64Array) return `${v.constructor.name}:${hex(v)}`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}:${Array.from(v).join(',')}`;
  if (Array.isArray(v)) return v.map(canon);
  if (v instanceof Error) return { error: v.name, message: v.message };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canon(x)]));
}

function attempt(fn) {
  try {
    return fn();
  } catch (e) {
    return e;
  }
}

/** The integers, qparams and dequantized floats of q, then q disposed. */
function describeQ(q) {
  const perChannel = q.qscheme() !== 'per_tensor_affine';
  const out = {
    shape: [...q.shape],
    dtype: q.dtype,
    qscheme: q.qscheme(),
    numel: q.numel(),
    ints: q.intRepr(),
    dequantized: q.dequantize().data,
    qparams: perChannel
      ? { axis: q.qPerChannelAxis(), scales: q.qPerChannelScales(), zeroPoints: q.qPerChannelZeroPoints() }
      : { scale: q.qScale(), zeroPoint: q.qZeroPoint() },
  };
  q.dispose();
  return out;
}

const DTYPES = ['quint8', 'qint8', 'qint32'];

function quantizeChecks(Q) {
  const x = Q.tensor(uniform(1, 2 * 3 * 4 * 5, -3, 3), [2, 3, 4, 5]);
  const specials = Q.tensor([0, -0, 1e-30, -1e-30, 1e30, -1e30, 0.5, 1.5, 2.5, -0.5, -2.5, 127.5, 128.5, 3.4e38]);
  return {
    'quantizePerTensor, every dtype': DTYPES.map((d) => describeQ(Q.quantizePerTensor(x, 0.0234375, 3, d))),
    'quantizePerTensor, ties, zeros and out-of-range values': DTYPES.map((d) =>
      describeQ(Q.quantizePerTensor(specials, 1, d === 'quint8' ? 128 : 0, d)),
    ),
    'quantizePerChannel, every axis and dtype': [0, 1, 2, 3].flatMap((axis) =>
      DTYPES.map((d) => {
        const n = x.shape[axis];
        const scales = Array.from(uniform(10 + axis, n, 0.01, 0.05));
        const zps = Array.from({ length: n }, (_, i) => (d === 'quint8' ? 100 + i : i - 2));
        return describeQ(Q.quantizePerChannel(x, scales, zps, axis, d));
      }),
    ),
    'quantizePerChannel, float qparams (quint8, quint4x2)': ['quint8', 'quint4x2'].map((d) =>
      describeQ(Q.quantizePerChannel(x, [0.03, 0.07, 0.011], new Float32Array([1.5, -0.25, 7]), 1, d)),
    ),
    'make*QuantizedTensor, dequantize(out), view': (() => {
      const ints = new Int8Array(Array.from({ length: 24 }, (_, i) => i * 11 - 128));
      const pt = Q.makePerTensorQuantizedTensor({ data: ints, shape: [2, 3, 4] }, 0.125, -3);
      const pc = Q.makePerChannelQuantizedTensor({ data: ints, shape: [2, 3, 4] }, [0.5, 0.25, 2], [1, 0, -1], 1);
      const out = new Float32Array(24);
      pc.dequantize(out);
      const v = pc.view([2, 3, 2, 2]);
      const viewed = { shape: [...v.shape], axis: v.qPerChannelAxis(), ints: v.intRepr() };
      v.dispose();
      const i32 = Q.makePerTensorQuantizedTensor(
        { data: new Int32Array([2147483647, -2147483648, 7]), shape: [3] },
        0.5,
        -7,
      );
      return { perTensor: describeQ(pt), out, viewed, perChannel: describeQ(pc), int32: describeQ(i32) };
    })(),
    'dequantize(q)': (() => {
      const q = Q.quantizePerTensor(x, 0.05, 0, 'qint8');
      const d = Q.dequantize(q).data;
      q.dispose();
      return d;
    })(),
  };
}

function observerChecks(Q) {
  const { quantization: O } = Q;
  const a = Q.tensor(uniform(20, 60, -2, 5), [3, 4, 5]);
  const b = Q.tensor(uniform(21, 60, -7, 1), [3, 4, 5]);
  const run = (obs) => {
    obs.observe(a);
    const first = obs.calculateQParams();
    obs.observe(b);
    return { first, second: obs.calculateQParams(), minVal: obs.minVal, maxVal: obs.maxVal };
  };
  return {
    MinMaxObserver: [
      {},
      { dtype: 'qint8', qscheme: 'per_tensor_symmetric' },
      { reduceRange: true },
      { dtype: 'qint32' },
      { quantMin: 0, quantMax: 15 },
    ].map((o) => run(new O.MinMaxObserver(o))),
    MovingAverageMinMaxObserver: [{}, { averagingConstant: 0.3, dtype: 'qint8' }].map((o) =>
      run(new O.MovingAverageMinMaxObserver(o)),
    ),
    PerChannelMinMaxObserver: [
      { chAxis: 1 },
      { chAxis: -1, dtype: 'qint8', qscheme: 'per_channel_symmetric' },
      { chAxis: 0, qscheme: 'per_channel_affine_float_qparams' },
    ].map((o) => run(new O.PerChannelMinMaxObserver(o))),
    MovingAveragePerChannelMinMaxObserver: [{ chAxis: 2, averagingConstant: 0.5 }].map((o) =>
      run(new O.MovingAveragePerChannelMinMaxObserver(o)),
    ),
    // Re-binning (the second batch's range is wider) and the L2 search.
    HistogramObserver: [{}, { bins: 256, reduceRange: true }, { dtype: 'qint8', qscheme: 'per_tensor_symmetric' }].map(
      (o) => {
        const h = new O.HistogramObserver(o);
        return { ...run(h), histogram: h.histogram };
      },
    ),
  };
}

/** A float module with weights and bias from `seed`. */
function withWeights(Q, m, seed) {
  m.weight = Q.tensor(uniform(seed, m.weight.data.length, -0.5, 0.5), [...m.weight.shape]);
  if (m.bias) m.bias = Q.tensor(uniform(seed + 1, m.bias.data.length, -0.1, 0.1), [...m.bias.shape]);
  return m;
}

function moduleChecks(Q) {
  const { nn } = Q;
  const cases = [
    ['Conv1d', () => withWeights(Q, new nn.Conv1d(3, 5, 3, { padding: 1 }), 30), [2, 3, 9]],
    ['Conv2d stride 2', () => withWeights(Q, new nn.Conv2d(4, 6, [3, 2], { stride: 2 }), 31), [1, 4, 7, 6]],
    ['Conv3d same', () => withWeights(Q, new nn.Conv3d(3, 8, 3, { padding: 'same' }), 32), [1, 3, 4, 5, 6]],
    [
      'Conv3d dilation 2, groups 2',
      () => withWeights(Q, new nn.Conv3d(4, 6, 3, { dilation: 2, padding: 2, groups: 2 }), 33),
      [1, 4, 5, 5, 5],
    ],
    ['Conv3d depthwise', () => withWeights(Q, new nn.Conv3d(8, 8, 3, { groups: 8, padding: 1 }), 34), [1, 8, 3, 6, 5]],
    ['Linear', () => withWeights(Q, new nn.Linear(19, 7), 35), [5, 19]],
  ];
  const out = {};
  for (const [name, make, shape] of cases) {
    const x = Q.tensor(
      uniform(
        40,
        shape.reduce((p, d) => p * d, 1),
        -1,
        2,
      ),
      shape,
    );
    const fl = make();
    const fused =
      name === 'Linear' ? new nn.intrinsic.LinearReLU(fl) : new nn.intrinsic[`ConvReLU${fl.kernelSize.length}d`](fl);
    const plainY = fl.forward(x);
    const fusedY = fused.forward(x);
    // PyTorch's eager flow: observers on the input and the fused float output, then fromFloat.
    const inObs = new Q.quantization.MinMaxObserver();
    const outObs = new Q.quantization.MinMaxObserver();
    outObs.observe(fused.forward(inObs.observe(x)));
    const plainObs = new Q.quantization.MinMaxObserver();
    plainObs.observe(plainY);
    const QCls = name === 'Linear' ? nn.quantized.Linear : nn.quantized[`Conv${fl.kernelSize.length}d`];
    const QFused =
      name === 'Linear'
        ? nn.intrinsic.quantized.LinearReLU
        : nn.intrinsic.quantized[`ConvReLU${fl.kernelSize.length}d`];
    const qm = QCls.fromFloat(fl, { activationObserver: plainObs });
    const qf = QFused.fromFloat(fused, { activationObserver: outObs });
    const perTensorWeights = QCls.fromFloat(fl, {
      outputScale: 0.03125,
      outputZeroPoint: 64,
      weightObserver: new Q.quantization.MinMaxObserver({ dtype: 'qint8', qscheme: 'per_tensor_symmetric' }),
    });
    const { scale, zeroPoint } = inObs.calculateQParams();
    const qx = Q.quantizePerTensor(x, scale, zeroPoint, 'quint8');
    const runs = {};
    for (const isa of ['wasmsimd', 'scalar']) {
      Q.setKernelIsa(isa);
      runs[isa] = [qm, qf, perTensorWeights].map((m) => describeQ(m.forward(qx)));
    }
    Q.setKernelIsa('auto');
    const w = qf.weight();
    out[name] = { float: plainY.data, fused: fusedY.data, int8: runs, weight: describeQ(w), bias: qf.bias() };
    for (const m of [qx, qm, qf, perTensorWeights, fused]) m.dispose();
  }
  return out;
}

// {dtype, shape, b64} of the goldens -> a typed array, in any engine.
const ARRAYS = { float32: Float32Array, uint8: Uint8Array, int8: Int8Array };
function decode(a) {
  const bin = atob(a.b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new ARRAYS[a.dtype](bytes.buffer);
}

/** The quantized ops on channels-last and contiguous QTensors: element-wise, cat, pools. */
function quantizedOpChecks(Q) {
  const { nn } = Q;
  const F = nn.quantized.functional;
  return Q.tidy(() => {
    const a = Q.quantizePerTensor(Q.tensor(uniform(60, 2 * 40 * 27), [2, 40, 3, 3, 3]), 0.015625, 131, 'quint8');
    const b = Q.quantizePerTensor(Q.tensor(uniform(61, 40), [1, 40, 1, 1, 1]), 0.0078125, 120, 'quint8');
    const cl = a.contiguous({ memoryFormat: 'channels_last_3d' });
    const runs = {};
    for (const isa of ['wasmsimd', 'scalar']) {
      Q.setKernelIsa(isa);
      runs[isa] = [
        F.add(a, b, 0.03125, 128),
        F.addRelu(cl, b, 0.03125, 128),
        F.mul(cl, a, 0.0625, 3),
        F.cat([cl.view([2, 40, 9, 3]), cl.view([2, 40, 9, 3])], 2, 0.02, 130),
        F.addScalar(cl, -3),
        F.hardtanh(a, -0.25, 0.5),
        new nn.AvgPool3d(2, { stride: 1, ceilMode: true }).forward(cl),
        new nn.MaxPool3d(2, { padding: 1 }).forward(a),
        new nn.AdaptiveAvgPool3d(1).forward(cl),
        new nn.AdaptiveAvgPool3d([2, 1, 3]).forward(a),
        new nn.AvgPool2d(2).forward(a.view([2, 40, 9, 3]).contiguous({ memoryFormat: 'channels_last' })),
      ].map((q) => ({ strides: q.stride(), ...describeQ(q) }));
    }
    Q.setKernelIsa('auto');
    return runs;
  });
}

/** The three 3D CNNs of tests/golden/models.json through the whole eager flow. */
function modelChecks(Q, golden) {
  const out = {};
  const tensorOf = (a) => ({ data: decode(a), shape: a.shape });
  for (const c of golden.cases) {
    const model = MODELS[c.name](Q).eval();
    loadStateDict(model, Object.fromEntries(Object.entries(c.state).map(([k, v]) => [k, tensorOf(v)])));
    Q.quantization.fuseModules(model, c.fuse);
    model.qconfig = Q.quantization.getDefaultQConfig('x86');
    Q.quantization.prepare(model);
    for (const x of c.calibration) model.forward(tensorOf(x));
    Q.quantization.convert(model);
    const y = Q.tidy(() => model.forward(tensorOf(c.x)));
    const want = decode(c.y);
    out[c.name] = {
      output: y.data,
      pytorchBits: y.data.length === want.length && hex(y.data) === hex(want),
      qparams: Object.keys(c.modules).map((path) => {
        const m = model.getSubmodule(path);
        return [path, m.scale, m.zeroPoint];
      }),
    };
    model.dispose();
  }
  return out;
}

function ioChecks(Q, fixtures) {
  const out = {};
  for (const [name, bytes] of Object.entries(fixtures)) {
    if (name.endsWith('.npy')) {
      const t = attempt(() => Q.io.loadNpy(bytes));
      out[name] = t instanceof Error ? t : { shape: t.shape, dtype: t.dtype, data: t.data };
    } else {
      const st = Q.io.loadSafetensors(bytes);
      out[name] = {
        tensors: st.tensors,
        metadata: st.metadata,
        values: st.tensors.map((t) => attempt(() => st.get(t.name).data)),
      };
    }
  }
  return out;
}

function errorChecks(Q) {
  const x = Q.tensor([1, 2, 3]);
  return [
    () => Q.quantizePerTensor(x, 0, 0, 'quint8'),
    () => Q.quantizePerTensor(x, 0.1, 300, 'quint8'),
    () => Q.quantizePerChannel(x, [1], [0], 1, 'qint8'),
    () => Q.quantizePerTensor(x, 0.1, 0, 'int8'),
    () => Q.tensor([1, 2], [3]),
    () => new Q.nn.quantized.Conv3d(2, 3, [0, 1, 1]),
    () => Q.io.loadNpy(new Uint8Array([1, 2, 3])),
  ].map((f) => attempt(f));
}

/**
 * Runs every check; returns { name: canonical result }. `fixtures` maps the
 * file names of tests/golden/fixtures to their bytes; `models` is
 * tests/golden/models.json, parsed.
 */
export function runLibraryChecks(Q, fixtures, models) {
  const heapBefore = Q.heapInUse();
  const results = {
    ...quantizeChecks(Q),
    ...observerChecks(Q),
    ...moduleChecks(Q),
    'quantized ops': quantizedOpChecks(Q),
    models: modelChecks(Q, models),
    io: ioChecks(Q, fixtures),
    errors: errorChecks(Q),
    kernelIsa: Q.kernelIsa(),
  };
  results['heap back where it was'] = Q.heapInUse() === heapBefore;
  return canon(results);
}

export const FIXTURES = [
  'activation_f64.npy',
  'big_endian_f4.npy',
  'fortran_f32.npy',
  'half_f16.npy',
  'int32.npy',
  'scalar_f32.npy',
  'weight_f32.npy',
  'model.safetensors',
];

/** Memory growth past 1 GiB: five 256 MiB tensors, a computation, then back. */
export function runGrowthCheck(Q) {
  const before = Q.heapInUse();
  const block = new Uint8Array(256 * 1024 * 1024).fill(7);
  const held = [];
  for (let i = 0; i < 5; i++) held.push(Q.makePerTensorQuantizedTensor({ data: block, shape: [block.length] }, 0.5, 1));
  const peak = Q.heapInUse();
  const q = Q.quantizePerTensor(Q.tensor([0.1, -0.2, 0.3]), 0.01, 128, 'quint8');
  const ints = Array.from(q.intRepr());
  q.dispose();
  const last = held[4].view([16, block.length / 16]);
  const tail = Array.from(last.intRepr().subarray(-3));
  last.dispose();
  for (const t of held) t.dispose();
  return { aboveOneGiB: peak - before >= 5 * 256 * 1024 * 1024, ints, tail, back: Q.heapInUse() === before };
}
