// quantization.ns on qwasm's own modules (the JS eager flow; the goldens
// against PyTorch's numeric suite are golden-numeric-suite.test.mjs, on
// exported models): PyTorch's keys and pairing for a fused conv, a linear
// layer and a FloatFunctional; numbers that agree with computeSqnr on the
// tensors themselves; every module put back as it was, and nothing leaked.
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, quantization, tensor } = qwasm;
const { ns } = quantization;

beforeAll(() => qwasm.init());

class Net extends nn.Module {
  constructor(width = 4) {
    super();
    this.quant = new quantization.QuantStub();
    this.conv = new nn.Conv3d(2, width, 1);
    this.bn = new nn.BatchNorm3d(width);
    this.relu = new nn.ReLU();
    this.head = new nn.Sequential(new nn.Flatten(), new nn.Linear(width * 8, 3));
    this.skip = new nn.quantized.FloatFunctional();
    this.dequant = new quantization.DeQuantStub();
  }

  forward(x) {
    const y = this.head.forward(this.relu.forward(this.bn.forward(this.conv.forward(this.quant.forward(x)))));
    return this.dequant.forward(this.skip.add(y, y));
  }
}

const input = (seed) =>
  tensor(
    Float32Array.from({ length: 2 * 2 * 8 }, (_, i) => Math.sin(i * 0.37 + seed) * 2),
    [2, 2, 2, 2, 2],
  );

// The same float model twice (convert works in place): fused, the second one's parameters copied from the first.
function models() {
  const build = () => {
    const m = new Net().eval();
    quantization.fuseModules(m, ['conv', 'bn', 'relu']);
    m.qconfig = quantization.getDefaultQConfig('fbgemm');
    return m;
  };
  const f = build();
  const q = build();
  const copy = (p) => ({ data: Float32Array.from(p.data), shape: [...p.shape] });
  for (const [from, to] of [
    [f.conv[0], q.conv[0]],
    [f.head[1], q.head[1]],
  ]) {
    to.weight = copy(from.weight);
    to.bias = copy(from.bias);
  }
  quantization.prepare(q);
  for (let s = 0; s < 3; s++) q.forward(input(s));
  quantization.convert(q);
  return { f, q };
}

test("compareWeights pairs PyTorch's keys: the fused conv's weight with conv.0.weight, the linear's packed params", () => {
  const { f, q } = models();
  const heap = qwasm.heapInUse();
  const got = ns.compareWeights(f, q);
  expect(Object.entries(got).map(([k, v]) => [k, v.floatKey])).toEqual([
    ['conv.weight', 'conv.0.weight'],
    ['head.1._packed_params._packed_params', 'head.1.weight'],
  ]);
  // The numbers are computeSqnr's on the tensors themselves.
  const w = q.conv.weight();
  const floatWeight = { data: f.conv[0].weight.data, shape: [...f.conv[0].weight.shape] };
  expect(got['conv.weight'].sqnr).toBe(ns.computeSqnr(floatWeight, w));
  expect(got['conv.weight'].quantized.data).toEqual(w.dequantize().data);
  w.dispose();
  expect(got['conv.weight'].perChannel.sqnr.length).toBe(4);
  expect(got['head.1._packed_params._packed_params'].perChannel.maxAbsError.length).toBe(3);
  expect(Math.max(...got['conv.weight'].perChannel.maxAbsError)).toBe(got['conv.weight'].maxAbsError);
  expect(qwasm.heapInUse()).toBe(heap);
  f.dispose();
  q.dispose();
});

