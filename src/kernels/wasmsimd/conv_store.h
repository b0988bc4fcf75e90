// Shared tails of the SIMD conv kernels: requantize four int32 accumulators,
// and scatter a tile row to channel planes (the output is NCDHW).
#pragma once
#include <wasm_simd128.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

struct RequantVectors {
  v128_t input_scale, zero_point_f, zero_point, min_minus_zp, max_minus_zp, min_minus_zp_f, max_minus_zp_f;
  bool fused_bias;
  explicit RequantVectors(const ConvRequantParams& p)
      : input_scale(wasm_f32x4_splat(p.input_scale)),
        zero_point_f(wasm_f32x4_splat(p.zero_point_f)),
        zero_point(wasm_i32x4_splat(p.output_zero_point)),
        min_minus_zp(wasm_i32x4_splat(p.output_min - p.output_zero_point)),
        max_minus_zp(wasm_i32x4_splat(p.output_max - p.output_zero_point)),
        min_minus_zp_f(wasm_f32x4_splat(static_cast<float>(p.output_min - p.output_zero_point))),
        max_minus_zp_f(wasm_f32x4_splat(static_cast<float>(p.output_max - p.output_zero_point))),
        fused_bias(p.fused_bias) {}
};

// The per-channel constants of channels j..j+3; with a fused bias also the
// products bias[j] * bias_rcp, exact in double (kernels/fma_f32.h), of
// channels j, j+1 (product_lo) and j+2, j+3 (product_hi).
struct RequantChannels {
  v128_t weight_scale, bias, multiplier, product_lo, product_hi;
  RequantChannels(const ConvRequantParams& p, size_t j)
      : weight_scale(wasm_v128_load(p.weight_scale + j)),
        bias(wasm_v128_load(p.bias + j)),
        multiplier(wasm_v128_load(p.multiplier + j)),
        product_lo(wasm_f64x2_const_splat(0.0)),
        product_hi(wasm_f64x2_const_splat(0.0)) {
    if (p.fused_bias) {
      const v128_t rcp = wasm_f64x2_splat(static_cast<double>(p.bias_rcp));
      product_lo = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(bias), rcp);
      product_hi = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(bias, bias, 2, 3, 2, 3)), rcp);
    }
  }
};

// add_round_to_odd of kernels/fma_f32.h, two lanes: TwoSum, then one ulp
// toward the error where the sum is inexact, even and finite.
inline v128_t add_round_to_odd2(v128_t a, v128_t b) {
  const v128_t s = wasm_f64x2_add(a, b);
  const v128_t bv = wasm_f64x2_sub(s, a);
  const v128_t av = wasm_f64x2_sub(s, bv);
  const v128_t e = wasm_f64x2_add(wasm_f64x2_sub(a, av), wasm_f64x2_sub(b, bv));
  const v128_t one = wasm_i64x2_const_splat(1);
  const v128_t fix = wasm_v128_and(wasm_v128_and(wasm_f64x2_ne(e, wasm_f64x2_const_splat(0.0)),
                                                 wasm_i64x2_eq(wasm_v128_and(s, one), wasm_i64x2_const_splat(0))),
                                   wasm_f64x2_lt(wasm_f64x2_abs(s), wasm_f64x2_const_splat(INFINITY)));
  const v128_t step = wasm_v128_or(wasm_i64x2_shr(wasm_v128_xor(e, s), 63), one);  // +1, or -1 when the signs differ
  return wasm_i64x2_add(s, wasm_v128_and(step, fix));
}

// fma(bias, bias_rcp, f) per lane with one rounding (fma_f32 of
// kernels/fma_f32.h), for f integer-valued (the converted accumulator).
// The plain double sum s = product + f, rounded to float, is already the
// fma unless s is a float midpoint (its low 29 bits 1 followed by 28
// zeros): float values and midpoints are doubles and rounding is monotonic,
// so an s strictly between two midpoints rounds like the exact sum. (A
// result below 2^-126, where midpoints look otherwise, needs the sum to
// cancel: with f an integer it is then exact.) Only at a midpoint, rare,
// do the two lane pairs take the rounding to odd.
inline v128_t fused_bias4(v128_t f, const RequantChannels& ch) {
  const v128_t f_lo = wasm_f64x2_promote_low_f32x4(f);
  const v128_t f_hi = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(f, f, 2, 3, 2, 3));
  v128_t lo = wasm_f64x2_add(ch.product_lo, f_lo);
  v128_t hi = wasm_f64x2_add(ch.product_hi, f_hi);
  const v128_t low_bits = wasm_i64x2_const_splat(0x1FFFFFFF), midpoint = wasm_i64x2_const_splat(0x10000000);
  if (wasm_v128_any_true(wasm_v128_or(wasm_i64x2_eq(wasm_v128_and(lo, low_bits), midpoint),
                                      wasm_i64x2_eq(wasm_v128_and(hi, low_bits), midpoint)))) {
    lo = add_round_to_odd2(ch.product_lo, f_lo);
    hi = add_round_to_odd2(ch.product_hi, f_hi);
  }
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

// Same steps as requantize() in kernels/requantize.h, four lanes at a time.
inline v128_t requantize4(v128_t acc, const RequantChannels& ch, const RequantVectors& r) {
  v128_t f = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc), r.input_scale);
  f = wasm_f32x4_mul(f, ch.weight_scale);
  f = r.fused_bias ? fused_bias4(f, ch) : wasm_f32x4_add(f, ch.bias);
  f = wasm_f32x4_mul(f, ch.multiplier);
  f = wasm_f32x4_nearest(wasm_f32x4_add(f, r.zero_point_f));
  v128_t q = wasm_i32x4_trunc_sat_f32x4(f);
  q = wasm_i32x4_min(wasm_i32x4_max(q, r.min_minus_zp), r.max_minus_zp);
  return wasm_i32x4_add(q, r.zero_point);
}

