// Scalar twin of conv3d_f32_4x8_wasmsimd: float32, bias first, then products
// added in segment order (kd, kh, kw, c), one rounding per multiply and add.
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/requantize.h"

namespace qwasm {
namespace kernels {
namespace {
constexpr size_t kMR = 4, kNR = 8;
}  // namespace

void conv3d_f32_4x8_scalar(size_t mr, size_t nc, size_t nseg, size_t seg_len, const float* const* a,
                           const ptrdiff_t* seg_offsets, const float* w, const float* bias, float* const* c,
                           size_t c_stride, bool relu) {
  assert(mr >= 1 && mr <= kMR);
  assert(nc >= 1 && nc <= kNR);
  float acc[kMR][kNR];
  for (size_t m = 0; m < mr; ++m) {
    for (size_t j = 0; j < kNR; ++j) acc[m][j] = bias[j];
  }
  for (size_t s = 0; s < nseg; ++s) {
    for (size_t k = 0; k < seg_len; ++k) {
      const float* wk = w + (s * seg_len + k) * kNR;
      for (size_t m = 0; m < mr; ++m) {
        const float av = a[m][seg_offsets[s] + k];
        for (size_t j = 0; j < kNR; ++j) {
          const float product = av * wk[j];
          acc[m][j] = acc[m][j] + product;
        }
      }
    }
  }
  for (size_t m = 0; m < mr; ++m) {
    for (size_t j = 0; j < nc; ++j) c[m][j * c_stride] = relu ? relu_f32(acc[m][j]) : acc[m][j];
  }
}

}  // namespace kernels
}  // namespace qwasm
