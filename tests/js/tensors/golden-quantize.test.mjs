// PyTorch's own results (tests/golden/quantize.json): integers bit-exact,
// dequantized floats bit-exact as float32, per-channel scales as float64
// (float32 for float qparams), for both kernel families.
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, firstDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('quantize.json');

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

function quantize(c) {
  const x = { data: decode(c.x), shape: c.x.shape };
  if (c.qscheme === 'per_tensor_affine') return qwasm.quantizePerTensor(x, c.scale, c.zero_point, c.dtype);
  const zps = decode(c.zero_points);
  const zeroPoints = c.qscheme === 'per_channel_affine_float_qparams' ? Float32Array.from(zps) : Array.from(zps);
  return qwasm.quantizePerChannel(x, decode(c.scales), zeroPoints, c.axis, c.dtype);
}

function expectMatches(q, c, label) {
  const intRepr = q.intRepr();
  const want = decode(c.int_repr);
  const gotBytes = new Uint8Array(intRepr.buffer, intRepr.byteOffset, intRepr.byteLength);
  const i = firstDifference(gotBytes, new Uint8Array(want.buffer));
  expect({ label, firstDifferentByte: i }).toEqual({ label, firstDifferentByte: -1 });
  expect(q.qscheme()).toBe(c.qscheme);
  expect(q.dtype).toBe(c.dtype);
  if (c.qscheme === 'per_tensor_affine') {
    expect(q.qScale()).toBe(c.scale);
    expect(q.qZeroPoint()).toBe(c.zero_point);
  } else {
    expect(q.qPerChannelAxis()).toBe(c.axis);
    const scales = q.qPerChannelScales();
    const wantScales = decode(c.scales);
    expect(Object.prototype.toString.call(scales)).toBe(Object.prototype.toString.call(wantScales));
    expect(firstBitDifference(scales, wantScales)).toBe(-1);
    expect(Array.from(q.qPerChannelZeroPoints())).toEqual(Array.from(decode(c.zero_points)));
  }
  if (c.dequantized !== null) {
    const y = q.dequantize();
    expect(y.shape).toEqual(c.x.shape);
    const wantY = decode(c.dequantized);
    const j = firstBitDifference(y.data, wantY);
    expect({ label, firstDifferentFloat: j, got: y.data[j], want: wantY[j] }).toEqual({
      label,
      firstDifferentFloat: -1,
      got: undefined,
      want: undefined,
    });
  }
}

describe.each(['scalar', 'wasmsimd'])('goldens with %s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
    qwasm.setKernelIsa(isa);
    const q = quantize(c);
    try {
      expectMatches(q, c, `${isa}: ${name}`);
    } finally {
      q.dispose();
    }
  });
});

describe('tensors made from PyTorch integers', () => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
    const data = decode(c.int_repr);
    const typed = c.dtype === 'qint8' ? new Int8Array(data.buffer) : data;
    const intTensor = { data: typed, shape: c.x.shape };
    const q =
      c.qscheme === 'per_tensor_affine'
        ? qwasm.makePerTensorQuantizedTensor(intTensor, c.scale, c.zero_point, c.dtype)
        : qwasm.makePerChannelQuantizedTensor(
            intTensor,
            decode(c.scales),
            c.qscheme === 'per_channel_affine_float_qparams'
              ? Float32Array.from(decode(c.zero_points))
              : decode(c.zero_points),
            c.axis,
            c.dtype,
          );
    try {
      expectMatches(q, c, `from integers: ${name}`);
    } finally {
      q.dispose();
    }
  });
});

test('golden vectors come from the pinned PyTorch with fbgemm', () => {
  expect(golden.torch.startsWith('2.15.0')).toBe(true);
  expect(golden.engine).toBe('fbgemm');
});