// requantize4 with the rounding, the conversion and the clamp done as five
// cheap instructions instead of nearest + trunc_sat (several instructions in
// V8 on x64) + min + max. The same integers: f is finite (a finite
// accumulator times finite constants, plus finite terms), and clamping to
// integer bounds commutes with rounding to an integer (both monotonic; an
// integer rounds to itself), so clamp(nearbyint(f)) = nearbyint(clamp(f)).
// The clamped value lies in [-255, 255], where adding 1.5 * 2^23 rounds it
// to the nearest integer, ties to even (the float addition's rounding, as
// nearbyint's), and leaves that integer in the low mantissa bits: the sum's
// bits minus those of 1.5 * 2^23.
inline v128_t requantize4_clamped(v128_t acc, const RequantChannels& ch, const RequantVectors& r) {
  v128_t f = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc), r.input_scale);
  f = wasm_f32x4_mul(f, ch.weight_scale);
  f = r.fused_bias ? fused_bias4(f, ch) : wasm_f32x4_add(f, ch.bias);
  f = wasm_f32x4_mul(f, ch.multiplier);
  f = wasm_f32x4_add(f, r.zero_point_f);
  f = wasm_f32x4_pmin(wasm_f32x4_pmax(f, r.min_minus_zp_f), r.max_minus_zp_f);
  const v128_t magic = wasm_f32x4_const_splat(12582912.0f);
  return wasm_i32x4_add(wasm_i32x4_sub(wasm_f32x4_add(f, magic), magic), r.zero_point);
}

// Stores the first n (<= 8) bytes of the two int32x4 vectors lo, hi (values in
// 0..255) at c[0], c[stride], c[2 * stride], ...
inline void store_u8_lanes(uint8_t* c, size_t stride, size_t n, v128_t lo, v128_t hi) {
  const v128_t v = wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(lo, hi), wasm_i16x8_narrow_i32x4(lo, hi));
  if (stride == 1 && n == 8) {  // channels-last output (a linear layer's rows): one 8-byte store
    wasm_v128_store64_lane(c, v, 0);
    return;
  }
  uint64_t bytes = wasm_i64x2_extract_lane(v, 0);
  for (size_t j = 0; j < n; ++j, bytes >>= 8) c[j * stride] = static_cast<uint8_t>(bytes);
}

// Bytes 0..7 of a u8x16 vector holding channels 0..7 of one pixel, from the two
// int32x4 halves.
inline v128_t pack_u8(v128_t lo, v128_t hi) {
  const v128_t w = wasm_i16x8_narrow_i32x4(lo, hi);
  return wasm_u8x16_narrow_i16x8(w, w);
}

// Four consecutive output pixels (c, c + 1, c + 2, c + 3 in every channel
// plane) of n <= 8 channels: a 4x8 byte transpose, then one 32-bit store per
// channel instead of four byte stores.
inline void store_4x8_u8(uint8_t* c, size_t stride, size_t n, v128_t p0, v128_t p1, v128_t p2, v128_t p3) {
  const v128_t t01 = wasm_i8x16_shuffle(p0, p1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t t23 = wasm_i8x16_shuffle(p2, p3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const v128_t ch0123 = wasm_i16x8_shuffle(t01, t23, 0, 8, 1, 9, 2, 10, 3, 11);
  const v128_t ch4567 = wasm_i16x8_shuffle(t01, t23, 4, 12, 5, 13, 6, 14, 7, 15);
  uint32_t words[8];
  wasm_v128_store(words, ch0123);
  wasm_v128_store(words + 4, ch4567);
  for (size_t j = 0; j < n; ++j) std::memcpy(c + j * stride, &words[j], 4);
}

// The Winograd output kernels' stores (winograd_f23/f43_wasmsimd.cpp).
// One output of one tile, n <= 4 channels: a byte per channel plane.
inline void store_channels(uint8_t* p, size_t c_stride, size_t n, v128_t r) {
  const v128_t b16 = wasm_i16x8_narrow_i32x4(r, r);
  uint32_t bytes = static_cast<uint32_t>(wasm_i32x4_extract_lane(wasm_u8x16_narrow_i16x8(b16, b16), 0));
  for (size_t j = 0; j < n; ++j, bytes >>= 8) p[j * c_stride] = static_cast<uint8_t>(bytes);
}

// Four values per channel that are neighbours in every plane (one output of
// four tiles at tile_step 1, or an F(4, 3) tile's four outputs along W), n <= 4
// channels: a 4x4 byte transpose, then one 32-bit store per channel.
inline void store_4tiles(uint8_t* p, size_t c_stride, size_t n, v128_t r0, v128_t r1, v128_t r2, v128_t r3) {
  const v128_t v = wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(r0, r1), wasm_i16x8_narrow_i32x4(r2, r3));
  const v128_t s = wasm_i8x16_shuffle(v, v, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  wasm_v128_store32_lane(p, s, 0);
  if (n > 1) wasm_v128_store32_lane(p + c_stride, s, 1);
  if (n > 2) wasm_v128_store32_lane(p + 2 * c_stride, s, 2);
  if (n > 3) wasm_v128_store32_lane(p + 3 * c_stride, s, 3);
}

}  // namespace kernels
}  // namespace qwasm
