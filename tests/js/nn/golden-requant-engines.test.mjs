// The two engines' requantization side by side (tests/golden/requant_engines.json):
// quantized Conv1d / Conv2d / Conv3d (and ReLU) built under 'x86' run on
// oneDNN's requantization and give PyTorch's x86 integers; built under
// 'fbgemm' they give its fbgemm integers. Half the cases put results exactly
// on .5, where the engines differ (the golden holds thousands of such
// outputs, so a layer on the wrong backend cannot pass).
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, goldenInput, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('requant_engines.json');
const { nn, quantization } = qwasm;

beforeAll(() => initGolden(qwasm));
afterAll(() => quantization.setEngine('x86'));
afterEach(() => qwasm.setKernelIsa('auto'));

function layer(c) {
  const Cls = c.relu ? nn.intrinsic.quantized[`ConvReLU${c.dims}d`] : nn.quantized[`Conv${c.dims}d`];
  const m = new Cls(c.in_channels, c.out_channels, c.kernel, {
    padding: c.padding,
    groups: c.groups,
    bias: c.bias !== null,
  });
  const data = new Int8Array(decode(c.w_int).buffer);
  const scales = decode(c.w_scales);
  const w = c.per_channel
    ? qwasm.makePerChannelQuantizedTensor({ data, shape: c.w_int.shape }, scales, new Array(scales.length).fill(0), 0)
    : qwasm.makePerTensorQuantizedTensor({ data, shape: c.w_int.shape }, scales[0], 0);
  m.setWeightBias(w, c.bias === null ? null : decode(c.bias));
  w.dispose();
  m.scale = c.out_scale;
  m.zeroPoint = c.out_zero_point;
  return m;
}

test('the golden tells the engines apart', () => {
  let differ = 0;
  for (const c of golden.cases) {
    const a = decode(c.y_x86);
    const b = decode(c.y_fbgemm);
    for (let i = 0; i < a.length; i++) differ += a[i] !== b[i];
  }
  expect(differ).toBeGreaterThan(1000);
});

describe.each([
  ['x86', 'y_x86'],
  ['fbgemm', 'y_fbgemm'],
])('%s engine', (engine, key) => {
  describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
    test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
      quantization.setEngine(engine);
      qwasm.setKernelIsa(isa);
      const m = layer(c);
      const x = goldenInput(qwasm, c);
      const y = m.forward(x);
      const got = y.intRepr();
      const want = decode(c[key]);
      const i = firstDifference(got, want);
      expect({ name, backend: m.backend, shape: [...y.shape], i, got: got[i], want: want[i] }).toEqual({
        name,
        backend: c.backends[engine],
        shape: c[key].shape,
        i: -1,
        got: undefined,
        want: undefined,
      });
      y.dispose();
      x.dispose();
      m.dispose();
    });
  });
});
