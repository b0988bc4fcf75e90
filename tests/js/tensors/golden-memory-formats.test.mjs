// Memory formats against PyTorch 2.15 (tests/golden/memory_formats.json):
// on channels-last inputs, and on the [N, C, L] layout a quantized conv1d
// returns, pooling, element-wise ops, cat and reshapes give PyTorch's
// integers and qparams bit for bit, and their outputs carry PyTorch's strides.
// The large element-wise cases take qwasm's table path (qelementwise.cpp).
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstDifference, initGolden, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('memory_formats.json');
const { nn, tidy } = qwasm;
const F = nn.quantized.functional;

beforeAll(() => initGolden(qwasm, golden));

// The input as the golden describes it: integers in logical order, then the layout.
function input(e) {
  const q = qwasm.makePerTensorQuantizedTensor(
    { data: e.ints.lcg === undefined ? decode(e.ints) : lcgBytes(e.ints.lcg, e.ints.count), shape: e.shape },
    e.scale,
    e.zero_point,
    'quint8',
  );
  if (e.layout === 'channels_last') {
    return q.contiguous({ memoryFormat: e.shape.length === 4 ? 'channels_last' : 'channels_last_3d' });
  }
  if (e.layout === 'conv1d') {
    const [n, c, l] = e.shape;
    return q.view([n, c, 1, l]).contiguous({ memoryFormat: 'channels_last' }).view([n, c, l]);
  }
  return q;
}

function run(c, xs) {
  const a = c.args;
  switch (c.op) {
    case 'add':
      return F.add(xs[0], xs[1], a.scale, a.zeroPoint);
    case 'addRelu':
      return F.addRelu(xs[0], xs[1], a.scale, a.zeroPoint);
    case 'mul':
      return F.mul(xs[0], xs[1], a.scale, a.zeroPoint);
    case 'relu':
      return F.relu(xs[0]);
    case 'hardtanh':
      return F.hardtanh(xs[0], a.min, a.max);
    case 'addScalar':
      return F.addScalar(xs[0], a.c);
    case 'mulScalar':
      return F.mulScalar(xs[0], a.c);
    case 'cat':
      return F.cat(xs, a.dim, a.scale, a.zeroPoint);
    case 'reshape':
      return xs[0].view(a.shape);
    default: {
      const Cls = nn[c.op];
      if (c.op.startsWith('Adaptive'))
        return new Cls(a.outputSize.length === 1 ? a.outputSize[0] : a.outputSize).forward(xs[0]);
      const { kernelSize, ...options } = a.options;
      return new Cls(kernelSize, options).forward(xs[0]);
    }
  }
}

test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  const result = tidy(() => {
    const xs = c.inputs.map(input);
    const y = run(c, xs);
    return {
      inputStrides: xs.map((x) => x.stride()),
      strides: y.stride(),
      shape: [...y.shape],
      qparams: [y.qScale(), y.qZeroPoint()],
      ints: y.intRepr(),
    };
  });
  const want = decode(c.y.ints);
  const i = firstDifference(result.ints, want);
  expect({
    name,
    inputStrides: result.inputStrides,
    shape: result.shape,
    strides: result.strides,
    qparams: result.qparams,
    firstDifference: i,
    got: result.ints[i],
    want: want[i],
  }).toEqual({
    name,
    inputStrides: c.inputs.map((e) => e.strides),
    shape: c.y.shape,
    strides: c.y.strides,
    qparams: [c.y.scale, c.y.zero_point],
    firstDifference: -1,
    got: undefined,
    want: undefined,
  });
});
