#include "kernels/fma_f32.h"
#include "kernels/norm_rows.h"

namespace qwasm {
namespace kernels {

void affine_row_scalar(const float* x, int64_t n, float scale, float bias, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = fma_f32_fast(scale, x[i], bias);
}

void layer_affine_row_scalar(const float* x, int64_t n, float neg_mean, float rstd, const float* w, const float* b,
                             float* y) {
  for (int64_t j = 0; j < n; ++j) {
    const float t = (x[j] + neg_mean) * rstd;
    y[j] = fma_f32_fast(t, w == nullptr ? 1.0f : w[j], b == nullptr ? 0.0f : b[j]);
  }
}

void welford8_scalar(const float* base, int64_t vectors, const float* r, float* m1, float* m2) {
  for (int64_t j = 0; j < vectors; ++j) {
    const float rj = r[j];
    const float* v = base + j * 8;
    for (int l = 0; l < 8; ++l) {
      const float delta = v[l] - m1[l];
      m1[l] = fma_f32_fast(rj, delta, m1[l]);
      m2[l] = fma_f32_fast(delta, v[l] - m1[l], m2[l]);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
