// Pooling (qwasm/pool.h): output shapes and PyTorch's checks, every error
// with its message, hand-checked integers and floats (torch 2.15's, fbgemm,
// one thread), the layout-dependent kernels, and hostile geometry (kernels,
// strides, paddings, dilations and output sizes up to and past 2^31 and
// int64), which must be refused or computed at once. Also the outer sum
// (torch_cpu::sum_outer) the quantized 3d mean uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "quint8_test_util.h"
#include "qwasm/pool.h"
#include "qwasm/qtensor.h"
#include "qwasm/thread_pool.h"
#include "qwasm/torch_float.h"
#include "test_util.h"

using namespace qwasm;
using qwasm_test::as_channels_last;
using qwasm_test::expect_error;
using qwasm_test::ints;
using qwasm_test::q8;

namespace {

constexpr int64_t kBig = (int64_t{1} << 31) - 1;
constexpr float kInf = std::numeric_limits<float>::infinity();

QTensor iota(const Shape& shape, double scale = 1.0, double zp = 0) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i);
  return q8(v, shape, scale, zp);
}

// 1d / 2d / 3d parameters, outermost dimension first.
PoolParams pool1d(int64_t k, int64_t s = 1, int64_t pad = 0, int64_t dil = 1) {
  PoolParams p;
  p.dims = 1;
  p.kernel[0] = k;
  p.stride[0] = s;
  p.padding[0] = pad;
  p.dilation[0] = dil;
  return p;
}
PoolParams pool_nd(int dims, int64_t k, int64_t s = 1, int64_t pad = 0, int64_t dil = 1) {
  PoolParams p;
  p.dims = dims;
  for (int d = 0; d < dims && d < 3; ++d) {
    p.kernel[d] = k;
    p.stride[d] = s;
    p.padding[d] = pad;
    p.dilation[d] = dil;
  }
  return p;
}

Status max_shape(const Shape& in, const PoolParams& p, Shape* out) {
  return pool_output_shape(in, p, PoolKind::kMax, false, out);
}

}  // namespace

// ---------------------------------------------------------------------------
// Output shapes and geometry errors

TEST(PoolShape, FloorCeilDilationUnbatched) {
  Shape out;
  ASSERT_TRUE(pool_output_shape({1, 1, 5, 5}, pool_nd(2, 3, 2, 1), PoolKind::kMax, true, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 3, 3}));
  PoolParams p = pool1d(2, 2);
  ASSERT_TRUE(max_shape({1, 1, 5}, p, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 2}));
  p.ceil_mode = true;
  ASSERT_TRUE(max_shape({1, 1, 5}, p, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 3}));
  // ceil_mode drops a last window that would start in the right padding
  // (torch: max_pool1d(zeros(1,1,3), 2, 2, 1, ceil_mode=True) is [1, 1, 2]).
  p = pool1d(2, 2, 1);
  p.ceil_mode = true;
  ASSERT_TRUE(max_shape({1, 1, 3}, p, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 2}));
  ASSERT_TRUE(max_shape({1, 1, 7}, pool1d(3, 1, 0, 2), &out).ok());  // effective kernel 5
  EXPECT_EQ(out, (Shape{1, 1, 3}));
  ASSERT_TRUE(max_shape({3, 7}, pool1d(2), &out).ok());  // unbatched [C, L]
  EXPECT_EQ(out, (Shape{3, 6}));
  ASSERT_TRUE(max_shape({2, 3, 4, 5}, pool_nd(3, 2), &out).ok());  // float 3d takes [C, D, H, W]
  EXPECT_EQ(out, (Shape{2, 2, 3, 4}));
  // An empty batch gives an empty output, as PyTorch's (an unbatched input has no batch to be empty).
  ASSERT_TRUE(max_shape({0, 2, 5}, pool1d(2), &out).ok());
  EXPECT_EQ(out, (Shape{0, 2, 4}));
  EXPECT_EQ(max_shape({0, 5}, pool1d(2), &out).code, StatusCode::kRangeError);
}

TEST(PoolShape, RankAndInputErrors) {
  Shape out;
  expect_error(max_shape({1, 1, 5}, pool_nd(0, 1), &out), StatusCode::kRangeError,
               "pooling has 1, 2 or 3 spatial dimensions");
  expect_error(max_shape({1, 1, 5}, pool_nd(4, 1), &out), StatusCode::kRangeError,
               "pooling has 1, 2 or 3 spatial dimensions");
  expect_error(max_shape({5, 5}, pool_nd(2, 1), &out), StatusCode::kRangeError,
               "pooling expects a 4-D [N, C, ...] or 3-D [C, ...] input, got rank 2");
  expect_error(pool_output_shape({1, 5, 5, 5}, pool_nd(3, 1), PoolKind::kMax, true, &out), StatusCode::kRangeError,
               "pooling expects a 5-D [N, C, D, H, W] input, got rank 4");
  expect_error(max_shape({1, -1, 5}, pool1d(1), &out), StatusCode::kRangeError, "shape[1] must be >= 0, got -1");
  expect_error(max_shape({1, 1, 0}, pool1d(1), &out), StatusCode::kRangeError,
               "pooling: input dimension 2 is 0; every dimension but a batch's must be >= 1");
  expect_error(max_shape({kBig, kBig, 2}, pool1d(1), &out), StatusCode::kRangeError, "tensor too large");
  expect_error(max_shape({1, 1, INT64_MAX}, pool1d(1), &out), StatusCode::kRangeError,
               "shape[2] is 9223372036854775807; a dimension holds at most 2147483647 elements");
}

