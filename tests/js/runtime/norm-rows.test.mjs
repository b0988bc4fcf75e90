// The float norms' element loops (src/kernels/norm_rows.h) on both ISAs
// against an exact fma (runtime/float32.mjs's fma32) and against each other:
// affine_row (GroupNorm's and InstanceNorm's y = fma(scale, x, bias)) on
// every remainder of its 4-lane loop, with random values over many
// magnitudes, values whose double sum lands on a float32 midpoint (where
// rounding the double sum twice would be wrong: the lanes must take the exact
// path), subnormal results, infinities and NaN; and welford8 (RowwiseMoments'
// inner loop) on random rows of 1 to 16 vectors, against the Welford recurrence
// written here with fma32.
import { fma32 } from '../../../web/src/runtime/float32.mjs';
import { initTesting, M, withCopy } from '../testing.mjs';
import { firstBitDifference, rng, seed } from '../util.mjs';

const ISAS = { scalar: 0, wasmsimd: 1 };
const SEED = seed();
beforeAll(() => initTesting());

const f = Math.fround;
const affineRow = (isa, x, scale, bias) =>
  withCopy(x, (address) => M()._normAffineRow(ISAS[isa], address, x.length, scale, bias));

/** Rows of (scale, bias, x) that hit each path of the four-lane fma. */
function affineCases(random) {
  const magnitude = () => f((random() * 2 - 1) * 2 ** Math.floor(random() * 60 - 30));
  const rows = [];
  // Random values, every length 0..9 and some longer (each remainder of the 4-lane loop).
  for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 33, 257]) {
    rows.push({
      what: `random, n ${n}`,
      scale: magnitude(),
      bias: magnitude(),
      x: Float32Array.from({ length: n }, magnitude),
    });
  }
  // Midpoints: (1 + i 2^-23) * 2^-24 (1 - i 2^-23) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - i^2 2^-70, whose double is
  // the midpoint 1 + 2^-23 + 2^-24: rounded twice it goes to the even 1 + 2^-22, exactly it stays 1 + 2^-23.
  for (let i = 1; i <= 40; i++) {
    const x = new Float32Array(7).fill(f(2 ** -24 * (1 - i * 2 ** -23)));
    x[3] = 0.5; // one ordinary lane among them
    rows.push({ what: `midpoint ${i}`, scale: f(1 + i * 2 ** -23), bias: f(1 + 2 ** -23), x });
  }
  // Subnormal results, zeros, infinities and NaN.
  rows.push({
    what: 'subnormal',
    scale: 2 ** -70,
    bias: 0,
    x: Float32Array.from([2 ** -70, -(2 ** -75), 3 * 2 ** -72, 0, 1]),
  });
  rows.push({
    what: 'non-finite',
    scale: 2,
    bias: -1,
    x: Float32Array.from([Infinity, -Infinity, NaN, -0, 0, 1e38, -1e38]),
  });
  return rows;
}

test(`affine_row: wasmsimd equals scalar and an exact fma on every element (seed ${SEED})`, () => {
  const random = rng(SEED);
  let midpointsChecked = 0;
  for (const { what, scale, bias, x } of affineCases(random)) {
    const want = Float32Array.from(x, (v) => fma32(scale, v, bias));
    const scalar = affineRow('scalar', x, scale, bias);
    const simd = affineRow('wasmsimd', x, scale, bias);
    expect({ what, scalar: firstBitDifference(scalar, want, { anyNaN: true }) }).toEqual({ what, scalar: -1 });
    expect({ what, simd: firstBitDifference(simd, want, { anyNaN: true }) }).toEqual({ what, simd: -1 });
    if (what.startsWith('midpoint')) {
      // The case is real: rounding the double sum twice gives another float.
      expect(f(scale * x[0] + bias)).not.toBe(want[0]);
      midpointsChecked++;
    }
  }
  expect(midpointsChecked).toBe(40);
});

/** RowwiseMoments' inner loop, lane by lane, with fma32: m1 and m2 after `vectors` vectors of x. */
function welford(x, vectors) {
  const m1 = new Float32Array(8);
  const m2 = new Float32Array(8);
  for (let j = 0; j < vectors; j++) {
    const r = f(1 / (j + 1));
    for (let l = 0; l < 8; l++) {
      const v = x[j * 8 + l];
      const delta = f(v - m1[l]);
      m1[l] = fma32(r, delta, m1[l]);
      m2[l] = fma32(delta, f(v - m1[l]), m2[l]);
    }
  }
  return Float32Array.from([...m1, ...m2]);
}

test(`welford8: wasmsimd equals scalar and the recurrence with an exact fma (seed ${SEED})`, () => {
  const random = rng(SEED + 1);
  for (const vectors of [1, 2, 3, 5, 8, 15, 16]) {
    for (const spread of [1e-3, 1, 1e4]) {
      const x = Float32Array.from({ length: vectors * 8 }, () => f((random() * 2 - 1) * spread + spread / 3));
      const want = welford(x, vectors);
      for (const isa of ['scalar', 'wasmsimd']) {
        const got = withCopy(x, (address) => M()._normWelford8(ISAS[isa], address, vectors));
        expect({ vectors, spread, isa, at: firstBitDifference(got, want) }).toEqual({ vectors, spread, isa, at: -1 });
      }
    }
  }
});
