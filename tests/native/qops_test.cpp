// Quantized element-wise ops (qwasm/qelementwise.h) and the TensorIterator
// order they follow (qwasm/binary_iteration.h): hand-checked integers (the
// expected values are torch 2.15's, fbgemm, one thread), output strides,
// every error, empty and huge-but-empty tensors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "quint8_test_util.h"
#include "qwasm/binary_iteration.h"
#include "qwasm/qelementwise.h"
#include "qwasm/qtensor.h"
#include "qwasm/thread_pool.h"
#include "test_util.h"

using namespace qwasm;
using qwasm_test::as_channels_last;
using qwasm_test::expect_error;
using qwasm_test::ints;
using qwasm_test::q8;

namespace {

constexpr int64_t kBig = (int64_t{1} << 31) - 1;

// A quint8 tensor of `shape` filled with v.
QTensor filled(const Shape& shape, uint8_t v, double scale, double zp) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return q8(std::vector<uint8_t>(static_cast<size_t>(n), v), shape, scale, zp);
}

// An empty quint8 tensor (any dimensions, one of them 0).
QTensor empty(const Shape& shape) { return q8({}, shape, 0.5, 0); }

}  // namespace

// ---------------------------------------------------------------------------
// broadcast_shapes and plan_binary

TEST(BroadcastShapes, Broadcasts) {
  Shape out;
  ASSERT_TRUE(broadcast_shapes({2, 1, 3}, {4, 1}, &out).ok());
  EXPECT_EQ(out, (Shape{2, 4, 3}));
  ASSERT_TRUE(broadcast_shapes({}, {3}, &out).ok());
  EXPECT_EQ(out, (Shape{3}));
  ASSERT_TRUE(broadcast_shapes({}, {}, &out).ok());
  EXPECT_EQ(out, (Shape{}));
  ASSERT_TRUE(broadcast_shapes({0}, {1}, &out).ok());  // 1 broadcasts to 0
  EXPECT_EQ(out, (Shape{0}));
}

TEST(BroadcastShapes, MismatchNamesTheDimension) {
  Shape out;
  expect_error(broadcast_shapes({2, 3}, {4}, &out), StatusCode::kRangeError,
               "shapes do not broadcast: dimension 1 is 3 in a and 4 in b");
  expect_error(broadcast_shapes({0}, {2}, &out), StatusCode::kRangeError, "dimension 0 is 0 in a and 2 in b");
  expect_error(broadcast_shapes({kBig, 5}, {kBig - 1, 5}, &out), StatusCode::kRangeError,
               "dimension 0 is 2147483647 in a and 2147483646 in b");
}

