// Depthwise, exact sums: four output pixels along W x 8 channels per step,
// two taps per i32x4.dot_i16x8_s (kernels/wasmsimd/dwconv_4x8c2.h).
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/dwconv_4x8c2.h"

namespace qwasm {
namespace kernels {

void dwconv3d_qu8_qs8w_4x8c2_wasmsimd(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a,
                                      ptrdiff_t pixel_step, const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c,
                                      size_t c_stride, const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps % 2 == 0);
  dwconv_4x8c2::run<DwConvMode::kExact, false>(channels, valid, npix, ntaps, a, pixel_step, tap_offsets, w, c, c_stride,
                                               *params);
}

}  // namespace kernels
}  // namespace qwasm
