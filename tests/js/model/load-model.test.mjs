// io.loadModel on the export "zoo" (tests/golden/export_zoo.json: every node
// kind python/qwasm_export.py writes, quantized and float), then the loader
// as an attack surface: each malformed part of a file is a clear Error, and a
// seeded fuzzer (byte flips, truncations, header edits) never crashes, hangs
// or leaks.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, loadGolden, seed as pickSeed, rng } from '../util.mjs';

const golden = loadGolden('export_zoo.json');
const fileOf = (name) => new Uint8Array(readFileSync(new URL(`../../golden/${name}`, import.meta.url)));
const ZOO = fileOf('exported/zoo.qwasm.safetensors');
const tensorOf = (a) => ({ data: decode(a), shape: a.shape });

beforeAll(() => qwasm.init());
afterEach(() => qwasm.setKernelIsa('auto'));

describe('the export zoo against PyTorch', () => {
  test.each(['wasmsimd', 'scalar'])('quantized: every node kind, bit for bit (%s kernels)', (isa) => {
    qwasm.setKernelIsa(isa);
    const c = golden.cases[0];
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(fileOf(c.file));
    const y = model.forward(tensorOf(c.x));
    model.dispose();
    expect({ shape: y.shape, firstBitDifference: firstBitDifference(y.data, decode(c.y)) }).toEqual({
      shape: c.y.shape,
      firstBitDifference: -1,
    });
    expect(qwasm.heapInUse()).toBe(heap);
  });

  test('float: Conv, BatchNorm, ReLU, pools, add, flatten, Linear agree to float rounding', () => {
    const c = golden.cases[1];
    const model = qwasm.io.loadModel(fileOf(c.file));
    const y = model.forward(tensorOf(c.x));
    model.dispose();
    const want = decode(c.y);
    let worst = 0;
    for (let i = 0; i < want.length; i++)
      worst = Math.max(worst, Math.abs(y.data[i] - want[i]) / Math.max(1, Math.abs(want[i])));
    expect(y.shape).toEqual(c.y.shape);
    expect(worst).toBeLessThan(1e-5);
  });
});

