// The element-wise activations in exported models (tests/golden/activations.json,
// from PyTorch 2.15; docs/numerics.md, "Element-wise activations"): float
// values (-0, NaN, +-Inf, kinks, ranges) bit for bit for the piecewise-linear
// ones and within the stated bound for the others; int8 by table
// (QuantizedLookup) in PT2E graphs and in an eager-quantized model (nnq
// activations), and in MONAI's own blocks (UNet's PReLU units, BasicUNet's
// and DynUNet's in-place LeakyReLU) through PT2E, bit for bit, with both ISAs.
import * as qwasm from '../../../web/src/index.node.mjs';
import { goldenFile, goldenTensor, headerOf, runGoldenModel, withGraph } from '../golden-models.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('activations.json');
const caseOf = (prefix) => golden.cases.find((c) => c.name.startsWith(`${prefix}:`));

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

const run = (c) => runGoldenModel(qwasm, c);

// float32 values in the order of their bit patterns: the ulp distance is the difference.
const ordered = (v) => {
  const b = new Int32Array(new Float32Array([v]).buffer)[0];
  return b >= 0 ? b : -(b & 0x7fffffff);
};
const ulps = (a, b) => Math.abs(ordered(a) - ordered(b));

// docs/numerics.md's bounds: within `ulp` of PyTorch's float32 result, or, where
// PyTorch's own steps cancel (GELU's 1 + tanh near -1) or pass through a
// subnormal (Mish's exp(x) for x < -87.3), within `absolute(x)`.
const BOUNDS = {
  LeakyReLU: null,
  PReLU: null,
  Hardsigmoid: null,
  Hardswish: null,
  LeakyReLU_neg: null,
  Sigmoid: { ulp: 2 },
  Tanh: { ulp: 1 },
  SiLU: { ulp: 2 },
  ELU: { ulp: 1 },
  ELU_alpha: { ulp: 1 },
  GELU: { ulp: 2, absolute: (x) => Math.abs(x) * 2 ** -23 },
  Softplus: { ulp: 2 },
  Softplus_beta: { ulp: 2 },
  Mish: { ulp: 2, absolute: (x) => (x < -87.3 ? Math.abs(x) * 2 ** -146 : 0) },
};

test('the golden file has the float, PT2E, tail, squeeze-excitation (module and inline), eager, MONAI and traced-function cases', () => {
  expect(golden.cases.map((c) => c.name.split(':')[0])).toEqual([
    'float',
    'pt2e',
    'pt2e_tail',
    'pt2e_int8',
    'se',
    'se_inline',
    'eager',
    'monai',
    ...Array(8).fill('fx'),
  ]);
  expect(Object.keys(BOUNDS).sort()).toEqual([...caseOf('float').functions].sort());
});

// The values outside the bound ([x, qwasm, PyTorch]); null: bit for bit (a NaN matches any NaN).
function outsideBound(got, ref, x, bound) {
  if (bound === null) {
    const i = firstBitDifference(got, ref, { anyNaN: true });
    return i === -1 ? [] : [[x[i], got[i], ref[i]]];
  }
  const outside = [];
  for (let i = 0; i < ref.length; i++) {
    if (Number.isNaN(got[i]) || Number.isNaN(ref[i])) {
      if (Number.isNaN(got[i]) !== Number.isNaN(ref[i])) outside.push([x[i], got[i], ref[i]]);
      continue;
    }
    const ok = ulps(got[i], ref[i]) <= bound.ulp || Math.abs(got[i] - ref[i]) <= (bound.absolute?.(x[i]) ?? 0);
    if (!ok) outside.push([x[i], got[i], ref[i]]);
  }
  return outside;
}

describe('float activations against PyTorch (-0, NaN, +-Inf, kinks, ranges)', () => {
  const c = caseOf('float');
  let y;
  let want;
  let x;
  beforeAll(() => {
    y = run(c).data;
    want = decode(c.y);
    x = decode(c.x);
  });
  const per = c.x.shape.reduce((a, b) => a * b, 1);
  test.each(c.functions.map((name, k) => [name, k]))('%s', (name, k) => {
    const got = y.subarray(k * per, (k + 1) * per);
    const ref = want.subarray(k * per, (k + 1) * per);
    expect(outsideBound(got, ref, x, BOUNDS[name])).toEqual([]);
  });
});

describe('traced functions and methods in float models (the eager flow)', () => {
  const fx = golden.cases.filter((c) => c.name.startsWith('fx:'));
  test('each function and method has its case', () => {
    expect(fx.map((c) => c.name.slice(4)).sort()).toEqual(
      ['hardsigmoid', 'hardswish', 'mish', 'sigmoid', 'sigmoid_method', 'silu', 'tanh', 'tanh_method'].sort(),
    );
  });
  test.each(fx.map((c) => [c.name, c]))('%s', (_, c) => {
    expect(outsideBound(run(c).data, decode(c.y), decode(c.x), BOUNDS[c.bound])).toEqual([]);
  });
});