TEST(PoolShape, GeometryErrorsNameTheDimension) {
  Shape out;
  // Each parameter with its range and its values, as the conv geometry's messages.
  expect_error(max_shape({1, 1, 5}, pool1d(0), &out), StatusCode::kRangeError, "kernelSize must be >= 1, got [0]");
  expect_error(max_shape({1, 1, 5}, pool1d(1, 0), &out), StatusCode::kRangeError, "stride must be >= 1, got [0]");
  expect_error(max_shape({1, 1, 5}, pool1d(1, 1, -1), &out), StatusCode::kRangeError, "padding must be >= 0, got [-1]");
  expect_error(max_shape({1, 1, 5}, pool1d(1, 1, 0, 0), &out), StatusCode::kRangeError,
               "dilation must be >= 1, got [0]");
  PoolParams p = pool_nd(2, 2);
  p.kernel[0] = 0;
  expect_error(max_shape({1, 1, 5, 5}, p, &out), StatusCode::kRangeError, "kernelSize must be >= 1, got [0, 2]");
  p = pool_nd(3, 2);
  p.stride[0] = -5;
  expect_error(max_shape({1, 1, 5, 5, 5}, p, &out), StatusCode::kRangeError, "stride must be >= 1, got [-5, 1, 1]");
  p = pool_nd(3, 2);
  p.stride[0] = p.stride[1] = p.stride[2] = 0;
  expect_error(max_shape({1, 1, 5, 5, 5}, p, &out), StatusCode::kRangeError, "stride must be >= 1, got [0, 0, 0]");
  p = pool_nd(2, 2);
  p.padding[1] = int64_t{1} << 31;
  expect_error(max_shape({1, 1, 5, 5}, p, &out), StatusCode::kRangeError,
               "padding must be at most 2147483647, got [0, 2147483648]");
  // Average pooling has no dilation: the field is not checked.
  PoolParams avg_dil = pool1d(2);
  avg_dil.dilation[0] = 0;
  EXPECT_TRUE(pool_output_shape({1, 1, 4}, avg_dil, PoolKind::kAvg, false, &out).ok());
  expect_error(max_shape({1, 1, 5}, pool1d(3, 1, 2), &out), StatusCode::kRangeError,
               "padding should be at most half of kernelSize, got padding 2 and kernelSize 3 (width)");
  expect_error(max_shape({1, 1, 1}, pool1d(4, 1, 1), &out), StatusCode::kRangeError,
               "the output would be empty: input size 1, kernelSize 4, padding 1 (width)");
  expect_error(max_shape({1, 1, 4}, pool1d(3, 1, 0, 2), &out), StatusCode::kRangeError, "the output would be empty");
  PoolParams avg = pool1d(2);
  avg.has_divisor = true;
  avg.divisor = 0;
  expect_error(pool_output_shape({1, 1, 4}, avg, PoolKind::kAvg, false, &out), StatusCode::kRangeError,
               "divisorOverride must not be zero");
  // Max pooling has no divisor: the field is ignored.
  EXPECT_TRUE(max_shape({1, 1, 4}, avg, &out).ok());
}

// Geometry past 2^31 - 1 is refused before any arithmetic: these values made
// `in + 2 * pad - effective + stride - 1` overflow int64 (kernel INT64_MAX
// with padding 2^62 - 1 passed every other check).
TEST(PoolShape, HostileGeometryIsRefused) {
  Shape out;
  expect_error(max_shape({1, 1, 5}, pool1d(kBig + 1, 1), &out), StatusCode::kRangeError,
               "kernelSize must be at most 2147483647, got [2147483648]");
  expect_error(max_shape({1, 1, 5}, pool1d(INT64_MAX, 1, INT64_MAX / 2), &out), StatusCode::kRangeError,
               "kernelSize must be at most 2147483647, got [9223372036854775807]");
  expect_error(max_shape({1, 1, 5}, pool1d(1, INT64_MAX), &out), StatusCode::kRangeError,
               "stride must be at most 2147483647, got [9223372036854775807]");
  expect_error(max_shape({1, 1, 5}, pool1d(3, 1, int64_t{1} << 53), &out), StatusCode::kRangeError,
               "padding must be at most 2147483647, got [9007199254740992]");
  expect_error(max_shape({1, 1, 5}, pool1d(3, 1, 1, INT64_MAX), &out), StatusCode::kRangeError,
               "dilation must be at most 2147483647, got [9223372036854775807]");
  expect_error(max_shape({1, 1, 5}, pool1d(INT64_MIN), &out), StatusCode::kRangeError, "must be >= 1");
  // The largest values allowed work: a 2^31 - 1 kernel over a 3-element input
  // with half of it as padding, and a 2^31 - 1 stride.
  ASSERT_TRUE(max_shape({1, 1, 3}, pool1d(kBig, 1, kBig / 2), &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 3}));
  ASSERT_TRUE(max_shape({1, 1, 3}, pool1d(kBig, kBig, kBig / 2), &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 1}));
  // Average pooling ignores dilation, even an absurd one.
  ASSERT_TRUE(pool_output_shape({1, 1, 3}, pool1d(2, 1, 0, INT64_MAX), PoolKind::kAvg, false, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 2}));
}

