// The inner loop shared by the 4x8c2 dot16 kernels (the direct conv's and the
// Winograd GEMM's): 4 rows x 8 columns of int32 sums, one
// i32x4.dot_i16x8_s per (row, 4 columns, pair of reduction values): a
// broadcast int16 pair of the row against [4 columns x 2] int16 weights.
// Weights: [segment][kblock][8][2]. The adds wrap, as int32 arithmetic
// does in wasm.
#pragma once
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>

namespace qwasm {
namespace kernels {

struct Acc4x8 {
  v128_t r0x0123 = wasm_i32x4_const_splat(0), r0x4567 = wasm_i32x4_const_splat(0);
  v128_t r1x0123 = wasm_i32x4_const_splat(0), r1x4567 = wasm_i32x4_const_splat(0);
  v128_t r2x0123 = wasm_i32x4_const_splat(0), r2x4567 = wasm_i32x4_const_splat(0);
  v128_t r3x0123 = wasm_i32x4_const_splat(0), r3x4567 = wasm_i32x4_const_splat(0);
};

// Segment s of row m starts at a_m + seg_offsets[s] and holds kblocks pairs.
inline void dot16_4x8c2(const int16_t* a0, const int16_t* a1, const int16_t* a2, const int16_t* a3, size_t nseg,
                        const ptrdiff_t* seg_offsets, size_t kblocks, const int16_t* w, Acc4x8& acc) {
  v128_t acc0x0123 = acc.r0x0123, acc0x4567 = acc.r0x4567, acc1x0123 = acc.r1x0123, acc1x4567 = acc.r1x4567;
  v128_t acc2x0123 = acc.r2x0123, acc2x4567 = acc.r2x4567, acc3x0123 = acc.r3x0123, acc3x4567 = acc.r3x4567;
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
  acc.r0x0123 = acc0x0123, acc.r0x4567 = acc0x4567, acc.r1x0123 = acc1x0123, acc.r1x4567 = acc1x4567;
  acc.r2x0123 = acc2x0123, acc.r2x4567 = acc2x4567, acc.r3x0123 = acc3x0123, acc.r3x4567 = acc3x4567;
}

}  // namespace kernels
}  // namespace qwasm
