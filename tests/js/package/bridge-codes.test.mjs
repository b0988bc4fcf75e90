// The codes that cross the bridge, by meaning, not only by name. The tables
// of web/src/runtime/codes.mjs must equal bindings/codes.h's (the testing
// build returns them); then each code is sent or received across the bridge
// as the raw number, and what the core does with it is checked against what
// its name means (PyTorch's definitions, written here). A change of a code's
// meaning on either side, or of a name's, fails here.
import * as codes from '../../../web/src/runtime/codes.mjs';
import { checked, isOutOfMemory } from '../../../web/src/runtime/errors.mjs';
import { initTesting, M, qwasm, withCopy } from '../testing.mjs';
import { decode, firstDifference, goldenInput, loadGolden } from '../util.mjs';

beforeAll(() => initTesting());
afterEach(() => qwasm.quantization.setEngine('x86'));

// Every table codes.mjs exports, by the name bindings/codes.h's _bridgeCodes gives it.
const TABLES = {
  dtype: codes.DTYPE,
  qscheme: codes.QSCHEME,
  isa: codes.ISA,
  errorKind: codes.ERROR_KIND,
  engine: codes.ENGINE,
  backend: codes.BACKEND,
  winograd: codes.WINOGRAD,
  convPath: codes.CONV_PATH,
  memoryFormat: codes.MEMORY_FORMAT,
  poolKind: codes.POOL_KIND,
};

const code = (table, name) => {
  if (!table.has(name)) throw new Error(`no code named '${name}'`);
  return table.get(name);
};
const AUTO = code(codes.ISA, 'auto');
const QUINT8 = code(codes.DTYPE, 'quint8');
const QINT8 = code(codes.DTYPE, 'qint8');

const EPS = 2 ** -23; // torch.finfo(torch.float32).eps

// A pool over pairs along the last dimension (the bound value object).
const PAIRS = Object.freeze({
  dims: 3,
  kernelSize: [1, 1, 2],
  stride: [1, 1, 2],
  padding: [0, 0, 0],
  dilation: [1, 1, 1],
  ceilMode: false,
  countIncludePad: true,
  hasDivisor: false,
  divisorOverride: 0,
});

// A bound result: its value, or the error thrown as the JS layer throws it.
const ok = (result) => checked(result, 'test');

/** Quantizes `values` (float32) of `shape` with the raw dtype and ISA codes: the handle. */
function quantize(values, shape, scale, zeroPoint, dtype, isa = AUTO) {
  const x = Float32Array.from(values);
  return ok(
    withCopy(x, (address) => M()._quantizePerTensor(address, x.byteLength, shape, scale, zeroPoint, dtype, isa)),
  );
}

/** A 3-D conv geometry (the bound value object), stride and dilation 1, padding `pad`. */
function geometry(inChannels, outChannels, kernel, pad = 0) {
  return {
    dims: 3,
    inChannels,
    outChannels,
    groups: 1,
    kernel: [kernel, kernel, kernel],
    stride: [1, 1, 1],
    dilation: [1, 1, 1],
    padBegin: [pad, pad, pad],
    padEnd: [pad, pad, pad],
  };
}

/** A quantized conv packed with the raw engine and winograd codes; weights -1, 0, 1 (zero point 0). */
function makeQConv(g, { engine = code(codes.ENGINE, 'fbgemm'), winograd = code(codes.WINOGRAD, 'false') } = {}) {
  const n = g.outChannels * g.inChannels * g.kernel[0] * g.kernel[1] * g.kernel[2];
  const shape = [g.outChannels, g.inChannels, ...g.kernel];
  const w = quantize(
    Array.from({ length: n }, (_, i) => (i % 3) - 1),
    shape,
    1,
    0,
    QINT8,
  );
  try {
    return ok(M()._makeQConv(g, w, 0, 0, false, engine, winograd, false));
  } finally {
    w.delete();
  }
}

