// Strides at size-1 dimensions against PyTorch 2.15 (tests/golden/strides.json):
// a quantized Conv1d / Conv2d / Conv3d (or a contiguous input) at batch 1, one
// channel or spatial sizes of 1, then a pool, an element-wise op, cat or
// flatten. Each step's stride() equals PyTorch's, and so do the integers.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('strides.json');
const { nn, tidy } = qwasm;
const F = nn.quantized.functional;

beforeAll(() => initGolden(qwasm, golden));

const quint8 = (e) =>
  qwasm.makePerTensorQuantizedTensor({ data: decode(e.ints), shape: e.shape }, e.scale, e.zero_point, 'quint8');

function qweight(ints, scales) {
  const data = new Int8Array(decode(ints).buffer);
  return qwasm.makePerChannelQuantizedTensor(
    { data, shape: ints.shape },
    decode(scales),
    new Array(ints.shape[0]).fill(0),
    0,
    'qint8',
  );
}

function quantizedConv(spec) {
  const m = new nn.quantized[`Conv${spec.dims}d`](spec.in_channels, spec.out_channels, spec.kernel);
  m.setWeightBias(qweight(spec.w_int, spec.w_scales), decode(spec.bias));
  m.scale = spec.scale;
  m.zeroPoint = spec.zero_point;
  return m;
}

function run(op, a, y) {
  if (op.startsWith('Adaptive'))
    return new nn[op](a.outputSize.length === 1 ? a.outputSize[0] : a.outputSize).forward(y);
  if (op.includes('Pool')) return new nn[op](a.kernelSize).forward(y);
  switch (op) {
    case 'relu':
      return F.relu(y);
    case 'add':
      return F.add(y, y, a.scale, a.zeroPoint);
    case 'mul':
      return F.mul(y, y, a.scale, a.zeroPoint);
    case 'addScalar':
      return F.addScalar(y, a.c);
    case 'cat':
      return F.cat([y, y], a.dim, a.scale, a.zeroPoint);
    case 'flatten':
      return new nn.Flatten(1).forward(y);
    case 'Linear': {
      const lin = new nn.quantized.Linear(6, 4);
      lin.setWeightBias(qweight(a.w_int, a.w_scales), decode(a.bias));
      lin.scale = a.scale;
      lin.zeroPoint = a.zeroPoint;
      return lin.forward(y);
    }
    default:
      throw new Error(`unknown op ${op}`);
  }
}

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const got = tidy(() => {
    const x = quint8(c.x);
    const mid = c.conv === null ? x : quantizedConv(c.conv).forward(x);
    const y = run(c.op, c.args, mid);
    return { midStrides: mid.stride(), strides: y.stride(), shape: [...y.shape], ints: y.intRepr() };
  });
  const want = decode(c.y.ints);
  const i = firstDifference(got.ints, want);
  expect({ name, mid: got.midStrides, y: got.strides, shape: got.shape, firstDifference: i, got: got.ints[i] }).toEqual(
    {
      name,
      mid: c.mid.strides,
      y: c.y.strides,
      shape: c.y.shape,
      firstDifference: -1,
      got: undefined,
    },
  );
});