TEST(PlanBinary, SameShapeContiguousIsOneVectorRow) {
  BinaryIteration it;
  ASSERT_TRUE(
      plan_binary(filled({2, 3, 4}, 1, 1, 0), filled({2, 3, 4}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(it.out_strides, (Strides{12, 4, 1}));
  EXPECT_EQ(it.order, (std::vector<size_t>{2, 1, 0}));
  EXPECT_EQ(it.row, 24);  // everything coalesces
  EXPECT_TRUE(it.vectorizable);
}

TEST(PlanBinary, BroadcastRowsAndVectorPaths) {
  BinaryIteration it;
  // b [3] broadcast over a [2, 3]: rows of 3, every operand's inner stride 1.
  ASSERT_TRUE(plan_binary(filled({2, 3}, 1, 1, 0), filled({3}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.row, 3);
  EXPECT_TRUE(it.vectorizable);
  // b [2, 1]: a broadcast scalar per row (inner stride 0): still vector steps.
  ASSERT_TRUE(plan_binary(filled({2, 3}, 1, 1, 0), filled({2, 1}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.row, 3);
  EXPECT_TRUE(it.vectorizable);
  // A channels-last a and a contiguous b of the same shape: the output
  // follows a (channels-last), b's inner stride is 20: scalar rows of C = 3.
  const QTensor a = as_channels_last(filled({2, 3, 4, 5}, 1, 1, 0));
  ASSERT_TRUE(plan_binary(a, filled({2, 3, 4, 5}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.out_strides, (Strides{60, 1, 15, 3}));
  EXPECT_EQ(it.order, (std::vector<size_t>{1, 3, 2, 0}));
  EXPECT_EQ(it.row, 3);
  EXPECT_FALSE(it.vectorizable);
  // A rank-0 pair: one element, one row.
  ASSERT_TRUE(plan_binary(filled({}, 1, 1, 0), filled({}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.row, 1);
  EXPECT_EQ(it.out_strides, (Strides{}));
}

// Output strides as torch 2.15's quantized::add and quantized::mul give them.
TEST(PlanBinary, OutputStridesMatchPyTorch) {
  BinaryIteration add, mul;
  auto plan = [&](const QTensor& a, const QTensor& b) {
    ASSERT_TRUE(plan_binary(a, b, BinaryOutput::kFirstInputShape, &add).ok());
    ASSERT_TRUE(plan_binary(a, b, BinaryOutput::kBroadcastShape, &mul).ok());
  };
  plan(filled({2, 1, 3}, 1, 1, 0), filled({2, 4, 3}, 1, 1, 0));  // a resized by add
  EXPECT_EQ(add.out_strides, (Strides{12, 3, 1}));
  EXPECT_EQ(mul.out_strides, (Strides{12, 3, 1}));
  plan(filled({1, 3, 1, 2}, 1, 1, 0), filled({2, 3, 4, 2}, 1, 1, 0));
  EXPECT_EQ(add.out_strides, (Strides{24, 8, 2, 1}));
  plan(as_channels_last(filled({2, 3, 4, 5}, 1, 1, 0)), filled({1, 3, 1, 1}, 1, 1, 0));
  EXPECT_EQ(add.out_strides, (Strides{60, 1, 15, 3}));
  EXPECT_EQ(mul.out_strides, (Strides{60, 1, 15, 3}));
  plan(filled({3, 1}, 1, 1, 0), filled({1, 4}, 1, 1, 0));
  EXPECT_EQ(add.out_strides, (Strides{4, 1}));
  EXPECT_EQ(mul.out_strides, (Strides{4, 1}));
  plan(filled({1, 4}, 1, 1, 0), filled({3, 1}, 1, 1, 0));
  EXPECT_EQ(add.out_strides, (Strides{4, 1}));
  // Empty broadcasts: torch gives (3, 1) for [1,3] + [0,1], and (1, 1) for
  // [3,1] + [1,0] (a resized output whose order is the reversed dimensions is
  // contiguous, sizes clamped at 1).
  plan(filled({1, 3}, 1, 1, 0), empty({0, 1}));
  EXPECT_EQ(add.shape, (Shape{0, 3}));
  EXPECT_EQ(add.out_strides, (Strides{3, 1}));
  plan(filled({3, 1}, 1, 1, 0), empty({1, 0}));
  EXPECT_EQ(add.shape, (Shape{3, 0}));
  EXPECT_EQ(add.out_strides, (Strides{1, 1}));
  EXPECT_EQ(mul.out_strides, (Strides{1, 1}));
}

// storage_index (the table path's tail) names the element the walk visits at
// each position, for every layout pair of one shape.
TEST(PlanBinary, StorageIndexFollowsTheWalk) {
  for (const Shape& shape : {Shape{2, 3, 4, 5}, Shape{1, 70, 2, 3}, Shape{3, 1, 5, 2}}) {
    const QTensor c = filled(shape, 1, 0.5, 0);
    const QTensor l = as_channels_last(c);
    for (const QTensor* a : {&c, &l})
      for (const QTensor* b : {&c, &l}) {
        BinaryIteration it;
        ASSERT_TRUE(plan_binary(*a, *b, BinaryOutput::kFirstInputShape, &it).ok());
        const Strides strides = contiguous_strides(it.shape);
        int64_t pos = 0;
        for_each_binary(it, a->shape(), b->shape(), [&](int64_t o, int64_t, int64_t, bool) {
          EXPECT_EQ(storage_index(it, strides, pos), o) << "position " << pos;
          ++pos;
        });
        EXPECT_EQ(pos, c.numel());
      }
  }
}

TEST(PlanBinary, HugeEmptyShapesDoNotOverflow) {
  BinaryIteration it;
  const QTensor a = empty({kBig, kBig, kBig, 0});
  ASSERT_TRUE(plan_binary(a, filled({1}, 1, 1, 0), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.shape, (Shape{kBig, kBig, kBig, 0}));
  // b widens a [1, 1, 1, 0]: the resized output is contiguous.
  ASSERT_TRUE(plan_binary(empty({1, 1, 1, 0}), empty({kBig, kBig, kBig, 0}), BinaryOutput::kFirstInputShape, &it).ok());
  EXPECT_EQ(it.shape, (Shape{kBig, kBig, kBig, 0}));
  EXPECT_EQ(it.out_strides, (Strides{kBig * kBig, kBig, 1, 1}));
  // mul's output has the broadcast shape from the start: its strides
  // saturate past int64.
  ASSERT_TRUE(
      plan_binary(filled({1, 1, 1, 1}, 1, 1, 0), empty({0, kBig, kBig, kBig}), BinaryOutput::kBroadcastShape, &it)
          .ok());
  EXPECT_EQ(it.out_strides, (Strides{INT64_MAX, kBig * kBig, kBig, 1}));
  int calls = 0;
  for_each_binary(it, {1, 1, 1, 1}, {0, kBig, kBig, kBig}, [&](int64_t, int64_t, int64_t, bool) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// ---------------------------------------------------------------------------
// qadd / qmul

TEST(QAdd, SmallValuesRoundHalfToEven) {
  // 0.5 + 0.5, 1 + 0.5, 1.5 + 1 at scale 1: 1, 1.5 -> 2, 2.5 -> 2.
  QTensor y;
  ASSERT_TRUE(qadd(q8({1, 2, 3}, {3}, 0.5, 0), q8({1, 1, 2}, {3}, 0.5, 0), 1.0, 0, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 2}));
  EXPECT_EQ(y.q_scale(), 1.0);
  EXPECT_EQ(y.q_zero_point(), 0);
}

TEST(QAdd, BroadcastAndRelu) {
  const QTensor a = q8({3, 5, 7, 9, 0, 1}, {2, 3}, 0.5, 1), b = q8({2, 4, 6}, {3}, 0.5, 0);
  QTensor y;
  ASSERT_TRUE(qadd(a, b, 0.25, 100, false, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{108, 116, 124, 120, 106, 112}));
  ASSERT_TRUE(qadd(a, b, 0.25, 100, true, &y).ok());  // every sum is >= 0 here
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{108, 116, 124, 120, 106, 112}));
  // Negative sums: relu clamps them to the zero point.
  ASSERT_TRUE(qadd(q8({0, 10}, {2}, 1, 5), q8({0, 0}, {2}, 1, 0), 1, 50, true, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{50, 55}));
  ASSERT_TRUE(qadd(q8({0, 10}, {2}, 1, 5), q8({0, 0}, {2}, 1, 0), 1, 50, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{45, 55}));
}

// Operands of one shape and at least 2^17 elements take the table of all
// 65536 byte pairs, looked up 8 elements at a time; smaller ones compute each
// element. [3, 43691] random bytes coalesce into one row of 131,073: the
// first 131,072 in vector arithmetic, the last in scalar. Against the same
// bytes added in pieces below 2^17 that keep that split (two rows of 65,536,
// all vector steps, and one element, scalar), at one thread and at three with
// fine-grained tasks (ranges that start and end anywhere: the lookup's tails).
TEST(QAdd, TheTableOfLargeOperandsGivesEachElementsBytes) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  const int64_t rows = 3, row = 43691, n = rows * row;
  std::vector<uint8_t> xa(static_cast<size_t>(n)), xb(xa.size());
  for (auto& v : xa) v = static_cast<uint8_t>(rng() % 256);
  for (auto& v : xb) v = static_cast<uint8_t>(rng() % 256);
  const double sa = 0.05, za = 189, sb = 0.1, zb = 160, so = 0.1, zo = 64;
  std::vector<uint8_t> want;
  for (const std::pair<int64_t, int64_t> range :
       {std::pair<int64_t, int64_t>{0, 65536}, {65536, 131072}, {131072, n}}) {
    const int64_t begin = range.first, end = range.second;
    const auto part = [&](const std::vector<uint8_t>& v) {
      return std::vector<uint8_t>(v.begin() + begin, v.begin() + end);
    };
    QTensor y;
    ASSERT_TRUE(qadd(q8(part(xa), {end - begin}, sa, za), q8(part(xb), {end - begin}, sb, zb), so, zo, true, &y).ok());
    const std::vector<uint8_t> got = ints(y);
    want.insert(want.end(), got.begin(), got.end());
  }
  for (const size_t threads : {size_t{1}, size_t{3}}) {
    if (threads > max_threads()) continue;
    ASSERT_TRUE(set_num_threads(threads).ok());
    qwasm::testing::set_fine_grained_tasks(threads > 1);
    QTensor y;
    ASSERT_TRUE(qadd(q8(xa, {rows, row}, sa, za), q8(xb, {rows, row}, sb, zb), so, zo, true, &y).ok());
    qwasm::testing::set_fine_grained_tasks(false);
    EXPECT_EQ(ints(y), want) << threads << " threads, seed " << seed;
  }
  ASSERT_TRUE(set_num_threads(max_threads()).ok());
  EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));
}

// PyTorch's loop takes each row 64 elements at a time in vector arithmetic
// (a fused dequantize) and the rest in scalar arithmetic. For these qparams
// the two give 44 and 43 (torch 2.15).
TEST(QAdd, VectorAndScalarPathsRoundDifferently) {
  const double sa = 0.05, za = 189, sb = 0.1, zb = 160, so = 0.1, zo = 64;
  QTensor y;
  ASSERT_TRUE(qadd(filled({65}, 16, sa, za), filled({65}, 226, sb, zb), so, zo, false, &y).ok());
  std::vector<uint8_t> want(65, 44);
  want[64] = 43;
  EXPECT_EQ(ints(y), want);
  // A 63-element row has no vector step.
  ASSERT_TRUE(qadd(filled({63}, 16, sa, za), filled({63}, 226, sb, zb), so, zo, false, &y).ok());
  EXPECT_EQ(ints(y), std::vector<uint8_t>(63, 43));
  // [2, 65] coalesces into one row of 130: elements 128 and 129 are scalar.
  ASSERT_TRUE(qadd(filled({2, 65}, 16, sa, za), filled({2, 65}, 226, sb, zb), so, zo, false, &y).ok());
  want.assign(130, 44);
  want[128] = want[129] = 43;
  EXPECT_EQ(ints(y), want);
  // [65, 1] + [1, 65]: rows of 65, a broadcast in the inner dimension.
  ASSERT_TRUE(qadd(filled({65, 1}, 16, sa, za), filled({1, 65}, 226, sb, zb), so, zo, false, &y).ok());
  ASSERT_EQ(y.shape(), (Shape{65, 65}));
  EXPECT_EQ(y.strides(), (Strides{65, 1}));
  for (int64_t r : {0, 64}) {
    EXPECT_EQ(y.data()[r * 65 + 0], 44);
    EXPECT_EQ(y.data()[r * 65 + 63], 44);
    EXPECT_EQ(y.data()[r * 65 + 64], 43);
  }
}

// Infinite dequantized values (scale 3e38): inf + -inf is NaN. torch 2.15
// gives 255 on the vector path (its clip is _mm256_min_ps, which returns the
// clip for NaN), or 0 when the zero point makes the int32 sum wrap, and 0 on
// the scalar path. Found by limits_fuzz: the scalar path cast NaN to uint8.
TEST(QAdd, NaNFromInfiniteScales) {
  const QTensor a = filled({65}, 255, 3e38, 0), b = filled({65}, 0, 3e38, 255);
  QTensor y;
  for (bool relu : {false, true}) {
    for (double zo : {0.0, 7.0}) {
      ASSERT_TRUE(qadd(a, b, 1.0, zo, relu, &y).ok());
      EXPECT_EQ(y.data()[0], 255);
      EXPECT_EQ(y.data()[63], 255);
      EXPECT_EQ(y.data()[64], 0);
    }
    ASSERT_TRUE(qadd(a, b, 1.0, 200, relu, &y).ok());
    EXPECT_EQ(ints(y), std::vector<uint8_t>(65, 0));
  }
  // cat's requantize: +Inf clips to 2^31 - 128, plus the zero point: 255.
  const QTensor x = q8({255, 0}, {2}, 3e38, 0);
  ASSERT_TRUE(qcat({&x, &x}, 0, 1.0, 5, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 5, 255, 5}));
}

TEST(QMul, BroadcastRequantizeAndRelu) {
  const QTensor a = q8({3, 5, 7, 9, 0, 1}, {2, 3}, 0.5, 1), b = q8({2, 4, 6}, {3}, 0.5, 0);
  QTensor y;
  // (a - 1) * b * (0.25 / 0.25) + 2.
  ASSERT_TRUE(qmul(a, b, 0.25, 2, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{6, 18, 38, 18, 0, 2}));
  ASSERT_TRUE(qmul(a, b, 0.25, 100, true, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{104, 116, 136, 116, 100, 100}));
  // Saturates at 255.
  ASSERT_TRUE(qmul(filled({2}, 255, 1, 0), filled({2}, 255, 1, 0), 1, 0, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 255}));
}

TEST(QMul, OutputIsTheBroadcastShapeInAsFormat) {
  QTensor y;
  ASSERT_TRUE(qmul(filled({1, 3}, 2, 1, 0), filled({4, 1}, 3, 1, 0), 1, 0, false, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{4, 3}));
  EXPECT_EQ(ints(y), std::vector<uint8_t>(12, 6));
  ASSERT_TRUE(qmul(as_channels_last(filled({2, 3, 4, 5}, 2, 1, 0)), filled({3, 1, 1}, 3, 1, 0), 1, 0, false, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{60, 1, 15, 3}));
  EXPECT_EQ(ints(y), std::vector<uint8_t>(120, 6));
}

TEST(QAddMul, InputErrors) {
  const QTensor a = filled({2}, 1, 1, 0);
  QTensor s8, pc, pc_empty, y;
  const int8_t v[2] = {1, 2};
  ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 2, {2}, 1, 0, DType::kQInt8, &s8).ok());
  const double scales[2] = {1, 1}, zps[2] = {0, 0};
  const float x[2] = {0, 0};
  ASSERT_TRUE(quantize_per_channel(x, {2}, scales, zps, 2, 0, false, DType::kQUInt8, kernels::Isa::kScalar, &pc).ok());
  // Per channel with no channels (no qparams at all), and with float zero
  // points past int32: refused before anything reads them.
  ASSERT_TRUE(
      quantize_per_channel(x, {0}, scales, zps, 0, 0, false, DType::kQUInt8, kernels::Isa::kScalar, &pc_empty).ok());
  QTensor pc_float;
  const double huge_zps[2] = {1e30, -1e30};
  ASSERT_TRUE(
      quantize_per_channel(x, {2}, scales, huge_zps, 2, 0, true, DType::kQUInt8, kernels::Isa::kScalar, &pc_float)
          .ok());
  for (auto op : {qadd, qmul}) {
    expect_error(op(s8, a, 1, 0, false, &y), StatusCode::kTypeError,
                 "a must be a quint8 per_tensor_affine tensor, got qint8 per_tensor_affine");
    expect_error(op(a, pc, 1, 0, false, &y), StatusCode::kTypeError,
                 "b must be a quint8 per_tensor_affine tensor, got quint8 per_channel_affine");
    expect_error(op(pc_empty, a, 1, 0, false, &y), StatusCode::kTypeError, "a must be a quint8 per_tensor_affine");
    expect_error(op(a, pc_float, 1, 0, false, &y), StatusCode::kTypeError,
                 "got quint8 per_channel_affine_float_qparams");
    expect_error(op(a, filled({3}, 1, 1, 0), 1, 0, false, &y), StatusCode::kRangeError,
                 "shapes do not broadcast: dimension 0 is 2 in a and 3 in b");
  }
}

// The output's qparams are checked before they are converted: a zero point
// of 1e300 went through static_cast<int32_t> first (UBSan).
TEST(QAddMul, OutputQParamErrors) {
  const QTensor a = filled({2}, 1, 1, 0);
  QTensor y;
  for (auto op : {qadd, qmul}) {
    expect_error(op(a, a, 0, 0, false, &y), StatusCode::kRangeError, "scale must be a finite number > 0, got 0");
    expect_error(op(a, a, NAN, 0, false, &y), StatusCode::kRangeError, "scale must be a finite number > 0");
    expect_error(op(a, a, 1e300, 0, false, &y), StatusCode::kRangeError, "not representable as a positive float32");
    expect_error(op(a, a, 1, 256, false, &y), StatusCode::kRangeError, "zeroPoint 256 is above upper bound 255");
    expect_error(op(a, a, 1, -1, false, &y), StatusCode::kRangeError, "zeroPoint -1 is below lower bound 0");
    expect_error(op(a, a, 1, 1e300, false, &y), StatusCode::kRangeError, "is above upper bound 255 of quint8");
    expect_error(op(a, a, 1, -1e300, false, &y), StatusCode::kRangeError, "is below lower bound 0 of quint8");
    expect_error(op(a, a, 1, NAN, false, &y), StatusCode::kTypeError, "zeroPoint must be an integer");
    expect_error(op(a, a, 1, 0.5, false, &y), StatusCode::kTypeError, "zeroPoint must be an integer, got 0.5");
  }
}

TEST(QAddMul, EmptyAndHugeEmptyTensors) {
  QTensor y;
  ASSERT_TRUE(qadd(empty({0, 3}), filled({1, 3}, 1, 1, 0), 1, 0, false, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
  EXPECT_EQ(y.numel(), 0);
  ASSERT_TRUE(qmul(filled({3, 1}, 1, 1, 0), empty({1, 0}), 1, 0, false, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{3, 0}));
  // Every dimension 2^31 - 1 but one 0: nothing to walk, no product overflows.
  const QTensor huge = empty({kBig, kBig, kBig, 0});
  ASSERT_TRUE(qadd(huge, filled({1}, 1, 1, 0), 1, 0, false, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{kBig, kBig, kBig, 0}));
  ASSERT_TRUE(qmul(filled({1, 1, 1, 1}, 1, 1, 0), huge, 1, 0, true, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{kBig, kBig, kBig, 0}));
  ASSERT_TRUE(qadd(empty({1, 1, 1, 0}), empty({kBig, kBig, kBig, 0}), 1, 0, false, &y).ok());
  EXPECT_EQ(y.numel(), 0);
  // A broadcast whose output would be too large is refused before allocating.
  expect_error(qmul(filled({65536, 1}, 1, 1, 0), filled({1, 65536}, 1, 1, 0), 1, 0, false, &y), StatusCode::kRangeError,
               "tensor too large: 4294967296 elements");
}

// ---------------------------------------------------------------------------
// qadd_scalar / qmul_scalar

TEST(QAddScalar, ShiftsTheZeroPointWhenItStaysInRange) {
  QTensor y;
  const QTensor x = q8({0, 10, 20}, {3}, 0.5, 10);
  ASSERT_TRUE(qadd_scalar(x, 1.0, false, &y).ok());  // round(1 / 0.5) = 2: zero point 10 - 2
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0, 10, 20}));
  EXPECT_EQ(y.q_scale(), 0.5);
  EXPECT_EQ(y.q_zero_point(), 8);
  ASSERT_TRUE(qadd_scalar(x, 1.0, true, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{8, 10, 20}));
}

TEST(QAddScalar, RequantizesWhenTheZeroPointLeavesRange) {
  QTensor y;
  // zero point 0 - 2 < 0: scale (255 + 2) / 255 * 0.5, zero point 0.
  ASSERT_TRUE(qadd_scalar(q8({0, 10, 20, 255}, {4}, 0.5, 0), 1.0, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{2, 12, 22, 255}));
  EXPECT_DOUBLE_EQ(y.q_scale(), 257.0 / 255.0 * 0.5);
  EXPECT_EQ(y.q_zero_point(), 0);
  // Past 255 the other way: zero point 255.
  ASSERT_TRUE(qadd_scalar(q8({0, 255}, {2}, 1, 250), -10.0, false, &y).ok());
  EXPECT_EQ(y.q_zero_point(), 255);
  EXPECT_DOUBLE_EQ(y.q_scale(), 260.0 / 255.0);
}

// round(c / scale) is an int32 in PyTorch's kernel: 2^31 - 1 is taken (and
// the int32 sum wraps: torch 2.15 gives [255, 0, 0, 0]); 2^31 is refused.
// Found by reading: qwasm took up to 1e15 and overflowed int32 (UBSan).
TEST(QAddScalar, ScaledScalarMustFitInt32) {
  const QTensor x = q8({0, 4, 8, 255}, {4}, 0.25, 0);
  QTensor y;
  ASSERT_TRUE(qadd_scalar(x, 2147483647 * 0.25, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 0, 0, 0}));
  ASSERT_TRUE(qadd_scalar(x, -2147483648.0 * 0.25, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(y.q_zero_point(), 255);
  expect_error(
      qadd_scalar(x, 2147483648.0 * 0.25, false, &y), StatusCode::kRangeError,
      "the scalar 536870912 is too large for the scale: round(scalar / scale) = 2147483648 does not fit int32");
  expect_error(qadd_scalar(x, -2147483649.0 * 0.25, true, &y), StatusCode::kRangeError, "does not fit int32");
  expect_error(qadd_scalar(x, 1e300, false, &y), StatusCode::kRangeError, "is too large for the scale");
  expect_error(qadd_scalar(x, 1e14, false, &y), StatusCode::kRangeError, "is too large for the scale");
}

TEST(QMulScalar, ZeroPositiveNegative) {
  const QTensor x = q8({0, 10, 20}, {3}, 0.5, 10);
  QTensor y;
  ASSERT_TRUE(qmul_scalar(x, 0.0, false, &y).ok());  // all zeros, scale 1, zero point 0
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0, 0, 0}));
  EXPECT_EQ(y.q_scale(), 1.0);
  EXPECT_EQ(y.q_zero_point(), 0);
  ASSERT_TRUE(qmul_scalar(x, 2.0, false, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{0, 10, 20}));
  EXPECT_EQ(y.q_scale(), 1.0);
  EXPECT_EQ(y.q_zero_point(), 10);
  ASSERT_TRUE(qmul_scalar(x, 2.0, true, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{10, 10, 20}));
  ASSERT_TRUE(qmul_scalar(x, -1.0, false, &y).ok());  // mirrored: 255 - q, zero point 255 - 10
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 245, 235}));
  EXPECT_EQ(y.q_scale(), 0.5);
  EXPECT_EQ(y.q_zero_point(), 245);
  ASSERT_TRUE(qmul_scalar(x, -1.0, true, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{255, 245, 245}));
}

