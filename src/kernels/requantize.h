// The requantization of the optimized conv kernels (ConvRequantParams in
// kernels/conv_kernels.h: FBGEMM's ReQuantizeOutput and oneDNN's epilogue as
// one sequence of float steps); the reference in ref/ has its own copies.
// The clamp saturates like the SIMD kernels' trunc_sat (|f| >= 2^31 goes to
// the bound), then the integer zero point is added.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "kernels/fma_f32.h"
#include "kernels/quantize_val.h"

namespace qwasm {
namespace kernels {

// Channel j of the block p describes.
inline uint8_t requantize(int32_t acc, size_t j, const ConvRequantParams& p) {
  float f = static_cast<float>(acc) * p.input_scale;
  f = f * p.weight_scale[j];
  f = p.fused_bias ? fma_f32(p.bias[j], p.bias_rcp, f) : f + p.bias[j];
  f = f * p.multiplier[j];
  f = f + p.zero_point_f;
  const float r = std::nearbyint(f);
  return static_cast<uint8_t>(clamp_rounded(r, p.output_min - p.output_zero_point, p.output_max - p.output_zero_point) +
                              p.output_zero_point);
}

// Float ReLU that keeps -0.0 and NaN as they are, so that every float kernel
// agrees bit for bit: x < 0 ? 0 : x.
inline float relu_f32(float x) { return x < 0.0f ? 0.0f : x; }

}  // namespace kernels
}  // namespace qwasm