// An average's divisor is a window's size: a 3d kernel of 2^21 x 2^21 x 2^21
// positions would overflow int64 there (with 2^22 x 2^21 x 2^21 the product
// wrapped to 0, and the division gave an infinity cast to an integer).
TEST(PoolShape, AverageKernelProductMustFitInt64) {
  Shape out;
  PoolParams p = pool_nd(3, int64_t{1} << 21, 1, int64_t{1} << 20);
  expect_error(pool_output_shape({1, 1, 1, 1, 1}, p, PoolKind::kAvg, true, &out), StatusCode::kRangeError,
               "kernelSize spans more than 2^63 positions");
  p.kernel[0] = int64_t{1} << 22;
  p.padding[0] = int64_t{1} << 21;
  expect_error(pool_output_shape({1, 1, 1, 1, 1}, p, PoolKind::kAvg, true, &out), StatusCode::kRangeError,
               "kernelSize spans more than 2^63 positions");
  // Max pooling has no divisor: the same kernel is fine.
  ASSERT_TRUE(pool_output_shape({1, 1, 1, 1, 1}, p, PoolKind::kMax, true, &out).ok());
  EXPECT_EQ(out, (Shape{1, 1, 2, 2, 2}));
}

// ---------------------------------------------------------------------------
// Quantized max pooling

TEST(QMaxPool, Values) {
  QTensor y;
  ASSERT_TRUE(qmax_pool(iota({1, 1, 4, 4}, 0.5, 3), pool_nd(2, 2, 2), &y).ok());
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 7, 13, 15}));
  EXPECT_EQ(y.q_scale(), 0.5);  // the input's qparams
  EXPECT_EQ(y.q_zero_point(), 3);
  // Dilation 2: taps (0, 2), (1, 3), (2, 4).
  ASSERT_TRUE(qmax_pool(q8({1, 5, 2, 8, 3}, {1, 1, 5}), pool1d(2, 1, 0, 2), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2, 8, 3}));
  // Padding is never compared: the edges take the largest real value.
  ASSERT_TRUE(qmax_pool(q8({7, 9, 4}, {1, 3}), pool1d(3, 1, 1), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{9, 9, 9}));
  ASSERT_TRUE(qmax_pool(iota({1, 2, 2, 2, 2}), pool_nd(3, 2), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{7, 15}));
  EXPECT_EQ(y.strides(), (Strides{2, 1, 1, 1, 1}));
}

// No tap inside the input (dilation steps over it): PyTorch's quantized max
// starts from the dtype's lowest value, 0 (torch 2.15 gives 0).
TEST(QMaxPool, AllPaddingWindowGivesZero) {
  QTensor y;
  ASSERT_TRUE(qmax_pool(q8({200}, {1, 1, 1}, 0.5, 3), pool1d(2, 1, 1, 2), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0}));
}

TEST(QMaxPool, ChannelsLastOutput) {
  QTensor y;
  // torch 2.15: a channels-last [1, 2, 3, 3] gives a channels-last output.
  ASSERT_TRUE(qmax_pool(as_channels_last(iota({1, 2, 3, 3})), pool_nd(2, 2), &y).ok());
  EXPECT_EQ(y.strides(), (Strides{8, 1, 4, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{4, 5, 7, 8, 13, 14, 16, 17}));
  ASSERT_TRUE(qmax_pool(iota({1, 2, 3, 3}), pool_nd(2, 2), &y).ok());
  EXPECT_EQ(y.strides(), (Strides{8, 4, 2, 1}));
}

// A 2^31 - 1 kernel over 3 elements: the loops visit only the taps inside
// the input (they walked all 2^31 taps per output, and 2^93 in 3d).
TEST(QMaxPool, HugeKernelReturnsAtOnce) {
  QTensor y;
  ASSERT_TRUE(qmax_pool(q8({7, 9, 4}, {1, 1, 3}), pool1d(kBig, 1, kBig / 2), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{9, 9, 9}));
  ASSERT_TRUE(qmax_pool(q8({7, 9, 4}, {1, 1, 3}), pool1d(kBig, kBig, kBig / 2), &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{9}));
  ASSERT_TRUE(qmax_pool(q8({1, 2, 3, 4, 5, 6, 7, 8}, {1, 1, 2, 2, 2}), pool_nd(3, kBig, 1, kBig / 2), &y).ok());
  EXPECT_EQ(y.shape(), (Shape{1, 1, 2, 2, 2}));
  EXPECT_EQ(ints(y), std::vector<uint8_t>(8, 8));
  // A huge dilation spans past any input this size: no window.
  expect_error(qmax_pool(q8({200}, {1, 1, 1}), pool1d(2, 1, 1, kBig), &y), StatusCode::kRangeError,
               "the output would be empty");
}

TEST(QMaxPool, Errors) {
  QTensor y, s8;
  const int8_t v[3] = {1, 2, 3};
  ASSERT_TRUE(
      make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 3, {1, 1, 3}, 1, 0, DType::kQInt8, &s8).ok());
  expect_error(qmax_pool(s8, pool1d(2), &y), StatusCode::kTypeError,
               "MaxPool takes a quint8 per_tensor_affine tensor, got qint8 per_tensor_affine");
  // Quantized max_pool3d takes 5-D inputs only.
  expect_error(qmax_pool(iota({2, 2, 2, 2}), pool_nd(3, 1), &y), StatusCode::kRangeError,
               "MaxPool expects a 5-D [N, C, D, H, W] input, got rank 4");
  expect_error(qmax_pool(q8({}, {1, 0, 3}), pool1d(2), &y), StatusCode::kRangeError,
               "MaxPool: input dimension 1 is 0; every dimension but a batch's must be >= 1");
  expect_error(qmax_pool(q8({}, {kBig, 0, kBig}), pool1d(2), &y), StatusCode::kRangeError, "input dimension 1 is 0");
  expect_error(qmax_pool(iota({1, 1, 3}), pool1d(kBig + 1), &y), StatusCode::kRangeError, "at most 2147483647");
}

