// Scalar twin of dwconv3d_qu8_qs8w_4x8c2_wasmsimd: the same paired weight
// layout, one pixel and one channel at a time.
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/requantize.h"

namespace qwasm {
namespace kernels {

void dwconv3d_qu8_qs8w_4x8c2_scalar(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a,
                                    ptrdiff_t pixel_step, const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c,
                                    size_t c_stride, const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps % 2 == 0);
  for (size_t m = 0; m < npix; ++m, a += pixel_step) {
    for (size_t ch = 0; ch < valid; ++ch) {
      int32_t acc = 0;
      for (size_t t = 0; t < ntaps; t += 2) {
        const int16_t* wp = w + ((t / 2) * channels + ch) * 2;
        acc += int32_t{a[tap_offsets[t] + ch]} * wp[0] + int32_t{a[tap_offsets[t + 1] + ch]} * wp[1];
      }
      c[ch * c_stride + m] = requantize(acc, ch, *params);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
