// The float normalisations (qwasm/norm_float.h) against torch 2.15's outputs
// (one thread, CPU): each case's inputs come from a formula both sides
// compute in float32, and the expected value is the FNV-1a hash of PyTorch's
// output bits (printed by tests/native/expected_from_torch.py), so
// any element off by one ulp fails. Also the corners (infinities, NaN, a
// constant row, values whose squares overflow), one element per group,
// groups == channels, an empty batch, and every check made before allocating.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/fma_f32.h"
#include "quint8_test_util.h"
#include "qwasm/norm_float.h"
#include "test_util.h"

using namespace qwasm;
using qwasm_test::expect_error;
namespace tc = qwasm::torch_cpu;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ((i * 7919 + salt) % 1000 - 500) / 37 in float32, as the generator's numpy computes it.
std::vector<float> inputs(int64_t n, int64_t salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919 + salt) % 1000 - 500) / 37.0f;
  return v;
}

std::vector<float> divided(std::vector<float> v, float d) {
  for (float& e : v) e = e / d;
  return v;
}

uint64_t fnv(const Buffer<float>& y) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < y.size(); ++i) {
    uint32_t u = 0;
    std::memcpy(&u, &y[i], 4);
    h ^= u;
    h *= 0x100000001b3ull;
  }
  return h;
}

// got equals want element for element (bits, NaN matching NaN).
void expect_floats(const Buffer<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i] << ", PyTorch gives NaN";
    } else {
      uint32_t a = 0, b = 0;
      std::memcpy(&a, &got[i], 4);
      std::memcpy(&b, &want[i], 4);
      EXPECT_EQ(a, b) << "element " << i << " is " << got[i] << ", PyTorch gives " << want[i];
    }
  }
}

tc::NormParams affine(const std::vector<float>& w, const std::vector<float>& b, double eps) {
  tc::NormParams p;
  p.weight = w.data();
  p.bias = b.data();
  p.eps = eps;
  return p;
}

tc::NormParams plain(double eps) {
  tc::NormParams p;
  p.eps = eps;
  return p;
}

// Four rows of 10: an infinity, a NaN, a constant, values whose squares overflow float32.
const std::vector<float> kCorners = {1,     2,      kInf,  4,      5,     6,     7,      8, 9, 10,  //
                                     1,     2,      3,     kNaN,   5,     6,     7,      8, 9, 10,  //
                                     3,     3,      3,     3,      3,     3,     3,      3, 3, 3,   //
                                     3e38f, -3e38f, 3e38f, -3e38f, 1e38f, 2e38f, -1e38f, 0, 0, 3e38f};

std::vector<float> rows_of(float a, float b, float c, float d) {
  std::vector<float> v;
  for (float e : {a, b, c, d}) v.insert(v.end(), 10, e);
  return v;
}

}  // namespace

TEST(GroupNormFloat, EqualsPyTorchWithAndWithoutAffine) {
  // [2, 6, 5, 7] in 3 groups: rows of 70 (8 vectors and a tail of 6).
  const std::vector<float> x = inputs(2 * 6 * 35, 1);
  const std::vector<float> w = divided(inputs(6, 11), 5), b = divided(inputs(6, 14), 7);
  Buffer<float> y;
  ASSERT_TRUE(tc::group_norm(x.data(), 2, 6, 35, 3, affine(w, b, 1e-5), &y).ok());
  EXPECT_EQ(fnv(y), 0x73d92e72a10110b2ull);
  EXPECT_EQ(y[0], 2.7694413661956787f);
  ASSERT_TRUE(tc::group_norm(x.data(), 2, 6, 35, 3, plain(1e-5), &y).ok());
  EXPECT_EQ(fnv(y), 0x6733df45d17a4ea1ull);
}

TEST(GroupNormFloat, EqualsPyTorchOnALongRowThroughTheCascade) {
  // [1, 4, 1000] in 2 groups: rows of 2000 (250 vectors, 16 chunks, four cascade levels).
  const std::vector<float> x = inputs(4000, 5);
  const std::vector<float> w = divided(inputs(4, 2), 5), b = divided(inputs(4, 5), 7);
  Buffer<float> y;
  ASSERT_TRUE(tc::group_norm(x.data(), 1, 4, 1000, 2, affine(w, b, 1e-3), &y).ok());
  EXPECT_EQ(fnv(y), 0x23d54f6cc73ffcf8ull);
}

