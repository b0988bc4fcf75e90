// FBGEMM's depthwise fast path (tests/golden/depthwise_saturation.json):
// depthwise Conv2d / Conv3d whose int16 tap-pair sums saturate in PyTorch's
// FBGEMM kernel (docs/numerics.md, "int16 pair saturation"), under the
// 'fbgemm' engine and under 'x86' (which routes more than 100 groups and
// asymmetric weights to FBGEMM): channel multipliers 1 and 2, per-tensor and
// per-channel weights, asymmetric ones, a 3x7x7 kernel whose row sums pass
// 32767; and two controls off the path (12 channels, a Conv1d), where the
// sums are exact. qwasm's integers equal PyTorch's bit for bit, on both
// kernel families; the fast-path cases run the sat16 depthwise kernels.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, goldenInput, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('depthwise_saturation.json');
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

test('the saturation decides outputs: exact sums miss a twentieth or more on the path, none off it', () => {
  expect(golden.cases.length).toBe(15);
  expect(new Set(golden.cases.map((c) => c.engine))).toEqual(new Set(['fbgemm', 'x86']));
  for (const c of golden.cases) {
    const { pairs, exact } = c.misses;
    const expected = c.fbgemm_depthwise
      ? { pairs: 0, exactAtLeastATwentieth: true }
      : { pairs: pairs > 0, exactAtLeastATwentieth: false };
    expect({
      name: c.name,
      pairs: c.fbgemm_depthwise ? pairs : pairs > 0,
      exactAtLeastATwentieth: exact * 20 >= c.outputs,
    }).toEqual({
      name: c.name,
      ...expected,
    });
    if (!c.fbgemm_depthwise) expect([c.name, exact]).toEqual([c.name, 0]);
  }
});

function layer(c) {
  const hasBias = c.bias !== null;
  const Cls = c.relu ? nn.intrinsic.quantized[`ConvReLU${c.dims}d`] : nn.quantized[`Conv${c.dims}d`];
  const m = new Cls(c.in_channels, c.out_channels, c.kernel, {
    stride: c.stride,
    padding: c.padding,
    groups: c.groups,
    bias: hasBias,
  });
  const data = new Int8Array(decode(c.w_int).buffer);
  const scales = decode(c.w_scales);
  const w = c.per_channel
    ? qwasm.makePerChannelQuantizedTensor({ data, shape: c.w_int.shape }, scales, c.w_zero_points, 0)
    : qwasm.makePerTensorQuantizedTensor({ data, shape: c.w_int.shape }, scales[0], c.w_zero_points[0]);
  m.setWeightBias(w, hasBias ? decode(c.bias) : null);
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  return m;
}

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
    quantization.setEngine(c.engine);
    qwasm.setKernelIsa(isa);
    const m = layer(c);
    const x = goldenInput(qwasm, c);
    const y = m.forward(x);
    const got = y.intRepr();
    const want = decode(c.y);
    const i = firstDifference(got, want);
    expect({
      name,
      shape: [...y.shape],
      i,
      got: got[i],
      want: want[i],
      sat16: m.lastKernel().includes('sat16'),
    }).toEqual({
      name,
      shape: c.y.shape,
      i: -1,
      got: undefined,
      want: undefined,
      sat16: c.fbgemm_depthwise,
    });
    y.dispose();
    x.dispose();
    m.dispose();
  });
});