/** Runs a conv once on a quint8 input of `shape` with the raw ISA code: {path, kernel}. */
function runQConv(conv, shape, isa = AUTO) {
  const numel = shape.reduce((a, b) => a * b, 1);
  const x = quantize(
    Array.from({ length: numel }, (_, i) => (i % 7) * 0.1),
    shape,
    0.1,
    128,
    QUINT8,
  );
  try {
    ok(conv.forward(x, 0.5, 128, false, isa)).delete();
    return { path: codes.CONV_PATH_NAMES.get(conv.lastPath()), kernel: conv.lastKernel() };
  } finally {
    x.delete();
  }
}

test('codes.mjs holds exactly the tables of bindings/codes.h, each code once', () => {
  const cpp = M()._bridgeCodes();
  const exported = Object.entries(codes).filter(([name]) => !name.endsWith('_NAMES'));
  expect(new Set(Object.values(TABLES))).toEqual(new Set(exported.map(([, table]) => table)));
  expect(Object.keys(cpp).sort()).toEqual(Object.keys(TABLES).sort());
  for (const [name, table] of Object.entries(TABLES)) {
    expect([name, [...table]]).toEqual([name, cpp[name]]);
    expect([name, new Set(table.values()).size]).toEqual([name, table.size]);
  }
});

test('a number that is no code of its table is refused, whatever the table', () => {
  const x = quantize([1, 2, 3, 4], [1, 1, 1, 1, 4], 1, 0, QUINT8);
  const f = Float32Array.of(1, 2, 3, 4);
  const refusals = {
    dtype: (c) => withCopy(f, (a) => M()._quantizePerTensor(a, 16, [4], 1, 0, c, AUTO)),
    qscheme: (c) => M()._observerConfig(QUINT8, c, false, false, false, 0, 0, EPS, false, 0),
    isa: (c) => withCopy(f, (a) => M()._quantizePerTensor(a, 16, [4], 1, 0, QUINT8, c)),
    engine: (c) => M()._makeQConv(geometry(1, 1, 1), x, 0, 0, false, c, code(codes.WINOGRAD, 'false'), false),
    winograd: (c) => M()._makeQConv(geometry(1, 1, 1), x, 0, 0, false, code(codes.ENGINE, 'fbgemm'), c, false),
    memoryFormat: (c) => M()._withMemoryFormat(x, c),
    poolKind: (c) => withCopy(f, (a) => M()._fpool(a, 16, [1, 1, 1, 1, 4], c, PAIRS)),
  };
  try {
    for (const [name, call] of Object.entries(refusals)) {
      const table = TABLES[name];
      for (const bad of [-1, Math.max(...table.values()) + 1, 0.5]) {
        const r = call(bad);
        expect([name, bad, r.kind, r.error]).toEqual([
          name,
          bad,
          code(codes.ERROR_KIND, 'TypeError'),
          expect.stringMatching(new RegExp(`^unknown .* code ${bad}$`)),
        ]);
      }
    }
  } finally {
    x.delete();
  }
});

// --- dtypes: the range and element size the core gives each code -----------

const DTYPES = {
  quint8: { qmin: 0, qmax: 255, bits: 8, array: 'Uint8Array' },
  qint8: { qmin: -128, qmax: 127, bits: 8, array: 'Int8Array' },
  qint32: { qmin: -(2 ** 31), qmax: 2 ** 31 - 1, bits: 32, array: 'Int32Array' },
  quint4x2: { qmin: 0, qmax: 15, bits: 4, array: 'Uint8Array' },
};

// Elements from int_repr() storage: quint4x2 holds two per byte, the first in the low nibble.
const elements = (view, bits) => (bits === 4 ? [...view].flatMap((b) => [b & 15, b >> 4]) : [...view]);

test.each(Object.keys(DTYPES))(
  'dtype %s: its code quantizes to its range, in its element size, and comes back',
  (name) => {
    const want = DTYPES[name];
    const c = code(codes.DTYPE, name);
    // Far outside every range: the core clamps to the dtype's qmin and qmax.
    const h = quantize([-1e10, 1e10, 0, 0], [4], 1, 0, c);
    try {
      const view = h.intReprView();
      expect({
        dtype: codes.DTYPE_NAMES.get(h.dtypeCode()),
        array: view.constructor.name,
        nbytes: h.nbytes(),
        values: elements(view, want.bits),
      }).toEqual({ dtype: name, array: want.array, nbytes: (4 * want.bits) / 8, values: [want.qmin, want.qmax, 0, 0] });
    } finally {
      h.delete();
    }
  },
);

