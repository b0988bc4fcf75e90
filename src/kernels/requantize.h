// The requantization of the optimized conv kernels (docs/numerics.md, FBGEMM
// ReQuantizeOutput with a float bias); the reference in ref/ has its own copy:
//   f = (float)acc + bias / (a_scale * w_scale)      (bias_div, precomputed per channel)
//   q = clamp(nearbyint(f * multiplier) + out_zp, out_min, out_max)
// The clamp saturates like the SIMD kernels' trunc_sat (|f * M| >= 2^31 goes
// to the bound), then the zero point is added.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "kernels/quantize_val.h"

namespace qwasm {
namespace kernels {

inline uint8_t requantize(int32_t acc, float bias_div, float multiplier, const ConvRequantParams& p) {
  const float f = static_cast<float>(acc) + bias_div;
  const float r = std::nearbyint(f * multiplier);
  return static_cast<uint8_t>(clamp_rounded(r, p.output_min - p.output_zero_point, p.output_max - p.output_zero_point) +
                              p.output_zero_point);
}

// Float ReLU that keeps -0.0 and NaN as they are, so that every float kernel
// agrees bit for bit: x < 0 ? 0 : x.
inline float relu_f32(float x) { return x < 0.0f ? 0.0f : x; }

}  // namespace kernels
}  // namespace qwasm
