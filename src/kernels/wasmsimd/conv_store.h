// Shared tails of the SIMD conv kernels: requantize four int32 accumulators,
// and scatter a tile row to channel planes (the output is NCDHW).
#pragma once
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

struct RequantVectors {
  v128_t zero_point, min_minus_zp, max_minus_zp;
  explicit RequantVectors(const ConvRequantParams& p)
      : zero_point(wasm_i32x4_splat(p.output_zero_point)),
        min_minus_zp(wasm_i32x4_splat(p.output_min - p.output_zero_point)),
        max_minus_zp(wasm_i32x4_splat(p.output_max - p.output_zero_point)) {}
};

// Same steps as requantize() in ref/requantize.h, four lanes at a time.
inline v128_t requantize4(v128_t acc, v128_t bias_div, v128_t multiplier, const RequantVectors& r) {
  v128_t f = wasm_f32x4_add(wasm_f32x4_convert_i32x4(acc), bias_div);
  f = wasm_f32x4_nearest(wasm_f32x4_mul(f, multiplier));
  v128_t q = wasm_i32x4_trunc_sat_f32x4(f);
  q = wasm_i32x4_min(wasm_i32x4_max(q, r.min_minus_zp), r.max_minus_zp);
  return wasm_i32x4_add(q, r.zero_point);
}

// Stores the first n (<= 8) bytes of the two int32x4 vectors lo, hi (values in
// 0..255) at c[0], c[stride], c[2 * stride], ...
inline void store_u8_lanes(uint8_t* c, size_t stride, size_t n, v128_t lo, v128_t hi) {
  const v128_t v = wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(lo, hi), wasm_i16x8_narrow_i32x4(lo, hi));
  uint64_t bytes = wasm_i64x2_extract_lane(v, 0);
  for (size_t j = 0; j < n; ++j, bytes >>= 8) c[j * stride] = static_cast<uint8_t>(bytes);
}

}  // namespace kernels
}  // namespace qwasm