TEST(QScalarOps, Errors) {
  const QTensor x = q8({1, 2}, {2}, 0.5, 0);
  QTensor y, s8;
  const int8_t v[2] = {1, 2};
  ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 2, {2}, 1, 0, DType::kQInt8, &s8).ok());
  for (auto op : {qadd_scalar, qmul_scalar}) {
    expect_error(op(x, NAN, false, &y), StatusCode::kRangeError, "the scalar must be finite, got NaN");
    expect_error(op(x, INFINITY, false, &y), StatusCode::kRangeError, "the scalar must be finite");
    expect_error(op(s8, 1.0, false, &y), StatusCode::kTypeError,
                 "x must be a quint8 per_tensor_affine tensor, got qint8");
  }
  // A product scale beyond float32, or below its smallest value, is no scale.
  expect_error(qmul_scalar(q8({1}, {1}, 1e30, 0), 1e30, false, &y), StatusCode::kRangeError,
               "not representable as a positive float32");
  expect_error(qmul_scalar(q8({1}, {1}, 1e-30, 0), 1e-30, false, &y), StatusCode::kRangeError, "scale");
}

TEST(QScalarOps, KeepTheInputsFormat) {
  const QTensor x = as_channels_last(filled({1, 2, 2, 2}, 7, 1, 0));
  QTensor y;
  for (auto op : {qadd_scalar, qmul_scalar}) {
    ASSERT_TRUE(op(x, 3.0, false, &y).ok());
    EXPECT_EQ(y.strides(), (Strides{8, 1, 4, 2}));
  }
  ASSERT_TRUE(qadd_scalar(empty({kBig, kBig, 0}), 1.0, false, &y).ok());
  EXPECT_EQ(y.numel(), 0);
  ASSERT_TRUE(qmul_scalar(empty({kBig, kBig, 0}), -1.0, true, &y).ok());
  EXPECT_EQ(y.numel(), 0);
}

