// The float modules' formulas in qwasm/torch_float.h (clamp, BatchNorm in eval
// mode, BatchNorm folding) against torch 2.15's outputs on the values where
// float arithmetic has corners: -0, NaN, +-Inf. Expected values are PyTorch's
// bits (hex floats); a NaN matches any NaN (its sign and payload are not
// specified by IEEE arithmetic, and wasm canonicalizes them). Also the checks
// each function makes before it allocates.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "quint8_test_util.h"
#include "qwasm/torch_float.h"

using namespace qwasm;
using qwasm_test::expect_error;
namespace tc = qwasm::torch_cpu;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The inputs every case runs on: both zeros, NaN, both infinities, ordinary values.
const std::vector<float> kCorners = {-0.0f, 0.0f, kNaN, kInf, -kInf, -1.5f, 7.0f, 0.3f};

uint32_t bits(float v) {
  uint32_t u = 0;
  std::memcpy(&u, &v, 4);
  return u;
}

// got equals want bit for bit, NaN matching NaN.
void expect_floats(const float* got, const std::vector<float>& want) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i] << ", PyTorch gives NaN";
    } else {
      EXPECT_EQ(bits(got[i]), bits(want[i])) << "element " << i << " is " << got[i] << ", PyTorch gives " << want[i];
    }
  }
}

std::vector<float> clamped(float lo, float hi) {
  std::vector<float> out(kCorners.size());
  tc::clamp(kCorners.data(), kCorners.size(), lo, hi, out.data());
  return out;
}

TEST(TorchFloatClamp, ReluKeepsMinusZeroAndNaN) {
  expect_floats(clamped(0.0f, kInf).data(), {-0.0f, 0.0f, kNaN, kInf, 0.0f, 0.0f, 7.0f, 0x1.333334p-2f});
}

TEST(TorchFloatClamp, Relu6) {
  expect_floats(clamped(0.0f, 6.0f).data(), {-0.0f, 0.0f, kNaN, 6.0f, 0.0f, 0.0f, 6.0f, 0x1.333334p-2f});
}

TEST(TorchFloatClamp, HardtanhDefaultBounds) {
  expect_floats(clamped(-1.0f, 1.0f).data(), {-0.0f, 0.0f, kNaN, 1.0f, -1.0f, -1.0f, 1.0f, 0x1.333334p-2f});
}

TEST(TorchFloatClamp, UpperBoundMinusZeroLeavesPlusZero) {
  // hardtanh(x, -1, -0.0): +0 is not above -0, so it stays +0 (Math.min would give -0).
  expect_floats(clamped(-1.0f, -0.0f).data(), {-0.0f, 0.0f, kNaN, -0.0f, -1.0f, -1.0f, -0.0f, -0.0f});
}

TEST(TorchFloatClamp, LowerBoundAboveUpperGivesUpper) {
  expect_floats(clamped(2.0f, 1.0f).data(), {1.0f, 1.0f, kNaN, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f});
}

TEST(TorchFloatClamp, NaNBoundGivesNaN) {
  for (float v : clamped(kNaN, 1.0f)) EXPECT_TRUE(std::isnan(v));
  for (float v : clamped(0.0f, kNaN)) EXPECT_TRUE(std::isnan(v));
}

TEST(TorchFloatClamp, InPlace) {
  std::vector<float> x = kCorners;
  tc::clamp(x.data(), x.size(), 0.0f, 6.0f, x.data());
  expect_floats(x.data(), clamped(0.0f, 6.0f));
}

// BatchNorm1d(2) with weight [1.5, -0.75], bias [-0.25, 0], running mean
// [0.5, -0.1], running var [2, 0.3], eps 1e-5, on kCorners as [1, 2, 4].
const float kWeight[] = {1.5f, -0.75f};
const float kBias[] = {-0.25f, 0.0f};
const float kMean[] = {0.5f, -0.1f};
const float kVar[] = {2.0f, 0.3f};

tc::BatchNormStats stats(bool affine) {
  tc::BatchNormStats bn;
  bn.channels = 2;
  bn.weight = affine ? kWeight : nullptr;
  bn.bias = affine ? kBias : nullptr;
  bn.mean = kMean;
  bn.var = kVar;
  bn.eps = 1e-5;
  return bn;
}

TEST(TorchFloatBatchNorm, EvalModeOnCorners) {
  Buffer<float> y;
  ASSERT_TRUE(tc::batch_norm_eval(kCorners.data(), {1, 2, 4}, stats(true), &y).ok());
  ASSERT_EQ(y.size(), 8u);
  expect_floats(y.data(),
                {-0x1.8f874p-1f, -0x1.8f874p-1f, kNaN, kInf, kInf, 0x1.eac05p+0f, -0x1.3719eap+3f, -0x1.186de6p-1f});
}

TEST(TorchFloatBatchNorm, OneRoundingForTheMultiplyAdd) {
  // x * alpha + beta rounded once (torch 2.15 gives -0x1.0a6f36p+1; two roundings would give ...34p+1).
  const float x[] = {-0x1.3a0e0cp+0f, 0.0f};
  Buffer<float> y;
  ASSERT_TRUE(tc::batch_norm_eval(x, {1, 2, 1}, stats(true), &y).ok());
  expect_floats(y.data(), {-0x1.0a6f36p+1f});
}

