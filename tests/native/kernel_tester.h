// The kernel tester's shared helpers (tests/native/kernel_tester_*_test.cpp,
// one file per kernel family): the registry's tables as test parameters, the
// storage helpers, test values, and the requantization cases the conv kernel
// families share (Requant: FBGEMM's, FBGEMM's fused bias and oneDNN's constants
// with their oracle; FusedBiasCase and DoubleRoundingCase: crafted channels
// where the fused bias's single rounding shows).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/quantize_kernels.h"
#include "qwasm/dtype.h"
#include "reference/requantize_ref.h"

namespace kernel_tester {

using namespace qwasm;
using namespace qwasm::kernels;

template <typename Entry>
std::vector<const Entry*> all(KernelTable<Entry> table) {
  std::vector<const Entry*> v;
  for (const Entry& e : table) v.push_back(&e);
  return v;
}

template <typename Entry>
std::string kernel_name(const ::testing::TestParamInfo<const Entry*>& info) {
  return info.param->name;
}

inline DType dtype_of(Storage s) {
  return s == Storage::kU8 ? DType::kQUInt8 : s == Storage::kS8 ? DType::kQInt8 : DType::kQInt32;
}
inline size_t element_bytes(Storage s) { return s == Storage::kS32 ? 4 : 1; }

inline int64_t load(Storage s, const std::vector<uint8_t>& bytes, size_t i) {
  switch (s) {
    case Storage::kU8:
      return bytes[i];
    case Storage::kS8:
      return static_cast<int8_t>(bytes[i]);
    default: {
      int32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      return v;
    }
  }
}

// Values at ties, zero, saturation, non-finite and in between.
inline std::vector<float> test_values(size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<float> u(-300.f, 300.f);
  std::uniform_int_distribution<int> pick(0, 9);
  std::vector<float> x(n);
  for (float& v : x) {
    switch (pick(g)) {
      case 0:
        v = std::nearbyint(u(g)) + 0.5f;
        break;
      case 1:
        v = 0.f;
        break;
      case 2:
        v = u(g) * 1e7f;
        break;
      case 3:
        v = std::numeric_limits<float>::quiet_NaN();
        break;
      case 4:
        v = (pick(g) % 2 ? 1 : -1) * std::numeric_limits<float>::infinity();
        break;
      case 5:
        v = -0.0f;
        break;
      default:
        v = u(g);
    }
  }
  return x;
}

// ------------------------------------------------------ requantization

// Which requantization a kernel call runs: FBGEMM's with the bias term
// precomputed (per-channel weights, or its depthwise kernel), FBGEMM's GEMM
// kernels' fused bias (per-tensor weights: fma(bias, rcp, acc)), or oneDNN's.
enum class RequantKind { kFbgemm, kFbgemmFused, kOnednn };

// The requantization constants of one kernel call for n channels, derived for
// the backend the way the driver derives them (conv_run.cpp,
// requant_constants), and the oracle: ref::requantize (FBGEMM),
// ref::requantize_fbgemm (the fused bias, with libm's fma) or
// ref::requantize_onednn, which derive their constants on their own.
struct Requant {
  RequantKind kind = RequantKind::kFbgemm;
  float atws = 0;  // kFbgemmFused: a_scale * w_scale (one weight scale)
  int32_t zp = 0;
  bool relu = false;
  double a_scale = 0, out_scale = 0;                  // oneDNN: the tensors' scales
  std::vector<float> weight_scale, bias, multiplier;  // what the kernel reads
  ConvRequantParams params{};

