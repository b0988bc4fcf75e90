// Ceiling of the depthwise kernel's instruction mix, for the benchmark: the
// registered wasmsimd depthwise kernel itself (two taps per i32x4.dot_i16x8_s,
// requantization and the byte stores included) on one pixel of 64 channels
// and 3x3x3 taps (+1 zero tap) whose input, weights and output stay in L1.
// Depthwise speed (S6) is reported as a share of this.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

// Runs the kernel `reps` times; returns a checksum. MACs counted: reps * 64 * 27.
int32_t peak_dwconv_wasmsimd(size_t reps) {
  constexpr size_t kChannels = 64, kTaps = 28;
  std::vector<int16_t> a(kTaps * kChannels), w(kTaps * kChannels);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int16_t>(i % 23 - 11);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int16_t>(i % 13 - 6);
  std::vector<ptrdiff_t> taps(kTaps);
  for (size_t t = 0; t < kTaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * kChannels);
  std::vector<float> weight_scale(kChannels, 1.0f), bias(kChannels, 0.5f), multiplier(kChannels, 0.01f);
  const ConvRequantParams params{weight_scale.data(), bias.data(), multiplier.data(), 1.0f, 0.0f, 100, 0, 255};
  uint8_t out[kChannels];
  int32_t sum = 0;
  for (size_t r = 0; r < reps; ++r) {
    dwconv3d_qu8_qs8w_8c2_wasmsimd(kChannels, kChannels, kTaps, a.data(), taps.data(), w.data(), out, 1, &params);
    sum += out[r % kChannels];
  }
  return sum;
}

}  // namespace kernels
}  // namespace qwasm