// ---------------------------------------------------------------------------
// Quantized average pooling

// torch 2.15, [1, C, 3] holding 10, 20, 30 (zero point 1), kernel 3, padding 1.
TEST(QAvgPool, DivisorRules) {
  for (int64_t c : {1, 2}) {
    std::vector<uint8_t> v;
    for (int64_t i = 0; i < c; ++i) v.insert(v.end(), {10, 20, 30});
    const QTensor x = q8(v, {1, c, 3}, 1.0, 1);
    PoolParams p = pool1d(3, 1, 1);
    QTensor y;
    ASSERT_TRUE(qavg_pool(x, p, &y).ok());  // count_include_pad: / 3, 3, 3
    std::vector<uint8_t> want;
    for (int64_t i = 0; i < c; ++i) want.insert(want.end(), {10, 20, 17});
    EXPECT_EQ(ints(y), want) << "C " << c;
    p.count_include_pad = false;  // / 2, 3, 2
    ASSERT_TRUE(qavg_pool(x, p, &y).ok());
    want.clear();
    for (int64_t i = 0; i < c; ++i) want.insert(want.end(), {15, 20, 25});
    EXPECT_EQ(ints(y), want) << "C " << c;
  }
  // divisorOverride 4 (a 2d pool over [1, 1, 1, 3]).
  PoolParams p = pool_nd(2, 1);
  p.kernel[1] = 3;
  p.padding[1] = 1;
  p.has_divisor = true;
  p.divisor = 4;
  QTensor y;
  ASSERT_TRUE(qavg_pool(q8({10, 20, 30}, {1, 1, 1, 3}, 1.0, 1), p, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{8, 15, 13}));
  // A negative divisor: torch gives 0 (clamped), as here.
  p = pool_nd(2, 1);
  p.kernel[1] = p.stride[1] = 2;
  p.has_divisor = true;
  p.divisor = -2;
  ASSERT_TRUE(qavg_pool(q8({10, 20, 30, 40}, {1, 1, 1, 4}, 1.0, 3), p, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0, 0}));
}

// The channels-last kernel adds the zero point after rounding, the
// channels-first one before: 18.5 + 1 is 19 with one channel (the input is
// channels-last by shape), 20 with two (torch 2.15: [9, 16, 19] and [8, 16, 20]).
TEST(QAvgPool, KernelDependsOnLayout) {
  PoolParams p = pool1d(3, 1, 1);
  p.count_include_pad = false;
  QTensor y;
  ASSERT_TRUE(qavg_pool(q8({8, 9, 30}, {1, 1, 3}, 1.0, 1), p, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{9, 16, 19}));
  ASSERT_TRUE(qavg_pool(q8({8, 9, 30, 8, 9, 30}, {1, 2, 3}, 1.0, 1), p, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{8, 16, 20, 8, 16, 20}));
}

