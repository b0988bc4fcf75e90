// Pooling against PyTorch 2.15 (tests/golden/pools.json): MaxPool, AvgPool and
// AdaptiveAvgPool 1d/2d/3d on quint8 QTensors give PyTorch's integers and
// qparams bit for bit (each shape takes the formula of the kernel PyTorch
// picks for it), and on float tensors PyTorch's values (to float rounding:
// sums may run in another order). The quantized pools run with both row-kernel
// families (kernels/pool_rows.inc).
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('pools.json');
const { nn } = qwasm;

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

function build(c) {
  const Cls = nn[c.module];
  if (c.module.startsWith('Adaptive')) {
    const out = c.options.outputSize;
    return new Cls(out.length === 1 ? out[0] : out);
  }
  const { kernelSize, ...options } = c.options;
  return new Cls(kernelSize, options);
}

const ISAS = ['scalar', 'wasmsimd'];

test.each(golden.cases.flatMap((c) => ISAS.map((isa) => [c.name, isa, c])))('%s (%s)', (name, isa, c) => {
  qwasm.setKernelIsa(isa);
  const m = build(c);
  const q = qwasm.makePerTensorQuantizedTensor(
    { data: decode(c.ints), shape: c.shape },
    c.scale,
    c.zero_point,
    'quint8',
  );
  const y = m.forward(q);
  const got = y.intRepr();
  const want = decode(c.y_ints);
  const i = firstDifference(got, want);
  expect({ name, shape: [...y.shape], firstDifference: i, got: got[i], want: want[i] }).toEqual({
    name,
    shape: c.y_shape,
    firstDifference: -1,
    got: undefined,
    want: undefined,
  });
  expect([y.qScale(), y.qZeroPoint()]).toEqual([c.y_scale, c.y_zero_point]);
  q.dispose();
  y.dispose();
  const yf = m.forward({ data: decode(c.x), shape: c.shape });
  const wf = decode(c.y_float);
  expect(yf.shape).toEqual(c.y_shape);
  let worst = 0;
  for (let k = 0; k < wf.length; k++)
    worst = Math.max(worst, Math.abs(yf.data[k] - wf[k]) / Math.max(1, Math.abs(wf[k])));
  expect({ name, worstRelativeError: worst <= 1e-6 }).toEqual({ name, worstRelativeError: true });
});