TEST(TorchFloatBatchNorm, WithoutAffine) {
  Buffer<float> y;
  ASSERT_TRUE(tc::batch_norm_eval(kCorners.data(), {1, 2, 4}, stats(false), &y).ok());
  expect_floats(y.data(),
                {-0x1.6a09aap-2f, -0x1.6a09aap-2f, kNaN, kInf, -kInf, -0x1.472aep+1f, 0x1.9ecd38p+3f, 0x1.75e7dcp-1f});
}

TEST(TorchFloatBatchNorm, EmptyBatchWithHugeDimensions) {
  Buffer<float> y;
  const int64_t big = (int64_t{1} << 31) - 1;
  ASSERT_TRUE(tc::batch_norm_eval(nullptr, {0, 2, big, big, big}, stats(true), &y).ok());
  EXPECT_EQ(y.size(), 0u);
}

TEST(TorchFloatBatchNorm, RefusesBeforeAllocating) {
  Buffer<float> y;
  expect_error(tc::batch_norm_eval(kCorners.data(), {1, 4, 2}, stats(true), &y), StatusCode::kRangeError,
               "BatchNorm expects an input of shape [N, 2, *]");
  expect_error(tc::batch_norm_eval(kCorners.data(), {8}, stats(true), &y), StatusCode::kRangeError, "[N, 2, *]");
  tc::BatchNormStats bad = stats(true);
  bad.eps = -1;
  expect_error(tc::batch_norm_eval(kCorners.data(), {1, 2, 4}, bad, &y), StatusCode::kRangeError,
               "eps must be a finite number >= 0, got -1");
  bad = stats(true);
  bad.bias = nullptr;
  expect_error(tc::batch_norm_eval(kCorners.data(), {1, 2, 4}, bad, &y), StatusCode::kTypeError,
               "both given or both absent");
  bad = stats(true);
  bad.channels = 0;
  expect_error(tc::batch_norm_eval(kCorners.data(), {1, 2, 4}, bad, &y), StatusCode::kRangeError, "channels, got 0");
  EXPECT_EQ(y.data(), nullptr);
}

// The conv weight [2, 3, 1] and bias folded with the BatchNorm above
// (torch.nn.utils.fusion.fuse_conv_bn_weights / fuse_linear_bn_weights).
const std::vector<float> kConvWeight = {0.5f, -1.25f, 3.0f, 0.1f, -0.0f, 2.5f};
const float kConvBias[] = {0.2f, -0.4f};
const std::vector<float> kFoldedWeight = {0x1.0f874p-1f,   -0x1.53691p+0f, 0x1.974aep+1f,
                                          -0x1.186de6p-3f, 0.0f,           -0x1.b62bb6p+1f};

TEST(TorchFloatFold, ConvAndLinearAsFusionPy) {
  for (bool linear : {false, true}) {
    Buffer<float> w, b;
    const Shape shape = linear ? Shape{2, 3} : Shape{2, 3, 1};
    ASSERT_TRUE(tc::fold_batch_norm(kConvWeight.data(), shape, kConvBias, stats(true), linear, &w, &b).ok());
    expect_floats(w.data(), kFoldedWeight);
    expect_floats(b.data(), {-0x1.22eacp-1f, 0x1.a4a4d8p-2f});
  }
}

TEST(TorchFloatFold, ConvWithoutBiasFoldsZero) {
  Buffer<float> w, b;
  ASSERT_TRUE(tc::fold_batch_norm(kConvWeight.data(), {2, 3, 1}, nullptr, stats(true), false, &w, &b).ok());
  expect_floats(b.data(), {-0x1.8f874p-1f, -0x1.186de4p-3f});
}

TEST(TorchFloatFold, LinearBroadcastsOneChannel) {
  tc::BatchNormStats one = stats(true);
  one.channels = 1;
  Buffer<float> w, b;
  ASSERT_TRUE(tc::fold_batch_norm(kConvWeight.data(), {2, 3}, kConvBias, one, true, &w, &b).ok());
  EXPECT_EQ(bits(w[3]), bits(0.1f * (1.5f * (1.0f / std::sqrt(2.0f + 1e-5f)))));
}

TEST(TorchFloatFold, RefusesBeforeAllocating) {
  Buffer<float> w, b;
  tc::BatchNormStats one = stats(true);
  one.channels = 1;
  expect_error(tc::fold_batch_norm(kConvWeight.data(), {2, 3, 1}, kConvBias, one, false, &w, &b),
               StatusCode::kRangeError, "the weight has 2 output channels but the BatchNorm 1");
  expect_error(tc::fold_batch_norm(kConvWeight.data(), {2, 3}, kConvBias, stats(false), true, &w, &b),
               StatusCode::kTypeError, "cannot be folded into a linear layer");
  expect_error(tc::fold_batch_norm(kConvWeight.data(), {6}, kConvBias, stats(true), false, &w, &b),
               StatusCode::kRangeError, "shape [out, ...]");
  EXPECT_EQ(w.data(), nullptr);
  EXPECT_EQ(b.data(), nullptr);
}

}  // namespace