TEST(QAvgPool, OutputStrides) {
  QTensor y;
  ASSERT_TRUE(qavg_pool(as_channels_last(iota({1, 2, 3, 3})), pool_nd(2, 2), &y).ok());
  EXPECT_EQ(y.strides(), (Strides{8, 1, 4, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2, 3, 5, 6, 11, 12, 14, 15}));
  // 3d runs channels-last: the output of a contiguous input is channels-last 3d.
  ASSERT_TRUE(qavg_pool(iota({1, 2, 2, 2, 2}), pool_nd(3, 2), &y).ok());
  EXPECT_EQ(y.strides(), (Strides{2, 1, 2, 2, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{4, 12}));
}

// The largest kernel product allowed (2^62): the divisor is that, the
// average rounds to 0 and the zero point comes back.
TEST(QAvgPool, HugeKernelProduct) {
  PoolParams p = pool_nd(3, int64_t{1} << 21, 2, int64_t{1} << 20);
  p.kernel[2] = int64_t{1} << 20;
  p.padding[2] = int64_t{1} << 19;
  QTensor y;
  ASSERT_TRUE(qavg_pool(q8({200}, {1, 1, 1, 1, 1}, 1.0, 7), p, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{7}));
  p.kernel[2] = int64_t{1} << 21;  // 2^63 positions
  p.padding[2] = int64_t{1} << 20;
  expect_error(qavg_pool(q8({200}, {1, 1, 1, 1, 1}), p, &y), StatusCode::kRangeError, "more than 2^63 positions");
}

TEST(QAvgPool, Errors) {
  QTensor y;
  expect_error(qavg_pool(iota({2, 2, 2, 2}), pool_nd(3, 1), &y), StatusCode::kRangeError,
               "AvgPool expects a 5-D [N, C, D, H, W] input, got rank 4");
  PoolParams p = pool1d(2);
  p.has_divisor = true;
  expect_error(qavg_pool(iota({1, 1, 3}), p, &y), StatusCode::kRangeError, "divisorOverride must not be zero");
  expect_error(qavg_pool(iota({1, 1, 3}), pool1d(2, kBig + 1), &y), StatusCode::kRangeError, "at most 2147483647");
  expect_error(qavg_pool(iota({1, 1, 3}), pool1d(5), &y), StatusCode::kRangeError,
               "the output would be empty: input size 3, kernelSize 5, padding 0 (width)");
}

// ---------------------------------------------------------------------------
// Quantized adaptive average pooling

TEST(QAdaptiveAvgPool, Values) {
  QTensor y;
  const int64_t three = 3;
  // Windows [0, 2), [1, 4), [3, 5).
  ASSERT_TRUE(qadaptive_avg_pool(q8({10, 20, 30, 40, 50}, {1, 1, 5}), 1, &three, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{15, 30, 45}));
  // torch 2.15 on a channels-last [1, 2, 3, 3] to (2, 1): channels-last out.
  const int64_t hw[2] = {2, 1};
  ASSERT_TRUE(qadaptive_avg_pool(as_channels_last(iota({1, 2, 3, 3})), 2, hw, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2, 6, 12, 14}));
  EXPECT_EQ(y.strides(), (Strides{4, 1, 2, 2}));
}

// A 1x1x1 output of the 3d op is a quantized mean: a true division of the
// integer sum (1.5 -> 2, 2.5 -> 2) for a contiguous input.
TEST(QAdaptiveAvgPool, MeanOfContiguous3d) {
  const int64_t one[3] = {1, 1, 1};
  QTensor y;
  ASSERT_TRUE(qadaptive_avg_pool(q8({1, 2, 3, 4}, {1, 1, 1, 2, 2}), 3, one, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2}));
  ASSERT_TRUE(qadaptive_avg_pool(q8({1, 2}, {1, 1, 1, 1, 2}), 3, one, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2}));
  EXPECT_EQ(y.strides(), (Strides{1, 1, 1, 1, 1}));
}

// A channels-last 3d input takes the float mean: with scale 3e38 the
// dequantized values are infinite, and the mean quantizes to 255 (torch 2.15
// gives [255, 255]; qwasm cast the infinity to int64, undefined behaviour).
TEST(QAdaptiveAvgPool, FloatMeanOfInfinitiesSaturates) {
  const int64_t one[3] = {1, 1, 1};
  const QTensor x = as_channels_last(q8({255, 255, 255, 255}, {1, 2, 1, 1, 2}, 3e38, 0));
  ASSERT_EQ(x.strides(), (Strides{4, 1, 4, 4, 2}));
  QTensor y;
  ASSERT_TRUE(qadaptive_avg_pool(x, 3, one, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 255}));
  // Ordinary values: the mean of 1, 3 and of 2, 4 at scale 0.5, zero point 1.
  ASSERT_TRUE(qadaptive_avg_pool(as_channels_last(q8({1, 3, 2, 4}, {1, 2, 1, 1, 2}, 0.5, 1)), 3, one, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2, 3}));
}

// Float rounding puts the last window of 3 inputs over 2^24 + 1 outputs at
// [3, 4): PyTorch reads past its input there (qwasm did too, under ASan).
// The window is clipped to the input; an empty window gives the zero point.
TEST(QAdaptiveAvgPool, WindowsStayInsideTheInput) {
  const int64_t out = (int64_t{1} << 24) + 1;
  QTensor y;
  ASSERT_TRUE(qadaptive_avg_pool(q8({10, 20, 30}, {1, 1, 3}, 1.0, 5), 1, &out, &y).ok());
  ASSERT_EQ(y.numel(), out);
  EXPECT_EQ(y.data()[0], 10);
  EXPECT_EQ(y.data()[out - 2], 30);
  EXPECT_EQ(y.data()[out - 1], 5);
  Buffer<float> fy;
  Shape fshape;
  const float xf[3] = {1, 2, 3};
  ASSERT_TRUE(fadaptive_pool(xf, {1, 1, 3}, 1, &out, PoolKind::kMax, &fy, &fshape).ok());
  EXPECT_EQ(fy[0], 1.0f);
  EXPECT_EQ(fy[static_cast<size_t>(out - 2)], 3.0f);
  EXPECT_EQ(fy[static_cast<size_t>(out - 1)], -kInf);  // empty: the maximum's start
}