// ---------------------------------------------------------------------------
// qcat

TEST(QCat, SameQParamsCopyOtherwiseRequantize) {
  const QTensor a = q8({1, 2}, {1, 2}, 0.5, 0), b = q8({3, 4, 5}, {1, 3}, 0.5, 0);
  QTensor y;
  ASSERT_TRUE(qcat({&a, &b}, 1, 0.5, 0, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{1, 5}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 3, 4, 5}));
  // Scale 1, zero point 1: 0.5 -> 1 (half to even: 0 + 1), 1 -> 2, 1.5 -> 3, 2 -> 3, 2.5 -> 3.
  ASSERT_TRUE(qcat({&a, &b}, -1, 1.0, 1, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 3, 3, 3}));
  ASSERT_TRUE(qcat({&a, &a}, 0, 0.5, 0, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 1, 2}));
  ASSERT_TRUE(qcat({&b}, 0, 0.5, 0, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{3, 4, 5}));
}

TEST(QCat, MiddleDimension) {
  const QTensor a = q8({1, 2, 3, 4}, {2, 1, 2}, 1, 0), b = q8({5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 2}, 1, 0);
  QTensor y;
  ASSERT_TRUE(qcat({&a, &b}, 1, 1, 0, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12}));
}

// torch 2.15: channels-last inputs along dim 1 give a channels-last output;
// dim -3 (the same dimension, not spelled 1) takes the other kernel, whose
// output is contiguous.
TEST(QCat, ChannelsLastOutputStrides) {
  const QTensor a = as_channels_last(filled({1, 2, 3, 4}, 1, 0.5, 0));
  const QTensor b = as_channels_last(filled({1, 1, 3, 4}, 2, 0.5, 0));
  QTensor y;
  ASSERT_TRUE(qcat({&a, &b}, 1, 0.5, 0, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{36, 1, 12, 3}));
  EXPECT_EQ(y.shape(), (Shape{1, 3, 3, 4}));
  EXPECT_EQ(y.data()[0], 1);
  EXPECT_EQ(y.data()[2 * 12], 2);  // storage is row-major: channel 2 starts at 24
  ASSERT_TRUE(qcat({&a, &b}, -3, 0.5, 0, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{36, 12, 4, 1}));
}

