// fma(a, b, c) in float32 with one rounding, without a fused multiply-add
// instruction (wasm has none; -ffp-contract=off keeps the compiler from
// making one natively): FBGEMM's GEMM kernels add a per-tensor bias that way
// (docs/numerics.md).
//
// Why it is exact: a * b of two floats has at most 48 significant bits, so it
// is exact in double (no overflow or underflow either: |a * b| lies within
// [2^-298, 2^256]). The double sum s = a * b + c may round; TwoSum gives its
// exact error e. Rounding s "to odd" (when e != 0 and s's last bit is 0, step
// one ulp toward e) keeps the lost bits as a sticky bit, and a value rounded to
// odd with 53 bits rounds to 24 bits exactly as the exact sum would (53 >= 24 +
// 2; Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
// algorithms using rounding to odd", 2008). An infinite or NaN s is left alone.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace qwasm {
namespace kernels {

// s (= RN(a + b), a + b exact = s + e) rounded to odd instead, from its error e.
inline double round_to_odd(double s, double e) {
  if (e == 0.0 || !std::isfinite(s)) return s;
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  if ((bits & 1) == 0) bits += std::signbit(e) == std::signbit(s) ? 1 : static_cast<uint64_t>(-1);
  std::memcpy(&s, &bits, sizeof s);
  return s;
}

// (a + b) rounded to odd: TwoSum (Knuth), then round_to_odd.
inline double add_round_to_odd(double a, double b) {
  const double s = a + b;
  const double bv = s - a;
  const double av = s - bv;
  const double e = (a - av) + (b - bv);
  return round_to_odd(s, e);
}

inline float fma_f32(float a, float b, float c) {
  const double product = static_cast<double>(a) * static_cast<double>(b);  // exact
  return static_cast<float>(add_round_to_odd(product, static_cast<double>(c)));
}

// fma_f32 with a shortcut: RN24(RN53(a * b + c)) is the correctly rounded
// result unless RN53 landed exactly on a midpoint of two floats (the
// midpoints are doubles, and rounding is monotone, so the exact sum and its
// double lie on the same side of every other midpoint). A normal float's
// midpoints are the doubles whose 29 low significand bits are 1 followed by
// 28 zeros; those, and results in the subnormal range (whose grid is
// coarser), take fma_f32. Equal to fma_f32 for every input.
inline float fma_f32_fast(float a, float b, float c) {
  const double s = static_cast<double>(a) * static_cast<double>(b) + static_cast<double>(c);
  uint64_t bits;
  std::memcpy(&bits, &s, sizeof bits);
  const bool midpoint = (bits & 0x1FFFFFFFu) == 0x10000000u;
  if (!midpoint && (std::fabs(s) >= 0x1p-126 || s == 0.0)) return static_cast<float>(s);
  return fma_f32(a, b, c);
}

}  // namespace kernels
}  // namespace qwasm
