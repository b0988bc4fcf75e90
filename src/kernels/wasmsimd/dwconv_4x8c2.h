// The depthwise 4x8c2 kernels' body (dwconv3d_qu8_qs8w_4x8c2_wasmsimd,
// dwconv3d_sat16_qu8_qs8w_4x8c2_wasmsimd): a run of output pixels along W,
// four at a time, eight channels per step. Per tap pair, the pair's weights
// ([pair][channel][2]) are loaded once and used for the four pixels. kExact:
// each pixel's two taps are interleaved per channel (one i16x8 shuffle per half,
// which V8 lowers to punpck{l,h}wd) and one i32x4.dot_i16x8_s adds both taps
// of four channels. The four pixels' bytes are transposed and stored as one
// 32-bit word per channel plane. A run's last 1-3 pixels take the one-pixel
// form of the same code. The requantization is requantize4_clamped
// (conv_store.h): the same integers as requantize4 in fewer instructions,
// which matters here, where an output takes only ntaps multiply-adds.
//
// kSat16 (FBGEMM's depthwise fast path): raw activations (0..255) times raw
// weights (-128..127) fit int16, so each tap's products are one i16x8.mul
// and each pair's sum clamped to int16 (vpmaddubsw's saturation) one
// i16x8.add_sat_s, then widened into the int32 sums: no interleaving of the
// activations, no clamp constants; an odd last tap runs alone. With asymmetric weights the raw activations'
// sum per channel rides along in saturating int16 adds: the activations are
// >= 0, so the saturated running sum is min(sum, 32767), FBGEMM's row offset.
#pragma once
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"

