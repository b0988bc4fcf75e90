// The pool_rows.inc family, wasm SIMD128: rowmax_qu8_wasmsimd and
// rowsum_qu8_qs32_wasmsimd, 16 bytes per step, the tail byte by byte.
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>

#include "kernels/pool_kernels.h"

namespace qwasm {
namespace kernels {

void rowmax_qu8_wasmsimd(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out) {
  assert(rows >= 1);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t m = wasm_v128_load(in[0] + i);
    for (size_t r = 1; r < rows; ++r) m = wasm_u8x16_max(m, wasm_v128_load(in[r] + i));
    wasm_v128_store(out + i, m);
  }
  for (; i < n; ++i) {
    uint8_t m = in[0][i];
    for (size_t r = 1; r < rows; ++r) m = std::max(m, in[r][i]);
    out[i] = m;
  }
}

// Rows are added in u16 lanes, 257 at a time (257 * 255 = 65535 fits), then
// widened into the int32 sums.
void rowsum_qu8_qs32_wasmsimd(size_t n, size_t rows, const uint8_t* const* in, int32_t* out) {
  assert(rows >= 1 && rows <= kRowSumMaxRows);
  constexpr size_t kChunk = 257;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
    for (size_t r0 = 0; r0 < rows; r0 += kChunk) {
      const size_t r1 = std::min(rows, r0 + kChunk);
      v128_t lo = wasm_i16x8_splat(0), hi = lo;
      for (size_t r = r0; r < r1; ++r) {
        const v128_t v = wasm_v128_load(in[r] + i);
        lo = wasm_i16x8_add(lo, wasm_u16x8_extend_low_u8x16(v));
        hi = wasm_i16x8_add(hi, wasm_u16x8_extend_high_u8x16(v));
      }
      s0 = wasm_i32x4_add(s0, wasm_u32x4_extend_low_u16x8(lo));
      s1 = wasm_i32x4_add(s1, wasm_u32x4_extend_high_u16x8(lo));
      s2 = wasm_i32x4_add(s2, wasm_u32x4_extend_low_u16x8(hi));
      s3 = wasm_i32x4_add(s3, wasm_u32x4_extend_high_u16x8(hi));
    }
    wasm_v128_store(out + i, s0);
    wasm_v128_store(out + i + 4, s1);
    wasm_v128_store(out + i + 8, s2);
    wasm_v128_store(out + i + 12, s3);
  }
  for (; i < n; ++i) {
    int32_t s = 0;
    for (size_t r = 0; r < rows; ++r) s += in[r][i];
    out[i] = s;
  }
}

}  // namespace kernels
}  // namespace qwasm
