// Float 4 pixels x 8 channels: broadcast one input value, multiply and add
// (no FMA in SIMD128, so the same two roundings as the scalar twin).
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {
namespace {

inline v128_t relu4(v128_t x) {  // x < 0 ? 0 : x, keeping -0 and NaN (kernels/requantize.h relu_f32)
  return wasm_v128_andnot(x, wasm_f32x4_lt(x, wasm_f32x4_const_splat(0.0f)));
}

inline void store_f32_lanes(float* c, size_t stride, size_t n, v128_t lo, v128_t hi, bool relu) {
  if (relu) {
    lo = relu4(lo);
    hi = relu4(hi);
  }
  float v[8];
  wasm_v128_store(v, lo);
  wasm_v128_store(v + 4, hi);
  for (size_t j = 0; j < n; ++j) c[j * stride] = v[j];
}

}  // namespace

void conv3d_f32_4x8_wasmsimd(size_t mr, size_t nc, size_t nseg, size_t seg_len, const float* const* a,
                             const ptrdiff_t* seg_offsets, const float* w, const float* bias, float* const* c,
                             size_t c_stride, bool relu) {
  assert(mr >= 1 && mr <= 4);
  assert(nc >= 1 && nc <= 8);
  const float* a0 = a[0];
  const float* a1 = mr > 1 ? a[1] : a0;
  const float* a2 = mr > 2 ? a[2] : a1;
  const float* a3 = mr > 3 ? a[3] : a2;
  v128_t acc0x0123 = wasm_v128_load(bias), acc0x4567 = wasm_v128_load(bias + 4);
  v128_t acc1x0123 = acc0x0123, acc1x4567 = acc0x4567;
  v128_t acc2x0123 = acc0x0123, acc2x4567 = acc0x4567;
  v128_t acc3x0123 = acc0x0123, acc3x4567 = acc0x4567;
  for (size_t s = 0; s < nseg; ++s) {
    const ptrdiff_t off = seg_offsets[s];
    const float* p0 = a0 + off;
    const float* p1 = a1 + off;
    const float* p2 = a2 + off;
    const float* p3 = a3 + off;
    for (size_t k = 0; k < seg_len; ++k) {
      const v128_t w0123 = wasm_v128_load(w);
      const v128_t w4567 = wasm_v128_load(w + 4);
      w += 8;
      const v128_t va0 = wasm_v128_load32_splat(p0 + k);
      acc0x0123 = wasm_f32x4_add(acc0x0123, wasm_f32x4_mul(va0, w0123));
      acc0x4567 = wasm_f32x4_add(acc0x4567, wasm_f32x4_mul(va0, w4567));
      const v128_t va1 = wasm_v128_load32_splat(p1 + k);
      acc1x0123 = wasm_f32x4_add(acc1x0123, wasm_f32x4_mul(va1, w0123));
      acc1x4567 = wasm_f32x4_add(acc1x4567, wasm_f32x4_mul(va1, w4567));
      const v128_t va2 = wasm_v128_load32_splat(p2 + k);
      acc2x0123 = wasm_f32x4_add(acc2x0123, wasm_f32x4_mul(va2, w0123));
      acc2x4567 = wasm_f32x4_add(acc2x4567, wasm_f32x4_mul(va2, w4567));
      const v128_t va3 = wasm_v128_load32_splat(p3 + k);
      acc3x0123 = wasm_f32x4_add(acc3x0123, wasm_f32x4_mul(va3, w0123));
      acc3x4567 = wasm_f32x4_add(acc3x4567, wasm_f32x4_mul(va3, w4567));
    }
  }
  store_f32_lanes(c[0], c_stride, nc, acc0x0123, acc0x4567, relu);
  if (mr > 1) store_f32_lanes(c[1], c_stride, nc, acc1x0123, acc1x4567, relu);
  if (mr > 2) store_f32_lanes(c[2], c_stride, nc, acc2x0123, acc2x4567, relu);
  if (mr > 3) store_f32_lanes(c[3], c_stride, nc, acc3x0123, acc3x4567, relu);
}

}  // namespace kernels
}  // namespace qwasm
