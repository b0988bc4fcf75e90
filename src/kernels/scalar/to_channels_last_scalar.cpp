// The input conversion, scalar: one (d, h) row, channel by channel.
#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

void to_channels_last_qu8_scalar(size_t channels, size_t width, const uint8_t* x, size_t x_stride, int32_t zero_point,
                                 int16_t* dst, size_t slots) {
  for (size_t c = 0; c < channels; ++c) {
    const uint8_t* row = x + c * x_stride;
    for (size_t w = 0; w < width; ++w) dst[w * slots + c] = static_cast<int16_t>(row[w] - zero_point);
  }
}

}  // namespace kernels
}  // namespace qwasm
