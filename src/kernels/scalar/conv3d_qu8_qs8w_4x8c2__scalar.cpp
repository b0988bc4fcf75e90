// Scalar twin of conv3d_qu8_qs8w_4x8c2__wasmsimd_dot16: same packed layout,
// same arithmetic, plain loops (see kernels/conv_kernels.h).
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/ref/requantize.h"

namespace qwasm {
namespace kernels {

void conv3d_qu8_qs8w_4x8c2__scalar(size_t mr, size_t nc, size_t nseg, size_t pairs, const int16_t* const* a,
                                   const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c,
                                   size_t c_stride, const ConvRequantParams* params) {
  assert(mr >= 1 && mr <= kConvMR);
  assert(nc >= 1 && nc <= kConvNR);
  int32_t acc[kConvMR][kConvNR] = {};
  for (size_t s = 0; s < nseg; ++s) {
    for (size_t k = 0; k < pairs; ++k) {
      const int16_t* wk = w + (s * pairs + k) * 2 * kConvNR;
      for (size_t m = 0; m < mr; ++m) {
        const int16_t* pa = a[m] + seg_offsets[s] + 2 * k;
        const int32_t a0 = pa[0], a1 = pa[1];
        for (size_t j = 0; j < kConvNR; ++j) acc[m][j] += a0 * wk[2 * j] + a1 * wk[2 * j + 1];
      }
    }
  }
  for (size_t m = 0; m < mr; ++m) {
    for (size_t j = 0; j < nc; ++j) {
      c[m][j * c_stride] = requantize(acc[m][j], params->bias_div[j], params->multiplier[j], *params);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
