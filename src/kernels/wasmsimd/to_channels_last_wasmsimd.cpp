// The input conversion with SIMD: blocks of 8 channels x 8 positions are
// loaded as 8 rows (bytes widened to int16, the zero point subtracted),
// transposed in registers (16-, 32- then 64-bit interleaves) and stored as 8
// positions of 8 channels each. The remaining channels and positions go one
// value at a time.
#include <wasm_simd128.h>

#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

void to_channels_last_qu8_8x8_wasmsimd(size_t channels, size_t width, const uint8_t* x, size_t x_stride,
                                       int32_t zero_point, int16_t* dst, size_t slots) {
  const v128_t zp = wasm_i16x8_splat(static_cast<int16_t>(zero_point));
  size_t c = 0;
  for (; c + 8 <= channels; c += 8) {
    const uint8_t* xc = x + c * x_stride;
    size_t w = 0;
    for (; w + 8 <= width; w += 8) {
      v128_t r[8];
      for (size_t i = 0; i < 8; ++i) r[i] = wasm_i16x8_sub(wasm_u16x8_load8x8(xc + i * x_stride + w), zp);
      // r[i] holds channel c + i at positions w..w+7.
      const v128_t t0 = wasm_i16x8_shuffle(r[0], r[1], 0, 8, 1, 9, 2, 10, 3, 11);
      const v128_t t1 = wasm_i16x8_shuffle(r[0], r[1], 4, 12, 5, 13, 6, 14, 7, 15);
      const v128_t t2 = wasm_i16x8_shuffle(r[2], r[3], 0, 8, 1, 9, 2, 10, 3, 11);
      const v128_t t3 = wasm_i16x8_shuffle(r[2], r[3], 4, 12, 5, 13, 6, 14, 7, 15);
      const v128_t t4 = wasm_i16x8_shuffle(r[4], r[5], 0, 8, 1, 9, 2, 10, 3, 11);
      const v128_t t5 = wasm_i16x8_shuffle(r[4], r[5], 4, 12, 5, 13, 6, 14, 7, 15);
      const v128_t t6 = wasm_i16x8_shuffle(r[6], r[7], 0, 8, 1, 9, 2, 10, 3, 11);
      const v128_t t7 = wasm_i16x8_shuffle(r[6], r[7], 4, 12, 5, 13, 6, 14, 7, 15);
      const v128_t u0 = wasm_i32x4_shuffle(t0, t2, 0, 4, 1, 5);
      const v128_t u1 = wasm_i32x4_shuffle(t0, t2, 2, 6, 3, 7);
      const v128_t u2 = wasm_i32x4_shuffle(t1, t3, 0, 4, 1, 5);
      const v128_t u3 = wasm_i32x4_shuffle(t1, t3, 2, 6, 3, 7);
      const v128_t u4 = wasm_i32x4_shuffle(t4, t6, 0, 4, 1, 5);
      const v128_t u5 = wasm_i32x4_shuffle(t4, t6, 2, 6, 3, 7);
      const v128_t u6 = wasm_i32x4_shuffle(t5, t7, 0, 4, 1, 5);
      const v128_t u7 = wasm_i32x4_shuffle(t5, t7, 2, 6, 3, 7);
      int16_t* d = dst + w * slots + c;
      wasm_v128_store(d, wasm_i64x2_shuffle(u0, u4, 0, 2));
      wasm_v128_store(d + slots, wasm_i64x2_shuffle(u0, u4, 1, 3));
      wasm_v128_store(d + 2 * slots, wasm_i64x2_shuffle(u1, u5, 0, 2));
      wasm_v128_store(d + 3 * slots, wasm_i64x2_shuffle(u1, u5, 1, 3));
      wasm_v128_store(d + 4 * slots, wasm_i64x2_shuffle(u2, u6, 0, 2));
      wasm_v128_store(d + 5 * slots, wasm_i64x2_shuffle(u2, u6, 1, 3));
      wasm_v128_store(d + 6 * slots, wasm_i64x2_shuffle(u3, u7, 0, 2));
      wasm_v128_store(d + 7 * slots, wasm_i64x2_shuffle(u3, u7, 1, 3));
    }
    for (; w < width; ++w) {
      for (size_t i = 0; i < 8; ++i) dst[w * slots + c + i] = static_cast<int16_t>(xc[i * x_stride + w] - zero_point);
    }
  }
  for (; c < channels; ++c) {
    const uint8_t* row = x + c * x_stride;
    for (size_t w = 0; w < width; ++w) dst[w * slots + c] = static_cast<int16_t>(row[w] - zero_point);
  }
}

}  // namespace kernels
}  // namespace qwasm
