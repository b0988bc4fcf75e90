// Scalar twin of conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16: the same tile (4 pixels
// x 8 channels, pairs of reduction values), the same packed layout, plain
// loops (layout: kernels/conv_kernels.h).
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/requantize.h"

namespace qwasm {
namespace kernels {
namespace {
constexpr size_t kMR = 4, kNR = 8, kKR = 2;
}  // namespace

void conv3d_qu8_qs8w_4x8c2_scalar(size_t mr, size_t nc, size_t nseg, size_t kblocks, const int16_t* const* a,
                                  const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c, size_t c_stride,
                                  const ConvRequantParams* params) {
  assert(mr >= 1 && mr <= kMR);
  assert(nc >= 1 && nc <= kNR);
  int32_t acc[kMR][kNR] = {};
  for (size_t s = 0; s < nseg; ++s) {
    for (size_t k = 0; k < kblocks; ++k) {
      const int16_t* wk = w + (s * kblocks + k) * kKR * kNR;
      for (size_t m = 0; m < mr; ++m) {
        const int16_t* pa = a[m] + seg_offsets[s] + kKR * k;
        for (size_t j = 0; j < kNR; ++j) {
          for (size_t e = 0; e < kKR; ++e) acc[m][j] += int32_t{pa[e]} * wk[kKR * j + e];
        }
      }
    }
  }
  for (size_t m = 0; m < mr; ++m) {
    for (size_t j = 0; j < nc; ++j) {
      c[m][j * c_stride] = requantize(acc[m][j], j, *params);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
