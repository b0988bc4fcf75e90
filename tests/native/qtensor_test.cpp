// QTensor construction: every bad argument gives the right Status class and a
// message that names what was expected and what came.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "qwasm/build_info.h"
#include "qwasm/qtensor.h"

using namespace qwasm;
using kernels::Isa;

namespace {
const float kX[24] = {0};

Status per_tensor(double scale, double zp, DType dtype = DType::kQUInt8, Shape shape = {2, 3, 4}) {
  QTensor q;
  return quantize_per_tensor(kX, shape, scale, zp, dtype, Isa::kScalar, &q);
}

Status per_channel(std::vector<double> scales, std::vector<double> zps, int64_t axis, bool float_zp = false,
                   DType dtype = DType::kQUInt8) {
  QTensor q;
  return quantize_per_channel(kX, {2, 3, 4}, scales.data(), zps.data(), scales.size(), axis, float_zp, dtype,
                              Isa::kScalar, &q);
}
}  // namespace

TEST(QTensorErrors, ScaleMustBePositiveAndFinite) {
  for (double bad : {0.0, -1.0, double(NAN), double(INFINITY), 1e-300}) {
    const Status s = per_tensor(bad, 0);
    EXPECT_EQ(s.code, StatusCode::kRangeError) << bad;
  }
  EXPECT_NE(per_tensor(-1.0, 0).message.find("got -1"), std::string::npos);
}

TEST(QTensorErrors, ZeroPointInsideDtypeRange) {
  const Status s = per_tensor(1.0, 256);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("zeroPoint 256 is above upper bound 255 of quint8"), std::string::npos) << s.message;
  EXPECT_EQ(per_tensor(1.0, -129, DType::kQInt8).code, StatusCode::kRangeError);
  EXPECT_EQ(per_tensor(1.0, 0.5).code, StatusCode::kTypeError);  // not an integer: a type error, as in PyTorch
  EXPECT_TRUE(per_tensor(1.0, -128, DType::kQInt8).ok());
  EXPECT_TRUE(per_tensor(1.0, 15, DType::kQUInt4x2).ok());
  EXPECT_EQ(per_tensor(1.0, 16, DType::kQUInt4x2).code, StatusCode::kRangeError);
}

TEST(QTensorErrors, AxisAndLengths) {
  EXPECT_TRUE(per_channel({1, 1, 1}, {0, 0, 0}, 1).ok());
  Status s = per_channel({1, 1}, {0, 0}, -1);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("axis -1 is out of range for a tensor of rank 3 (expected 0..2)"), std::string::npos);
  EXPECT_EQ(per_channel({1, 1}, {0, 0}, 3).code, StatusCode::kRangeError);
  s = per_channel({1, 1}, {0, 0}, 1);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("expected 3 scales"), std::string::npos) << s.message;
}

TEST(QTensorErrors, FloatZeroPointMustBeAFiniteFloat32) {
  // Found by tests/fuzz/quantize_fuzz: 1e300 is a finite double but an infinite float.
  const Status s = per_channel({1, 1}, {0.5, 1e300}, 0, true);
  EXPECT_EQ(s.code, StatusCode::kRangeError);
  EXPECT_NE(s.message.find("zeroPoints[1] 1e+300 is not representable as a finite float32"), std::string::npos)
      << s.message;
}

TEST(QTensorErrors, SchemeRestrictions) {
  // Integer zero points select per_channel_affine, which quint4x2 lacks: a type
  // error, as quantizePerChannel reports it.
  EXPECT_EQ(per_channel({1, 1}, {0, 0}, 0, false, DType::kQUInt4x2).code, StatusCode::kTypeError);
  EXPECT_TRUE(per_channel({1, 1}, {0.5, 1.5}, 0, true, DType::kQUInt4x2).ok());
}