TEST(QAdaptiveAvgPool, Errors) {
  QTensor y;
  int64_t sizes[3] = {0, 1, 1};
  expect_error(qadaptive_avg_pool(iota({1, 1, 4}), 1, sizes, &y), StatusCode::kRangeError,
               "outputSize[0] must be in 1..2147483647, got 0");
  for (int64_t bad : {int64_t{-1}, kBig + 1, INT64_MAX, INT64_MIN}) {
    sizes[0] = bad;
    expect_error(qadaptive_avg_pool(iota({1, 1, 4}), 1, sizes, &y), StatusCode::kRangeError,
                 "outputSize[0] must be in 1..2147483647, got " + std::to_string(bad));
  }
  sizes[0] = 1;
  sizes[1] = 0;
  expect_error(qadaptive_avg_pool(iota({1, 1, 4, 4}), 2, sizes, &y), StatusCode::kRangeError, "outputSize[1]");
  // Every size allowed, the product not.
  const int64_t big2[2] = {65536, 65536};
  expect_error(qadaptive_avg_pool(iota({1, 1, 2, 2}), 2, big2, &y), StatusCode::kRangeError,
               "tensor too large: 4294967296 elements");
  const int64_t huge3[3] = {kBig, kBig, kBig};
  expect_error(qadaptive_avg_pool(iota({1, 1, 1, 1, 1}), 3, huge3, &y), StatusCode::kRangeError, "tensor too large");
  const int64_t one[3] = {1, 1, 1};
  expect_error(qadaptive_avg_pool(iota({1, 1, 4}), 0, one, &y), StatusCode::kRangeError,
               "pooling has 1, 2 or 3 spatial dimensions");
  expect_error(qadaptive_avg_pool(iota({4}), 1, one, &y), StatusCode::kRangeError,
               "AdaptiveAvgPool expects a 3-D [N, C, ...] or 2-D [C, ...] input, got rank 1");
  // A channels-last [C, H, W] taken as [C, D, H, W] by the 3d op.
  expect_error(qadaptive_avg_pool(as_channels_last(iota({2, 2, 2, 2})), 3, one, &y), StatusCode::kRangeError,
               "AdaptiveAvgPool3d on a 4-D channels-last tensor is not supported");
  QTensor s8;
  const int8_t v[4] = {1, 2, 3, 4};
  ASSERT_TRUE(
      make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 4, {1, 1, 4}, 1, 0, DType::kQInt8, &s8).ok());
  expect_error(qadaptive_avg_pool(s8, 1, one, &y), StatusCode::kTypeError,
               "AdaptiveAvgPool takes a quint8 per_tensor_affine tensor");
}

// ---------------------------------------------------------------------------
// Float pooling

TEST(FloatPool, MaxValuesPaddingAndNaN) {
  Buffer<float> y;
  Shape shape;
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i) - 8.5f;
  ASSERT_TRUE(fmax_pool(x.data(), {1, 1, 4, 4}, pool_nd(2, 2, 2), &y, &shape).ok());
  EXPECT_EQ(shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{-3.5f, -1.5f, 4.5f, 6.5f}));
  // All padding: -Inf, PyTorch's float semantics.
  const float one = 5;
  ASSERT_TRUE(fmax_pool(&one, {1, 1, 1}, pool1d(2, 1, 1, 2), &y, &shape).ok());
  EXPECT_EQ(y[0], -kInf);
  // NaN propagates into every window that holds it.
  const float nan3[3] = {1, NAN, 3};
  ASSERT_TRUE(fmax_pool(nan3, {1, 1, 3}, pool1d(3, 1, 1), &y, &shape).ok());
  for (float v : y) EXPECT_TRUE(std::isnan(v));
  // A huge kernel over a small input returns at once.
  ASSERT_TRUE(fmax_pool(nan3 + 2, {1, 1, 1}, pool1d(kBig, 1, kBig / 2), &y, &shape).ok());
  EXPECT_EQ(y[0], 3.0f);
  ASSERT_TRUE(fmax_pool(x.data(), {2, 2, 2, 2}, pool_nd(3, kBig, 1, kBig / 2), &y, &shape).ok());
  EXPECT_EQ(shape, (Shape{2, 2, 2, 2}));  // unbatched [C, D, H, W]
  EXPECT_EQ(y[0], -1.5f);                 // max of channel 0
  EXPECT_EQ(y[8], 6.5f);
}

TEST(FloatPool, AverageDivisorRules) {
  Buffer<float> y;
  Shape shape;
  const float x[4] = {10, 20, 30, 40};
  PoolParams p = pool1d(3, 1, 1);
  ASSERT_TRUE(favg_pool(x, {1, 1, 3}, p, &y, &shape).ok());
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{10, 20, 50.0f / 3.0f}));
  p.count_include_pad = false;
  ASSERT_TRUE(favg_pool(x, {1, 1, 3}, p, &y, &shape).ok());
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{15, 20, 25}));
  p = pool1d(2, 2);
  p.has_divisor = true;
  p.divisor = -2;
  ASSERT_TRUE(favg_pool(x, {1, 1, 4}, p, &y, &shape).ok());
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{-15, -35}));
  // The largest kernel product (2^62) is the divisor.
  p = pool_nd(3, int64_t{1} << 21, 2, int64_t{1} << 20);
  p.kernel[2] = int64_t{1} << 20;
  p.padding[2] = int64_t{1} << 19;
  const float v = 200;
  ASSERT_TRUE(favg_pool(&v, {1, 1, 1, 1, 1}, p, &y, &shape).ok());
  EXPECT_EQ(y[0], 200.0f / 4611686018427387904.0f);
  p.kernel[2] = int64_t{1} << 21;  // 2^63 positions
  p.padding[2] = int64_t{1} << 20;
  expect_error(favg_pool(&v, {1, 1, 1, 1, 1}, p, &y, &shape), StatusCode::kRangeError, "more than 2^63 positions");
}

