// The one-element quantize / dequantize functions of the optimized kernels:
// the scalar kernels are loops around them and the SIMD kernels use them for
// their tails (docs/numerics.md has each formula and its PyTorch source). The
// naive reference in ref/ does not use them: it is written separately, so that
// a change here that alters a result fails the kernel tests.
//
// Non-finite inputs (PyTorch leaves them undefined): NaN quantizes to the zero
// point (rounded, for float zero points), +Inf to qmax, -Inf to qmin.
// A scale below ~2.94e-39 has a reciprocal that overflows float32 to +Inf, and
// 0 * Inf is NaN: that product (of a zero, never of a NaN input) counts as
// +Inf, so a zero quantizes to qmax, as in PyTorch's per-tensor quint8 / qint8
// path (FBGEMM's vector kernel takes the clip bound's side of its min).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/params.h"

namespace qwasm {
namespace kernels {

// Clamps an integer-valued float (or +-Inf) to [qmin, qmax]; the comparison is
// done in double like FBGEMM's clamp<double, T>, so 2^31 clamps to INT32_MAX.
inline int32_t clamp_rounded(float r, int32_t qmin, int32_t qmax) {
  const double d = r;
  if (d >= static_cast<double>(qmax)) return qmax;
  if (d <= static_cast<double>(qmin)) return qmin;
  return static_cast<int32_t>(d);
}

inline float scaled_or_zero_for_nan(float x, float inv_scale) {
  const float t = x * inv_scale;
  if (t == t) return t;
  return x != x ? 0.0f : HUGE_VALF;  // a NaN input; else 0 times an infinite reciprocal
}

inline int32_t quantize_val(float x, const QuantizeParams& p) {
  const float r = std::nearbyint(scaled_or_zero_for_nan(x, p.inv_scale)) + p.zero_point;
  return clamp_rounded(r, p.qmin, p.qmax);
}

inline int32_t quantize_val_float_qparams(float x, const QuantizeParams& p) {
  const float r = std::nearbyint(scaled_or_zero_for_nan(x, p.inv_scale) + p.zero_point);
  return clamp_rounded(r, p.qmin, p.qmax);
}

inline float dequantize_val_per_tensor(int32_t q, const DequantizeParams& p) {
  return p.scale_f * static_cast<float>(static_cast<int64_t>(q) - p.zero_point);
}

inline float dequantize_val_per_channel(int32_t q, const DequantizeParams& p) {
  return static_cast<float>(static_cast<double>(static_cast<float>(q) - p.zero_point_f) * p.scale);
}

inline float dequantize_val_float_qparams(int32_t q, const DequantizeParams& p) {
  return (static_cast<float>(q) - p.zero_point_f) * p.scale_f;
}

}  // namespace kernels
}  // namespace qwasm