// --- qschemes: per channel or per tensor, and the zero point each computes ---

// An observer that saw [-1, 3], quint8: affine zero point 0 - round(-1 / (4 / 255)) = 64;
// symmetric (quant_min + quant_max + 1) / 2 = 128; float qparams -min / scale, unrounded.
const QSCHEMES = {
  per_tensor_affine: { perChannel: false, zeroPoint: 64 },
  per_channel_affine: { perChannel: true, zeroPoint: 64 },
  per_channel_affine_float_qparams: { perChannel: true, zeroPoint: Math.fround(1 / Math.fround(4 / 255)) },
  per_tensor_symmetric: { perChannel: false, zeroPoint: 128 },
  per_channel_symmetric: { perChannel: true, zeroPoint: 128 },
};
test.each(Object.keys(QSCHEMES))('qscheme %s: the observers it belongs to and the zero point it computes', (name) => {
  const c = code(codes.QSCHEME, name);
  const config = (perChannel) => M()._observerConfig(QUINT8, c, false, perChannel, false, 0, 0, EPS, false, 0);
  const accepted = [false, true].filter((perChannel) => !('error' in config(perChannel)));
  const qparams = ok(
    withCopy(Float32Array.of(-1, 3), (state) => M()._observerCalculateQParams(state, 1, QUINT8, c, 0, 255, false, EPS)),
  );
  expect({ accepted, zeroPoint: qparams.zeroPoint[0] }).toEqual({
    accepted: [QSCHEMES[name].perChannel],
    zeroPoint: QSCHEMES[name].zeroPoint,
  });
});

test('a tensor reports the qscheme it was quantized with', () => {
  const x = Float32Array.of(0.5, -1, 0.25, 2);
  const qp = Float64Array.of(0.1, 0.2, 3, 4); // two scales, then two zero points
  const perChannel = (floatZeroPoints) =>
    withCopy(x, (address) =>
      withCopy(qp, (qparams) =>
        M()._quantizePerChannel(address, 16, [2, 2], qparams, 2, 2, 0, floatZeroPoints, QUINT8, AUTO),
      ),
    );
  const handles = [quantize(x, [2, 2], 0.1, 3, QUINT8), ok(perChannel(false)), ok(perChannel(true))];
  expect(handles.map((h) => codes.QSCHEME_NAMES.get(h.qschemeCode()))).toEqual([
    'per_tensor_affine',
    'per_channel_affine',
    'per_channel_affine_float_qparams',
  ]);
  for (const h of handles) h.delete();
});

// --- ISAs: the kernel table each selects ---------------------------------------

test.each([...codes.ISA.keys()])('ISA %s selects its kernels', (name) => {
  const tables = M()._kernelNames();
  // The wasm always has SIMD128 (the loader refuses an engine without it): 'auto' is wasmsimd.
  const want = name === 'auto' ? 'wasmsimd' : name;
  expect(codes.ISA_NAMES.get(M()._bestIsa())).toBe('wasmsimd');
  const q = makeQConv(geometry(4, 8, 1));
  const { kernel } = runQConv(q, [1, 4, 2, 2, 2], code(codes.ISA, name));
  q.delete();
  const g = geometry(2, 8, 1);
  const w = new Float32Array(16).fill(0.5);
  const f = ok(withCopy(w, (address) => M()._makeFConv(g, address, 16, 0, 0, false)));
  const x = new Float32Array(2 * 8).fill(1);
  ok(withCopy(x, (address) => f.forward(address, x.byteLength, [1, 2, 2, 2, 2], false, code(codes.ISA, name))));
  f.releaseOutput();
  const fkernel = f.lastKernel();
  f.delete();
  expect({
    qconv: [tables.qconv.includes(kernel), kernel.split('_').includes(want)],
    fconv: [tables.fconv.includes(fkernel), fkernel.split('_').includes(want)],
  }).toEqual({ qconv: [true, true], fconv: [true, true] });
});

// --- Error kinds: the JS error each becomes ---------------------------------