TEST(FloatPool, Adaptive) {
  Buffer<float> y;
  Shape shape;
  const float x[5] = {1, 2, 3, 4, 5};
  const int64_t three = 3;
  ASSERT_TRUE(fadaptive_pool(x, {1, 1, 5}, 1, &three, PoolKind::kMax, &y, &shape).ok());
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{2, 4, 5}));
  ASSERT_TRUE(fadaptive_pool(x, {1, 1, 5}, 1, &three, PoolKind::kAvg, &y, &shape).ok());
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{1.5f, 3, 4.5f}));
  EXPECT_EQ(shape, (Shape{1, 1, 3}));
  const int64_t hw[2] = {1, 1};
  ASSERT_TRUE(fadaptive_pool(x, {1, 5, 1}, 2, hw, PoolKind::kAvg, &y, &shape).ok());  // unbatched [C, H, W]
  EXPECT_EQ(shape, (Shape{1, 1, 1}));
  EXPECT_EQ(y[0], 3.0f);
}

TEST(FloatPool, Errors) {
  Buffer<float> y;
  Shape shape;
  const int64_t sizes[3] = {2, 2, 2};
  // Refused before the data is read.
  expect_error(fmax_pool(nullptr, {1, 1, 0}, pool1d(1), &y, &shape), StatusCode::kRangeError,
               "MaxPool: input dimension 2 is 0");
  expect_error(favg_pool(nullptr, {kBig, kBig, kBig}, pool1d(1), &y, &shape), StatusCode::kRangeError,
               "tensor too large");
  expect_error(favg_pool(nullptr, {1, 1, 5}, pool1d(3, 1, 2), &y, &shape), StatusCode::kRangeError,
               "padding should be at most half of kernelSize");
  const int64_t bad[1] = {0};
  expect_error(fadaptive_pool(nullptr, {1, 1, 4}, 1, bad, PoolKind::kAvg, &y, &shape), StatusCode::kRangeError,
               "outputSize[0] must be in 1..2147483647, got 0");
  expect_error(fadaptive_pool(nullptr, {4}, 1, sizes, PoolKind::kAvg, &y, &shape), StatusCode::kRangeError,
               "AdaptivePool expects a 3-D [N, C, ...] or 2-D [C, ...] input, got rank 1");
  const int64_t big2[2] = {65536, 65536};
  expect_error(fadaptive_pool(nullptr, {1, 1, 1}, 2, big2, PoolKind::kMax, &y, &shape), StatusCode::kRangeError,
               "tensor too large");
  expect_error(fmax_pool(nullptr, {1, 1, 3}, pool1d(3, 1, 1, INT64_MAX), &y, &shape), StatusCode::kRangeError,
               "at most 2147483647");
}

// An output that is valid but too large for memory: refused as a RangeError
// naming the allocation, nothing allocated.
TEST(FloatPool, OutOfMemoryIsAStatus) {
  Buffer<float> y;
  Shape shape;
  const float x[2] = {1, 2};
  const int64_t out = int64_t{1} << 30;  // 4 GiB of floats
  expect_error(fadaptive_pool(x, {1, 1, 2}, 1, &out, PoolKind::kAvg, &y, &shape), StatusCode::kRangeError,
               "the pooled output would need 4294967296 bytes");
}

// ---------------------------------------------------------------------------
// torch_cpu::sum_outer: x.sum over the spatial dimensions of a channels-last
// [1, C, H, W] in torch 2.15 (one thread), x[r * C + c] = ((i * 37) % 101 - 50) / 7
// in float32 with i = r * C + c. The cascades make these differ from a
// plain running sum.

namespace {
std::vector<float> sum_outer_of(int64_t rows, int64_t channels) {
  std::vector<float> x(static_cast<size_t>(rows * channels));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int64_t>(i * 37 % 101) - 50) / 7.0f;
  std::vector<float> out(static_cast<size_t>(channels));
  torch_cpu::sum_outer(x.data(), rows, channels, out.data());
  return out;
}
}  // namespace