TEST(QCat, Errors) {
  const QTensor a = q8({1, 2}, {1, 2}, 0.5, 0), r1 = q8({1}, {1}, 0.5, 0), scalar = q8({1}, {}, 0.5, 0);
  const QTensor wide = q8({1, 2, 3, 4}, {2, 2}, 0.5, 0);
  QTensor y, s8;
  const int8_t v[2] = {1, 2};
  ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 2, {1, 2}, 1, 0, DType::kQInt8, &s8).ok());
  expect_error(qcat({}, 0, 1, 0, &y), StatusCode::kRangeError, "cat needs at least one tensor");
  expect_error(qcat({&a, &s8}, 0, 1, 0, &y), StatusCode::kTypeError,
               "tensors[1] must be a quint8 per_tensor_affine tensor, got qint8");
  expect_error(qcat({&scalar}, 0, 1, 0, &y), StatusCode::kRangeError, "cat needs tensors of rank >= 1");
  expect_error(qcat({&a}, 2, 1, 0, &y), StatusCode::kRangeError, "dim 2 is out of range for rank 2");
  expect_error(qcat({&a}, -3, 1, 0, &y), StatusCode::kRangeError, "dim -3 is out of range for rank 2");
  expect_error(qcat({&a}, INT64_MIN, 1, 0, &y), StatusCode::kRangeError, "is out of range for rank 2");
  expect_error(qcat({&a, &r1}, 0, 1, 0, &y), StatusCode::kRangeError, "tensors[1] has rank 1, tensors[0] has 2");
  expect_error(qcat({&a, &wide}, 1, 1, 0, &y), StatusCode::kRangeError,
               "tensors[1] has size 2 in dimension 0, tensors[0] has 1");
  expect_error(qcat({&a, &a}, 0, 0, 0, &y), StatusCode::kRangeError, "scale must be a finite number > 0");
  expect_error(qcat({&a, &a}, 0, 1, 300, &y), StatusCode::kRangeError, "zeroPoint 300 is above upper bound 255");
  // Each input at the dimension limit: the sum is refused.
  const QTensor e = empty({0, kBig});
  expect_error(qcat({&e, &e}, 1, 1, 0, &y), StatusCode::kRangeError, "the concatenated dimension is too large");
}