test('compareModelOutputs logs the stub, the fused conv, the linear layer and the FloatFunctional, and restores them', () => {
  const { f, q } = models();
  const x = input(7);
  qwasm.tidy(() => {
    // A first run allocates what the layers keep (the float ones pack their weights in wasm memory).
    f.forward(x);
    q.forward(x);
  });
  const heap = qwasm.heapInUse();
  const got = ns.compareModelOutputs(f, q, x);
  // A float DeQuantStub is not logged (as PyTorch's prepare gives it no observer), so dequant has no pair.
  expect(Object.entries(got).map(([k, v]) => [k, v.floatKey])).toEqual([
    ['quant.stats', 'quant.stats'],
    ['conv.stats', 'conv.stats'],
    ['head.1.stats', 'head.1.stats'],
    ['skip.stats', 'skip.stats'],
  ]);
  // The stub's float output is x; its quantized one x quantized with the stub's qparams.
  const qx = qwasm.quantizePerTensor(x, q.quant.scale, q.quant.zeroPoint, 'quint8');
  expect(got['quant.stats'].float.data).toEqual(x.data);
  expect(got['quant.stats'].quantized.data).toEqual(qx.dequantize().data);
  expect(got['quant.stats'].sqnr).toBe(ns.computeSqnr(x, qx));
  qx.dispose();
  for (const v of Object.values(got)) expect(v.offByMoreThanOneStep).toBeGreaterThanOrEqual(0);
  // Every logged module runs its own forward again (nothing left patched), and the models still run.
  for (const [, m] of [...f.namedModules(), ...q.namedModules()]) {
    expect(Object.getOwnPropertyNames(m).filter((p) => p === 'forward' || p === 'add')).toEqual([]);
  }
  expect(qwasm.heapInUse()).toBe(heap);
  f.dispose();
  q.dispose();
});

test('models that are not a float model and its quantized twin are refused, naming the first pair that differs', () => {
  const { f, q } = models();
  // The same network at another width (as a 1/8-width float r3d_18 against the full-size int8 one).
  const wide = new Net(6).eval();
  quantization.fuseModules(wide, ['conv', 'bn', 'relu']);
  const x = input(3);
  expect(() => ns.compareModelOutputs(wide, q, x)).toThrow(
    new RangeError(
      "quantization.ns.compareModelOutputs(floatModel, quantizedModel, x): the models do not match: 'conv.stats' gives [2, 4, 2, 2, 2] and its float match 'conv.stats' gives [2, 6, 2, 2, 2]; pass a float model and its own quantized twin",
    ),
  );
  expect(() => ns.compareWeights(wide, q)).toThrow(
    new RangeError(
      "quantization.ns.compareWeights(floatModel, quantizedModel): the models do not match: 'conv.weight' [4, 2, 1, 1, 1] and its float match 'conv.0.weight' [6, 2, 1, 1, 1] differ in size; pass a float model and its own quantized twin",
    ),
  );
  // A float model with no layer of the same name: nothing pairs.
  const other = new nn.Sequential(new nn.Flatten(), new nn.Linear(2 * 8, 3)).eval();
  expect(() => ns.compareModelOutputs(other, q, x)).toThrow(
    /: the models do not match: no layer of quantizedModel \(the first: 'quant\.stats'\) has a float match in floatModel/,
  );
  expect(() => ns.compareWeights(other, q)).toThrow(
    /: the models do not match: no weight of quantizedModel \(the first: 'conv\.weight'\) has a float match in floatModel/,
  );
  // The twin still compares.
  expect(Object.keys(ns.compareModelOutputs(f, q, x))).toHaveLength(4);
  for (const m of [f, q, wide, other]) m.dispose();
});

test('computeSqnr is 20 log10(|x| / |x - y|), Infinity for equal tensors; errors name the call', () => {
  expect(ns.computeSqnr(tensor([3, 4]), tensor([3, 4.5]))).toBeCloseTo(20, 12);
  expect(ns.computeSqnr(tensor([1, 2]), tensor([1, 2]))).toBe(Number.POSITIVE_INFINITY);
  expect(() => ns.computeSqnr(tensor([1, 2]), tensor([1, 2, 3]))).toThrow(
    new RangeError('quantization.ns.computeSqnr(x, y): shapes [2] and [3] differ'),
  );
  expect(() => ns.computeSqnr([1, 2], tensor([1, 2]))).toThrow(TypeError);
  expect(() => ns.compareWeights({}, new nn.Identity())).toThrow(
    /^quantization\.ns\.compareWeights\(floatModel, quantizedModel\): floatModel: expected an nn\.Module/,
  );
  // A quantized model in the float position (swapped, or twice) says so, and takes no memory.
  const { f, q } = models();
  const heap = qwasm.heapInUse();
  for (const [a, b] of [
    [q, f],
    [q, q],
  ]) {
    expect(() => ns.compareWeights(a, b)).toThrow(
      new TypeError(
        "quantization.ns.compareWeights(floatModel, quantizedModel): floatModel holds a quantized layer ('conv' is ConvReLU3d): pass the float model first and the quantized model second",
      ),
    );
  }
  expect(qwasm.heapInUse()).toBe(heap);
  f.dispose();
  q.dispose();
});