  // bias_shift moves every output by about that many accumulator units
  // (saturation cases); multiplier_scale scales the output multiplier.
  Requant(RequantKind k, size_t n, std::mt19937_64& g, int32_t zp_, bool relu_, float multiplier_scale,
          float bias_shift, float bias_range, float mu_lo, float mu_hi)
      : kind(k), zp(zp_), relu(relu_), weight_scale(n, 1.0f), bias(n), multiplier(n) {
    std::uniform_real_distribution<float> bd(-bias_range, bias_range), mu(mu_lo, mu_hi);
    if (k == RequantKind::kFbgemmFused) {
      // bias * rcp is about bias_div, with all the bits of a float product.
      atws = std::uniform_real_distribution<float>(1e-5f, 1e-3f)(g);
      const float rcp = static_cast<float>(1.0 / static_cast<double>(atws));
      for (size_t j = 0; j < n; ++j) {
        bias[j] = (bd(g) + bias_shift) * atws;
        multiplier[j] = mu(g) * multiplier_scale;
      }
      params = {weight_scale.data(), bias.data(), multiplier.data(), 1.0f, 0.0f, zp, relu ? zp : 0, 255, rcp, true};
      return;
    }
    if (k == RequantKind::kFbgemm) {
      for (size_t j = 0; j < n; ++j) {
        bias[j] = bd(g) + bias_shift;  // bias / (a_scale * w_scale)
        multiplier[j] = mu(g) * multiplier_scale;
      }
      params = {weight_scale.data(), bias.data(), multiplier.data(), 1.0f, 0.0f, zp, relu ? zp : 0, 255};
      return;
    }
    std::uniform_real_distribution<double> as(0.002, 0.05);
    std::uniform_real_distribution<float> ws(0.001f, 0.01f);
    a_scale = as(g);
    const double mid = 0.5 * (mu_lo + mu_hi) * multiplier_scale;  // a * w / out, on average
    out_scale = a_scale * 0.0055 / mid;
    for (size_t j = 0; j < n; ++j) {
      weight_scale[j] = ws(g);
      bias[j] = static_cast<float>((bd(g) + bias_shift) * a_scale * weight_scale[j]);
    }
    const float dst_mul = 1.0f / (1.0f / static_cast<float>(1.0 / out_scale));
    for (size_t j = 0; j < n; ++j) multiplier[j] = dst_mul;
    params = {weight_scale.data(),    bias.data(), multiplier.data(), 1.0f / static_cast<float>(1.0 / a_scale),
              static_cast<float>(zp), 0,           relu ? zp : 0,     255};
  }

  uint8_t want(int32_t acc, size_t j) const {
    if (kind == RequantKind::kFbgemmFused) {
      return ref::requantize_fbgemm(acc, bias[j], atws, ref::FbgemmBias::kFusedMultiplyAdd, multiplier[j], zp,
                                    relu ? zp : 0, 255);
    }
    if (kind == RequantKind::kOnednn) {
      return ref::requantize_onednn(acc, a_scale, weight_scale[j], bias[j], true, out_scale, zp, relu);
    }
    return ref::requantize(acc, bias[j], multiplier[j], zp, relu ? zp : 0, 255);
  }