TEST(LayerNormFloat, EqualsPyTorchWithAndWithoutAffine) {
  // [3, 517]: 64 vectors (4 chunks) and a tail of 5.
  const std::vector<float> x = inputs(3 * 517, 9);
  const std::vector<float> w = divided(inputs(517, 4), 5), b = divided(inputs(517, 7), 7);
  Buffer<float> y;
  ASSERT_TRUE(tc::layer_norm(x.data(), 3, 517, affine(w, b, 1e-5), &y).ok());
  EXPECT_EQ(fnv(y), 0x51463ba6d35bf7e2ull);
  ASSERT_TRUE(tc::layer_norm(x.data(), 3, 517, plain(1e-5), &y).ok());
  EXPECT_EQ(fnv(y), 0xba62859db3a1bbc6ull);
}

TEST(InstanceNormFloat, EqualsPyTorchWithBatchAndRunningStatistics) {
  const std::vector<float> x = inputs(2 * 3 * 99, 13);
  const std::vector<float> w = divided(inputs(3, 6), 5), b = divided(inputs(3, 9), 7);
  Buffer<float> y;
  ASSERT_TRUE(tc::instance_norm(x.data(), 6, 3, 99, affine(w, b, 1e-5), &y).ok());
  EXPECT_EQ(fnv(y), 0x9fba8baad863d2bfull);
  const std::vector<float> mean = divided(inputs(3, 20), 10);
  std::vector<float> var = inputs(3, 21);
  for (float& v : var) v = std::fabs(v) + 0.5f;
  tc::NormParams p = affine(w, b, 1e-5);
  p.running_mean = mean.data();
  p.running_var = var.data();
  ASSERT_TRUE(tc::instance_norm(x.data(), 6, 3, 99, p, &y).ok());
  EXPECT_EQ(fnv(y), 0x8cd7cf4510d603a1ull);
}

TEST(NormFloat, CornersPropagateAsInPyTorch) {
  // PyTorch: a row holding an infinity or a NaN is all NaN; a constant row is 0 (GroupNorm, LayerNorm) or the
  // residual of fma(x, invstd, -mean * invstd) (InstanceNorm); overflowing squares give NaN through Welford
  // but 0 through InstanceNorm's double sums (its variance is inf, so invstd is 0).
  Buffer<float> y;
  ASSERT_TRUE(tc::group_norm(kCorners.data(), 1, 4, 10, 4, plain(1e-5), &y).ok());
  expect_floats(y, rows_of(kNaN, kNaN, 0.0f, kNaN));
  ASSERT_TRUE(tc::layer_norm(kCorners.data(), 4, 10, plain(1e-5), &y).ok());
  expect_floats(y, rows_of(kNaN, kNaN, 0.0f, kNaN));
  ASSERT_TRUE(tc::instance_norm(kCorners.data(), 4, 4, 10, plain(1e-5), &y).ok());
  expect_floats(y, rows_of(kNaN, kNaN, 3.0517578125e-05f, 0.0f));
}

