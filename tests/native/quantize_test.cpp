// Quantize / dequantize through the tensor ops: the arithmetic of
// docs/numerics.md on hand-checked values, the dispatch over every dtype and
// scheme equal to the naive reference over sweeps, and dequantize_range
// resumed at every kind of chunk boundary. (Each kernel alone: kernel_tester_quantize_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/isa.h"
#include "qwasm/qtensor.h"
#include "qwasm/thread_pool.h"
#include "reference/quantize_ref.h"
#include "test_util.h"

using namespace qwasm;
using kernels::Isa;

namespace {

int32_t quantize_one(float x, double scale, int32_t zp, DType dtype) {
  QTensor q;
  EXPECT_TRUE(quantize_per_tensor(&x, {1}, scale, zp, dtype, Isa::kScalar, &q).ok());
  switch (dtype) {
    case DType::kQInt8:
      return static_cast<int8_t>(q.data()[0]);
    case DType::kQInt32: {
      int32_t v;
      std::memcpy(&v, q.data(), 4);
      return v;
    }
    default:
      return q.data()[0];
  }
}

}  // namespace

TEST(Quantize, FbgemmDiscriminatingVectorMultipliesByReciprocal) {
  // x / scale = 127.499992 would round to 127; x * (1 / scale) = 127.5 rounds to 128.
  EXPECT_EQ(quantize_one(0.273939937f, 0.00214854861f, 0, DType::kQUInt8), 128);
}

TEST(Quantize, TiesRoundHalfToEvenBeforeZeroPoint) {
  EXPECT_EQ(quantize_one(0.5f, 1.0, 0, DType::kQUInt8), 0);
  EXPECT_EQ(quantize_one(1.5f, 1.0, 0, DType::kQUInt8), 2);
  EXPECT_EQ(quantize_one(2.5f, 1.0, 0, DType::kQUInt8), 2);
  EXPECT_EQ(quantize_one(2.5f, 1.0, 1, DType::kQUInt8), 3);  // round(2.5) + 1, not round(3.5)
  EXPECT_EQ(quantize_one(-2.5f, 1.0, 0, DType::kQInt8), -2);
}

TEST(Quantize, ClampsToDtypeRange) {
  EXPECT_EQ(quantize_one(1e9f, 0.1, 3, DType::kQUInt8), 255);
  EXPECT_EQ(quantize_one(-1e9f, 0.1, 3, DType::kQUInt8), 0);
  EXPECT_EQ(quantize_one(1e9f, 0.1, 0, DType::kQInt8), 127);
  EXPECT_EQ(quantize_one(-1e9f, 0.1, 0, DType::kQInt8), -128);
  EXPECT_EQ(quantize_one(1e30f, 1.0, 0, DType::kQInt32), INT32_MAX);
  EXPECT_EQ(quantize_one(-1e30f, 1.0, 0, DType::kQInt32), INT32_MIN);
  EXPECT_EQ(quantize_one(100.f, 1.0, 0, DType::kQUInt4x2), 15);
}

TEST(Quantize, NonFiniteInputsHaveDefinedResults) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(quantize_one(nan, 0.5, 7, DType::kQUInt8), 7);
  EXPECT_EQ(quantize_one(inf, 0.5, 7, DType::kQUInt8), 255);
  EXPECT_EQ(quantize_one(-inf, 0.5, 7, DType::kQUInt8), 0);
  EXPECT_EQ(quantize_one(nan, 0.5, -3, DType::kQInt8), -3);
  EXPECT_EQ(quantize_one(inf, 0.5, 0, DType::kQInt32), INT32_MAX);
  EXPECT_EQ(quantize_one(-inf, 0.5, 0, DType::kQInt32), INT32_MIN);
}