describe.each(['wasmsimd', 'scalar'])('int8 by table (QuantizedLookup), %s kernels', (isa) => {
  test.each(
    ['pt2e', 'pt2e_tail', 'pt2e_int8', 'se', 'se_inline', 'eager', 'monai'].map((p) => [caseOf(p).name, caseOf(p)]),
  )('%s', (_, c) => {
    qwasm.setKernelIsa(isa);
    const y = run(c);
    expect({ shape: y.shape, firstBitDifference: firstBitDifference(y.data, decode(c.y)) }).toEqual({
      shape: c.y.shape,
      firstBitDifference: -1,
    });
  });
});

test("PyTorch's scalar tail path gives the vectorized path's integers on every measured entry (docs/numerics.md)", () => {
  const m = golden.tail_measurements;
  expect(Object.keys(m).length).toBe(12);
  for (const [name, r] of Object.entries(m)) {
    expect([name, r.entries, r.differ, r.largest_steps]).toEqual([name, 4096, 0, 0]);
  }
  // The eager model's quantized kernels (each module on the 256 integers of 4 channels, and on each alone).
  const eager = golden.eager_tail_measurements;
  expect(Object.keys(eager).sort()).toEqual([
    'ELU',
    'Hardsigmoid',
    'Hardswish',
    'LeakyReLU',
    'PReLU',
    'Sigmoid',
    'Tanh',
  ]);
  for (const [name, r] of Object.entries(eager)) {
    expect([name, r.entries, r.differ, r.largest_steps]).toEqual([name, 16384, 0, 0]);
  }
});

// The file's graph, edited: its module entries changed by `edit`, as a hostile file could.
const edited = (file, edit) => withGraph(goldenFile(file), (graph) => edit(graph.modules));

const lookupName = (modules) => Object.keys(modules).find((k) => modules[k].type === 'QuantizedLookup');

test('a traced sigmoid on a QTensor is refused at run time, naming the module form', async () => {
  const c = golden.cases.find((k) => k.name === 'fx: sigmoid');
  const model = qwasm.io.loadModel(goldenFile(c.file));
  const q = qwasm.quantizePerTensor({ data: new Float32Array(4), shape: [4] }, 0.1, 3, 'quint8');
  expect(() => model.forward(q)).toThrow(/sigmoid of a quantized tensor: qwasm runs it in int8 as a module/);
  q.dispose();
  model.dispose();
});

test('a lookup whose input qparams are not its input tensor’s is refused at run time, naming both', () => {
  const c = caseOf('pt2e');
  const bytes = edited(c.file, (modules) => {
    modules[lookupName(modules)].input_zero_point ^= 1;
  });
  const model = qwasm.io.loadModel(bytes);
  expect(() => model.forward(goldenTensor(c.x))).toThrow(/table was made for input qparams/);
  model.dispose();
});

test('a lookup table that names a tensor of the wrong shape or a bad scale is refused at load', () => {
  const c = caseOf('pt2e');
  expect(() =>
    qwasm.io.loadModel(
      edited(c.file, (modules) => {
        modules[lookupName(modules)].scale = -1;
      }),
    ),
  ).toThrow(/scale -1 is not a positive finite number/);
  expect(() =>
    qwasm.io.loadModel(
      edited(c.file, (modules) => {
        const conv = Object.values(modules).find((m) => m.type === 'QuantizedConv');
        modules[lookupName(modules)].table = conv.weight.ints;
      }),
    ),
  ).toThrow(/table must have shape \[channels, 256\]/);
});

test('a float GELU entry other than approximate="tanh" is refused at load', () => {
  const c = caseOf('float');
  expect(() =>
    qwasm.io.loadModel(
      edited(c.file, (modules) => {
        modules[Object.keys(modules).find((k) => modules[k].type === 'GELU')].approximate = 'none';
      }),
    ),
  ).toThrow(/approximate must be 'tanh'/);
});

test('a PReLU whose slopes hold a NaN is refused at load; one fed the wrong channel count is refused at run', () => {
  const c = caseOf('float');
  const bytes = goldenFile(c.file);
  const { n, header } = headerOf(bytes);
  const name = Object.keys(header).find((k) => k.endsWith('prelu.weight'));
  const [begin] = header[name].data_offsets;
  const poisoned = new Uint8Array(bytes);
  new DataView(poisoned.buffer).setFloat32(8 + n + begin + 4, Number.NaN, true);
  expect(() => qwasm.io.loadModel(poisoned)).toThrow(/weight must hold finite slopes/);

  const model = qwasm.io.loadModel(bytes);
  const x = decode(c.x);
  expect(() => model.forward({ data: x, shape: [4, 2, 288] })).toThrow(/4 slopes need x.shape\[1\] to be 4/);
  model.dispose();
});
