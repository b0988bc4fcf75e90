// Depthwise as FBGEMM's fast path computes it: one output pixel, 8 channels
// per step, the raw activations (0..255, padding = the input zero point) of
// two taps interleaved per channel and multiplied by the raw int8 weights in
// one i32x4.dot_i16x8_s (the pair's sum is exact in int32), clamped to int16
// (FBGEMM's vpmaddubsw saturates there), accumulated in int32; then the zero
// points' terms taken off (conv_kernels.h). With asymmetric weights, the
// activations' row sum rides along (extadd_pairwise of the interleaved pair).
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"

namespace qwasm {
namespace kernels {
namespace {

inline v128_t sat16(v128_t v) {
  return wasm_i32x4_min(wasm_i32x4_max(v, wasm_i32x4_const_splat(-32768)), wasm_i32x4_const_splat(32767));
}

template <bool kRowSum>
void channels8(size_t channels, size_t ntaps, const int16_t* a, const ptrdiff_t* tap_offsets, const int16_t* wp,
               const ConvRequantParams& params, size_t cb, v128_t* out_lo, v128_t* out_hi) {
  v128_t acc_lo = wasm_i32x4_const_splat(0), acc_hi = wasm_i32x4_const_splat(0);
  v128_t sum_lo = wasm_i32x4_const_splat(0), sum_hi = wasm_i32x4_const_splat(0);
  size_t t = 0;
  for (; t + 2 <= ntaps; t += 2, wp += 2 * channels) {
    const v128_t a0 = wasm_v128_load(a + tap_offsets[t] + cb);
    const v128_t a1 = wasm_v128_load(a + tap_offsets[t + 1] + cb);
    const v128_t lo = wasm_i16x8_shuffle(a0, a1, 0, 8, 1, 9, 2, 10, 3, 11);
    const v128_t hi = wasm_i16x8_shuffle(a0, a1, 4, 12, 5, 13, 6, 14, 7, 15);
    acc_lo = wasm_i32x4_add(acc_lo, sat16(wasm_i32x4_dot_i16x8(lo, wasm_v128_load(wp))));
    acc_hi = wasm_i32x4_add(acc_hi, sat16(wasm_i32x4_dot_i16x8(hi, wasm_v128_load(wp + 8))));
    if (kRowSum) {
      sum_lo = wasm_i32x4_add(sum_lo, wasm_i32x4_extadd_pairwise_i16x8(lo));
      sum_hi = wasm_i32x4_add(sum_hi, wasm_i32x4_extadd_pairwise_i16x8(hi));
    }
  }
  if (t < ntaps) {  // the last tap alone (its partner weight is 0): within int16
    const v128_t a0 = wasm_v128_load(a + tap_offsets[t] + cb);
    const v128_t zero = wasm_i16x8_const_splat(0);
    const v128_t lo = wasm_i16x8_shuffle(a0, zero, 0, 8, 1, 9, 2, 10, 3, 11);
    const v128_t hi = wasm_i16x8_shuffle(a0, zero, 4, 12, 5, 13, 6, 14, 7, 15);
    acc_lo = wasm_i32x4_add(acc_lo, wasm_i32x4_dot_i16x8(lo, wasm_v128_load(wp)));
    acc_hi = wasm_i32x4_add(acc_hi, wasm_i32x4_dot_i16x8(hi, wasm_v128_load(wp + 8)));
    if (kRowSum) {
      sum_lo = wasm_i32x4_add(sum_lo, wasm_i32x4_extadd_pairwise_i16x8(lo));
      sum_hi = wasm_i32x4_add(sum_hi, wasm_i32x4_extadd_pairwise_i16x8(hi));
    }
  }
  acc_lo = wasm_i32x4_sub(acc_lo, wasm_v128_load(params.acc_offset + cb));
  acc_hi = wasm_i32x4_sub(acc_hi, wasm_v128_load(params.acc_offset + cb + 4));
  if (kRowSum) {
    const v128_t cap = wasm_i32x4_const_splat(32767);
    acc_lo = wasm_i32x4_sub(acc_lo,
                            wasm_i32x4_mul(wasm_v128_load(params.weight_zero_point + cb), wasm_i32x4_min(sum_lo, cap)));
    acc_hi = wasm_i32x4_sub(
        acc_hi, wasm_i32x4_mul(wasm_v128_load(params.weight_zero_point + cb + 4), wasm_i32x4_min(sum_hi, cap)));
  }
  *out_lo = acc_lo;
  *out_hi = acc_hi;
}

}  // namespace

void dwconv3d_sat16_qu8_qs8w_8c2_wasmsimd(size_t channels, size_t valid, size_t ntaps, const int16_t* a,
                                          const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c, size_t c_stride,
                                          const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps >= 1);
  assert(params->acc_offset != nullptr);
  const RequantVectors r(*params);
  for (size_t cb = 0; cb < valid; cb += 8) {
    v128_t acc_lo, acc_hi;
    if (params->weight_zero_point) {
      channels8<true>(channels, ntaps, a, tap_offsets, w + 2 * cb, *params, cb, &acc_lo, &acc_hi);
    } else {
      channels8<false>(channels, ntaps, a, tap_offsets, w + 2 * cb, *params, cb, &acc_lo, &acc_hi);
    }
    const v128_t lo = requantize4(acc_lo, RequantChannels(*params, cb), r);
    const v128_t hi = requantize4(acc_hi, RequantChannels(*params, cb + 4), r);
    store_u8_lanes(c + cb * c_stride, c_stride, std::min<size_t>(8, valid - cb), lo, hi);
  }
}

}  // namespace kernels
}  // namespace qwasm