TEST(QCat, EmptyAndHugeEmpty) {
  QTensor y;
  const QTensor a = q8({1, 2}, {1, 2}, 0.5, 0), e = empty({1, 0});
  ASSERT_TRUE(qcat({&a, &e, &a}, 1, 0.5, 0, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{1, 2, 1, 2}));
  // Dimensions of 2^31 - 1 beside a 0: the outer and inner products would
  // pass int64; nothing is copied.
  const QTensor h = empty({kBig, kBig, kBig, 0});
  ASSERT_TRUE(qcat({&h, &h}, 3, 0.5, 0, &y).ok());
  EXPECT_EQ(y.shape(), (Shape{kBig, kBig, kBig, 0}));
  ASSERT_TRUE(qcat({&h, &h}, -1, 0.5, 0, &y).ok());
  EXPECT_EQ(y.numel(), 0);
  expect_error(qcat({&h, &h}, 0, 0.5, 0, &y), StatusCode::kRangeError, "the concatenated dimension is too large");
}

// ---------------------------------------------------------------------------
// qclamp

TEST(QClamp, ReluRelu6Hardtanh) {
  const QTensor x = q8({5, 10, 200}, {3}, 0.5, 10);
  QTensor y;
  ASSERT_TRUE(qclamp(x, true, 0, false, 0, &y).ok());  // relu: 0 -> 10
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{10, 10, 200}));
  EXPECT_EQ(y.q_scale(), 0.5);
  EXPECT_EQ(y.q_zero_point(), 10);
  ASSERT_TRUE(qclamp(x, true, 0, true, 6, &y).ok());  // relu6: 6 -> 22
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{10, 10, 22}));
  ASSERT_TRUE(qclamp(x, true, -1, true, 1, &y).ok());  // hardtanh: -1 -> 8, 1 -> 12
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{8, 10, 12}));
  ASSERT_TRUE(qclamp(x, false, 0, true, 1, &y).ok());  // upper bound only
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 10, 12}));
  // Bounds past the range quantize to 0 and 255; lo > hi gives hi.
  ASSERT_TRUE(qclamp(x, true, -1e300, true, 1e300, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 10, 200}));
  ASSERT_TRUE(qclamp(x, true, -INFINITY, true, INFINITY, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 10, 200}));
  ASSERT_TRUE(qclamp(x, true, 1, true, -1, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{8, 8, 8}));
}

