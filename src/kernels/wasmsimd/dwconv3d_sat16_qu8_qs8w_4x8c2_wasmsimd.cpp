// Depthwise as FBGEMM's fast path computes it (raw activations and weights,
// each tap pair's sum clamped to int16, then the zero points' terms taken off
// in int32; conv_kernels.h): four output pixels along W x 8 channels per
// step (kernels/wasmsimd/dwconv_4x8c2.h).
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/dwconv_4x8c2.h"

namespace qwasm {
namespace kernels {

void dwconv3d_sat16_qu8_qs8w_4x8c2_wasmsimd(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a,
                                            ptrdiff_t pixel_step, const ptrdiff_t* tap_offsets, const int16_t* w,
                                            uint8_t* c, size_t c_stride, const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps >= 1);
  assert(params->acc_offset != nullptr);
  if (params->weight_zero_point) {
    dwconv_4x8c2::run<DwConvMode::kSat16, true>(channels, valid, npix, ntaps, a, pixel_step, tap_offsets, w, c,
                                                c_stride, *params);
  } else {
    dwconv_4x8c2::run<DwConvMode::kSat16, false>(channels, valid, npix, ntaps, a, pixel_step, tap_offsets, w, c,
                                                 c_stride, *params);
  }
}

}  // namespace kernels
}  // namespace qwasm
