// Where the float bias decides the integer (tests/golden/bias_rounding.json):
// quantized Conv1d / Conv2d / Conv3d / Linear (and ReLU) under 'fbgemm', per-
// tensor and per-channel weights, with and without a bias, on FBGEMM's GEMM
// and depthwise paths. Each bias was searched so that adding it as bias / atws,
// as acc + bias * rcp and as fma(bias, rcp, acc) give different outputs:
// only the way the layer's FBGEMM path adds it (docs/numerics.md) gets every
// integer. Both kernel families, and the exact integer Winograd path where it
// applies (the QWASM_TEST_WINOGRAD reruns of npm test).
import * as qwasm from '../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, loadGolden } from './util.mjs';

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
    const x = qwasm.makePerTensorQuantizedTensor(
      { data: decode(c.x_int), shape: c.x_int.shape },
      c.a_scale,
      c.a_zero_point,
    );
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