TEST(SumOuter, MatchesPyTorch) {
  EXPECT_EQ(sum_outer_of(1000, 3), (std::vector<float>{0x1.6db6e6p+2f, -0x1.edb670p+1f, 0x1.000088p+0f}));
  EXPECT_EQ(sum_outer_of(300, 8),
            (std::vector<float>{0x1.edb6dap+3f, -0x1.b6dbe0p-2f, -0x1.049248p+4f, 0x1.64924ap+3f, -0x1.2db6d4p+2f,
                                -0x1.892486p+2f, 0x1.b6db70p+2f, -0x1.200008p+3f}));
  EXPECT_EQ(sum_outer_of(1000, 40),
            (std::vector<float>{0x1.9b6ddcp+3f,  0x1.a492f8p+1f,  0x1.049278p+3f,  -0x1.6db5c0p+0f, -0x1.5fffe0p+3f,
                                -0x1.89245ap+2f, -0x1.f6db4ap+3f, -0x1.5b6d9cp+3f, 0x1.0db6f4p+3f,  -0x1.249140p+0f,
                                0x1.22493cp+4f,  0x1.124948p+3f,  -0x1.fffdf0p-1f, 0x1.edb770p+1f,  -0x1.6db6a8p+2f,
                                -0x1.e9246ep+3f, -0x1.4db6b6p+3f, -0x1.6491e8p+2f, -0x1.6db3acp-1f, 0x1.2924a8p+4f,
                                0x1.20002ep+3f,  0x1.bb6ddcp+3f,  0x1.124974p+2f,  -0x1.5248dcp+2f, -0x1.b6d600p-2f,
                                -0x1.3fffd0p+3f, -0x1.39247cp+4f, -0x1.248d40p-2f, -0x1.3b6d8cp+3f, 0x1.2db70cp+3f,
                                0x1.c924b6p+3f,  0x1.2db722p+2f,  0x1.324928p+3f,  0x1.400000p-19f, -0x1.32490cp+3f,
                                -0x1.2db6c6p+2f, -0x1.c92498p+3f, -0x1.2db6dep+3f, 0x1.3b6dc4p+3f,  0x1.2493c0p-2f}));
  // Nothing to sum: zeros; no channels: nothing written.
  EXPECT_EQ(sum_outer_of(0, 5), std::vector<float>(5, 0.0f));
  EXPECT_EQ(sum_outer_of(7, 0), std::vector<float>{});
  EXPECT_EQ(sum_outer_of(1, 2), (std::vector<float>{-50.0f / 7.0f, -13.0f / 7.0f}));
}

// Windows of more rows than the row table holds (1024) are combined a table
// at a time: the maximum in the second table, the sum over three tables, and
// each ISA's row kernels agree.
TEST(QPoolRowTables, WindowsTallerThanOneTable) {
  const int64_t rows = 2500;
  std::vector<uint8_t> v(static_cast<size_t>(rows * 3));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>((i * 37) % 200);
  v[1400 * 3 + 1] = 250;  // the maximum of column 1, in the second table
  const QTensor x = q8(v, {1, 1, rows, 3});
  for (kernels::Isa isa : {kernels::Isa::kScalar, kernels::Isa::kWasmSimd}) {
    QTensor y;
    PoolParams p = pool_nd(2, 1);
    p.kernel[0] = rows;
    ASSERT_TRUE(qmax_pool(x, p, &y, isa).ok());
    std::vector<uint8_t> want(3, 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int c = 0; c < 3; ++c) want[c] = std::max(want[c], v[static_cast<size_t>(r * 3 + c)]);
    EXPECT_EQ(want[1], 250);
    EXPECT_EQ(ints(y), want);
    // The adaptive mean over all rows: sum / count, channels-first formula.
    const int64_t one[2] = {1, 1};
    ASSERT_TRUE(qadaptive_avg_pool(x, 2, one, &y, isa).ok());
    int64_t sum = 0;
    for (uint8_t b : v) sum += b;
    const float r = (static_cast<float>(1.0 / rows) / 3.0f) / 1.0f;
    EXPECT_EQ(ints(y), (std::vector<uint8_t>{static_cast<uint8_t>(std::nearbyint(static_cast<float>(sum) * r))}));
  }
}

// The pools split their planes (N * C) among the threads: at 1, 2, 3 and 4
// threads (fine-grained tasks: every plane its own task) max, average and
// adaptive average give the bytes they give on one thread, for a batch of
// planes and for a single plane.
TEST(QPoolThreads, EveryThreadCountGivesTheSameBytes) {
  const uint64_t seed = qwasm_test::test_seed();
  for (const Shape& shape : {Shape{2, 13, 5, 9, 11}, Shape{1, 1, 5, 9, 11}}) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<uint8_t> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 7);
    const QTensor x = q8(v, shape, 0.1, 17);
    PoolParams avg = pool_nd(3, 3, 2, 1);
    const int64_t adaptive[3] = {2, 4, 3};
    std::vector<std::vector<uint8_t>> first;
    for (size_t threads : qwasm_test::thread_counts()) {
      ASSERT_TRUE(set_num_threads(threads).ok());
      QTensor a, b, c;
      ASSERT_TRUE(qmax_pool(x, pool_nd(3, 3, 2, 1), &a).ok());
      ASSERT_TRUE(qavg_pool(x, avg, &b).ok());
      ASSERT_TRUE(qadaptive_avg_pool(x, 3, adaptive, &c).ok());
      const std::vector<std::vector<uint8_t>> got = {ints(a), ints(b), ints(c)};
      if (first.empty()) first = got;
      EXPECT_EQ(got, first) << "threads " << threads << " seed " << seed;
    }
  }
}
