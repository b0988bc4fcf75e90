// The float primitives HistogramObserver is built from, on hand-checked
// values (the PyTorch goldens in tests/js check the whole observer), and the
// observer's own edge cases, under the sanitizers.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "qwasm/histogram_observer.h"
#include "qwasm/torch_float.h"

using namespace qwasm;
namespace tc = qwasm::torch_cpu;

TEST(TorchFloat, LinspaceHitsBothEndsAndIsSymmetricAroundTheMiddle) {
  std::vector<float> v(5);
  tc::linspace(0.0, 1.0, 5, v.data());
  EXPECT_EQ(v, (std::vector<float>{0.0f, 0.25f, 0.5f, 0.75f, 1.0f}));
  std::vector<float> w(2049);
  tc::linspace(-3.7, 11.3, 2049, w.data());
  EXPECT_EQ(w.front(), -3.7f);
  EXPECT_EQ(w.back(), 11.3f);
  for (size_t i = 1; i < w.size(); ++i) EXPECT_LT(w[i - 1], w[i]) << i;
}

TEST(TorchFloat, HistcBinsByLinearInterpolationWithTheLastBinClosed) {
  const std::vector<float> x = {0.0f, 0.1f, 0.5f, 0.99f, 1.0f, -0.5f, 2.0f, NAN};
  std::vector<float> h(4);
  ASSERT_TRUE(tc::histc(x.data(), x.size(), 4, 0.0, 1.0, h.data()).ok());
  // 0 and 0.1 -> bin 0; 0.5 -> bin 2; 0.99 and 1.0 -> bin 3; -0.5, 2 and NaN are outside.
  EXPECT_EQ(h, (std::vector<float>{2, 0, 1, 2}));
}

TEST(TorchFloat, HistcWidensAnEmptyRangeToOneUnitEachSide) {
  const std::vector<float> x = {3.0f, 3.0f};
  std::vector<float> h(4);
  ASSERT_TRUE(tc::histc(x.data(), x.size(), 4, 3.0, 3.0, h.data()).ok());
  EXPECT_EQ(h, (std::vector<float>{0, 0, 2, 0}));  // [2, 4]: 3 sits at the start of bin 2
  EXPECT_EQ(tc::histc(x.data(), x.size(), 4, 0.0, INFINITY, h.data()).code, StatusCode::kRangeError);
}

TEST(TorchFloat, SumAndCumsumOfExactValues) {
  std::vector<float> x(2048);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
  EXPECT_EQ(tc::sum(x.data(), x.size()), 6138.0f);  // 292 full cycles of 21, plus 0+1+2+3
  EXPECT_EQ(tc::sum(x.data(), 5), 10.0f);           // the scalar path below one vector
  std::vector<float> c(4);
  tc::cumsum(x.data(), 4, c.data());
  EXPECT_EQ(c, (std::vector<float>{0, 1, 3, 6}));
}

TEST(TorchFloat, DivFloorIsPythonsFloorDivision) {
  EXPECT_EQ(tc::div_floor(7.0f, 2.0f), 3.0f);
  EXPECT_EQ(tc::div_floor(-7.0f, 2.0f), -4.0f);
  EXPECT_EQ(tc::div_floor(7.0f, -2.0f), -4.0f);
  EXPECT_TRUE(std::signbit(tc::div_floor(-0.0f, 3.0f)));
  EXPECT_EQ(tc::bucket_right(std::vector<float>{0, 1, 2}.data(), 3, 1.0f), 1);
}

TEST(HistogramObserver, FirstBatchSetsTheRangeAndLaterOnesGrowIt) {
  const int64_t bins = 8;
  std::vector<float> h(bins);
  float mn = INFINITY, mx = -INFINITY;
  const std::vector<float> a = {0, 1, 2, 3, 4, 5, 6, 7, INFINITY};
  ASSERT_TRUE(histogram_observe(a.data(), a.size(), bins, h.data(), &mn, &mx).ok());
  EXPECT_EQ(mn, 0.0f);
  EXPECT_EQ(mx, 7.0f);  // the infinity is left out
  float total = 0;
  for (float v : h) total += v;
  EXPECT_EQ(total, 8.0f);
  const std::vector<float> b = {-8, 15};
  ASSERT_TRUE(histogram_observe(b.data(), b.size(), bins, h.data(), &mn, &mx).ok());
  EXPECT_EQ(mn, -8.0f);
  EXPECT_EQ(mx, 15.0f);
  total = 0;
  for (float v : h) total += v;
  EXPECT_EQ(total, 10.0f);  // re-binning keeps the mass
  float lo = 0, hi = 0;
  ASSERT_TRUE(histogram_search(h.data(), bins, mn, mx, 256, &lo, &hi).ok());
  EXPECT_LE(mn, lo);
  EXPECT_LT(lo, hi);
  EXPECT_LE(hi, mx + (mx - mn) / bins);
}

TEST(HistogramObserver, RefusesNaNAndBadBins) {
  std::vector<float> h(4);
  float mn = INFINITY, mx = -INFINITY;
  const float x[] = {1, NAN};
  EXPECT_EQ(histogram_observe(x, 2, 4, h.data(), &mn, &mx).code, StatusCode::kRangeError);
  EXPECT_EQ(mn, INFINITY);  // nothing changed
  EXPECT_EQ(histogram_observe(x, 1, 0, h.data(), &mn, &mx).code, StatusCode::kRangeError);
  const float only_inf[] = {INFINITY, -INFINITY};
  ASSERT_TRUE(histogram_observe(only_inf, 2, 4, h.data(), &mn, &mx).ok());
  EXPECT_EQ(mn, INFINITY);  // a batch of infinities is ignored, as in PyTorch
}
