// Parameter structs for the quantize / dequantize micro-kernels. Filled once per
// tensor or per channel by the init functions below, read by every ISA's kernel.
#pragma once
#include <cstdint>

namespace qwasm {
namespace kernels {

// Quantize. The scale arrives as PyTorch stores it (double) and is cast to float
// first; then the reciprocal is taken once, in float (FBGEMM QuantUtils.h
// `Quantize`, and quantize_val_float_qparams). Kernels multiply by it.
struct QuantizeParams {
  float inv_scale;
  float zero_point;  // integer-valued for the integer-zero-point kernels
  int32_t qmin;
  int32_t qmax;
};

// Integer zero point: q = clamp(nearbyint(x * inv) + zp, qmin, qmax).
inline QuantizeParams quantize_params_init(double scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  return {1.0f / static_cast<float>(scale), static_cast<float>(zero_point), qmin, qmax};
}

// Float zero point: q = clamp(lrintf(x * inv + zp), qmin, qmax); a zero scale
// means inv = 1 (PyTorch's guard).
inline QuantizeParams quantize_float_qparams_init(float scale, float zero_point, int32_t qmin, int32_t qmax) {
  return {scale == 0.0f ? 1.0f : 1.0f / scale, zero_point, qmin, qmax};
}

// Dequantize. Three formulas, one per scheme, each PyTorch's own:
//   per tensor:        y = (float)scale * (float)(q - zp)
//   per channel:       y = (float)((double)((float)q - (float)zp) * scale)
//   float qparams:     y = ((float)q - zp) * scale           (all float32)
struct DequantizeParams {
  double scale;  // per channel keeps the double; the others read it as float
  float scale_f;
  int32_t zero_point;
  float zero_point_f;
};

inline DequantizeParams dequantize_params_init(double scale, double zero_point) {
  // Integer zero points are within int32 (validated); a float zero point can be
  // anything finite and only its float copy is used.
  const bool fits = zero_point >= -2147483648.0 && zero_point <= 2147483647.0;
  return {scale, static_cast<float>(scale), fits ? static_cast<int32_t>(zero_point) : 0,
          static_cast<float>(zero_point)};
}

}  // namespace kernels
}  // namespace qwasm
