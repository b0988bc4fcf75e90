// The norms' element loops on four lanes (kernels/norm_rows.h), each element
// computed as the scalar twin computes it; the tails go through the scalar twin.
#include <wasm_simd128.h>

#include "kernels/norm_rows.h"
#include "kernels/wasmsimd/fma_f32x4.h"

namespace qwasm {
namespace kernels {

void affine_row_wasmsimd(const float* x, int64_t n, float scale, float bias, float* y) {
  const v128_t s = wasm_f32x4_splat(scale), b = wasm_f32x4_splat(bias);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, fma_f32x4_fast(s, wasm_v128_load(x + i), b));
  affine_row_scalar(x + i, n - i, scale, bias, y + i);
}

void layer_affine_row_wasmsimd(const float* x, int64_t n, float neg_mean, float rstd, const float* w, const float* b,
                               float* y) {
  const v128_t m = wasm_f32x4_splat(neg_mean), r = wasm_f32x4_splat(rstd);
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const v128_t t = wasm_f32x4_mul(wasm_f32x4_add(wasm_v128_load(x + j), m), r);
    const v128_t wv = w == nullptr ? one : wasm_v128_load(w + j);
    const v128_t bv = b == nullptr ? zero : wasm_v128_load(b + j);
    wasm_v128_store(y + j, fma_f32x4_fast(t, wv, bv));
  }
  layer_affine_row_scalar(x + j, n - j, neg_mean, rstd, w == nullptr ? nullptr : w + j, b == nullptr ? nullptr : b + j,
                          y + j);
}

void welford8_wasmsimd(const float* base, int64_t vectors, const float* r, float* m1, float* m2) {
  v128_t m1a = wasm_v128_load(m1), m1b = wasm_v128_load(m1 + 4);
  v128_t m2a = wasm_v128_load(m2), m2b = wasm_v128_load(m2 + 4);
  for (int64_t j = 0; j < vectors; ++j) {
    const v128_t rj = wasm_f32x4_splat(r[j]);
    const v128_t va = wasm_v128_load(base + j * 8), vb = wasm_v128_load(base + j * 8 + 4);
    const v128_t da = wasm_f32x4_sub(va, m1a), db = wasm_f32x4_sub(vb, m1b);
    m1a = fma_f32x4_fast(rj, da, m1a);
    m1b = fma_f32x4_fast(rj, db, m1b);
    m2a = fma_f32x4_fast(da, wasm_f32x4_sub(va, m1a), m2a);
    m2b = fma_f32x4_fast(db, wasm_f32x4_sub(vb, m1b), m2b);
  }
  wasm_v128_store(m1, m1a);
  wasm_v128_store(m1 + 4, m1b);
  wasm_v128_store(m2, m2a);
  wasm_v128_store(m2 + 4, m2b);
}

}  // namespace kernels
}  // namespace qwasm
