// quantization.prepare / convert as PyTorch's eager flow behaves: where the
// observers go (and how often a fused module's sees each output), QConfig
// inheritance and opting out with null, what convert swaps in, and the errors
// (each leaving the model untouched). The numbers themselves are checked
// against PyTorch in golden-models.test.mjs.
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, quantization, tensor, tidy } = qwasm;

beforeAll(() => qwasm.init());

class Net extends nn.Module {
  constructor() {
    super();
    this.quant = new quantization.QuantStub();
    this.conv = new nn.Conv3d(2, 4, 1);
    this.bn = new nn.BatchNorm3d(4);
    this.relu = new nn.ReLU();
    this.drop = new nn.Dropout();
    this.head = new nn.Sequential(new nn.Flatten(), new nn.Linear(4 * 8, 3));
    this.skip = new nn.quantized.FloatFunctional();
    this.dequant = new quantization.DeQuantStub();
  }

  forward(x) {
    let y = this.relu.forward(this.bn.forward(this.conv.forward(this.quant.forward(x))));
    y = this.drop.forward(y);
    y = this.head.forward(y);
    return this.dequant.forward(this.skip.add(y, y));
  }
}

const input = (seed) =>
  tensor(
    Float32Array.from({ length: 2 * 2 * 8 }, (_, i) => Math.sin(i * 0.37 + seed) * 2),
    [2, 2, 2, 2, 2],
  );

function fusedNet() {
  const m = new Net().eval();
  quantization.fuseModules(m, ['conv', 'bn', 'relu']);
  m.qconfig = quantization.getDefaultQConfig('x86');
  return m;
}

test('prepare puts observers on the stub, the fused conv, the linear layer and the FloatFunctional only', () => {
  const m = quantization.prepare(fusedNet());
  const observed = m
    .namedModules()
    .filter(([, mod]) => mod.activationPostProcess)
    .map(([path, mod]) => [path, mod.activationPostProcess.constructor.name]);
  expect(observed).toEqual([
    ['quant', 'HistogramObserver'],
    ['conv', 'HistogramObserver'],
    ['head.1', 'HistogramObserver'],
    ['skip', 'HistogramObserver'],
  ]);
  m.dispose();
});

test("a fused module's observer sees each output twice per forward (as PyTorch's hook and inner observer do)", () => {
  const m = new Net().eval();
  quantization.fuseModules(m, ['conv', 'bn', 'relu']);
  m.qconfig = new quantization.QConfig({
    activation: quantization.MovingAverageMinMaxObserver.withArgs({ averagingConstant: 0.5 }),
    weight: quantization.PerChannelMinMaxObserver.withArgs({ dtype: 'qint8', qscheme: 'per_channel_symmetric' }),
  });
  quantization.prepare(m);
  const seen = [];
  const obs = m.conv.activationPostProcess;
  const observe = obs.observe.bind(obs);
  obs.observe = (y) => {
    seen.push(y.data.length);
    return observe(y);
  };
  m.forward(input(0));
  expect(seen).toEqual([64, 64]); // [2, 4, 2, 2, 2]: once in the fused forward, once in the hook
  m.dispose();
});

test('a null qconfig keeps a subtree float; its modules are not swapped', () => {
  const m = fusedNet();
  m.head.qconfig = null;
  quantization.prepare(m);
  expect(m.head[1].activationPostProcess).toBeUndefined();
  for (let s = 0; s < 3; s++) m.forward(input(s));
  quantization.convert(m);
  expect(m.head[1].constructor.name).toBe('Linear');
  expect(m.head[1]).toBeInstanceOf(nn.Linear);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.quantized.ConvReLU3d);
  m.dispose();
});

test('convert swaps in the quantized twins with calibrated qparams, and the model runs on QTensors', () => {
  const heap = qwasm.heapInUse();
  const m = quantization.prepare(fusedNet());
  for (let s = 0; s < 4; s++) m.forward(input(s));
  const expected = m.conv.activationPostProcess.calculateQParams();
  quantization.convert(m);
  expect([m.quant, m.conv, m.head[1], m.skip, m.dequant].map((x) => x.constructor.name)).toEqual([
    'Quantize',
    'ConvReLU3d',
    'Linear',
    'QFunctional',
    'DeQuantize',
  ]);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.quantized.ConvReLU3d);
  expect(m.head[1]).toBeInstanceOf(nn.quantized.Linear);
  expect([m.conv.scale, m.conv.zeroPoint]).toEqual([expected.scale, expected.zeroPoint]);
  const y = tidy(() => m.forward(input(9)));
  expect(y.shape).toEqual([2, 3]);
  expect(Array.from(y.data).every(Number.isFinite)).toBe(true);
  m.dispose();
  expect(qwasm.heapInUse()).toBe(heap);
});

test('an unfused BatchNorm under a QConfig is an error naming fuseModules, and the model is left as it was', () => {
  const m = new Net().eval();
  m.qconfig = quantization.getDefaultQConfig('x86');
  expect(() => quantization.prepare(m)).toThrow(/bn is a BatchNorm that is not fused.*fuseModules/);
  expect(m.namedModules().filter(([, mod]) => mod.activationPostProcess)).toEqual([]);
  m.bn.qconfig = null; // opting it out is allowed
  expect(() => quantization.prepare(m)).not.toThrow();
  m.dispose();
});

