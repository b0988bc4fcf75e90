// The element loops of the float normalisations (qwasm/norm_float.cpp), per
// ISA: the scalar twin and the wasm SIMD form compute every element with the
// same float32 steps and the same exact fma (kernels::fma_f32_fast, and its
// four-lane form in wasmsimd/fma_f32x4.h), so they give the same bits
// (tests/js/runtime/norm-rows.test.mjs compares them and an exact fma).
#pragma once
#include <cstdint>

#include "kernels/isa.h"

namespace qwasm {
namespace kernels {

// y[i] = fma(scale, x[i], bias) for i < n (GroupNorm's and InstanceNorm's affine step).
void affine_row_scalar(const float* x, int64_t n, float scale, float bias, float* y);
// y[j] = fma((x[j] + neg_mean) * rstd, w[j], b[j]) (LayerNorm's; w null: 1, b null: 0).
void layer_affine_row_scalar(const float* x, int64_t n, float neg_mean, float rstd, const float* w, const float* b,
                             float* y);
// RowwiseMoments' inner loop (moments_utils.h): `vectors` vectors of 8 floats
// from base through Welford, lane by lane, into m1[8] and m2[8];
// r[j] = 1 / (j + 1).
void welford8_scalar(const float* base, int64_t vectors, const float* r, float* m1, float* m2);

#if QWASM_HAVE_WASMSIMD
void affine_row_wasmsimd(const float* x, int64_t n, float scale, float bias, float* y);
void layer_affine_row_wasmsimd(const float* x, int64_t n, float neg_mean, float rstd, const float* w, const float* b,
                               float* y);
void welford8_wasmsimd(const float* base, int64_t vectors, const float* r, float* m1, float* m2);
#endif

inline void affine_row(Isa isa, const float* x, int64_t n, float scale, float bias, float* y) {
#if QWASM_HAVE_WASMSIMD
  if (isa == Isa::kWasmSimd) return affine_row_wasmsimd(x, n, scale, bias, y);
#endif
  (void)isa;
  affine_row_scalar(x, n, scale, bias, y);
}

inline void layer_affine_row(Isa isa, const float* x, int64_t n, float neg_mean, float rstd, const float* w,
                             const float* b, float* y) {
#if QWASM_HAVE_WASMSIMD
  if (isa == Isa::kWasmSimd) return layer_affine_row_wasmsimd(x, n, neg_mean, rstd, w, b, y);
#endif
  (void)isa;
  layer_affine_row_scalar(x, n, neg_mean, rstd, w, b, y);
}

inline void welford8(Isa isa, const float* base, int64_t vectors, const float* r, float* m1, float* m2) {
#if QWASM_HAVE_WASMSIMD
  if (isa == Isa::kWasmSimd) return welford8_wasmsimd(base, vectors, r, m1, m2);
#endif
  (void)isa;
  welford8_scalar(base, vectors, r, m1, m2);
}

}  // namespace kernels
}  // namespace qwasm
