// fma_f32_fast (kernels/fma_f32.h) on four lanes: each product and sum in
// double (f64x2, two lanes at a time), rounded once to float32, which is the
// correctly rounded fma unless the double sum landed exactly on a midpoint of
// two floats or below the normal range (or is NaN): the scalar fma_f32_fast
// takes its exact path there, and so do these lanes, so every lane equals
// fma_f32_fast's result bit for bit.
#pragma once
#include <wasm_simd128.h>

#include "kernels/fma_f32.h"

namespace qwasm {
namespace kernels {

// The lanes of an f64x2 sum that fma_f32_fast would not round directly.
inline v128_t fma_needs_exact(v128_t s) {
  const v128_t mid =
      wasm_i64x2_eq(wasm_v128_and(s, wasm_i64x2_const_splat(0x1FFFFFFF)), wasm_i64x2_const_splat(0x10000000));
  const v128_t direct = wasm_v128_or(wasm_f64x2_ge(wasm_f64x2_abs(s), wasm_f64x2_const_splat(0x1p-126)),
                                     wasm_f64x2_eq(s, wasm_f64x2_const_splat(0.0)));
  return wasm_v128_or(mid, wasm_v128_not(direct));
}

inline v128_t fma_f32x4_fast(v128_t a, v128_t b, v128_t c) {
  const v128_t a_hi = wasm_i32x4_shuffle(a, a, 2, 3, 0, 1);
  const v128_t b_hi = wasm_i32x4_shuffle(b, b, 2, 3, 0, 1);
  const v128_t c_hi = wasm_i32x4_shuffle(c, c, 2, 3, 0, 1);
  const v128_t lo = wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a), wasm_f64x2_promote_low_f32x4(b)),
                                   wasm_f64x2_promote_low_f32x4(c));
  const v128_t hi =
      wasm_f64x2_add(wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(a_hi), wasm_f64x2_promote_low_f32x4(b_hi)),
                     wasm_f64x2_promote_low_f32x4(c_hi));
  if (wasm_v128_any_true(wasm_v128_or(fma_needs_exact(lo), fma_needs_exact(hi)))) {
    // Rare (about one lane in 2^28 for values away from the subnormal range): all four lanes the scalar way.
    alignas(16) float av[4], bv[4], cv[4], out[4];
    wasm_v128_store(av, a);
    wasm_v128_store(bv, b);
    wasm_v128_store(cv, c);
    for (int l = 0; l < 4; ++l) out[l] = fma_f32_fast(av[l], bv[l], cv[l]);
    return wasm_v128_load(out);
  }
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

}  // namespace kernels
}  // namespace qwasm
