// The strides PyTorch would give a tensor (qwasm/memory_format.h) and the
// QTensor operations that carry them (as_memory_format, view_as,
// strides_like). Expected values are c10's (c10/core/Contiguity.h,
// MemoryFormat.h, TensorBase::suggest_memory_format) and ATen's computeStride,
// checked against torch 2.15 where noted.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "qwasm/memory_format.h"
#include "qwasm/qtensor.h"

using namespace qwasm;

namespace {

constexpr int64_t kBig = (int64_t{1} << 31) - 1;

QTensor make(const Shape& shape) {
  QTensor q;
  const double scale = 0.5, zp = 3;
  EXPECT_TRUE(make_qtensor(shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale, &zp, 1, &q).ok());
  return q;
}

QTensor channels_last(const Shape& shape) {
  QTensor q;
  EXPECT_TRUE(as_memory_format(make(shape), MemoryFormat::kChannelsLast, &q).ok());
  return q;
}

}  // namespace

TEST(MemoryFormat, ContiguousStrides) {
  EXPECT_EQ(contiguous_strides({2, 3, 4}), (Strides{12, 4, 1}));
  EXPECT_EQ(contiguous_strides({5}), (Strides{1}));
  EXPECT_EQ(contiguous_strides({}), (Strides{}));
  // c10 counts a size-0 dimension as 1 when it computes strides.
  EXPECT_EQ(contiguous_strides({2, 0, 3}), (Strides{3, 3, 1}));
}

TEST(MemoryFormat, ChannelsLastStrides) {
  EXPECT_EQ(channels_last_strides({2, 3, 4, 5}), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(channels_last_strides({2, 3, 4, 5, 6}), (Strides{360, 1, 90, 18, 3}));
  // Other ranks have no channels-last layout: contiguous.
  EXPECT_EQ(channels_last_strides({2, 3, 4}), (Strides{12, 4, 1}));
  // get_channels_last_strides_2d does not clamp sizes at 1 (torch:
  // empty([2,3,0,4]).contiguous(memory_format=channels_last).stride()).
  EXPECT_EQ(channels_last_strides({2, 3, 0, 4}), (Strides{0, 1, 12, 3}));
  EXPECT_EQ(strides_for({2, 3, 4, 5}, MemoryFormat::kChannelsLast), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(strides_for({2, 3, 4, 5}, MemoryFormat::kContiguous), (Strides{60, 20, 5, 1}));
}

TEST(MemoryFormat, IsContiguous) {
  EXPECT_TRUE(is_contiguous({2, 3, 4}, {12, 4, 1}));
  EXPECT_FALSE(is_contiguous({2, 3, 4}, {12, 1, 3}));
  // Sizes of 1 place no constraint on their stride.
  EXPECT_TRUE(is_contiguous({2, 1, 3}, {3, 99, 1}));
  // An empty tensor is contiguous whatever its strides.
  EXPECT_TRUE(is_contiguous({2, 0, 3}, {7, 5, 3}));
  EXPECT_TRUE(is_contiguous({}, {}));
  EXPECT_FALSE(is_contiguous({2, 3, 4, 5}, {60, 1, 15, 3}));
}

TEST(MemoryFormat, IsChannelsLastContiguous) {
  EXPECT_TRUE(is_channels_last_contiguous({2, 3, 4, 5}, {60, 1, 15, 3}));
  EXPECT_FALSE(is_channels_last_contiguous({2, 3, 4, 5}, {60, 20, 5, 1}));
  EXPECT_TRUE(is_channels_last_contiguous({2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}));
  // One channel: the contiguous strides are channels-last too.
  EXPECT_TRUE(is_channels_last_contiguous({2, 1, 4, 5}, {20, 20, 5, 1}));
  // One spatial position (N, C, 1, 1): likewise.
  EXPECT_TRUE(is_channels_last_contiguous({2, 3, 1, 1}, {3, 1, 1, 1}));
  // Only ranks 4 and 5 have the layout.
  EXPECT_FALSE(is_channels_last_contiguous({3, 4, 5}, {1, 15, 3}));
  EXPECT_FALSE(is_channels_last_contiguous({}, {}));
}

// c10's is_channels_last_strides_2d_s4 and the corner cases its comments name.
TEST(MemoryFormat, SuggestMemoryFormatCornerCases) {
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, {60, 1, 15, 3}), MemoryFormat::kChannelsLast);
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, {60, 20, 5, 1}), MemoryFormat::kContiguous);
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5, 6}, {360, 1, 90, 18, 3}), MemoryFormat::kChannelsLast);
  // N111 contiguous ([N,1,1,1] @ [1,1,1,1]) and N11W sliced on W ([N,1,1,1] @
  // [W,W,W,W]): ambiguous, NCHW.
  EXPECT_EQ(suggest_memory_format({4, 1, 1, 1}, {1, 1, 1, 1}), MemoryFormat::kContiguous);
  EXPECT_EQ(suggest_memory_format({4, 1, 1, 1}, {7, 7, 7, 7}), MemoryFormat::kContiguous);
  // N1H1: [H,1,1,1] channels-last strides, [H,H,1,1] contiguous ones.
  EXPECT_EQ(suggest_memory_format({2, 1, 4, 1}, {4, 1, 1, 1}), MemoryFormat::kChannelsLast);
  EXPECT_EQ(suggest_memory_format({2, 1, 4, 1}, {4, 4, 1, 1}), MemoryFormat::kContiguous);
  // A transposed 1C1W ([1,H,1,C] @ [HC,1,H,H]) is not channels-last.
  EXPECT_EQ(suggest_memory_format({1, 3, 1, 4}, {12, 1, 3, 3}), MemoryFormat::kContiguous);
  // A zero channel stride, or an empty tensor: NCHW.
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, {60, 0, 15, 3}), MemoryFormat::kContiguous);
  EXPECT_EQ(suggest_memory_format({2, 3, 0, 4}, {0, 1, 12, 3}), MemoryFormat::kContiguous);
  // Rank 3 (c10 leaves it disabled) and other ranks.
  EXPECT_EQ(suggest_memory_format({3, 4, 5}, {1, 15, 3}), MemoryFormat::kContiguous);
  EXPECT_EQ(suggest_memory_format({}, {}), MemoryFormat::kContiguous);
}