test('prepare twice, convert before prepare, and nothing to observe are errors', () => {
  const m = quantization.prepare(fusedNet());
  expect(() => quantization.prepare(m)).toThrow(/quant is already prepared/);
  const raw = fusedNet();
  expect(() => quantization.convert(raw)).toThrow(/was not prepared/);
  const bare = new Net().eval();
  quantization.fuseModules(bare, ['conv', 'bn', 'relu']);
  expect(() => quantization.prepare(bare)).toThrow(/no module got a QConfig/);
  for (const x of [m, raw, bare]) x.dispose();
});

test('a QConfig whose activation factory makes no observer is an error before anything is attached', () => {
  const m = new Net().eval();
  quantization.fuseModules(m, ['conv', 'bn', 'relu']);
  m.qconfig = new quantization.QConfig({ activation: () => ({}), weight: quantization.PerChannelMinMaxObserver });
  expect(() => quantization.prepare(m)).toThrow(/did not make an observer/);
  expect(m.namedModules().filter(([, mod]) => mod.activationPostProcess)).toEqual([]);
  m.dispose();
});

test('convert before any calibration names the observer that saw nothing, and leaves the model as it was', () => {
  const m = quantization.prepare(fusedNet());
  expect(() => quantization.convert(m)).toThrow(/quant's observer has seen no data.*model\.forward/);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.ConvReLU3d);
  m.forward(input(1));
  quantization.convert(m);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.quantized.ConvReLU3d);
  m.dispose();
});

test('a per-channel activation observer is an error at convert that says so, and leaves the model as it was', () => {
  const m = new Net().eval();
  quantization.fuseModules(m, ['conv', 'bn', 'relu']);
  m.qconfig = new quantization.QConfig({
    activation: quantization.PerChannelMinMaxObserver.withArgs({ chAxis: 1 }),
    weight: quantization.PerChannelMinMaxObserver.withArgs({ dtype: 'qint8', qscheme: 'per_channel_symmetric' }),
  });
  quantization.prepare(m);
  m.forward(input(1)); // calibrates: PyTorch too observes per channel, and fails at convert
  expect(() => quantization.convert(m)).toThrow(TypeError);
  expect(() => quantization.convert(m)).toThrow(
    "quantization.convert(model): quant's activation observer is a per-channel observer (PerChannelMinMaxObserver): a quantized activation has one scale and zero point, so the QConfig's activation must be a per-tensor observer (e.g. HistogramObserver or MinMaxObserver); per-channel observers are for weights",
  );
  expect(m.quant).toBeInstanceOf(quantization.QuantStub);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.ConvReLU3d);
  m.dispose();
});

test('an error during calibration names the module it came from', () => {
  const m = quantization.prepare(fusedNet());
  const wrongChannels = tensor(new Float32Array(2 * 3 * 8), [2, 3, 2, 2, 2]);
  expect(() => m.forward(wrongChannels)).toThrow(/^conv: /);
  m.dispose();
});

test('a FloatFunctional used only for scalar ops converts (its observer sees nothing, as in PyTorch)', () => {
  class ScalarOnly extends nn.Module {
    constructor() {
      super();
      this.quant = new quantization.QuantStub();
      this.f = new nn.quantized.FloatFunctional();
      this.dequant = new quantization.DeQuantStub();
      this.qconfig = quantization.getDefaultQConfig('x86');
    }
    forward(x) {
      return this.dequant.forward(this.f.addScalar(this.quant.forward(x), 0.5));
    }
  }
  const m = quantization.prepare(new ScalarOnly().eval());
  m.forward(tensor([0.25, -1, 2]));
  quantization.convert(m);
  const y = m.forward(tensor([0.25, -1, 2]));
  expect(m.f).toBeInstanceOf(nn.quantized.QFunctional);
  // add_scalar moves the zero point: x + 0.5 to within the input's quantization step.
  const step = m.quant.scale;
  const errors = Array.from(y.data, (v, i) => Math.abs(v - ([0.25, -1, 2][i] + 0.5)) <= step / 2 + 1e-7);
  expect(errors).toEqual([true, true, true]);
  m.dispose();
});

test('a prepare that fails changes nothing that convert reads', () => {
  const m = quantization.prepare(fusedNet());
  m.forward(input(1));
  m.head.qconfig = null; // a second prepare fails (already prepared) before it could record this
  expect(() => quantization.prepare(m)).toThrow(/already prepared/);
  quantization.convert(m);
  expect(m.head[1]).toBeInstanceOf(nn.quantized.Linear);
  m.dispose();
});

test('a convert that fails part-way swaps nothing in and frees the twins it made', () => {
  const m = quantization.prepare(fusedNet());
  m.forward(input(1));
  // The Linear's twin fails (its weight observer factory throws) after the conv's was made.
  m.head[1].weight.data[0] = Number.NaN;
  const heap = qwasm.heapInUse();
  expect(() => quantization.convert(m)).toThrow(/head\.1/);
  expect(qwasm.heapInUse()).toBe(heap);
  expect(m.conv).toBeInstanceOf(nn.intrinsic.ConvReLU3d);
  expect(m.quant).toBeInstanceOf(quantization.QuantStub);
  m.dispose();
});
