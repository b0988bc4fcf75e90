// Scalar twin of dwconv3d_sat16_qu8_qs8w_4x8c2_wasmsimd: FBGEMM's depthwise
// fast path (raw activations and weights, tap pairs saturated to int16), one
// pixel and one channel at a time.
#include <algorithm>
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/requantize.h"

namespace qwasm {
namespace kernels {

void dwconv3d_sat16_qu8_qs8w_4x8c2_scalar(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a,
                                          ptrdiff_t pixel_step, const ptrdiff_t* tap_offsets, const int16_t* w,
                                          uint8_t* c, size_t c_stride, const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps >= 1);
  assert(params->acc_offset != nullptr);
  const size_t pairs = ntaps / 2;
  for (size_t m = 0; m < npix; ++m, a += pixel_step) {
    for (size_t ch = 0; ch < valid; ++ch) {
      int32_t acc = 0, row_sum = 0;
      for (size_t p = 0; p < pairs; ++p) {
        const int16_t* wp = w + (p * channels + ch) * 2;
        const int32_t a0 = a[tap_offsets[2 * p] + ch], a1 = a[tap_offsets[2 * p + 1] + ch];
        acc += std::min(std::max(a0 * wp[0] + a1 * wp[1], -32768), 32767);
        row_sum += a0 + a1;
      }
      if (ntaps % 2) {  // the last tap alone: |a * w| <= 255 * 128, within int16
        const int32_t a0 = a[tap_offsets[ntaps - 1] + ch];
        acc += a0 * w[(pairs * channels + ch) * 2];
        row_sum += a0;
      }
      acc -= params->acc_offset[ch];
      if (params->weight_zero_point) acc -= params->weight_zero_point[ch] * std::min(row_sum, 32767);
      c[ch * c_stride + m] = requantize(acc, ch, *params);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
