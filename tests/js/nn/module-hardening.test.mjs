// Module trees and messages a hostile or careless caller can reach: a module
// that holds its parent, a disposed module given new weights, numbers past
// every range, an observer's overflow, and errors from calls qwasm makes on
// the caller's behalf (which must not name those calls).
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, quantization, tensor } = qwasm;

beforeAll(() => qwasm.init());

class Block extends nn.Module {
  constructor() {
    super();
    this.conv = new nn.Conv3d(2, 2, 1);
  }
  forward(x) {
    return this.conv.forward(x);
  }
}

class Net extends nn.Module {
  constructor() {
    super();
    this.quant = new quantization.QuantStub();
    this.block = new Block();
    this.dequant = new quantization.DeQuantStub();
  }
  forward(x) {
    return this.dequant.forward(this.block.forward(this.quant.forward(x)));
  }
}

const clip = () =>
  tensor(
    Float32Array.from({ length: 2 * 8 }, (_, i) => Math.sin(i)),
    [1, 2, 2, 2, 2],
  );

describe('a module that holds its parent (this.block.owner = this)', () => {
  const cyclic = () => {
    const net = new Net().eval();
    net.block.owner = net;
    return net;
  };

  test('prepare, train, eval and namedModules: an Error naming the cycle path', () => {
    const net = cyclic();
    net.qconfig = quantization.getDefaultQConfig('x86');
    expect(() => quantization.prepare(net)).toThrow(
      /^quantization\.prepare\(model\): module cycle at path 'block\.owner': it holds a module above it \(the root\)/,
    );
    expect(() => net.train()).toThrow(/^Net\.train\(mode\): module cycle at path 'block\.owner'/);
    expect(() => net.namedModules()).toThrow(/^Net\.namedModules\(\): module cycle at path 'block\.owner'/);
  });

  test('convert: the same short Error, at once', () => {
    const net = new Net().eval();
    net.qconfig = quantization.getDefaultQConfig('x86');
    quantization.prepare(net);
    net.forward(clip());
    net.block.owner = net; // made after prepare
    let message = '';
    try {
      quantization.convert(net);
    } catch (e) {
      message = e.message;
    }
    expect(message).toMatch(/^quantization\.convert\(model\): module cycle at path 'block\.owner'/);
    expect(message.length).toBeLessThan(300);
    net.block.owner = undefined;
    net.dispose();
  });

  test('toString shows the back-reference; dispose frees every module once', () => {
    const net = cyclic();
    expect(String(net)).toContain('(owner): <cycle: a module above this one (Net)>');
    const qconv = new nn.quantized.Conv3d(2, 2, 1);
    net.block.q = qconv;
    net.dispose();
    expect(qconv.disposed).toBe(true);
  });
});

test('a disposed quantized module stays disposed: setWeightBias throws like forward', () => {
  const m = new nn.quantized.Conv3d(2, 2, 1);
  const w = m.weight();
  m.dispose();
  expect(() => m.setWeightBias(w, null)).toThrow(
    /^nn\.quantized\.Conv3d\.setWeightBias\(weight, bias\): this module has been disposed/,
  );
  expect(m.disposed).toBe(true);
  expect(() => m.forward(w)).toThrow(/disposed/);
  w.dispose();
});

test('a bias getter that disposes the module does not bring it back', () => {
  const m = new nn.quantized.Conv3d(2, 2, 1);
  const w = m.weight();
  const bias = {
    get data() {
      m.dispose();
      return new Float32Array(2);
    },
  };
  expect(() => m.setWeightBias(w, bias)).toThrow(
    /^nn\.quantized\.Conv3d\.setWeightBias\(weight, bias\): this module has been disposed/,
  );
  expect(m.disposed).toBe(true);
  expect(() => m.forward(w)).toThrow(/disposed/);
  expect(w.dequantize().data).toHaveLength(2 * 2); // the weight is untouched
  w.dispose();
  const lin = new nn.quantized.Linear(3, 2);
  const lw = lin.weight();
  expect(() =>
    lin.setWeightBias(lw, {
      get data() {
        lin.dispose();
        return new Float32Array(2);
      },
    }),
  ).toThrow(/Linear\.setWeightBias\(weight, bias\): this module has been disposed/);
  expect(lin.disposed).toBe(true);
  lw.dispose();
});

