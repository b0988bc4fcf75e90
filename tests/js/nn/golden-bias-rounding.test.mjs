// Where the float bias decides the integer (tests/golden/bias_rounding.json):
// quantized Conv1d / Conv2d / Conv3d / Linear (and ReLU) under 'fbgemm', per-
// tensor and per-channel weights, with and without a bias, on FBGEMM's GEMM
// and depthwise paths. Each bias was searched so that adding it as bias / atws,
// as acc + bias * rcp and as fma(bias, rcp, acc) give different outputs:
// only the way the layer's FBGEMM path adds it (docs/numerics.md) gets every
// integer. Both kernel families, and the exact integer Winograd path where it
// applies (the QWASM_TEST_WINOGRAD reruns of npm test).
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, goldenInput, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('bias_rounding.json');
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

function layer(c) {
  const hasBias = c.bias !== null;
  let m;
  if (c.dims === 0) {
    const Cls = c.relu ? nn.intrinsic.quantized.LinearReLU : nn.quantized.Linear;
    m = new Cls(c.in_channels, c.out_channels, { bias: hasBias });
  } else {
    const Cls = c.relu ? nn.intrinsic.quantized[`ConvReLU${c.dims}d`] : nn.quantized[`Conv${c.dims}d`];
    m = new Cls(c.in_channels, c.out_channels, c.kernel, { padding: c.padding, groups: c.groups, bias: hasBias });
  }
  const data = new Int8Array(decode(c.w_int).buffer);
  const scales = decode(c.w_scales);
  const w = c.per_channel
    ? qwasm.makePerChannelQuantizedTensor({ data, shape: c.w_int.shape }, scales, new Array(scales.length).fill(0), 0)
    : qwasm.makePerTensorQuantizedTensor({ data, shape: c.w_int.shape }, scales[0], 0);
  m.setWeightBias(w, hasBias ? decode(c.bias) : null);
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  return m;
}

test('every case with a bias holds outputs that only the way of its path gets right', () => {
  const way = (c) => (c.per_channel ? 'divide' : c.fbgemm_path === 'depthwise' ? 'multiply' : 'fma');
  const withBias = golden.cases.filter((c) => c.bias !== null);
  expect(withBias.length).toBe(20);
  for (const c of withBias) {
    const others = Object.entries(c.misses).filter(([w]) => w !== way(c));
    expect({ name: c.name, right: c.misses[way(c)], wrongMissSome: others.some(([, n]) => n > 0) }).toEqual({
      name: c.name,
      right: 0,
      wrongMissSome: true,
    });
  }
  // bias / atws (qwasm's formula before) misses outputs of every per-tensor case.
  const perTensor = withBias.filter((c) => !c.per_channel);
  expect(perTensor.every((c) => c.misses.divide > 0)).toBe(true);
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
    quantization.setEngine('fbgemm');
    qwasm.setKernelIsa(isa);
    const m = layer(c);
    const x = goldenInput(qwasm, c);
    const y = m.forward(x);
    const got = y.intRepr();
    const want = decode(c.y);
    const i = firstDifference(got, want);
    expect({ name, shape: [...y.shape], i, got: got[i], want: want[i] }).toEqual({
      name,
      shape: c.y.shape,
      i: -1,
      got: undefined,
      want: undefined,
    });
    y.dispose();
    x.dispose();
    m.dispose();
  });
});

// The eager flow on Conv1d + BatchNorm1d + ReLU (fuse, the default fbgemm
// qconfig, calibrate, convert). The output observer sees PyTorch's float
// outputs of the calibration (recorded): qwasm's float convolution sums in
// another order, which moves the observed range and the output scale by an
// ulp (docs/numerics.md); the input observer, the fold, the weight observer
// and the requantization must give PyTorch's numbers exactly.
describe('eager Conv1d + BatchNorm1d + ReLU', () => {
  test.each(golden.eager.map((c) => [c.name, c]))('%s', (name, c) => {
    quantization.setEngine('fbgemm');
    const p = (k) => ({ data: decode(c.params[k]), shape: c.params[k].shape });
    const m = new nn.Sequential(
      new quantization.QuantStub(),
      new nn.Conv1d(4, 8, 5),
      new nn.BatchNorm1d(8),
      new nn.ReLU(),
      new quantization.DeQuantStub(),
    ).eval();
    m[1].weight = p('1.weight');
    m[1].bias = p('1.bias');
    m[2].weight = p('2.weight');
    m[2].bias = p('2.bias');
    m[2].runningMean = p('2.running_mean');
    m[2].runningVar = p('2.running_var');
    quantization.fuseModules(m, ['1', '2', '3']);
    const qconfig = quantization.getDefaultQConfig('fbgemm');
    const inObs = qconfig.activation();
    const outObs = qconfig.activation();
    c.calibration.forEach((k, i) => {
      inObs.observe({ data: decode(k), shape: k.shape });
      const theirs = c.calibration_output[i];
      outObs.observe({ data: decode(theirs), shape: theirs.shape });
    });
    const inQ = inObs.calculateQParams();
    expect([inQ.scale, inQ.zeroPoint]).toEqual([Math.fround(c.in_scale), c.in_zero_point]);
    const qmod = nn.intrinsic.quantized.ConvReLU1d.fromFloat(m[1], {
      activationObserver: outObs,
      weightObserver: qconfig.weight(),
    });
    expect([qmod.scale, qmod.zeroPoint]).toEqual([Math.fround(c.out_scale), c.out_zero_point]);
    const w = qmod.weight();
    expect(firstDifference(w.intRepr(), new Int8Array(decode(c.w_int).buffer))).toBe(-1);
    expect(Array.from(w.qPerChannelScales())).toEqual(Array.from(decode(c.w_scales)));
    w.dispose();
    const qx = qwasm.quantizePerTensor({ data: decode(c.x), shape: c.x.shape }, inQ.scale, inQ.zeroPoint, 'quint8');
    const y = qmod.forward(qx);
    expect(y.shape).toEqual(c.y_int.shape);
    expect({ name, firstDifferentOutput: firstDifference(y.intRepr(), decode(c.y_int)) }).toEqual({
      name,
      firstDifferentOutput: -1,
    });
    y.dispose();
    qx.dispose();
    qmod.dispose();
    m.dispose();
  });
});