// ATen's computeStride, as torch 2.15 reshapes a channels-last [2,3,4,5].
TEST(MemoryFormat, ViewStridesOfChannelsLast) {
  const Shape shape = {2, 3, 4, 5};
  const Strides cl = {60, 1, 15, 3};
  Strides s;
  ASSERT_TRUE(view_strides(shape, cl, {2, 3, 20}, &s));  // H and W merge
  EXPECT_EQ(s, (Strides{60, 1, 3}));
  ASSERT_TRUE(view_strides(shape, cl, {2, 3, 4, 5, 1}, &s));
  EXPECT_EQ(s, (Strides{60, 1, 15, 3, 3}));
  ASSERT_TRUE(view_strides(shape, cl, {2, 3, 2, 2, 5}, &s));  // H splits
  EXPECT_EQ(s, (Strides{60, 1, 30, 15, 3}));
  // C and H are not adjacent in memory: no view (reshape copies).
  EXPECT_FALSE(view_strides(shape, cl, {6, 20}, &s));
  EXPECT_FALSE(view_strides(shape, cl, {120}, &s));
  // Contiguous: every reshape is a view.
  ASSERT_TRUE(view_strides({2, 3, 4}, {12, 4, 1}, {6, 4}, &s));
  EXPECT_EQ(s, (Strides{4, 1}));
  ASSERT_TRUE(view_strides({2, 3, 4}, {12, 4, 1}, {24}, &s));
  EXPECT_EQ(s, (Strides{1}));
  // From a scalar: all ones.
  ASSERT_TRUE(view_strides({}, {}, {1, 1}, &s));
  EXPECT_EQ(s, (Strides{1, 1}));
}