TEST(QTensorErrors, ShapeMustBeNonNegativeAndBounded) {
  EXPECT_EQ(per_tensor(1.0, 0, DType::kQUInt8, {2, -1}).code, StatusCode::kRangeError);
  EXPECT_EQ(per_tensor(1.0, 0, DType::kQUInt8, {1 << 20, 1 << 20}).code, StatusCode::kRangeError);
  EXPECT_TRUE(per_tensor(1.0, 0, DType::kQUInt8, {0, 5}).ok());
  EXPECT_TRUE(per_tensor(1.0, 0, DType::kQUInt8, {}).ok());  // a scalar
}

TEST(QTensor, FromIntegersChecksByteCount) {
  const uint8_t bytes[6] = {1, 2, 3, 4, 5, 6};
  QTensor q;
  EXPECT_EQ(make_per_tensor_quantized(bytes, 5, {2, 3}, 0.5, 1, DType::kQUInt8, &q).code, StatusCode::kRangeError);
  ASSERT_TRUE(make_per_tensor_quantized(bytes, 6, {2, 3}, 0.5, 1, DType::kQUInt8, &q).ok());
  float y[6];
  ASSERT_TRUE(dequantize(q, Isa::kScalar, y).ok());
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[5], 2.5f);
  // quint4x2: 3 elements need 2 bytes.
  EXPECT_TRUE(make_per_tensor_quantized(bytes, 2, {3}, 0.5, 1, DType::kQUInt4x2, &q).ok());
  EXPECT_EQ(q.shape(), (Shape{3}));
}

TEST(Build, TestBuildsRunWithAssertsOn) {
  // The native and wasm test binaries compile the core without NDEBUG, so its
  // precondition asserts run under every test, ASan and the fuzzers.
  EXPECT_TRUE(asserts_enabled());
}

// An empty tensor whose other dimensions are huge: nothing to walk, so every
// call returns at once (the 32-bit fuzzer found quantize_per_channel looping
// over outer x channels = 2^34 empty rows, and the layout products can pass
// int64 before the zero dimension is reached).
TEST(QTensor, EmptyTensorsWithHugeDimensionsReturnAtOnce) {
  const int64_t big = 2147483647;
  const Shape shape = {big, big, big, big, 8, 0};
  const std::vector<double> scales(8, 0.5), zps(8, 1);
  for (bool float_zp : {false, true}) {
    QTensor q;
    ASSERT_TRUE(
        quantize_per_channel(kX, shape, scales.data(), zps.data(), 8, 4, float_zp, DType::kQUInt8, Isa::kScalar, &q)
            .ok());
    EXPECT_EQ(q.numel(), 0);
    std::vector<float> y(1);
    EXPECT_TRUE(dequantize(q, Isa::kScalar, y.data()).ok());
    QTensor v;
    EXPECT_TRUE(view_as(q, {8, 0, big}, 0, &v).ok());
    EXPECT_EQ(view_as(q, {7, 0}, 0, &v).code, StatusCode::kRangeError);
  }
}

// Buffers of 4096 bytes and more start on a 64-byte cache line whatever the
// heap's state (the threads of a parallel loop split them at multiples of 64
// bytes); smaller ones come from malloc as they are. Both free with free().
TEST(BufferAlignment, LargeBuffersStartOnACacheLine) {
  std::vector<qwasm::Buffer<uint8_t>> held;
  for (int64_t bytes : {4096, 4097, 5000, 65536, 1 << 20, 3136 * 144}) {
    for (int64_t skew : {1, 17, 40}) {  // small allocations in between move malloc's next address
      qwasm::Buffer<uint8_t> small;
      ASSERT_TRUE(small.allocate(qwasm::CheckedSize(skew), "a small buffer").ok());
      held.push_back(std::move(small));
      qwasm::Buffer<uint8_t> big;
      ASSERT_TRUE(big.allocate(qwasm::CheckedSize(bytes), "a large buffer").ok());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % 64, 0u) << bytes << " bytes after " << skew;
      held.push_back(std::move(big));
    }
  }
}