test('each kind of failure the core reports becomes its JS error', () => {
  const thrown = {};
  for (const [status, result] of Object.entries(M()._errorOfEveryKind())) {
    try {
      checked(result, 'f()');
      thrown[status] = 'nothing thrown';
    } catch (e) {
      thrown[status] = { class: e.constructor, message: e.message, kind: e.kind, outOfMemory: isOutOfMemory(e) };
    }
  }
  const want = (cls, message, outOfMemory = false) => ({
    class: cls,
    message: `f(): ${message}`,
    kind: outOfMemory ? 'outOfMemory' : undefined,
    outOfMemory,
  });
  expect(thrown).toEqual({
    TypeError: want(TypeError, 'a TypeError'),
    RangeError: want(RangeError, 'a RangeError'),
    Error: want(Error, 'an Error'),
    OutOfMemory: want(RangeError, 'out of memory: an OutOfMemory', true),
  });
});

// --- Engines and backends: PyTorch's routing, and each backend's requantization

test("engine codes route as PyTorch does: 'x86' sends a symmetric conv to oneDNN, 'fbgemm' never", () => {
  const backend = (engine, g) => {
    const conv = makeQConv(g, { engine: code(codes.ENGINE, engine) });
    const name = codes.BACKEND_NAMES.get(conv.backend());
    conv.delete();
    return name;
  };
  const linear = { ...geometry(4, 8, 1), dims: 0 };
  expect({
    conv: [backend('x86', geometry(4, 8, 3)), backend('fbgemm', geometry(4, 8, 3))],
    linear: [backend('x86', linear), backend('fbgemm', linear)],
  }).toEqual({ conv: ['onednn', 'fbgemm'], linear: ['fbgemm', 'fbgemm'] });
});

// Cases whose outputs fall on .5, where the two requantizations differ:
// a layer named by its backend code must give that backend's integers.
const golden = loadGolden('requant_engines.json');
const ties = golden.cases.filter((c) => c.name.includes('ties') && c.groups === 1).slice(0, 3);

test.each(ties.map((c) => [c.name, c]))('backend codes: %s computes the named backend’s integers', (_, c) => {
  const { nn, quantization } = qwasm;
  const results = {};
  for (const engine of codes.ENGINE.keys()) {
    quantization.setEngine(engine);
    const Cls = c.relu ? nn.intrinsic.quantized[`ConvReLU${c.dims}d`] : nn.quantized[`Conv${c.dims}d`];
    const m = new Cls(c.in_channels, c.out_channels, c.kernel, { padding: c.padding, bias: c.bias !== null });
    const data = new Int8Array(decode(c.w_int).buffer);
    const scales = decode(c.w_scales);
    const w = c.per_channel
      ? qwasm.makePerChannelQuantizedTensor({ data, shape: c.w_int.shape }, scales, new Array(scales.length).fill(0), 0)
      : qwasm.makePerTensorQuantizedTensor({ data, shape: c.w_int.shape }, scales[0], 0);
    m.setWeightBias(w, c.bias === null ? null : decode(c.bias));
    m.scale = c.out_scale;
    m.zeroPoint = c.out_zero_point;
    const x = goldenInput(qwasm, c);
    const y = m.forward(x);
    // The integers of the engine PyTorch runs on the backend the layer names.
    const engineOfBackend = Object.keys(c.backends).find((e) => c.backends[e] === m.backend);
    const want = decode(c[`y_${engineOfBackend}`]);
    results[engine] = { backend: m.backend, difference: firstDifference(y.intRepr(), want) };
    for (const t of [w, x, y, m]) t.dispose();
  }
  expect(results).toEqual({
    fbgemm: { backend: 'fbgemm', difference: -1 },
    x86: { backend: 'onednn', difference: -1 },
  });
  // The two backends' integers differ on this case, so a swapped code cannot pass.
  expect(firstDifference(decode(c.y_x86), decode(c.y_fbgemm))).not.toBe(-1);
});

// --- Winograd modes and conv paths: what the core packs and runs -------------