TEST(MemoryFormat, ViewStridesOfEmptyTensors) {
  Strides s;
  // Same shape: the strides stay. Another shape: contiguous-like, sizes clamped at 1.
  ASSERT_TRUE(view_strides({2, 3, 0, 4}, {0, 1, 12, 3}, {2, 3, 0, 4}, &s));
  EXPECT_EQ(s, (Strides{0, 1, 12, 3}));
  ASSERT_TRUE(view_strides({2, 3, 0, 4}, {0, 1, 12, 3}, {6, 0}, &s));
  EXPECT_EQ(s, (Strides{1, 1}));
  ASSERT_TRUE(view_strides({2, 3, 0, 4}, {0, 1, 12, 3}, {0, 5}, &s));
  EXPECT_EQ(s, (Strides{5, 1}));
}

// An empty tensor's other dimensions are bounded one by one (2^31 - 1), not
// as a product: its strides saturate instead of overflowing int64 (PyTorch
// refuses such a tensor: "Stride calculation overflowed"). Found under UBSan:
// make_qtensor computed them with a signed overflow.
TEST(MemoryFormat, HugeEmptyShapesSaturate) {
  const Strides c = contiguous_strides({0, kBig, kBig, kBig});
  EXPECT_EQ(c, (Strides{INT64_MAX, kBig * kBig, kBig, 1}));
  const Shape empty_d = {1, kBig, 0, kBig, kBig};  // channels-last order: C, W, H, then the empty D
  const Strides cl = channels_last_strides(empty_d);
  EXPECT_EQ(cl, (Strides{0, 1, INT64_MAX, kBig * kBig, kBig}));
  EXPECT_FALSE(is_channels_last_contiguous(empty_d, {1, 1, 1, 1, 1}));
  EXPECT_TRUE(is_channels_last_contiguous(empty_d, cl));
  EXPECT_EQ(suggest_memory_format(empty_d, cl), MemoryFormat::kContiguous);
  EXPECT_EQ(suggest_memory_format({kBig, kBig, 0, kBig}, c), MemoryFormat::kContiguous);
  Strides s;
  ASSERT_TRUE(view_strides({kBig, kBig, kBig, 0}, c, {0, kBig, kBig, kBig}, &s));
  EXPECT_EQ(s, c);
  // Strides no op produces (saturated, or past any product): no overflow either.
  EXPECT_EQ(suggest_memory_format({2, 3, 4, 5}, {INT64_MAX, 1, INT64_MAX, INT64_MAX}), MemoryFormat::kChannelsLast);
}