namespace qwasm {
namespace kernels {
namespace dwconv_4x8c2 {

// M (1 or 4) pixels, channels cb..cb+7 (n <= 8 stored). a: pixel 0's input;
// pixel m's is a + m * step. c: pixel 0 of channel cb's plane.
template <DwConvMode kMode, bool kRowSum, int M>
inline void tile(size_t channels, size_t ntaps, const int16_t* a, ptrdiff_t step, const ptrdiff_t* offsets,
                 const int16_t* w, size_t cb, size_t n, uint8_t* c, size_t c_stride, const ConvRequantParams& p,
                 const RequantVectors& r) {
  v128_t lo[M], hi[M], rs[M];
  for (int m = 0; m < M; ++m) {
    lo[m] = hi[m] = wasm_i32x4_const_splat(0);
    rs[m] = wasm_i16x8_const_splat(0);
  }
  const int16_t* wp = w + 2 * cb;
  a += cb;
  const size_t pairs = ntaps / 2;
  if constexpr (kMode == DwConvMode::kExact) {
    for (size_t t = 0; t < pairs; ++t, wp += 2 * channels) {
      const v128_t w_lo = wasm_v128_load(wp);
      const v128_t w_hi = wasm_v128_load(wp + 8);
      const int16_t* p0 = a + offsets[2 * t];
      const int16_t* p1 = a + offsets[2 * t + 1];
      for (int m = 0; m < M; ++m) {
        const v128_t x0 = wasm_v128_load(p0 + m * step);
        const v128_t x1 = wasm_v128_load(p1 + m * step);
        lo[m] = wasm_i32x4_add(lo[m], wasm_i32x4_dot_i16x8(wasm_i16x8_shuffle(x0, x1, 0, 8, 1, 9, 2, 10, 3, 11), w_lo));
        hi[m] =
            wasm_i32x4_add(hi[m], wasm_i32x4_dot_i16x8(wasm_i16x8_shuffle(x0, x1, 4, 12, 5, 13, 6, 14, 7, 15), w_hi));
      }
    }
  } else {
    // Raw x (0..255) times raw w (-128..127) fits int16 exactly, so
    // i16x8.mul gives each tap's products and i16x8.add_sat_s the pair's
    // sum clamped to int16, as vpmaddubsw; widened into the int32 sums. The
    // pair's weights are de-interleaved once per M pixels.
    for (size_t t = 0; t < pairs; ++t, wp += 2 * channels) {
      const v128_t w_lo = wasm_v128_load(wp);
      const v128_t w_hi = wasm_v128_load(wp + 8);
      const v128_t w0 = wasm_i16x8_shuffle(w_lo, w_hi, 0, 2, 4, 6, 8, 10, 12, 14);
      const v128_t w1 = wasm_i16x8_shuffle(w_lo, w_hi, 1, 3, 5, 7, 9, 11, 13, 15);
      const int16_t* p0 = a + offsets[2 * t];
      const int16_t* p1 = a + offsets[2 * t + 1];
      for (int m = 0; m < M; ++m) {
        const v128_t x0 = wasm_v128_load(p0 + m * step);
        const v128_t x1 = wasm_v128_load(p1 + m * step);
        const v128_t pair = wasm_i16x8_add_sat(wasm_i16x8_mul(x0, w0), wasm_i16x8_mul(x1, w1));
        lo[m] = wasm_i32x4_add(lo[m], wasm_i32x4_extend_low_i16x8(pair));
        hi[m] = wasm_i32x4_add(hi[m], wasm_i32x4_extend_high_i16x8(pair));
        if (kRowSum) rs[m] = wasm_i16x8_add_sat(wasm_i16x8_add_sat(rs[m], x0), x1);
      }
    }
    if (ntaps % 2) {  // the last tap alone (|x * w| <= 255 * 128: no clamp)
      const v128_t w0 = wasm_i16x8_shuffle(wasm_v128_load(wp), wasm_v128_load(wp + 8), 0, 2, 4, 6, 8, 10, 12, 14);
      const int16_t* p0 = a + offsets[ntaps - 1];
      for (int m = 0; m < M; ++m) {
        const v128_t x0 = wasm_v128_load(p0 + m * step);
        const v128_t prod = wasm_i16x8_mul(x0, w0);
        lo[m] = wasm_i32x4_add(lo[m], wasm_i32x4_extend_low_i16x8(prod));
        hi[m] = wasm_i32x4_add(hi[m], wasm_i32x4_extend_high_i16x8(prod));
        if (kRowSum) rs[m] = wasm_i16x8_add_sat(rs[m], x0);
      }
    }
  }
  if (kMode == DwConvMode::kSat16) {
    const v128_t off_lo = wasm_v128_load(p.acc_offset + cb), off_hi = wasm_v128_load(p.acc_offset + cb + 4);
    for (int m = 0; m < M; ++m) lo[m] = wasm_i32x4_sub(lo[m], off_lo), hi[m] = wasm_i32x4_sub(hi[m], off_hi);
    if (kRowSum) {
      const v128_t zp_lo = wasm_v128_load(p.weight_zero_point + cb);
      const v128_t zp_hi = wasm_v128_load(p.weight_zero_point + cb + 4);
      for (int m = 0; m < M; ++m) {
        lo[m] = wasm_i32x4_sub(lo[m], wasm_i32x4_mul(zp_lo, wasm_i32x4_extend_low_i16x8(rs[m])));
        hi[m] = wasm_i32x4_sub(hi[m], wasm_i32x4_mul(zp_hi, wasm_i32x4_extend_high_i16x8(rs[m])));
      }
    }
  }
  const RequantChannels ch_lo(p, cb), ch_hi(p, cb + 4);
  v128_t out[M];
  for (int m = 0; m < M; ++m)
    out[m] = pack_u8(requantize4_clamped(lo[m], ch_lo, r), requantize4_clamped(hi[m], ch_hi, r));
  if constexpr (M == 4) {
    store_4x8_u8(c + cb * c_stride, c_stride, n, out[0], out[1], out[2], out[3]);
  } else {
    uint64_t bytes = wasm_i64x2_extract_lane(out[0], 0);
    for (size_t j = 0; j < n; ++j, bytes >>= 8) c[(cb + j) * c_stride] = static_cast<uint8_t>(bytes);
  }
}

template <DwConvMode kMode, bool kRowSum>
inline void run(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a, ptrdiff_t step,
                const ptrdiff_t* offsets, const int16_t* w, uint8_t* c, size_t c_stride, const ConvRequantParams& p) {
  const RequantVectors r(p);
  size_t m = 0;
  for (; m + 4 <= npix; m += 4) {
    for (size_t cb = 0; cb < valid; cb += 8) {
      tile<kMode, kRowSum, 4>(channels, ntaps, a + static_cast<ptrdiff_t>(m) * step, step, offsets, w, cb,
                              std::min<size_t>(8, valid - cb), c + m, c_stride, p, r);
    }
  }
  for (; m < npix; ++m) {
    for (size_t cb = 0; cb < valid; cb += 8) {
      tile<kMode, kRowSum, 1>(channels, ntaps, a + static_cast<ptrdiff_t>(m) * step, step, offsets, w, cb,
                              std::min<size_t>(8, valid - cb), c + m, c_stride, p, r);
    }
  }
}

}  // namespace dwconv_4x8c2
}  // namespace kernels
}  // namespace qwasm
