// The reference's requantization (FBGEMM's ReQuantizeOutput with a float
// bias), written separately from the kernels' (kernels/requantize.h): the
// oracle of the conv kernel tests and of conv3d_ref.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

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

#if defined(__SIZEOF_INT128__)
// fma(a, b, c) in float with one rounding, by exact integer arithmetic: the
// reference's own, since libm's fmaf is not always exact under Emscripten
// (musl's fixes a double rounding with fesetround(FE_TOWARDZERO), which wasm
// lacks; it then rounds a halfway case away from zero whatever the error).
// a * b is exact in double; both terms become integer mantissas with a power
// of two, summed exactly in 128 bits and converted to float once. A term more
// than 60 binary places below the other only decides the rounding as a sticky
// bit: it is replaced by a quarter of the larger term's last place, same
// sign. Results below the normal float range fall back to double (not hit by
// the tests: with an integer c the sum cancels exactly or stays above 2^-60).
inline float fma_exact(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  if (!std::isfinite(p) || !std::isfinite(c) || p == 0.0 || c == 0.0) return static_cast<float>(p + c);
  int ep, ec;
  const double fp = std::frexp(p, &ep), fc = std::frexp(static_cast<double>(c), &ec);
  __int128 mp = static_cast<__int128>(std::ldexp(fp, 53)), mc = static_cast<__int128>(std::ldexp(fc, 53));
  ep -= 53, ec -= 53;  // p = mp * 2^ep, c = mc * 2^ec, |mp|, |mc| < 2^53
  if (ep - ec > 60) mc = mc < 0 ? -1 : 1, ec = ep - 2;
  if (ec - ep > 60) mp = mp < 0 ? -1 : 1, ep = ec - 2;
  const int e = ep < ec ? ep : ec;
  const __int128 one = 1;
  const __int128 sum = mp * (one << (ep - e)) + mc * (one << (ec - e));  // no shift of a negative value
  if (sum == 0) return 0.0f;  // exact cancellation: +0, as in round to nearest
  const float r = std::ldexp(static_cast<float>(sum), e);
  if (std::fabs(r) < 0x1p-126f || std::isinf(r)) return static_cast<float>(p + static_cast<double>(c));
  return r;
}
#else
// Targets without __int128 (the i386 build the fuzzers share with limits_fuzz):
// the same one rounding another way. p = a * b is exact in double; TwoSum
// gives p + c = s + t exactly (s the rounded double sum, t its error); s
// rounded to odd when t != 0 (moved toward t onto the odd neighbour when its
// last bit is even) keeps the sticky information, and one rounding of that to
// float (29 bits fewer) is then the correctly rounded p + c.
inline float fma_exact(float a, float b, float c) {
  const double p = static_cast<double>(a) * static_cast<double>(b);
  double s = p + static_cast<double>(c);
  if (!std::isfinite(s)) return static_cast<float>(s);
  const double bb = s - p;
  const double t = (p - (s - bb)) + (static_cast<double>(c) - bb);
  if (t != 0.0) {
    uint64_t bits;
    std::memcpy(&bits, &s, sizeof bits);
    if ((bits & 1) == 0) s = std::nextafter(s, t > 0 ? HUGE_VAL : -HUGE_VAL);
  }
  return static_cast<float>(s);
}
#endif

// How FBGEMM adds a float bias to the accumulator (docs/numerics.md), per
// kernel as PyTorch 2.15's build compiles it: a per-channel weight divides
// (_mm256_div_ps in requantizeOutputProcessingAvx2 and the depthwise
// kernels); a per-tensor weight multiplies by rcp = (float)(1.0 / atws),
// which the GEMM kernels' compiled code fuses with the add into one fma
// (QuantUtilsAvx2.cc, QuantUtilsAvx512.cc) and the depthwise kernel does not
// (FbgemmI8DepthwiseAvx2-inl.h).
enum class FbgemmBias { kDivide, kMultiplyThenAdd, kFusedMultiplyAdd };

// f = acc (as float) plus the bias term of `path`, in float; then as requantize.
inline uint8_t requantize_fbgemm(int32_t acc, float bias, float atws, FbgemmBias path, float multiplier, int32_t zp,
                                 int32_t out_min, int32_t out_max) {
  const float a = static_cast<float>(acc);
  const float rcp = static_cast<float>(1.0 / static_cast<double>(atws));
  float f;
  switch (path) {
    case FbgemmBias::kDivide:
      f = a + bias / atws;
      break;
    case FbgemmBias::kMultiplyThenAdd:
      f = a + bias * rcp;
      break;
    default:
      f = fma_exact(bias, rcp, a);
      break;
  }
  const double r = std::nearbyint(f * multiplier);
  const double lo = out_min - zp, hi = out_max - zp;
  const int32_t q = r >= hi ? static_cast<int32_t>(hi) : r <= lo ? static_cast<int32_t>(lo) : static_cast<int32_t>(r);
  return static_cast<uint8_t>(q + zp);
}

// oneDNN's int8 convolution epilogue as PyTorch's x86 engine drives it
// (aten/src/ATen/native/quantized/cpu/qconv.cpp, PackedConvWeightsOnednn::
// apply_impl; oneDNN's jit int8 conv / brgemm post-processing), op by op in
// float32. PyTorch passes 1 / a_scale and 1 / out_scale (double, then float);
// ideep and oneDNN invert what they get, in float. Then: the accumulator
// times the source scale, times the channel's weight scale, plus the bias;
// ReLU; times the destination multiplier; plus the zero point (before
// rounding); saturated to 0..255 and rounded half to even.
inline uint8_t requantize_onednn(int32_t acc, double a_scale, float w_scale, float bias, bool has_bias,
                                 double out_scale, int32_t zp, bool relu) {
  const float src_scale = 1.0f / static_cast<float>(1.0 / a_scale);
  const float dst_scale = 1.0f / static_cast<float>(1.0 / out_scale);
  const float dst_mul = 1.0f / dst_scale;
  float v = static_cast<float>(acc);
  v = v * src_scale;
  v = v * w_scale;
  if (has_bias) v = v + bias;
  if (relu) v = v < 0.0f ? 0.0f : v;
  v = v * dst_mul;
  v = v + static_cast<float>(zp);
  v = v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v;
  return static_cast<uint8_t>(std::nearbyint(v));
}

}  // namespace ref
}  // namespace qwasm