TEST(QTensorStrides, NewTensorsAreContiguous) {
  EXPECT_EQ(make({2, 3, 4}).strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(make({}).strides(), (Strides{}));
  EXPECT_EQ(make({2, 0, 3}).strides(), (Strides{3, 3, 1}));
}

TEST(QTensorStrides, AsMemoryFormat) {
  const QTensor x = make({2, 3, 4, 5});
  QTensor y;
  ASSERT_TRUE(as_memory_format(x, MemoryFormat::kChannelsLast, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.data(), x.data());  // the same storage: only the metadata changes
  QTensor z;
  ASSERT_TRUE(as_memory_format(y, MemoryFormat::kContiguous, &z).ok());
  EXPECT_EQ(z.strides(), (Strides{60, 20, 5, 1}));
  ASSERT_TRUE(as_memory_format(make({2, 3, 4, 5, 6}), MemoryFormat::kChannelsLast, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{360, 1, 90, 18, 3}));
  // Already channels-last contiguous (one channel): returned as it is, as
  // tensor.contiguous(memory_format=...) returns self (torch: (20, 20, 5, 1)).
  ASSERT_TRUE(as_memory_format(make({2, 1, 4, 5}), MemoryFormat::kChannelsLast, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{20, 20, 5, 1}));
  ASSERT_TRUE(as_memory_format(make({2, 3, 1, 1}), MemoryFormat::kChannelsLast, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{3, 1, 1, 1}));
  // Contiguous on any rank is allowed.
  ASSERT_TRUE(as_memory_format(make({7}), MemoryFormat::kContiguous, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{1}));
}

TEST(QTensorStrides, AsMemoryFormatNeedsRank4Or5) {
  QTensor y;
  for (const Shape& shape : {Shape{2, 3, 4}, Shape{}, Shape{1, 2, 3, 4, 5, 6}}) {
    const Status s = as_memory_format(make(shape), MemoryFormat::kChannelsLast, &y);
    EXPECT_EQ(s.code, StatusCode::kRangeError);
    EXPECT_NE(s.message.find("channels_last needs a tensor of rank 4 (or 5 for channels_last_3d), got rank " +
                             std::to_string(shape.size())),
              std::string::npos)
        << s.message;
  }
}

TEST(QTensorStrides, ViewAsComputesViewStrides) {
  const QTensor x = channels_last({2, 3, 4, 5});
  QTensor v;
  ASSERT_TRUE(view_as(x, {2, 3, 20}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{60, 1, 3}));
  EXPECT_EQ(v.data(), x.data());
  // No view possible: the strides of reshape's contiguous copy.
  ASSERT_TRUE(view_as(x, {6, 20}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{20, 1}));
  ASSERT_TRUE(view_as(x, {2, 3, 4, 5, 1}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{60, 1, 15, 3, 3}));
  // A channels-last [2,3,1,1] (strides (3,1,1,1)) viewed as [2,3].
  ASSERT_TRUE(view_as(channels_last({2, 3, 1, 1}), {2, 3}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{3, 1}));
  // Empty: torch gives (1, 1) for [6, 0].
  ASSERT_TRUE(view_as(channels_last({2, 3, 0, 4}), {6, 0}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{1, 1}));
}

TEST(QTensorStrides, ViewAsErrors) {
  const QTensor x = make({2, 3, 4});
  QTensor v;
  Status s = view_as(x, {5, 5}, -1, &v);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("a view must keep the element count: 24 elements, the new shape holds 25"),
            std::string::npos)
      << s.message;
  s = view_as(x, {kBig, kBig}, -1, &v);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("tensor too large"), std::string::npos) << s.message;
  s = view_as(x, {INT64_MAX}, -1, &v);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("shape[0] is 9223372036854775807"), std::string::npos) << s.message;
  s = view_as(x, {-24}, -1, &v);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("shape[0] must be >= 0, got -24"), std::string::npos) << s.message;
}

TEST(QTensorStrides, StridesLike) {
  EXPECT_EQ(strides_like(channels_last({2, 3, 4, 5}), {2, 3, 6, 7}), (Strides{126, 1, 21, 3}));
  EXPECT_EQ(strides_like(make({2, 3, 4, 5}), {2, 3, 6, 7}), (Strides{126, 42, 7, 1}));
  EXPECT_EQ(strides_like(channels_last({2, 3, 4, 5, 6}), {1, 2, 1, 1, 2}), (Strides{4, 1, 4, 4, 2}));
  // A rank-3 tensor has no channels-last suggestion.
  EXPECT_EQ(strides_like(make({3, 4, 5}), {3, 4, 5}), (Strides{20, 5, 1}));
}

TEST(QTensorStrides, SetStrides) {
  QTensor x = make({2, 3, 4, 5});
  x.set_strides({60, 1, 15, 3});
  EXPECT_EQ(x.strides(), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(suggest_memory_format(x.shape(), x.strides()), MemoryFormat::kChannelsLast);
}

// The 64-bit and 32-bit fuzzers' empty tensors: huge dimensions beside a
// zero. Every strides operation returns at once, without overflow.
TEST(QTensorStrides, HugeEmptyTensors) {
  const QTensor x = make({1, kBig, 0, kBig, kBig});
  EXPECT_EQ(x.numel(), 0);
  EXPECT_EQ(x.strides(), (Strides{INT64_MAX, kBig * kBig, kBig * kBig, kBig, 1}));
  QTensor y, v;
  ASSERT_TRUE(as_memory_format(x, MemoryFormat::kChannelsLast, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{0, 1, INT64_MAX, kBig * kBig, kBig}));
  ASSERT_TRUE(view_as(y, {0, kBig, kBig, kBig, kBig}, -1, &v).ok());
  EXPECT_EQ(v.strides(), (Strides{INT64_MAX, INT64_MAX, kBig * kBig, kBig, 1}));
  EXPECT_EQ(strides_like(y, {kBig, 0, kBig, kBig, kBig}), (Strides{INT64_MAX, INT64_MAX, kBig * kBig, kBig, 1}));
}