TEST(Quantize, Quint4x2PacksLowNibbleFirst) {
  const float x[3] = {1.f, 2.f, 15.f};
  QTensor q;
  ASSERT_TRUE(quantize_per_tensor(x, {3}, 1.0, 0, DType::kQUInt4x2, Isa::kScalar, &q).ok());
  ASSERT_EQ(q.nbytes(), 2u);
  EXPECT_EQ(q.data()[0], 0x21);
  EXPECT_EQ(q.data()[1], 0x0F);
}

TEST(Dequantize, PerChannelMultipliesInDouble) {
  const double scales[2] = {0.1, 0.3};
  const double zps[2] = {0, 5};
  const float x[4] = {1.0f, -0.5f, 2.0f, 3.1f};  // shape [2, 2], axis 0
  QTensor q;
  ASSERT_TRUE(quantize_per_channel(x, {2, 2}, scales, zps, 2, 0, false, DType::kQInt8, Isa::kScalar, &q).ok());
  float y[4];
  ASSERT_TRUE(dequantize(q, Isa::kScalar, y).ok());
  const int8_t* v = reinterpret_cast<const int8_t*>(q.data());
  for (int i = 0; i < 4; ++i) {
    const int c = i / 2;
    const float expected = static_cast<float>(static_cast<double>(static_cast<float>(v[i]) - zps[c]) * scales[c]);
    EXPECT_EQ(y[i], expected) << "index " << i;
  }
}

// Every kernel of every ISA in this build, through the full tensor path, equals
// the naive reference for every dtype and scheme, on lengths that hit each
// remainder, with values at ties, saturation, zero and non-finite.
struct Case {
  DType dtype;
  QScheme scheme;
};

class KernelsMatchReference : public ::testing::TestWithParam<Case> {};

std::vector<float> sweep_values(size_t n, std::mt19937_64& g) {
  std::uniform_real_distribution<float> u(-300.f, 300.f);
  std::uniform_int_distribution<int> pick(0, 9);
  std::vector<float> x(n);
  for (float& v : x) {
    switch (pick(g)) {
      case 0:
        v = std::nearbyint(u(g)) + 0.5f;
        break;  // ties (scale 1 channels)
      case 1:
        v = 0.f;
        break;
      case 2:
        v = u(g) * 1e6f;
        break;
      case 3:
        v = std::numeric_limits<float>::quiet_NaN();
        break;
      case 4:
        v = (pick(g) % 2 ? 1 : -1) * std::numeric_limits<float>::infinity();
        break;
      default:
        v = u(g);
    }
  }
  return x;
}

