// The quantized element-wise ops against PyTorch 2.15 (tests/golden/qops.json:
// quantized::add / add_relu / mul / mul_relu with broadcasting, add_scalar,
// mul_scalar, cat on both of its paths, relu / relu6 / hardtanh / clamp):
// the same integers and output qparams, bit for bit, including the elements
// PyTorch's 64-element vector steps compute with a fused multiply-add.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('qops.json');
const F = qwasm.nn.quantized.functional;

beforeAll(() => initGolden(qwasm, golden));

const make = (t) =>
  qwasm.makePerTensorQuantizedTensor({ data: decode(t.ints), shape: t.shape }, t.scale, t.zero_point, 'quint8');

function run(c) {
  switch (c.op) {
    case 'add':
    case 'add_relu':
    case 'mul':
    case 'mul_relu': {
      const fn = { add: F.add, add_relu: F.addRelu, mul: F.mul, mul_relu: F.mulRelu }[c.op];
      return fn(make(c.a), make(c.b), c.scale, c.zero_point);
    }
    case 'add_scalar':
      return F.addScalar(make(c.a), c.c);
    case 'mul_scalar':
      return F.mulScalar(make(c.a), c.c);
    case 'cat':
      return F.cat(c.xs.map(make), c.dim, c.scale, c.zero_point);
    case 'relu':
      return F.relu(make(c.a));
    case 'relu6':
      return F.relu6(make(c.a));
    case 'hardtanh':
      return F.hardtanh(make(c.a), -0.7, 2.5);
    case 'clamp':
      return F.clamp(make(c.a), -1.3, 0.9);
    default:
      throw new Error(`unknown op ${c.op}`);
  }
}

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const heap = qwasm.heapInUse();
  const y = qwasm.tidy(() => run(c));
  const got = y.intRepr();
  const want = decode(c.y.ints);
  const i = firstDifference(got, want);
  expect({ name, shape: [...y.shape], firstDifference: i, got: got[i], want: want[i] }).toEqual({
    name,
    shape: c.y.shape,
    firstDifference: -1,
    got: undefined,
    want: undefined,
  });
  expect({ scale: y.qScale(), zeroPoint: y.qZeroPoint() }).toEqual({ scale: c.y.scale, zeroPoint: c.y.zero_point });
  y.dispose();
  expect(qwasm.heapInUse()).toBe(heap);
});

test('per-channel tensors are refused with the tools PyTorch offers named', () => {
  const pc = qwasm.quantizePerChannel(qwasm.tensor([1, 2, 3, 4], [2, 2]), [0.1, 0.2], [0, 0], 0, 'quint8');
  expect(() => F.add(pc, pc, 0.1, 0)).toThrow('PyTorch has no arithmetic on per-channel quantized tensors either');
  pc.dispose();
});