// PyTorch's float arithmetic on the values where it has corners: each op
// (BatchNorm, ReLU, ReLU6, relu, the float pools, the shape ops, add) of a
// small float model on an input holding -0, NaN, +-Inf, subnormals and
// float32's extremes, bit for bit.
describe('-0, NaN and +-Inf through every float op of a model file', () => {
  const cases = golden.cases.filter((c) => c.name.startsWith('non-finite: '));
  test('the golden file has them', () => expect(cases.length).toBe(10));
  test.each(cases.map((c) => [c.name.slice('non-finite: '.length), c]))('%s', (_, c) => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(fileOf(c.file));
    const y = model.forward(tensorOf(c.x));
    model.dispose();
    const want = decode(c.y);
    const at = firstBitDifference(y.data, want, { anyNaN: true });
    expect({ shape: y.shape, firstBitDifference: at, got: y.data[at], want: want[at] }).toEqual({
      shape: c.y.shape,
      firstBitDifference: -1,
      got: undefined,
      want: undefined,
    });
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

// The float add as torch.add computes it: shapes that broadcast (each operand
// stretched; ranks that differ are graph-nodes.test.mjs's) and a tensor plus a
// number (converted to float32 first), through the corners above, bit for bit.
describe('float adds that broadcast or add a number, as PyTorch', () => {
  const cases = golden.cases.filter((c) => c.name.startsWith('float add: '));
  test('the golden file has them', () => expect(cases.length).toBe(2));
  test.each(cases.map((c) => [c.name.slice('float add: '.length), c]))('%s', (_, c) => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(fileOf(c.file));
    const planned = model.nodes.at(-1).output.shape;
    const y = model.forward(tensorOf(c.x));
    model.dispose();
    const want = decode(c.y);
    const at = firstBitDifference(y.data, want, { anyNaN: true });
    expect({ shape: y.shape, planned, firstBitDifference: at, got: y.data[at], want: want[at] }).toEqual({
      shape: c.y.shape,
      planned: c.y.shape,
      firstBitDifference: -1,
      got: undefined,
      want: undefined,
    });
    expect(want.some(Number.isNaN) && want.some((v) => v === Number.POSITIVE_INFINITY)).toBe(true);
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

// The file's parts, to edit and put back together.
function split(bytes) {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  return { header, data: bytes.subarray(8 + n) };
}
function join(header, data) {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}
// A model file (the zoo unless named) with its header (and so its graph) edited by f.
function edited(fileOrF, maybeF) {
  const [file, f] = maybeF === undefined ? [ZOO, fileOrF] : [fileOrF, maybeF];
  const { header, data } = split(file);
  const graph = JSON.parse(header.__metadata__.graph);
  f(header, graph);
  header.__metadata__.graph = JSON.stringify(graph);
  return join(header, data);
}
const firstConv = (g) => Object.values(g.modules).find((m) => m.type === 'QuantizedConv');

const BAD = [
  ['not bytes', () => 42, TypeError, /expected an ArrayBuffer or a typed array/],
  [
    'a URL instead of bytes',
    () => 'zoo.qwasm.safetensors',
    TypeError,
    /expected the file's bytes \(ArrayBuffer or typed array\), got the string 'zoo\.qwasm\.safetensors'; for a URL, Response, stream or Blob use await io\.loadModelAsync\(source\) or io\.loadModel\(source, \{ worker: true \}\)/,
  ],
  ['too short', () => new Uint8Array(3), Error, /not a \.safetensors file/],
  [
    'a safetensors file without the format',
    () => edited((h) => delete h.__metadata__.format),
    Error,
    /not a qwasm model/,
  ],
  [
    'a newer format version',
    () => edited((h) => (h.__metadata__.format_version = '3')),
    Error,
    /format version the string '3': this qwasm reads versions 1 and 2/,
  ],
  [
    'version 2 without the engine it needs',
    () => edited((h) => (h.__metadata__.format_version = '2')),
    Error,
    /the graph's engine must be 'x86' or 'fbgemm', got undefined/,
  ],
  [
    'version 2 with a conv whose backend is not one of the two',
    () =>
      edited((h, g) => {
        h.__metadata__.format_version = '2';
        g.engine = 'x86';
        for (const m of Object.values(g.modules)) if (m.type === 'QuantizedConv') m.backend = 'mkldnn';
      }),
    Error,
    /module 'conv1\.0'\.backend must be 'onednn', 'fbgemm' or 'fbgemm_exact', got the string 'mkldnn'/,
  ],
  [
    'a backend qwasm would not give: onednn for an asymmetric weight',
    () =>
      edited((h, g) => {
        h.__metadata__.format_version = '2';
        g.engine = 'x86';
        for (const m of Object.values(g.modules)) if (m.type === 'QuantizedConv') m.backend = 'onednn';
        const conv = firstConv(g);
        conv.weight = { ints: conv.weight.ints, qscheme: 'per_tensor_affine', scale: 0.01, zero_point: 3 };
      }),
    Error,
    /ran on onednn in PyTorch, and qwasm would run it on fbgemm/,
  ],
  [
    'a graph that is not JSON',
    () => {
      const { header, data } = split(ZOO);
      header.__metadata__.graph = '{"modules": ';
      return join(header, data);
    },
    Error,
    /the graph is not JSON/,
  ],
  [
    'an unknown module type',
    () => edited((_, g) => (firstConv(g).type = 'Transformer')),
    Error,
    /is not a module type/,
  ],
  [
    'a weight of the wrong shape',
    () => edited((_, g) => (firstConv(g).out_channels = 7)),
    Error,
    /has shape \[6\], expected \[7\]/,
  ],
  [
    'a missing tensor',
    () => edited((_, g) => (firstConv(g).weight.ints = 'nope')),
    Error,
    /the file has no tensor 'nope'/,
  ],
  [
    'a weight of the wrong dtype',
    () =>
      edited((_, g) => {
        const conv = firstConv(g);
        conv.weight.scales = conv.bias; // the F32 bias, which the module then does not read itself
        conv.bias = null;
      }),
    Error,
    /is F32, expected F64/,
  ],
  [
    'a huge kernel without its bytes',
    () => edited((_, g) => (firstConv(g).kernel_size = [1024, 1024, 1024])),
    Error,
    /expected \[6, 3, 1024, 1024, 1024\]/,
  ],
  [
    'a negative stride',
    () => edited((_, g) => (firstConv(g).stride = [1, -1, 1])),
    Error,
    /stride\[1\] must be an integer in 1\.\./,
  ],
  [
    'a zero point outside quint8',
    () => edited((_, g) => (firstConv(g).zero_point = 300)),
    Error,
    /zero_point must be an integer in 0\.\.255/,
  ],
  [
    'an argument that is a later node',
    () => edited((_, g) => (g.nodes[1].args = [{ node: g.nodes[3].name }])),
    Error,
    /is not an earlier node/,
  ],
  [
    'a node calling an undefined module',
    () => edited((_, g) => (g.nodes[1].target = 'ghost')),
    Error,
    /calls module 'ghost'/,
  ],
  [
    'an unknown function',
    () => edited((_, g) => (g.nodes.find((n) => n.op === 'call_function').target = 'os.system')),
    Error,
    /unknown function 'os\.system'/,
  ],
  [
    'a module path that shadows a method',
    () =>
      edited((_, g) => {
        g.modules.forward = g.modules.quant;
        delete g.modules.quant;
        for (const n of g.nodes) if (n.target === 'quant') n.target = 'forward';
      }),
    Error,
    /reserved name 'forward'/,
  ],
  [
    'a __proto__ path',
    () =>
      edited((_, g) => {
        g.modules['a.__proto__'] = { type: 'Identity' };
        g.nodes.splice(2, 0, {
          name: 'proto',
          op: 'call_module',
          target: 'a.__proto__',
          args: [{ node: 'quant' }],
          kwargs: {},
        });
      }),
    Error,
    /reserved name '__proto__'/,
  ],
  [
    'a tensor no module uses',
    () => {
      const { header, data } = split(ZOO);
      const [name, info] = Object.entries(header).find(([k]) => k !== '__metadata__');
      header[`${name}.extra`] = info;
      return join(header, data);
    },
    Error,
    /is not used by any module/,
  ],
  [
    'a second output',
    () =>
      edited((_, g) =>
        g.nodes.splice(2, 0, { name: 'o2', op: 'output', args: [{ node: g.nodes[0].name }], kwargs: {} }),
      ),
    Error,
    /only it, is the output/,
  ],
  ['a truncated file', () => ZOO.subarray(0, ZOO.length - 100), Error, /outside the \d+ data bytes/],
];

describe('io.loadModel refuses a malformed file with a clear error, and allocates nothing', () => {
  test.each(BAD)('%s', (name, make, Type, message) => {
    const heap = qwasm.heapInUse();
    let error;
    try {
      qwasm.io.loadModel(make()).dispose();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toMatch(/^io\.loadModel\(bytes\): /);
    expect(error.message).toMatch(message);
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

test('forward refuses a wrong input and disposes what the run made', () => {
  const model = qwasm.io.loadModel(ZOO);
  const heap = qwasm.heapInUse();
  expect(() => model.forward({ data: new Float32Array(3 * 8), shape: [1, 3, 2, 2, 2] })).toThrow(
    /GraphModule\.forward\(x\): node '.*': .*MaxPool3d|GraphModule\.forward\(x\): node/,
  );
  expect(() => model.forward('clip')).toThrow(/GraphModule\.forward\(x\): node 'quant'/);
  expect(() => model.forwardQuantized({ data: new Float32Array(8), shape: [8] })).toThrow(
    new TypeError('GraphModule.forwardQuantized(q): q must be a QTensor, got an object'),
  );
  expect(() => model.profile(null)).toThrow(/^GraphModule\.profile\(x\): node 'quant'/);
  expect(qwasm.heapInUse()).toBe(heap);
  model.dispose();
});

// count corrupted copies of `file` (byte flips in the header and the data,
// truncations, a hostile module attribute or node argument) each load or fail
// with an Error; none crashes, hangs or leaks. x: an input the file runs.
function fuzz(name, file, x, count) {
  const seed = pickSeed();
  console.log(`[load-model fuzz] ${name}: seed ${seed} (replay with QWASM_SEED=${seed})`);
  const r = rng(seed);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const headerEnd = 8 + Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const heap = qwasm.heapInUse();
  const outcomes = { loaded: 0, refused: 0, ran: 0 };
  const hostile = [0, -1, 2 ** 31, 2 ** 53, 1e308, Number.NaN, null, 'x', [], [1, 2], {}, true, [2 ** 31, 1, 1]];
  for (let i = 0; i < count; i++) {
    let bytes;
    const kind = i % 5;
    if (kind === 0) {
      bytes = file.slice(); // flip bytes in the header (JSON) region
      for (let k = 0; k < 1 + Math.floor(r() * 4); k++)
        bytes[8 + Math.floor(r() * (headerEnd - 8))] = Math.floor(r() * 256);
    } else if (kind === 1) {
      bytes = file.slice(); // flip bytes in the data (weights, scales: NaN, huge, negative)
      for (let k = 0; k < 1 + Math.floor(r() * 16); k++)
        bytes[headerEnd + Math.floor(r() * (file.length - headerEnd))] = Math.floor(r() * 256);
    } else if (kind === 2) {
      bytes = file.subarray(0, Math.floor(r() * file.length));
    } else if (kind === 3) {
      bytes = edited(file, (_, g) => {
        // a random module attribute set to a hostile value
        const m = pick(Object.values(g.modules));
        m[pick(Object.keys(m))] = pick(hostile);
      });
    } else {
      bytes = edited(file, (_, g) => {
        // a random argument of a random node (a reference, a list of them, a constant) set to a hostile value
        const n = pick(g.nodes.filter((nd) => nd.args.length > 0));
        n.args[Math.floor(r() * n.args.length)] = pick([...hostile, [{ node: 'x' }, 7], { node: n.name }]);
      });
    }
    let model;
    try {
      model = qwasm.io.loadModel(bytes);
      outcomes.loaded++;
    } catch (e) {
      expect(e).toBeInstanceOf(Error);
      expect(e.message).toMatch(/^io\.loadModel\(bytes\): /);
      outcomes.refused++;
      continue;
    }
    try {
      const y = model.forward(x);
      if (y instanceof qwasm.QTensor) y.dispose(); // an edited graph can end before its DeQuantStub
      outcomes.ran++;
    } catch (e) {
      expect(e).toBeInstanceOf(Error);
    } finally {
      model.dispose();
    }
  }
  expect(qwasm.heapInUse()).toBe(heap);
  expect(outcomes.refused).toBeGreaterThan(count / 4);
  expect(outcomes.loaded).toBeGreaterThan(count / 40);
}

test('fuzz: 400 corrupted zoo files load or fail with an Error; none crashes, hangs or leaks', () => {
  fuzz('zoo', ZOO, tensorOf(golden.cases[0].x), 400);
});

// PT2E graphs hold what the zoo does not: a Quantize per float value, dequantize
// methods between float ops, float convs of dequantized weights, a float cat.
test.each(['pt2e_small_cnn_xnnpack', 'pt2e_small_cnn_x86_inductor'])(
  'fuzz: 200 corrupted %s files load or fail with an Error; none crashes, hangs or leaks',
  (name) => {
    const x = { data: Float32Array.from({ length: 3 * 32 * 32 }, (_, i) => Math.sin(i)), shape: [1, 3, 32, 32] };
    fuzz(name, fileOf(`exported/${name}.qwasm.safetensors`), x, 200);
  },
);

// The normalisations (norms.json): float norms, the eager flow's quantized ones, a PT2E graph of both.
test.each([
  ['norms_float_0', [2, 4, 3, 5, 6]],
  ['norms_eager_0', [2, 2, 4, 6, 70]],
  ['norms_pt2e_3', [2, 3, 7, 9]],
])('fuzz: 100 corrupted %s files load or fail with an Error; none crashes, hangs or leaks', (name, shape) => {
  const n = shape.reduce((a, b) => a * b, 1);
  const x = { data: Float32Array.from({ length: n }, (_, i) => Math.sin(i)), shape };
  fuzz(name, fileOf(`exported/${name}.qwasm.safetensors`), x, 100);
});

test('profile(x) times every node and bounds the heap of one forward', () => {
  const c = golden.cases[0];
  const model = qwasm.io.loadModel(fileOf(c.file));
  const before = qwasm.heapInUse();
  const { output, layers, peakHeapBytes } = model.profile(tensorOf(c.x));
  expect(firstBitDifference(output.data, decode(c.y))).toBe(-1);
  expect(layers.map((l) => l.name)).toEqual(model.nodes.slice(1, -1).map((n) => n.name));
  expect(layers.every((l) => l.ms >= 0 && l.heapBytes > before && l.outputBytes > 0)).toBe(true);
  expect(peakHeapBytes).toBe(Math.max(before, ...layers.map((l) => l.heapBytes)));
  expect(qwasm.heapInUse()).toBe(before);
  model.dispose();
});

// A file of no tensors whose graph is `nodes` over `modules` (all tensor-free).
function graphFile(modules, nodes) {
  const graph = { format: 'qwasm-model', version: 1, modules, nodes };
  return join(
    { __metadata__: { format: 'qwasm-model', format_version: '1', graph: JSON.stringify(graph) } },
    new Uint8Array(0),
  );
}
const node = (name, op, target, args, kwargs = {}) => ({ name, op, target, args, kwargs });
const ref = (name) => ({ node: name });
const STUBS = {
  quant: { type: 'Quantize', scale: 0.1, zero_point: 3, dtype: 'quint8' },
  id_a: { type: 'Identity' },
  id_b: { type: 'Identity' },
};
const clip = { data: Float32Array.from({ length: 8 }, (_, i) => i / 10), shape: [1, 8] };

describe("outputs that alias their inputs are freed once, and never the caller's", () => {
  test('an unused Identity of a value another node still reads frees nothing early', () => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(
      graphFile(STUBS, [
        node('x', 'placeholder', 'x', []),
        node('q', 'call_module', 'quant', [ref('x')]),
        node('dead', 'call_module', 'id_a', [ref('q')]),
        node('out', 'call_module', 'id_b', [ref('q')]),
        node('output', 'output', 'output', [ref('out')]),
      ]),
    );
    const y = model.forward(clip);
    expect(Array.from(y.intRepr())).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    y.dispose();
    // The quantized path: the caller's q is neither disposed nor returned as itself.
    const q = qwasm.quantizePerTensor(qwasm.tensor(clip.data, clip.shape), 0.1, 3, 'quint8');
    const r = model.forwardQuantized(q);
    expect(r).not.toBe(q);
    r.dispose();
    expect(Array.from(q.intRepr())).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    q.dispose();
    model.dispose();
    expect(qwasm.heapInUse()).toBe(heap);
  });

  test('a module no node calls, or a tensor two modules share, is refused before anything is built', () => {
    expect(() =>
      qwasm.io.loadModel(
        graphFile(STUBS, [
          node('x', 'placeholder', 'x', []),
          node('q', 'call_module', 'quant', [ref('x')]),
          node('output', 'output', 'output', [ref('q')]),
        ]),
      ),
    ).toThrow(/^io\.loadModel\(bytes\): module 'id_a' is not called by any node \(2 uncalled\)/);
    const shared = edited((_, g) => {
      const convs = Object.values(g.modules).filter((m) => m.type === 'QuantizedConv');
      convs[1].bias = convs[0].bias;
    });
    expect(() => qwasm.io.loadModel(shared)).toThrow(/is already used by another module/);
  });

  test('a keyword argument the op would ignore (alpha) is refused', () => {
    const bytes = edited((_, g) => {
      g.nodes.find((n) => n.target === 'quantized.add_relu').kwargs.alpha = 2;
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/keyword argument 'alpha' is not supported here/);
  });

  test('a header nested past the stack is a clear error', () => {
    const { header, data } = split(ZOO);
    // A tensor entry whose dtype nests 20000 lists deep, then the real header.
    const json = `{"zz":{"dtype":${'['.repeat(20000)}1${']'.repeat(20000)}},${JSON.stringify(header).slice(1)}`;
    const encoded = new TextEncoder().encode(json);
    const out = new Uint8Array(8 + encoded.length + data.length);
    new DataView(out.buffer).setBigUint64(0, BigInt(encoded.length), true);
    out.set(encoded, 8);
    out.set(data, 8 + encoded.length);
    expect(() => qwasm.io.loadModel(out)).toThrow(/^io\.loadModel\(bytes\): malformed entry for tensor 'zz'/);
  });
});
