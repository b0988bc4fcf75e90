// Every kernel family in the wasm build (scalar twins and WASM SIMD) equals the
// naive reference of tests/reference bit for bit, over lengths that hit every
// remainder path and values at ties, zero, saturation and non-finite.
import { handle, initTesting, M, qwasm, withCopy } from '../testing.mjs';
import { firstBitDifference, firstDifference, rng, seed } from '../util.mjs';

const SEED = seed();
beforeAll(async () => {
  await initTesting();
  console.log(`kernels-vs-reference seed ${SEED} (replay with QWASM_SEED=${SEED})`);
});
afterEach(() => qwasm.setKernelIsa('auto'));

function hash(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

function values(n, next) {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const r = next();
    const u = (next() - 0.5) * 600;
    x[i] =
      r < 0.1
        ? Math.round(u) + 0.5
        : r < 0.15
          ? 0
          : r < 0.2
            ? u * 1e5
            : r < 0.23
              ? NaN
              : r < 0.26
                ? next() < 0.5
                  ? Infinity
                  : -Infinity
                : r < 0.28
                  ? -0
                  : u;
  }
  return x;
}

const CASES = [
  ['quint8', 'per_tensor'],
  ['qint8', 'per_tensor'],
  ['qint32', 'per_tensor'],
  ['quint4x2', 'per_tensor'],
  ['quint8', 'per_channel'],
  ['qint8', 'per_channel'],
  ['qint32', 'per_channel'],
  ['quint8', 'float_qparams'],
  ['qint8', 'float_qparams'],
  ['qint32', 'float_qparams'],
  ['quint4x2', 'float_qparams'],
];

describe.each(['scalar', 'wasmsimd'])('%s kernels', (isa) => {
  test.each(CASES)('%s %s over lengths 0..40 and 3 channels', (dtype, scheme) => {
    qwasm.setKernelIsa(isa);
    // One stream per case: a hash of its names (lengths alone collide, e.g. quint8 / qint32).
    const next = rng(SEED ^ hash(`${isa} ${dtype} ${scheme}`));
    for (let inner = 0; inner <= 40; inner++) {
      const shape = scheme === 'per_tensor' ? [3 * inner] : [2, 3, inner];
      const x = {
        data: values(
          shape.reduce((a, b) => a * b, 1),
          next,
        ),
        shape,
      };
      const mid = { quint8: 128, qint8: 0, qint32: -7, quint4x2: 8 }[dtype];
      const q =
        scheme === 'per_tensor'
          ? qwasm.quantizePerTensor(x, 0.37, mid, dtype)
          : qwasm.quantizePerChannel(
              x,
              [1, 0.37, 2.9],
              scheme === 'float_qparams' ? Float32Array.of(2.5, 3.7, -1.2) : [mid, mid + 1, mid - 1],
              1,
              dtype,
            );
      try {
        const want = withCopy(x.data, (address) => M()._referenceQuantize(handle(q), address));
        const got = q.intRepr();
        const i = firstDifference(new Uint8Array(got.buffer), new Uint8Array(want));
        expect({ isa, dtype, scheme, inner, seed: SEED, firstDifferentByte: i }).toEqual({
          isa,
          dtype,
          scheme,
          inner,
          seed: SEED,
          firstDifferentByte: -1,
        });
        const y = q.dequantize().data;
        const yRef = withCopy(new Float32Array(y.length), (address) => {
          M()._referenceDequantize(handle(q), address);
          return new Float32Array(M().HEAPU8.buffer, address, y.length).slice();
        });
        const j = firstBitDifference(y, yRef);
        expect({ isa, dtype, scheme, inner, seed: SEED, firstDifferentFloat: j, got: y[j], want: yRef[j] }).toEqual({
          isa,
          dtype,
          scheme,
          inner,
          seed: SEED,
          firstDifferentFloat: -1,
          got: undefined,
          want: undefined,
        });
      } finally {
        q.dispose();
      }
    }
  });
});

test('the build has SIMD and uses it by default', () => {
  expect(qwasm.kernelIsa()).toBe('wasmsimd');
});

test('the registry lists a scalar and a wasmsimd kernel in every family, and a convolution runs the listed one of the ISA chosen', () => {
  const names = M()._kernelNames();
  expect(Object.keys(names).sort()).toEqual([
    'dequantize',
    'fconv',
    'qconv',
    'qdwconv',
    'qgemm',
    'quantize',
    'rowmax',
    'rowsum',
  ]);
  for (const [family, list] of Object.entries(names)) {
    const isas = [list.some((n) => n.endsWith('_scalar')), list.some((n) => n.includes('_wasmsimd'))];
    expect([family, ...isas]).toEqual([family, true, true]);
  }
  const conv = new qwasm.nn.intrinsic.quantized.ConvReLU3d(2, 4, 1, { winograd: false });
  const x = qwasm.quantizePerTensor(
    { data: new Float32Array(2 * 8).fill(1), shape: [1, 2, 2, 2, 2] },
    0.1,
    3,
    'quint8',
  );
  for (const isa of ['scalar', 'wasmsimd']) {
    qwasm.setKernelIsa(isa);
    conv.forward(x).dispose();
    expect([isa, names.qconv.includes(conv.lastKernel()), conv.lastKernel().includes(`_${isa}`)]).toEqual([
      isa,
      true,
      true,
    ]);
  }
  conv.dispose();
  x.dispose();
});