TEST_P(KernelsMatchReference, OverShapeSweep) {
  const Case c = GetParam();
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ (static_cast<uint64_t>(c.dtype) * 31 + static_cast<uint64_t>(c.scheme)));
  const bool per_tensor = c.scheme == QScheme::kPerTensorAffine;
  const bool float_zp = c.scheme == QScheme::kPerChannelAffineFloatQParams;
  const QRange range = dtype_range(c.dtype);
  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    for (size_t threads : qwasm_test::thread_counts()) {
      ASSERT_TRUE(set_num_threads(threads).ok());
      for (int64_t channels : {1, 3, 5}) {
        // Scales that are float32 values take the float-multiply dequantize paths.
        const bool float_exact = channels == 5;
        for (int64_t inner = 0; inner <= 37; ++inner) {
          const Shape shape = per_tensor ? Shape{channels * inner} : Shape{2, channels, inner};
          const int64_t numel = per_tensor ? channels * inner : 2 * channels * inner;
          const std::vector<float> x = sweep_values(static_cast<size_t>(numel), g);
          std::vector<double> scales, zps;
          for (int64_t ch = 0; ch < (per_tensor ? 1 : channels); ++ch) {
            scales.push_back(ch == 0 ? 1.0 : float_exact ? 0.375 * (ch + 1) : 0.37 * (ch + 1));
            const double mid = std::floor((static_cast<double>(range.qmin) + range.qmax) / 2);
            zps.push_back(float_zp ? 2.5 + ch : mid + ch);
          }
          QTensor q;
          Status s = per_tensor ? quantize_per_tensor(x.data(), shape, scales[0], zps[0], c.dtype, isa, &q)
                                : quantize_per_channel(x.data(), shape, scales.data(), zps.data(), scales.size(), 1,
                                                       float_zp, c.dtype, isa, &q);
          ASSERT_TRUE(s.ok()) << s.message;
          const ref::QParamsView qp{c.scheme, 1, q.scales().data(), q.zero_points().data()};
          std::vector<uint8_t> expected(q.nbytes());
          ref::quantize(x.data(), shape, qp, c.dtype, expected.data());
          for (size_t b = 0; b < expected.size(); ++b) {
            ASSERT_EQ(q.data()[b], expected[b])
                << kernels::isa_name(isa) << " " << dtype_name(c.dtype) << " " << qscheme_name(c.scheme) << " byte "
                << b << " channels " << channels << " inner " << inner << " seed " << seed;
          }
          std::vector<float> y(static_cast<size_t>(numel)), y_ref(static_cast<size_t>(numel));
          ASSERT_TRUE(dequantize(q, isa, y.data()).ok());
          ref::dequantize(q.data(), shape, qp, c.dtype, y_ref.data());
          for (int64_t i = 0; i < numel; ++i) {
            ASSERT_EQ(std::memcmp(&y[i], &y_ref[i], 4), 0)
                << kernels::isa_name(isa) << " dequantize " << dtype_name(c.dtype) << " " << qscheme_name(c.scheme)
                << " index " << i << " expected " << y_ref[i] << " got " << y[i] << " threads " << threads << " seed "
                << seed;
          }
        }
      }
    }
  }
}