  std::string describe(size_t j) const {
    const char* names[] = {"fbgemm", "fbgemm fused bias", "onednn"};
    return std::string(names[static_cast<int>(kind)]) + " atws " + std::to_string(atws) + " weight_scale " +
           std::to_string(weight_scale[j]) + " bias " + std::to_string(bias[j]) + " multiplier " +
           std::to_string(multiplier[j]) + " a_scale " + std::to_string(a_scale) + " out_scale " +
           std::to_string(out_scale);
  }
};

inline constexpr RequantKind kRequantKinds[] = {RequantKind::kFbgemm, RequantKind::kFbgemmFused, RequantKind::kOnednn};

// Channels whose fused bias gives another output than the same bias added
// after its own rounding: acc_j = -P, bias * rcp just above P + 0.5 (a float
// tie once rounded to float), multiplier 1. One rounding gives 0.5 + tiny
// (rounds up); two give 0.5 (a tie, rounds to even: down). Random
// accumulators rarely land there, so a kernel that added the bias unfused
// could pass the random cases; not these.
struct FusedBiasCase {
  std::vector<int32_t> acc;
  std::vector<float> weight_scale, bias, multiplier;
  float atws = 1.23e-4f;
  ConvRequantParams params{};
  explicit FusedBiasCase(size_t n) : acc(n), weight_scale(n + 8, 1.0f), bias(n + 8, 0.0f), multiplier(n + 8, 1.0f) {
    const float rcp = static_cast<float>(1.0 / static_cast<double>(atws));
    for (size_t j = 0; j < n; ++j) {
      bool found = false;
      for (int32_t P = 1000 + 37 * static_cast<int32_t>(j); P < 30000 && !found; P += 7) {
        acc[j] = -P;
        bias[j] = static_cast<float>((P + 0.5 + 1.0 / 65536) / rcp);
        found =
            want(j, bias[j], ref::FbgemmBias::kFusedMultiplyAdd) != want(j, bias[j], ref::FbgemmBias::kMultiplyThenAdd);
      }
      if (!found) ADD_FAILURE() << "no fused-bias case for channel " << j;
    }
    params = {weight_scale.data(), bias.data(), multiplier.data(), 1.0f, 0.0f, 100, 0, 255, rcp, true};
  }
  uint8_t want(size_t j, float b, ref::FbgemmBias path) const {
    return ref::requantize_fbgemm(acc[j], b, atws, path, 1.0f, 100, 0, 255);
  }
  uint8_t want(size_t j) const { return want(j, bias[j], ref::FbgemmBias::kFusedMultiplyAdd); }
};

// One channel where the double sum bias * rcp + acc lands on a float
// midpoint that the exact sum misses (a double rounding, which a kernel's
// shortcut must catch): acc = 2^23 + 1 (odd), bias * rcp = 0.5 - 2^-47, so
// the double sum is 2^23 + 1.5 (a tie, to even: 2^23 + 2) while the exact
// fma is 2^23 + 1; the multiplier is searched so the two give different
// outputs. The accumulator comes from two taps: 256 * 32767 + 1 * 257.
struct DoubleRoundingCase {
  static constexpr int16_t kA[2] = {256, 1}, kW[2] = {32767, 257};
  float atws = 2.0f + 0x1p-22f, bias = 1.0f + 0x1p-23f, multiplier = 0;
  float weight_scale[16], biases[16], multipliers[16];
  ConvRequantParams params{};
  DoubleRoundingCase() {
    const int32_t acc = kA[0] * kW[0] + kA[1] * kW[1];
    const float rcp = static_cast<float>(1.0 / static_cast<double>(atws));
    // The case holds: the double sum rounds twice to another float than the fma.
    EXPECT_EQ(acc, (1 << 23) + 1);
    EXPECT_NE(static_cast<float>(static_cast<double>(bias) * rcp + acc),
              ref::fma_exact(bias, rcp, static_cast<float>(acc)));
    multiplier = static_cast<float>(100.5 / ((1 << 23) + 1.5));
    for (int i = 0; i < 64 && want(multiplier, ref::FbgemmBias::kFusedMultiplyAdd) ==
                                  static_cast<uint8_t>(std::nearbyint(static_cast<float>((1 << 23) + 2) * multiplier));
         ++i) {
      multiplier = std::nextafter(multiplier, i % 2 ? 0.0f : INFINITY);
    }
    EXPECT_NE(want(multiplier, ref::FbgemmBias::kFusedMultiplyAdd),
              static_cast<uint8_t>(std::nearbyint(static_cast<float>((1 << 23) + 2) * multiplier)));
    for (int j = 0; j < 16; ++j) weight_scale[j] = 1.0f, biases[j] = bias, multipliers[j] = multiplier;
    params = {weight_scale, biases, multipliers, 1.0f, 0.0f, 0, 0, 255, rcp, true};
  }
  uint8_t want(float m, ref::FbgemmBias path) const {
    return ref::requantize_fbgemm(kA[0] * kW[0] + kA[1] * kW[1], bias, atws, path, m, 0, 0, 255);
  }
  uint8_t want() const { return want(multiplier, ref::FbgemmBias::kFusedMultiplyAdd); }
};

}  // namespace kernel_tester