TEST(QClamp, ErrorsAndEmpty) {
  const QTensor x = q8({5}, {1}, 0.5, 10);
  QTensor y, pc;
  expect_error(qclamp(x, true, NAN, false, 0, &y), StatusCode::kRangeError, "clamp bounds must not be NaN");
  expect_error(qclamp(x, false, 0, true, NAN, &y), StatusCode::kRangeError, "clamp bounds must not be NaN");
  // A NaN bound that is not used is no error.
  ASSERT_TRUE(qclamp(x, false, NAN, false, NAN, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5}));
  const double scales[2] = {1, 1}, zps[2] = {0, 0};
  const float v[2] = {0, 0};
  ASSERT_TRUE(quantize_per_channel(v, {2}, scales, zps, 2, 0, false, DType::kQUInt8, kernels::Isa::kScalar, &pc).ok());
  expect_error(qclamp(pc, true, 0, false, 0, &y), StatusCode::kTypeError,
               "x must be a quint8 per_tensor_affine tensor, got quint8 per_channel_affine");
  ASSERT_TRUE(qclamp(empty({kBig, kBig, kBig, 0}), true, 0, true, 6, &y).ok());
  EXPECT_EQ(y.numel(), 0);
  const QTensor cl = as_channels_last(filled({1, 2, 2, 2}, 7, 1, 0));
  ASSERT_TRUE(qclamp(cl, true, 0, false, 0, &y).ok());
  EXPECT_EQ(y.strides(), (Strides{8, 1, 4, 2}));
}

