// F(2, 3)'s one-dimension steps for wasm SIMD128 (matrices:
// kernels/winograd_kernels.h), shared by the F(2, 3) kernels and by the
// F(4, 3) ones, which run F(2, 3) along their outer dimensions.
#pragma once
#include <wasm_simd128.h>

namespace qwasm {
namespace kernels {
namespace winograd_f23 {

// B^T: 4 taps -> 4 points (int16).
inline void bt4(v128_t x0, v128_t x1, v128_t x2, v128_t x3, v128_t* y) {
  y[0] = wasm_i16x8_sub(x0, x2);
  y[1] = wasm_i16x8_add(x1, x2);
  y[2] = wasm_i16x8_sub(x2, x1);
  y[3] = wasm_i16x8_sub(x1, x3);
}

// G' = 2G: 3 taps -> 4 points, 2a, a + b + c, a - b + c, 2c (int16).
inline void g4(v128_t a, v128_t b, v128_t c, v128_t* y) {
  const v128_t ac = wasm_i16x8_add(a, c);
  y[0] = wasm_i16x8_add(a, a);
  y[1] = wasm_i16x8_add(ac, b);
  y[2] = wasm_i16x8_sub(ac, b);
  y[3] = wasm_i16x8_add(c, c);
}

// A^T: 4 points -> 2 outputs (int32, wrapping).
inline void at2(v128_t x0, v128_t x1, v128_t x2, v128_t x3, v128_t* y0, v128_t* y1) {
  *y0 = wasm_i32x4_add(wasm_i32x4_add(x0, x1), x2);
  *y1 = wasm_i32x4_sub(wasm_i32x4_sub(x1, x2), x3);
}

}  // namespace winograd_f23
}  // namespace kernels
}  // namespace qwasm