test('a float module or call given a QTensor says so and names dequantize()', () => {
  const q = qwasm.quantizePerTensor(tensor(new Float32Array(2 * 2 * 3), [1, 2, 2, 3]), 0.1, 0, 'quint8');
  for (const [call, run] of [
    ['nn.Conv2d.forward(x)', () => new nn.Conv2d(2, 2, 1).forward(q)],
    ['nn.Linear.forward(x)', () => new nn.Linear(3, 2).forward(q)],
    ['nn.BatchNorm2d.forward(x)', () => new nn.BatchNorm2d(2).eval().forward(q)],
    ['quantizePerTensor(x, scale, zeroPoint, dtype)', () => qwasm.quantizePerTensor(q, 0.1, 0, 'quint8')],
  ]) {
    let message = '';
    try {
      run();
    } catch (e) {
      expect(e).toBeInstanceOf(TypeError);
      message = e.message;
    }
    expect(message).toBe(
      `${call}: x must be a float tensor {data: Float32Array, shape: number[]}, got a QTensor: call x.dequantize() first for its float values`,
    );
  }
  q.dispose();
});

describe('numbers past every range report the real range', () => {
  test.each([
    [() => new nn.quantized.Conv3d(1, 1, 1e300), /kernelSize must be at most 2147483647, got 1e\+300/],
    [() => new nn.quantized.Conv3d(1, 1, 3, { stride: 1e300 }), /stride must be at most 2147483647, got 1e\+300/],
    [() => new nn.Conv2d(1, 1, 3, { stride: -1e300 }), /stride must be >= 1, got -1e\+300/],
    [() => new nn.Conv1d(1, 1, 3, { padding: 1e300 }), /padding must be at most 2147483647, got 1e\+300/],
    [() => new nn.quantized.Conv2d(1e300, 1, 3), /inChannels must be at most 2147483647, got 1e\+300/],
  ])('%#', (make, pattern) => {
    expect(make).toThrow(RangeError);
    expect(make).toThrow(pattern);
  });
});

test('a HistogramObserver whose range overflows says so (not "a moving average")', () => {
  const h = new quantization.HistogramObserver();
  h.observe(tensor([-3.4e38, 3.4e38]));
  let message = '';
  try {
    h.calculateQParams();
  } catch (e) {
    message = e.message;
  }
  expect(message).toMatch(/observed range \[-3\.4e\+38, 3\.4e\+38\] is wider than float32 can hold/);
  expect(message).not.toMatch(/moving average/);
});

test("convert's errors name the module, not the constructor convert called", () => {
  class ZeroScale {
    observe() {}
    calculateQParams() {
      return { scale: new Float32Array([0]), zeroPoint: new Int32Array([0]) };
    }
    get dtype() {
      return 'quint8';
    }
    get minVal() {
      return 0;
    }
  }
  const net = new Net().eval();
  net.qconfig = new quantization.QConfig({
    activation: () => new ZeroScale(),
    weight: () => new quantization.PerChannelMinMaxObserver({ dtype: 'qint8', qscheme: 'per_channel_symmetric' }),
  });
  quantization.prepare(net);
  net.forward(clip());
  let message = '';
  try {
    quantization.convert(net);
  } catch (e) {
    message = e.message;
  }
  expect(message).toMatch(/^quantization\.convert\(model\): quant: scale/);
  expect(message).not.toMatch(/new nn\./);
  net.dispose();
});

test('the README says which observers refuse and which drop +-Inf, and they do', async () => {
  const { readFileSync } = await import('node:fs');
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  expect(readme).toContain('`HistogramObserver` refuses NaN and drops ±Inf');
  expect(readme).toContain(
    'the min/max observers (`MinMaxObserver`, `MovingAverageMinMaxObserver` and their per-channel twins) refuse NaN and ±Inf',
  );
  const h = new quantization.HistogramObserver();
  h.observe(tensor([1, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2]));
  expect([h.minVal, h.maxVal]).toEqual([1, 2]);
  expect(() => h.observe(tensor([Number.NaN]))).toThrow(RangeError);
  for (const Obs of [
    quantization.MinMaxObserver,
    quantization.MovingAverageMinMaxObserver,
    quantization.PerChannelMinMaxObserver,
    quantization.MovingAveragePerChannelMinMaxObserver,
  ]) {
    expect(() => new Obs().observe(tensor([1, Number.POSITIVE_INFINITY], [1, 2]))).toThrow(RangeError);
  }
});
