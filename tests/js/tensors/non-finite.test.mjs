// qwasm's chosen behaviour where PyTorch's is undefined (README, known
// differences): NaN -> the zero point, +Inf -> qmax, -Inf -> qmin, and
// |x / scale| >= 2^31 saturates like any other out-of-range value.
import * as qwasm from '../../../web/src/index.node.mjs';

beforeAll(() => qwasm.init());
afterEach(() => qwasm.setKernelIsa('auto'));

const X = Float32Array.of(NaN, Infinity, -Infinity, 1e10, -1e10, 3e38, -3e38, 0);

describe.each(['scalar', 'wasmsimd'])('%s kernels', (isa) => {
  test.each([
    ['quint8', 7, [7, 255, 0, 255, 0, 255, 0, 7]],
    ['qint8', -3, [-3, 127, -128, 127, -128, 127, -128, -3]],
    ['qint32', 5, [5, 2147483647, -2147483648, 2147483647, -2147483648, 2147483647, -2147483648, 5]],
  ])('per tensor %s, zero point %d', (dtype, zp, want) => {
    qwasm.setKernelIsa(isa);
    // Repeated so that both the vector body and the scalar tail see each value.
    const data = new Float32Array(X.length * 5);
    for (let i = 0; i < data.length; i++) data[i] = X[i % X.length];
    const q = qwasm.quantizePerTensor({ data, shape: [data.length] }, 0.01, zp, dtype);
    const got = Array.from(q.intRepr());
    q.dispose();
    for (let i = 0; i < got.length; i++) expect([i, got[i]]).toEqual([i, want[i % want.length]]);
  });

  test('float qparams: NaN -> round(zero point)', () => {
    qwasm.setKernelIsa(isa);
    const data = new Float32Array(24).fill(NaN);
    data[1] = Infinity;
    const q = qwasm.quantizePerChannel({ data, shape: [2, 12] }, [0.5, 0.5], Float32Array.of(3.4, 9.6), 0, 'quint8');
    const got = q.intRepr();
    q.dispose();
    expect(got[0]).toBe(3);
    expect(got[1]).toBe(255);
    expect(got[12]).toBe(10);
  });
});

test('float ReLU6 and Hardtanh clamp as PyTorch does: -0 and NaN come through', () => {
  // torch 2.15: F.relu6 / F.hardtanh(x, 0, 6) of [-0, nan, -5, 7, 0.5] give [-0, nan, 0, 6, 0.5];
  // F.hardtanh(x, -0.0, 1.0) gives [-0, nan, -0, 1, 0.5].
  const x = { data: new Float32Array([-0, Number.NaN, -5, 7, 0.5]), shape: [5] };
  const signs = (t) => Array.from(t.data, (v) => (Object.is(v, -0) ? '-0' : String(v)));
  expect(signs(new qwasm.nn.ReLU6().forward(x))).toEqual(['-0', 'NaN', '0', '6', '0.5']);
  expect(signs(new qwasm.nn.Hardtanh(0, 6).forward(x))).toEqual(['-0', 'NaN', '0', '6', '0.5']);
  expect(signs(new qwasm.nn.Hardtanh(-0, 1).forward(x))).toEqual(['-0', 'NaN', '-0', '1', '0.5']);
});
