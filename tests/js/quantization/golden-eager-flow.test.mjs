// PyTorch's eager post-training flow (tests/golden/eager_flow.json): a float
// ConvReLU1d/2d/3d or LinearReLU, calibrated with MinMaxObserver activations and
// the default per-channel weight observer, converted, run on a quantized input.
// qwasm repeats the flow with its own observers and fromFloat: same input and
// output qparams, same weight integers, same output integers.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('eager_flow.json');
// The same flow under PyTorch's default engine (x86: the convs take oneDNN's requantization).
const cases = [golden, loadGolden('eager_flow_x86.json')].flatMap((g) =>
  g.cases.map((c) => [`${g.engine}: ${c.name}`, { ...c, engine: g.engine }]),
);
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterAll(() => quantization.setEngine('x86'));

function floatModule(c) {
  const opts = { stride: c.stride, padding: c.padding, dilation: c.dilation, groups: c.groups };
  switch (c.kind) {
    case 'ConvReLU3d':
      return new nn.intrinsic.ConvReLU3d(new nn.Conv3d(c.in_channels, c.out_channels, c.kernel, opts), new nn.ReLU());
    case 'ConvReLU2d':
      return new nn.intrinsic.ConvReLU2d(new nn.Conv2d(c.in_channels, c.out_channels, c.kernel, opts), new nn.ReLU());
    case 'ConvReLU1d':
      return new nn.intrinsic.ConvReLU1d(new nn.Conv1d(c.in_channels, c.out_channels, c.kernel, opts), new nn.ReLU());
    default:
      return new nn.intrinsic.LinearReLU(new nn.Linear(c.in_channels, c.out_channels), new nn.ReLU());
  }
}

test.each(cases)('%s', (name, c) => {
  quantization.setEngine(c.engine);
  const fmod = floatModule(c);
  fmod[0].weight = { data: decode(c.w), shape: c.w.shape };
  fmod[0].bias = { data: decode(c.bias), shape: c.bias.shape };
  // Calibration: observe the module's input and output. The output observer
  // sees PyTorch's float outputs (recorded): float sums in another order can
  // move the maximum by an ulp, and the scale with it. Our own float output
  // must be within float rounding of them.
  const calib = { data: decode(c.calibration), shape: c.calibration.shape };
  const inObs = new quantization.MinMaxObserver();
  const outObs = new quantization.MinMaxObserver();
  const ours = fmod.forward(inObs.observe(calib));
  const theirs = decode(c.calibration_output);
  expect(ours.shape).toEqual(c.calibration_output.shape);
  let worst = 0;
  for (let i = 0; i < theirs.length; i++) worst = Math.max(worst, Math.abs(ours.data[i] - theirs[i]));
  expect(worst).toBeLessThan(1e-5);
  outObs.observe({ data: theirs, shape: c.calibration_output.shape });
  const inQ = inObs.calculateQParams();
  expect([inQ.scale, inQ.zeroPoint]).toEqual([Math.fround(c.in_scale), c.in_zero_point]);

  const Q = nn.intrinsic.quantized[c.kind];
  const qmod = Q.fromFloat(fmod, { activationObserver: outObs });
  expect(qmod.backend).toBe(c.backend);
  expect([qmod.scale, qmod.zeroPoint]).toEqual([Math.fround(c.out_scale), c.out_zero_point]);
  const w = qmod.weight();
  expect(firstDifference(w.intRepr(), new Int8Array(decode(c.w_int).buffer))).toBe(-1);
  expect(Array.from(w.qPerChannelScales())).toEqual(Array.from(decode(c.w_scales)));
  w.dispose();

  const qx = qwasm.quantizePerTensor({ data: decode(c.x), shape: c.x.shape }, inQ.scale, inQ.zeroPoint, 'quint8');
  const y = qmod.forward(qx);
  expect(y.shape).toEqual(c.y_int.shape);
  const i = firstDifference(y.intRepr(), decode(c.y_int));
  expect({ name, firstDifferentOutput: i }).toEqual({ name, firstDifferentOutput: -1 });
  y.dispose();
  qx.dispose();
  qmod.dispose();
  fmod.dispose();
});