TEST(NormFloat, OneElementPerGroupAndGroupsEqualChannels) {
  // One element per group (aten.group_norm takes it; F.group_norm's Python check refuses it): the mean is the
  // element and the variance 0, so y = fma(scale, x, fma(-scale, x, bias)), the bias up to its rounding.
  const std::vector<float> x = {5.0f, -2.5f, kInf};
  const std::vector<float> w = {2.0f, 3.0f, 4.0f}, b = {0.5f, -1.0f, 0.0f};
  Buffer<float> y;
  ASSERT_TRUE(tc::group_norm(x.data(), 1, 3, 1, 3, affine(w, b, 1e-5), &y).ok());
  expect_floats(y, {0x1.fffp-2f, -0x1.0004p+0f, kNaN});  // inf - inf is NaN
  // groups == channels on rows of 20: a constant channel's mean is exact, so it normalises to 0 (and to
  // 0 * inf = NaN with eps 0, as PyTorch's).
  std::vector<float> c(2 * 20, 1.25f);
  for (int i = 20; i < 40; ++i) c[i] = static_cast<float>(i);
  ASSERT_TRUE(tc::group_norm(c.data(), 1, 2, 20, 2, plain(1e-5), &y).ok());
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[19], 0.0f);
  EXPECT_EQ(y[20], -0x1.a5c32p+0f);
  EXPECT_EQ(y[21], -0x1.795dbep+0f);
  ASSERT_TRUE(tc::group_norm(c.data(), 1, 2, 20, 2, plain(0.0), &y).ok());
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[20], -0x1.a5c326p+0f);
  float mean = 0, variance = 0;
  tc::rowwise_moments(c.data() + 20, 20, &mean, &variance);
  EXPECT_EQ(mean, 29.5f);
  EXPECT_NEAR(variance, 33.25f, 1e-5f);  // (20^2 - 1) / 12
}

TEST(NormFloat, EmptyBatchesGiveEmptyOutputs) {
  Buffer<float> y;
  ASSERT_TRUE(tc::group_norm(nullptr, 0, 4, 0, 2, plain(1e-5), &y).ok());
  EXPECT_EQ(y.size(), 0u);
  ASSERT_TRUE(tc::instance_norm(nullptr, 0, 4, 10, plain(1e-5), &y).ok());
  EXPECT_EQ(y.size(), 0u);
  ASSERT_TRUE(tc::layer_norm(nullptr, 0, 7, plain(1e-5), &y).ok());
  EXPECT_EQ(y.size(), 0u);
}

TEST(NormFloat, RefusesBadSizesBeforeAllocating) {
  Buffer<float> y;
  const int64_t big = int64_t{1} << 40;
  expect_error(tc::group_norm(nullptr, big, 4, big, 2, plain(1e-5), &y), StatusCode::kRangeError, "overflows");
  expect_error(tc::group_norm(nullptr, 1, 6, 4, 4, plain(1e-5), &y), StatusCode::kRangeError, "groups");
  expect_error(tc::group_norm(nullptr, 1, 6, 4, 0, plain(1e-5), &y), StatusCode::kRangeError, "groups");
  expect_error(tc::group_norm(nullptr, 1, 6, 0, 3, plain(1e-5), &y), StatusCode::kRangeError, "nothing to normalise");
  expect_error(tc::group_norm(nullptr, -1, 6, 4, 3, plain(1e-5), &y), StatusCode::kRangeError, "negative");
  expect_error(tc::instance_norm(nullptr, 7, 3, 4, plain(1e-5), &y), StatusCode::kRangeError, "channels");
  expect_error(tc::instance_norm(nullptr, 3, 3, 0, plain(1e-5), &y), StatusCode::kRangeError, "nothing to normalise");
  expect_error(tc::instance_norm(nullptr, big, 1, big, plain(1e-5), &y), StatusCode::kRangeError, "overflows");
  tc::NormParams half = plain(1e-5);
  const float one = 1.0f;
  half.running_mean = &one;
  expect_error(tc::instance_norm(nullptr, 1, 1, 1, half, &y), StatusCode::kRangeError, "running_var");
  expect_error(tc::layer_norm(nullptr, 3, 0, plain(1e-5), &y), StatusCode::kRangeError, "0 elements");
  expect_error(tc::layer_norm(nullptr, big, big, plain(1e-5), &y), StatusCode::kRangeError, "overflows");
  for (double eps : {-1.0, std::nan(""), HUGE_VAL}) {
    expect_error(tc::layer_norm(nullptr, 1, 1, plain(eps), &y), StatusCode::kRangeError, "eps");
    expect_error(tc::group_norm(nullptr, 1, 1, 1, 1, plain(eps), &y), StatusCode::kRangeError, "eps");
    expect_error(tc::instance_norm(nullptr, 1, 1, 1, plain(eps), &y), StatusCode::kRangeError, "eps");
  }
  // A size that fits int64 but not one buffer is the allocator's refusal, still before any element is read.
  expect_error(tc::layer_norm(nullptr, int64_t{1} << 20, int64_t{1} << 20, plain(1e-5), &y), StatusCode::kRangeError,
               "");
}

