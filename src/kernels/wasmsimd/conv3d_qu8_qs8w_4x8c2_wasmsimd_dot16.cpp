// 4 output pixels x 8 output channels per call; the reduction is one
// i32x4.dot_i16x8_s per (pixel, 4 channels, input pair): a broadcast pair of
// int16 activations against [4 channels x 2] int16 weights. Layout and
// contract: kernels/conv_kernels.h.
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"

namespace qwasm {
namespace kernels {

void conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16(size_t mr, size_t nc, size_t nseg, size_t kblocks, const int16_t* const* a,
                                          const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c,
                                          size_t c_stride, const ConvRequantParams* params) {
  assert(mr >= 1 && mr <= 4);
  assert(nc >= 1 && nc <= 8);
  // Rows past mr repeat the last valid pixel: computed, never stored.
  const int16_t* a0 = a[0];
  const int16_t* a1 = mr > 1 ? a[1] : a0;
  const int16_t* a2 = mr > 2 ? a[2] : a1;
  const int16_t* a3 = mr > 3 ? a[3] : a2;
  v128_t acc0x0123 = wasm_i32x4_const_splat(0), acc0x4567 = wasm_i32x4_const_splat(0);
  v128_t acc1x0123 = wasm_i32x4_const_splat(0), acc1x4567 = wasm_i32x4_const_splat(0);
  v128_t acc2x0123 = wasm_i32x4_const_splat(0), acc2x4567 = wasm_i32x4_const_splat(0);
  v128_t acc3x0123 = wasm_i32x4_const_splat(0), acc3x4567 = wasm_i32x4_const_splat(0);
  for (size_t s = 0; s < nseg; ++s) {
    const ptrdiff_t off = seg_offsets[s];
    const int16_t* p0 = a0 + off;
    const int16_t* p1 = a1 + off;
    const int16_t* p2 = a2 + off;
    const int16_t* p3 = a3 + off;
    for (size_t k = 0; k < kblocks; ++k) {
      const v128_t w0123 = wasm_v128_load(w);
      const v128_t w4567 = wasm_v128_load(w + 8);
      w += 16;
      const v128_t va0 = wasm_v128_load32_splat(p0 + 2 * k);
      acc0x0123 = wasm_i32x4_add(acc0x0123, wasm_i32x4_dot_i16x8(va0, w0123));
      acc0x4567 = wasm_i32x4_add(acc0x4567, wasm_i32x4_dot_i16x8(va0, w4567));
      const v128_t va1 = wasm_v128_load32_splat(p1 + 2 * k);
      acc1x0123 = wasm_i32x4_add(acc1x0123, wasm_i32x4_dot_i16x8(va1, w0123));
      acc1x4567 = wasm_i32x4_add(acc1x4567, wasm_i32x4_dot_i16x8(va1, w4567));
      const v128_t va2 = wasm_v128_load32_splat(p2 + 2 * k);
      acc2x0123 = wasm_i32x4_add(acc2x0123, wasm_i32x4_dot_i16x8(va2, w0123));
      acc2x4567 = wasm_i32x4_add(acc2x4567, wasm_i32x4_dot_i16x8(va2, w4567));
      const v128_t va3 = wasm_v128_load32_splat(p3 + 2 * k);
      acc3x0123 = wasm_i32x4_add(acc3x0123, wasm_i32x4_dot_i16x8(va3, w0123));
      acc3x4567 = wasm_i32x4_add(acc3x4567, wasm_i32x4_dot_i16x8(va3, w4567));
    }
  }
  const RequantVectors r(*params);
  const RequantChannels ch0123(*params, 0);
  const RequantChannels ch4567(*params, 4);
  if (mr == 4 && c[1] == c[0] + 1 && c[2] == c[0] + 2 && c[3] == c[0] + 3) {
    store_4x8_u8(c[0], c_stride, nc, pack_u8(requantize4(acc0x0123, ch0123, r), requantize4(acc0x4567, ch4567, r)),
                 pack_u8(requantize4(acc1x0123, ch0123, r), requantize4(acc1x4567, ch4567, r)),
                 pack_u8(requantize4(acc2x0123, ch0123, r), requantize4(acc2x4567, ch4567, r)),
                 pack_u8(requantize4(acc3x0123, ch0123, r), requantize4(acc3x4567, ch4567, r)));
    return;
  }
  store_u8_lanes(c[0], c_stride, nc, requantize4(acc0x0123, ch0123, r), requantize4(acc0x4567, ch4567, r));
  if (mr > 1) store_u8_lanes(c[1], c_stride, nc, requantize4(acc1x0123, ch0123, r), requantize4(acc1x4567, ch4567, r));
  if (mr > 2) store_u8_lanes(c[2], c_stride, nc, requantize4(acc2x0123, ch0123, r), requantize4(acc2x4567, ch4567, r));
  if (mr > 3) store_u8_lanes(c[3], c_stride, nc, requantize4(acc3x0123, ch0123, r), requantize4(acc3x4567, ch4567, r));
}

}  // namespace kernels
}  // namespace qwasm
