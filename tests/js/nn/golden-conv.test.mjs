// PyTorch's quantized Conv3d / ConvReLU3d on the same integers, under both
// engines (conv3d.json: fbgemm; conv3d_x86.json: x86, PyTorch's default,
// where these convs take oneDNN's requantization): every output integer
// equal, for both kernel families, on the backend PyTorch used; the float
// ConvReLU3d within a stated tolerance.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, goldenInput, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('conv3d.json');
const goldens = [golden, loadGolden('conv3d_x86.json')].map((g) => [g.engine, g]);
const { nn } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => qwasm.quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

function quantizedModule(c) {
  const Cls = c.relu ? nn.intrinsic.quantized.ConvReLU3d : nn.quantized.Conv3d;
  const m = new Cls(c.in_channels, c.out_channels, c.kernel, {
    stride: c.stride,
    padding: c.padding,
    dilation: c.dilation,
    groups: c.groups,
    bias: c.bias !== null,
  });
  const wShape = c.w_int.shape;
  const wInt = new Int8Array(decode(c.w_int).buffer);
  const w = c.per_channel
    ? qwasm.makePerChannelQuantizedTensor({ data: wInt, shape: wShape }, decode(c.w_scales), decode(c.w_zero_points), 0)
    : qwasm.makePerTensorQuantizedTensor(
        { data: wInt, shape: wShape },
        decode(c.w_scales)[0],
        decode(c.w_zero_points)[0],
      );
  m.setWeightBias(w, c.bias === null ? null : decode(c.bias));
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  return m;
}

describe.each(goldens)('%s engine', (engine, g) => {
  beforeAll(() => qwasm.quantization.setEngine(engine));
  describe.each(['wasmsimd', 'scalar'])('quantized goldens, %s kernels', (isa) => {
    test.each(g.cases.map((c) => [c.name, c]))('%s', (name, c) => {
      qwasm.setKernelIsa(isa);
      const m = quantizedModule(c);
      expect(m.backend).toBe(c.backend);
      const qx = goldenInput(qwasm, c);
      const y = m.forward(qx);
      try {
        expect(y.shape).toEqual(c.y_int.shape);
        expect(y.qScale()).toBe(c.out_scale);
        expect(y.qZeroPoint()).toBe(c.out_zero_point);
        const got = y.intRepr();
        const want = decode(c.y_int);
        const i = firstDifference(got, want);
        expect({ name, isa, firstDifferentOutput: i, got: got[i], want: want[i] }).toEqual({
          name,
          isa,
          firstDifferentOutput: -1,
          got: undefined,
          want: undefined,
        });
      } finally {
        y.dispose();
        qx.dispose();
        m.dispose();
      }
    });
  });
});

// Float: qwasm sums in another order than PyTorch; relative error stays near
// float32 rounding over the reduction length.
test.each(golden.cases.map((c) => [c.name, c]))('float module within tolerance: %s', (name, c) => {
  const conv = new nn.Conv3d(c.in_channels, c.out_channels, c.kernel, {
    stride: c.stride,
    padding: c.padding,
    dilation: c.dilation,
    groups: c.groups,
    bias: c.bias !== null,
  });
  conv.weight = { data: decode(c.w), shape: c.w.shape };
  if (c.bias !== null) conv.bias = { data: decode(c.bias), shape: [c.out_channels] };
  const m = c.relu ? new nn.intrinsic.ConvReLU3d(conv, new nn.ReLU()) : conv;
  const y = m.forward({ data: decode(c.x), shape: c.x.shape });
  const want = decode(c.y_float);
  expect(y.shape).toEqual(c.y_float.shape);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(y.data[i] - want[i]));
  expect(worst).toBeLessThan(1e-5 * (1 + Math.max(...want.map(Math.abs))));
  m.dispose();
});