// Large tensors are cut into 64 K-element pieces shared among the threads
// (per tensor: one run cut into pieces; per channel: runs longer than a piece
// cut too). Every thread count gives the reference's bytes and floats.
TEST(QuantizeThreads, LargeTensorsInPiecesEqualTheReference) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ 0x7);
  for (const bool per_tensor : {true, false}) {
    const Shape shape = per_tensor ? Shape{210003} : Shape{3, 70001};
    const std::vector<float> x = sweep_values(210003, g);
    const double scales[3] = {0.37, 0.5, 0.11};
    const double zps[3] = {3, -7, 0};
    const ref::QParamsView qp{per_tensor ? QScheme::kPerTensorAffine : QScheme::kPerChannelAffine, 0, scales, zps};
    std::vector<uint8_t> expected(210003);
    ref::quantize(x.data(), shape, qp, DType::kQInt8, expected.data());
    std::vector<float> y_ref(210003);
    ref::dequantize(expected.data(), shape, qp, DType::kQInt8, y_ref.data());
    for (size_t threads : qwasm_test::thread_counts()) {
      ASSERT_TRUE(set_num_threads(threads).ok());
      QTensor q;
      ASSERT_TRUE((per_tensor ? quantize_per_tensor(x.data(), shape, scales[0], zps[0], DType::kQInt8, Isa::kScalar, &q)
                              : quantize_per_channel(x.data(), shape, scales, zps, 3, 0, false, DType::kQInt8,
                                                     Isa::kScalar, &q))
                      .ok());
      ASSERT_EQ(std::memcmp(q.data(), expected.data(), expected.size()), 0)
          << "per_tensor " << per_tensor << " threads " << threads << " seed " << seed;
      std::vector<float> y(210003);
      ASSERT_TRUE(dequantize(q, Isa::kScalar, y.data()).ok());
      ASSERT_EQ(std::memcmp(y.data(), y_ref.data(), y.size() * 4), 0)
          << "per_tensor " << per_tensor << " threads " << threads << " seed " << seed;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDtypesAndSchemes, KernelsMatchReference,
                         ::testing::Values(Case{DType::kQUInt8, QScheme::kPerTensorAffine},
                                           Case{DType::kQInt8, QScheme::kPerTensorAffine},
                                           Case{DType::kQInt32, QScheme::kPerTensorAffine},
                                           Case{DType::kQUInt4x2, QScheme::kPerTensorAffine},
                                           Case{DType::kQUInt8, QScheme::kPerChannelAffine},
                                           Case{DType::kQInt8, QScheme::kPerChannelAffine},
                                           Case{DType::kQInt32, QScheme::kPerChannelAffine},
                                           Case{DType::kQUInt8, QScheme::kPerChannelAffineFloatQParams},
                                           Case{DType::kQInt8, QScheme::kPerChannelAffineFloatQParams},
                                           Case{DType::kQInt32, QScheme::kPerChannelAffineFloatQParams},
                                           Case{DType::kQUInt4x2, QScheme::kPerChannelAffineFloatQParams}));

// dequantize_range streams a tensor through a small buffer: started at any
// element (inside a run, at a channel boundary, inside a quint4x2 byte), it
// must give exactly the slice of the whole result, for every scheme and path
// (runs, and the row kernels of an innermost channel axis).
TEST(DequantizeRange, EverySliceEqualsTheWholeResult) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ 0x55);
  struct Layout {
    Shape shape;
    int64_t axis;
  };
  for (const Layout& l : {Layout{{3, 5, 7}, 1}, Layout{{4, 9}, 1}, Layout{{2, 3, 1}, 1}, Layout{{6, 5}, 0}}) {
    int64_t numel = 1;
    for (int64_t d : l.shape) numel *= d;
    const std::vector<float> x = sweep_values(static_cast<size_t>(numel), g);
    const int64_t channels = l.shape[l.axis];
    std::vector<double> scales, zps, fzps;
    for (int64_t c = 0; c < channels; ++c)
      scales.push_back(c % 2 ? 0.37 * (c + 1) : 0.375), zps.push_back(c), fzps.push_back(c + 0.5);
    for (int scheme = 0; scheme < 4; ++scheme) {
      QTensor q;
      Status s;
      if (scheme == 0) s = quantize_per_tensor(x.data(), l.shape, 0.3, 5, DType::kQUInt8, Isa::kScalar, &q);
      if (scheme == 1)
        s = quantize_per_channel(x.data(), l.shape, scales.data(), zps.data(), scales.size(), l.axis, false,
                                 DType::kQInt8, Isa::kScalar, &q);
      if (scheme == 2)
        s = quantize_per_channel(x.data(), l.shape, scales.data(), fzps.data(), scales.size(), l.axis, true,
                                 DType::kQUInt8, Isa::kScalar, &q);
      if (scheme == 3)
        s = quantize_per_channel(x.data(), l.shape, scales.data(), fzps.data(), scales.size(), l.axis, true,
                                 DType::kQUInt4x2, Isa::kScalar, &q);
      ASSERT_TRUE(s.ok()) << s.message;
      for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
        if (!kernels::isa_available(isa)) continue;
        std::vector<float> whole(static_cast<size_t>(numel));
        ASSERT_TRUE(dequantize(q, isa, whole.data()).ok());
        for (int64_t begin = 0; begin <= numel; ++begin) {
          for (int64_t end = begin; end <= numel; end += 1 + (end - begin) / 3) {
            std::vector<float> part(static_cast<size_t>(end - begin) + 1, -1.0f);
            ASSERT_TRUE(dequantize_range(q, isa, begin, end, part.data()).ok());
            for (int64_t i = begin; i < end; ++i) {
              ASSERT_EQ(std::memcmp(&part[i - begin], &whole[i], 4), 0)
                  << kernels::isa_name(isa) << " scheme " << scheme << " shape " << l.shape.size() << "-d axis "
                  << l.axis << " range [" << begin << ", " << end << ") element " << i;
            }
            ASSERT_EQ(part[end - begin], -1.0f) << "wrote past end";
          }
        }
      }
    }
  }
}
