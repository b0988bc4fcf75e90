// Float32 arithmetic that JavaScript lacks: a correctly rounded fused
// multiply-add and Python's round-half-to-even. Needed where PyTorch's C++
// compiles a*b + c into one FMA instruction (its AVX2 kernels are built with
// -mfma, and GCC contracts), so that qwasm's floats equal PyTorch's bit for bit.

const bits = new Float32Array(1);
const bitsInt = new Int32Array(bits.buffer);

/** The float32 next to `r` (a float32) in the direction of `toward`. */
function nextFloat32(r, toward) {
  if (r === 0) return toward > 0 ? 2 ** -149 : -(2 ** -149);
  bits[0] = r;
  bitsInt[0] += toward > r === r > 0 ? 1 : -1;
  return bits[0];
}

/**
 * fmaf(a, b, c) for float32 a, b, c: a * b + c rounded once to float32.
 * a * b is exact in a double (two 24-bit significands); the sum is rounded to
 * a double and then to a float32, which is the one correct rounding unless
 * the double landed exactly on a float32 midpoint with a nonzero error
 * (TwoSum gives it): then the error's sign picks the side.
 */
export function fma32(a, b, c) {
  const p = a * b;
  const s = p + c;
  const r = Math.fround(s);
  if (r === s) return r;
  const bb = s - p;
  const err = p - (s - bb) + (c - bb);
  if (err === 0) return r;
  const other = nextFloat32(r, s);
  if (s - r !== other - s) return r; // not a midpoint: the double rounding did not matter
  return err > 0 ? Math.max(r, other) : Math.min(r, other);
}

/** Python's round() and torch.round: to the nearest integer, ties to even. */
export function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