// A scale whose reciprocal is infinite (1e-45 is a float32 denormal): bound
// 0 quantizes through 0 * inf = NaN, which PyTorch's x86 conversion turns into
// 0 (torch 2.15: hardtanh(x, 0, 6) and relu6 leave [5, 10, 200] as it is).
// That cast was undefined behaviour here. (torch.relu, which clamps at the
// zero point without quantizing 0, gives [10, 10, 200]: qclamp cannot tell
// relu from clamp(min=0).)
TEST(QClamp, BoundsWithAnInfiniteReciprocal) {
  const QTensor x = q8({5, 10, 200}, {3}, 1e-45, 10);
  QTensor y;
  ASSERT_TRUE(qclamp(x, true, 0, true, 6, &y).ok());
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 10, 200}));
  ASSERT_TRUE(qclamp(x, true, -1, true, 1, &y).ok());  // -inf -> 0, +inf -> 255
  EXPECT_EQ(ints(y), (std::vector<uint8_t>{5, 10, 200}));
}

// add (the 64 K-pair table path; channels-last operands make rows of 70
// channels whose last 6 take the scalar table) and cat (re-quantized slices,
// and copies when the qparams agree) split their work among the threads: 1,
// 2, 3 and 4 threads (fine-grained tasks) give the bytes 1 thread gives.
TEST(QOpsThreads, AddAndCatAtEveryThreadCount) {
  const uint64_t seed = qwasm_test::test_seed();
  const Shape shape{4, 70, 33, 17};
  std::vector<uint8_t> va(4 * 70 * 33 * 17), vb(va.size());
  for (size_t i = 0; i < va.size(); ++i) {
    va[i] = static_cast<uint8_t>((i * 2654435761u + seed) >> 9);
    vb[i] = static_cast<uint8_t>((i * 40503u + seed * 7) >> 5);
  }
  const QTensor a = q8(va, shape, 0.05, 120), b = q8(vb, shape, 0.07, 99);
  const QTensor a_cl = as_channels_last(a), b_cl = as_channels_last(b);
  std::vector<std::vector<uint8_t>> first;
  for (size_t threads : qwasm_test::thread_counts()) {
    ASSERT_TRUE(set_num_threads(threads).ok());
    QTensor sum, sum_cl, cat, cat_copy;
    ASSERT_TRUE(qadd(a, b, 0.1, 64, false, &sum).ok());
    ASSERT_TRUE(qadd(a_cl, b_cl, 0.1, 64, true, &sum_cl).ok());
    ASSERT_TRUE(qcat({&a, &b}, 1, 0.06, 110, &cat).ok());
    ASSERT_TRUE(qcat({&a, &a}, 1, 0.05, 120, &cat_copy).ok());
    const std::vector<std::vector<uint8_t>> got = {ints(sum), ints(sum_cl), ints(cat), ints(cat_copy)};
    if (first.empty()) first = got;
    EXPECT_EQ(got, first) << "threads " << threads << " seed " << seed;
  }
}