// fma_f32_fast against fma_f32 (rounding to odd, exact for every input) and, natively, the correctly
// rounded std::fma (glibc's fmaf or the instruction; Emscripten's musl fmaf relies on fesetround, a no-op
// in wasm, and misses the midpoints below): random triples over wide exponent ranges, and sums whose
// double rounding lands exactly on a float midpoint (a * b = 2^-24 (1 - k^2 2^-46) added to an odd float
// c in [1, 2): the double sum is c + 2^-24, a tie that rounding the double to float breaks to even,
// upwards for an odd c, while the exact sum is below it).
#ifdef __EMSCRIPTEN__
constexpr bool kTrustStdFma = false;
#else
constexpr bool kTrustStdFma = true;
#endif

TEST(FmaF32Fast, EqualsACorrectlyRoundedFma) {
  std::uniform_int_distribution<uint32_t> any;
  auto random_float = [&](int lo_exp, int hi_exp) {
    std::uniform_int_distribution<int> e(lo_exp, hi_exp);
    const float m = 1.0f + static_cast<float>(any(qwasm_test::rng()) >> 9) * 0x1p-23f;
    return std::ldexp(any(qwasm_test::rng()) & 1 ? -m : m, e(qwasm_test::rng()));
  };
  auto same = [](float x, float y) { return std::memcmp(&x, &y, 4) == 0 || (std::isnan(x) && std::isnan(y)); };
  int mismatches = 0;
  for (int i = 0; i < 1000000; ++i) {
    const float a = random_float(-70, 60), b = random_float(-70, 60), c = random_float(-140, 120);
    const float got = kernels::fma_f32_fast(a, b, c);
    const bool ok = same(got, kernels::fma_f32(a, b, c)) && (!kTrustStdFma || same(got, std::fma(a, b, c)));
    if (!ok && ++mismatches < 5) ADD_FAILURE() << a << " * " << b << " + " << c;
  }
  for (int k = 1; k < 64; ++k) {
    for (float c : {1.0f + 0x1p-23f, 1.0f + 3 * 0x1p-23f, 1.5f + 0x1p-23f}) {
      const float a = 1.0f + k * 0x1p-23f, b = (1.0f - k * 0x1p-23f) * 0x1p-24f;
      EXPECT_EQ(kernels::fma_f32_fast(a, b, c), c) << k;  // the exact sum is below the midpoint
      EXPECT_EQ(kernels::fma_f32_fast(-a, b, -c), -c) << k;
      EXPECT_EQ(kernels::fma_f32_fast(a, b, c), kernels::fma_f32(a, b, c)) << k;
      if (kTrustStdFma) {
        EXPECT_EQ(kernels::fma_f32_fast(a, b, c), std::fma(a, b, c)) << k;
      }
    }
  }
  // Subnormal results, zeros, infinities and NaN.
  EXPECT_EQ(kernels::fma_f32_fast(0x1p-75f, 0x1p-75f, 0x1p-149f), 0x1p-149f + 0x1p-149f);
  EXPECT_EQ(kernels::fma_f32_fast(0x1.8p-75f, 0x1p-75f, -0x1p-148f),
            kernels::fma_f32(0x1.8p-75f, 0x1p-75f, -0x1p-148f));
  EXPECT_TRUE(std::signbit(kernels::fma_f32_fast(-0.0f, 1.0f, -0.0f)));
  EXPECT_FALSE(std::signbit(kernels::fma_f32_fast(-1.0f, 1.0f, 1.0f)));
  EXPECT_EQ(kernels::fma_f32_fast(3e38f, 2.0f, 0.0f), kInf);
  EXPECT_TRUE(std::isnan(kernels::fma_f32_fast(kInf, 0.0f, 1.0f)));
  EXPECT_TRUE(std::isnan(kernels::fma_f32_fast(kNaN, 1.0f, 1.0f)));
}