test('winograd codes: false never packs, auto packs where it pays, true wherever the shape allows', () => {
  const packed = (mode, channels) => {
    const conv = makeQConv(geometry(channels, channels, 3), { winograd: code(codes.WINOGRAD, mode) });
    const bytes = conv.winogradBytes();
    conv.delete();
    return bytes > 0;
  };
  // 4 -> 4 channels is below 'auto''s threshold (conv_winograd.cpp); 16 -> 16 is above it.
  expect({
    false: [packed('false', 4), packed('false', 16)],
    auto: [packed('auto', 4), packed('auto', 16)],
    true: [packed('true', 4), packed('true', 16)],
  }).toEqual({ false: [false, false], auto: [false, true], true: [true, true] });
});

test('conv path codes name the path the kernels ran: none yet, direct, Winograd', () => {
  const tables = M()._kernelNames();
  const table = (kernel) => ['qconv', 'qgemm'].find((t) => tables[t].includes(kernel));
  const runs = {};
  for (const mode of ['false', 'auto', 'true']) {
    const conv = makeQConv(geometry(16, 16, 3), { winograd: code(codes.WINOGRAD, mode) });
    const before = codes.CONV_PATH_NAMES.get(conv.lastPath());
    // One 2x2x2 output tile, then eight: 'auto' keeps a single tile on the direct path.
    const one = runQConv(conv, [1, 16, 4, 4, 4]);
    const eight = runQConv(conv, [1, 16, 6, 6, 6]);
    conv.delete();
    runs[mode] = [before, [one.path, table(one.kernel)], [eight.path, table(eight.kernel)]];
  }
  expect(runs).toEqual({
    false: ['', ['direct', 'qconv'], ['direct', 'qconv']],
    auto: ['', ['direct', 'qconv'], ['winograd', 'qgemm']],
    true: ['', ['winograd', 'qgemm'], ['winograd', 'qgemm']],
  });
});

// --- Memory formats: the strides each code gives -----------------------------

test.each([
  ['rank 4', [1, 2, 3, 4], { contiguous: [24, 12, 4, 1], channels_last: [24, 1, 8, 2] }],
  ['rank 5', [1, 2, 2, 3, 4], { contiguous: [48, 24, 12, 4, 1], channels_last: [48, 1, 24, 8, 2] }],
])('memory format codes, %s: the strides each gives, and is_contiguous in each', (_, shape, strides) => {
  const numel = shape.reduce((a, b) => a * b, 1);
  const q = quantize(new Array(numel).fill(1), shape, 1, 0, QUINT8);
  const got = {};
  for (const [name, c] of codes.MEMORY_FORMAT) {
    const h = ok(M()._withMemoryFormat(q, c));
    got[name] = {
      strides: h.strides(),
      contiguousIn: [...codes.MEMORY_FORMAT].filter(([, other]) => h.isContiguousIn(other)).map(([n]) => n),
    };
    h.delete();
  }
  q.delete();
  expect(got).toEqual({
    contiguous: { strides: strides.contiguous, contiguousIn: ['contiguous'] },
    channels_last: { strides: strides.channels_last, contiguousIn: ['channels_last'] },
  });
});

// --- Pool kinds: the pooling each code computes ------------------------------

test('pool kind codes: max takes the largest, avg the mean (quantized, float, adaptive float)', () => {
  const values = [1, 3, 3, 7];
  const shape = [1, 1, 1, 1, 4];
  const f = Float32Array.from(values);
  const q = quantize(values, shape, 1, 0, QUINT8);
  const got = {};
  for (const [name, c] of codes.POOL_KIND) {
    const y = ok(M()._qpool(q, c, PAIRS, AUTO));
    got[name] = {
      quantized: [...y.intReprView()],
      float: [...ok(withCopy(f, (a) => M()._fpool(a, 16, shape, c, PAIRS))).data],
      adaptive: [...ok(withCopy(f, (a) => M()._fadaptivePool(a, 16, shape, c, 3, [1, 1, 2]))).data],
    };
    y.delete();
  }
  q.delete();
  expect(got).toEqual({
    max: { quantized: [3, 7], float: [3, 7], adaptive: [3, 7] },
    avg: { quantized: [2, 5], float: [2, 5], adaptive: [2, 5] },
  });
});
