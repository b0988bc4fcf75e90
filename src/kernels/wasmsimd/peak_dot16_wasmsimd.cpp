// Peak of the conv kernel's instruction mix, for the benchmark: the inner loop
// of conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16 (4 broadcast loads, 2 weight loads,
// 8 i32x4.dot_i16x8_s, 8 i32x4.add per input pair) over operands that stay in
// L1. Conv speed is reported as a share of this.
#include <wasm_simd128.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qwasm {
namespace kernels {

// Runs `reps` passes over `pairs` input pairs; returns a checksum so the work
// cannot be optimized away. MACs done: reps * pairs * 64.
int32_t peak_dot16_wasmsimd(size_t reps, size_t pairs) {
  std::vector<int16_t> w(pairs * 16), a(4 * pairs * 2 + 8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int16_t>(i % 13 - 6);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int16_t>(i % 11 - 5);
  v128_t acc[8];
  for (v128_t& v : acc) v = wasm_i32x4_const_splat(0);
  for (size_t r = 0; r < reps; ++r) {
    const int16_t* pw = w.data();
    const int16_t* p0 = a.data();
    const int16_t* p1 = p0 + pairs * 2;
    const int16_t* p2 = p1 + pairs * 2;
    const int16_t* p3 = p2 + pairs * 2;
    for (size_t k = 0; k < pairs; ++k) {
      const v128_t w0 = wasm_v128_load(pw);
      const v128_t w1 = wasm_v128_load(pw + 8);
      pw += 16;
      const v128_t a0 = wasm_v128_load32_splat(p0 + 2 * k);
      acc[0] = wasm_i32x4_add(acc[0], wasm_i32x4_dot_i16x8(a0, w0));
      acc[1] = wasm_i32x4_add(acc[1], wasm_i32x4_dot_i16x8(a0, w1));
      const v128_t a1 = wasm_v128_load32_splat(p1 + 2 * k);
      acc[2] = wasm_i32x4_add(acc[2], wasm_i32x4_dot_i16x8(a1, w0));
      acc[3] = wasm_i32x4_add(acc[3], wasm_i32x4_dot_i16x8(a1, w1));
      const v128_t a2 = wasm_v128_load32_splat(p2 + 2 * k);
      acc[4] = wasm_i32x4_add(acc[4], wasm_i32x4_dot_i16x8(a2, w0));
      acc[5] = wasm_i32x4_add(acc[5], wasm_i32x4_dot_i16x8(a2, w1));
      const v128_t a3 = wasm_v128_load32_splat(p3 + 2 * k);
      acc[6] = wasm_i32x4_add(acc[6], wasm_i32x4_dot_i16x8(a3, w0));
      acc[7] = wasm_i32x4_add(acc[7], wasm_i32x4_dot_i16x8(a3, w1));
    }
  }
  v128_t sum = acc[0];
  for (int i = 1; i < 8; ++i) sum = wasm_i32x4_add(sum, acc[i]);
  return wasm_i32x4_extract_lane(sum, 0) + wasm_i32x4_extract_lane(sum, 3);
}

}  // namespace kernels
}  // namespace qwasm
