// The reference's requantization (FBGEMM's ReQuantizeOutput with a float
// bias), written separately from the kernels' (kernels/requantize.h): the
// oracle of the conv kernel tests and of ref/conv3d_ref.cpp.
#pragma once
#include <cmath>
#include <cstdint>

namespace qwasm {
namespace ref {

// f = acc + bias_div in float; times the multiplier, rounded half to even;
// clamped (compared in double, so that +-2^31 and beyond saturate) to
// [out_min, out_max] shifted by the zero point; then the zero point added.
inline uint8_t requantize(int32_t acc, float bias_div, float multiplier, int32_t zp, int32_t out_min, int32_t out_max) {
  const float f = static_cast<float>(acc) + bias_div;
  const double r = std::nearbyint(f * multiplier);
  const double lo = out_min - zp, hi = out_max - zp;
  const int32_t q = r >= hi ? static_cast<int32_t>(hi) : r <= lo ? static_cast<int32_t>(lo) : static_cast<int32_t>(r);
  return static_cast<uint8_t>(q + zp);
}

}  // namespace ref
}  // namespace qwasm
