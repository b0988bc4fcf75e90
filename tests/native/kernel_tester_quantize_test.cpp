// The kernel tester, quantize family: every kernel of quantize.inc,
// dequantize.inc and quantize_row.inc in this build, by name, against the
// naive reference (tests/reference/quantize_ref.h) with tolerance 0, in named
// cases that hit each remainder path of its block (XNNPACK's tester shape):
//   quantize / dequantize / rows: n_zero, n_lt_block, n_eq_block, n_gt_block,
//     n_many_blocks_tail, hand-checked vectors (rounding, the FBGEMM
//     reciprocal, saturation, non-finite), random values.
// Run natively (scalar kernels) and compiled to wasm (scalar and SIMD); the
// shared helpers are in kernel_tester.h. Random cases print their seed; replay
// with QWASM_SEED=<n>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_tester.h"
#include "kernels/quantize_kernels.h"
#include "qwasm/dtype.h"
#include "reference/quantize_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;
using Shape = std::vector<int64_t>;

namespace {

// ---------------------------------------------------------------- quantize

class QuantizeKernelTest : public ::testing::TestWithParam<const QuantizeKernel*> {
 protected:
  const QuantizeKernel& k() const { return *GetParam(); }
  bool fzp() const { return k().mode == QuantizeMode::kFloatZeroPoint; }
  // A mid-range zero point of the storage (float zero points: with a fraction).
  double zero_point() const {
    const double mid = k().storage == Storage::kU8 ? 100 : k().storage == Storage::kS8 ? -3 : 12345;
    return fzp() ? mid + 0.25 : mid;
  }

  // Runs the kernel and the reference on x; compares every byte. The canary
  // after the output catches writes past n.
  void check(const std::vector<float>& x, double scale, double zp, const char* what) {
    const size_t esize = element_bytes(k().storage);
    std::vector<uint8_t> got(x.size() * esize + 16, 0xA5), want(x.size() * esize);
    const QRange r = dtype_range(dtype_of(k().storage));
    const QuantizeParams p =
        fzp() ? quantize_float_qparams_init(static_cast<float>(scale), static_cast<float>(zp),
                                            static_cast<int32_t>(r.qmin), static_cast<int32_t>(r.qmax))
              : quantize_params_init(scale, static_cast<int32_t>(zp), static_cast<int32_t>(r.qmin),
                                     static_cast<int32_t>(r.qmax));
    k().fn(x.size(), x.data(), got.data(), &p);
    const ref::QParamsView qp{fzp() ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerTensorAffine, 0, &scale,
                              &zp};
    ref::quantize(x.data(), fzp() ? Shape{1, static_cast<int64_t>(x.size())} : Shape{static_cast<int64_t>(x.size())},
                  qp, dtype_of(k().storage), want.data());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(load(k().storage, got, i), load(k().storage, want, i))
          << k().name << " " << what << " n=" << x.size() << " index " << i << " x=" << x[i] << " scale=" << scale
          << " zp=" << zp;
    }
    for (size_t i = x.size() * esize; i < got.size(); ++i) ASSERT_EQ(got[i], 0xA5) << k().name << " wrote past n";
  }

  void check_random(size_t n) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ n);
    // 1e-39: 1 / scale overflows float32 (every zero becomes 0 * Inf).
    for (double scale : {1.0, 0.37, 3.0, 1e-39}) check(test_values(n, g), scale, zero_point(), "random");
  }

  // Runs the kernel on x and returns the integers.
  std::vector<int64_t> run(const std::vector<float>& x, double scale, double zp) {
    const QRange r = dtype_range(dtype_of(k().storage));
    const QuantizeParams p =
        fzp() ? quantize_float_qparams_init(static_cast<float>(scale), static_cast<float>(zp),
                                            static_cast<int32_t>(r.qmin), static_cast<int32_t>(r.qmax))
              : quantize_params_init(scale, static_cast<int32_t>(zp), static_cast<int32_t>(r.qmin),
                                     static_cast<int32_t>(r.qmax));
    // Pad each value into a block so that the vector path runs too.
    std::vector<float> padded;
    for (float v : x) padded.insert(padded.end(), k().block, v);
    std::vector<uint8_t> out(padded.size() * element_bytes(k().storage));
    k().fn(padded.size(), padded.data(), out.data(), &p);
    std::vector<int64_t> v;
    for (size_t i = 0; i < x.size(); ++i) v.push_back(load(k().storage, out, i * k().block));
    return v;
  }
};

TEST_P(QuantizeKernelTest, n_zero) { check({}, 1.0, zero_point(), "n=0"); }
TEST_P(QuantizeKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check_random(n);
}
TEST_P(QuantizeKernelTest, n_eq_block) { check_random(k().block); }
TEST_P(QuantizeKernelTest, n_gt_block) {
  for (size_t n = k().block + 1; n < 2 * k().block; ++n) check_random(n);
  check_random(k().block + 1);
}
TEST_P(QuantizeKernelTest, n_many_blocks_tail) {
  check_random(7 * k().block + k().block / 2 + 1);
  check_random(1000);
}
TEST_P(QuantizeKernelTest, rounds_half_to_even) {
  const std::vector<float> ties = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.5f};
  EXPECT_EQ(run(ties, 1.0, 10), (std::vector<int64_t>{10, 12, 12, 10, 8, 8, 14})) << k().name;
  // Integer zero points are added after rounding (round(2.5) + 1 = 3), float
  // zero points before (round(2.5 + 1) = 4).
  EXPECT_EQ(run({2.5f}, 1.0, 1)[0], fzp() ? 4 : 3) << k().name;
}
TEST_P(QuantizeKernelTest, multiplies_by_the_reciprocal) {
  // FBGEMM's discriminating vector: x / scale = 127.49999 would give 127;
  // x * (1 / scale) = 127.5 rounds to 128.
  const double zp = k().storage == Storage::kS8 ? -100 : 0;
  EXPECT_EQ(run({0.273939937f}, 0.00214854861, zp)[0], 128 + static_cast<int64_t>(zp)) << k().name;
}
TEST_P(QuantizeKernelTest, saturates_at_qmin_and_qmax) {
  const QRange r = dtype_range(dtype_of(k().storage));
  EXPECT_EQ(run({3e38f, -3e38f, 1e10f, -1e10f}, 0.5, zero_point()),
            (std::vector<int64_t>{r.qmax, r.qmin, r.qmax, r.qmin}))
      << k().name;
}
TEST_P(QuantizeKernelTest, non_finite_values_have_defined_results) {
  const QRange r = dtype_range(dtype_of(k().storage));
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t zp_rounded =
      fzp() ? static_cast<int64_t>(std::nearbyint(zero_point())) : static_cast<int64_t>(zero_point());
  EXPECT_EQ(run({std::numeric_limits<float>::quiet_NaN(), inf, -inf}, 0.5, zero_point()),
            (std::vector<int64_t>{zp_rounded, r.qmax, r.qmin}))
      << k().name;
}

TEST_P(QuantizeKernelTest, a_zero_whose_scale_has_no_float_reciprocal_gives_qmax) {
  // Below ~2.94e-39, 1 / scale overflows float32 and 0 * Inf is NaN: PyTorch's
  // per-tensor quint8 / qint8 path gives qmax (tests/golden quantize.json), and
  // so does qwasm. A NaN input still gives the zero point.
  const QRange r = dtype_range(dtype_of(k().storage));
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t zp_rounded =
      fzp() ? static_cast<int64_t>(std::nearbyint(zero_point())) : static_cast<int64_t>(zero_point());
  for (double scale : {1e-39, 2.9e-39, 1e-45}) {
    EXPECT_EQ(
        run({0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 1e-30f, -1e-30f, inf, -inf}, scale, zero_point()),
        (std::vector<int64_t>{r.qmax, r.qmax, zp_rounded, r.qmax, r.qmin, r.qmax, r.qmin}))
        << k().name << " scale " << scale;
  }
  // 2.95e-39 still has a finite reciprocal: a zero gives the zero point.
  EXPECT_EQ(run({0.0f}, 2.95e-39, zero_point())[0], zp_rounded) << k().name;
}

INSTANTIATE_TEST_SUITE_P(Registry, QuantizeKernelTest, ::testing::ValuesIn(all(quantize_kernels())),
                         kernel_name<QuantizeKernel>);

// -------------------------------------------------------------- dequantize

class DequantizeKernelTest : public ::testing::TestWithParam<const DequantizeKernel*> {
 protected:
  const DequantizeKernel& k() const { return *GetParam(); }
  QScheme scheme() const {
    return k().mode == DequantizeMode::kPerTensor    ? QScheme::kPerTensorAffine
           : k().mode == DequantizeMode::kPerChannel ? QScheme::kPerChannelAffine
                                                     : QScheme::kPerChannelAffineFloatQParams;
  }

  std::vector<uint8_t> random_q(size_t n, std::mt19937_64& g) {
    std::vector<uint8_t> q(n * element_bytes(k().storage));
    for (auto& b : q) b = static_cast<uint8_t>(g());
    return q;
  }

  void check(const std::vector<uint8_t>& q, double scale, double zp, const char* what) {
    const size_t n = q.size() / element_bytes(k().storage);
    std::vector<float> got(n + 4, -7.0f), want(n);
    const DequantizeParams p = dequantize_params_init(scale, zp);
    k().fn(n, q.data(), got.data(), &p);
    const ref::QParamsView qp{scheme(), 0, &scale, &zp};
    ref::dequantize(
        q.data(),
        scheme() == QScheme::kPerTensorAffine ? Shape{static_cast<int64_t>(n)} : Shape{1, static_cast<int64_t>(n)}, qp,
        dtype_of(k().storage), want.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(std::memcmp(&got[i], &want[i], 4), 0)
          << k().name << " " << what << " n=" << n << " index " << i << " want " << want[i] << " got " << got[i];
    }
    for (size_t i = n; i < got.size(); ++i) ASSERT_EQ(got[i], -7.0f) << k().name << " wrote past n";
  }

  void check_random(size_t n) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (n * 7));
    const double zp = k().storage == Storage::kU8 ? 100 : k().storage == Storage::kS8 ? -3 : -70000;
    for (double scale : {0.1, 0.375, 3e-5})
      check(random_q(n, g), scale, k().mode == DequantizeMode::kFloatQParams ? zp + 0.5 : zp, "random");
  }

  float run_one(int32_t q, double scale, double zp) {
    std::vector<uint8_t> bytes(k().block * element_bytes(k().storage));
    for (size_t i = 0; i < k().block; ++i) {
      if (k().storage == Storage::kS32)
        std::memcpy(bytes.data() + 4 * i, &q, 4);
      else
        bytes[i] = static_cast<uint8_t>(q);
    }
    std::vector<float> y(k().block);
    const DequantizeParams p = dequantize_params_init(scale, zp);
    k().fn(k().block, bytes.data(), y.data(), &p);
    return y[k().block - 1];
  }
};

TEST_P(DequantizeKernelTest, n_zero) { check({}, 0.1, 3, "n=0"); }
TEST_P(DequantizeKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check_random(n);
}
TEST_P(DequantizeKernelTest, n_eq_block) { check_random(k().block); }
TEST_P(DequantizeKernelTest, n_gt_block) {
  for (size_t n = k().block + 1; n < 2 * k().block + 1; ++n) check_random(n);
}
TEST_P(DequantizeKernelTest, n_many_blocks_tail) { check_random(9 * k().block + 3); }
TEST_P(DequantizeKernelTest, hand_checked_formula) {
  // q - zp = 9, scale 0.1 (not a float32 value): per tensor and float qparams
  // multiply float32(0.1) by 9 in float (0.90000004), per channel multiplies
  // in double and rounds once (0.9).
  const float got = run_one(12, 0.1, 3);
  const float want = k().mode == DequantizeMode::kPerChannel ? 0x1.ccccccp-1f : 0x1.ccccccp-1f + 0x1p-24f;
  EXPECT_EQ(got, want) << k().name;
  EXPECT_EQ(0x1.ccccccp-1f + 0x1p-24f, 0x1.cccccep-1f);
}

INSTANTIATE_TEST_SUITE_P(Registry, DequantizeKernelTest, ::testing::ValuesIn(all(dequantize_kernels())),
                         kernel_name<DequantizeKernel>);

// ------------------------------------------------------------- row kernels

class QuantizeRowKernelTest : public ::testing::TestWithParam<const QuantizeRowKernel*> {
 protected:
  const QuantizeRowKernel& k() const { return *GetParam(); }
  void check(size_t n) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (n * 13));
    const std::vector<float> x = test_values(n, g);
    const bool fzp = k().mode == QuantizeMode::kFloatZeroPoint;
    const QRange r = dtype_range(dtype_of(k().storage));
    std::vector<float> inv(n), zps(n);
    std::vector<double> scales_d(n), zps_d(n);
    for (size_t i = 0; i < n; ++i) {
      // Every seventh channel's scale has no float32 reciprocal (a zero gives qmax).
      scales_d[i] = i % 7 == 6 ? 1e-39 : 0.25 * static_cast<double>(i % 5 + 1) + 0.0625;
      zps_d[i] = static_cast<double>(i % 3) + (k().storage == Storage::kU8 ? 100 : 0) + (fzp ? 0.5 : 0);
      inv[i] = 1.0f / static_cast<float>(scales_d[i]);
      zps[i] = static_cast<float>(zps_d[i]);
    }
    std::vector<uint8_t> got(n * element_bytes(k().storage) + 8, 0x5A), want(n * element_bytes(k().storage));
    k().fn(n, x.data(), got.data(), inv.data(), zps.data(), static_cast<int32_t>(r.qmin), static_cast<int32_t>(r.qmax));
    // The reference: every element its own channel (axis 1 of [1, n]).
    const ref::QParamsView qp{fzp ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerChannelAffine, 1,
                              scales_d.data(), zps_d.data()};
    ref::quantize(x.data(), {1, static_cast<int64_t>(n)}, qp, dtype_of(k().storage), want.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(load(k().storage, got, i), load(k().storage, want, i)) << k().name << " n=" << n << " index " << i;
    }
    for (size_t i = n * element_bytes(k().storage); i < got.size(); ++i) ASSERT_EQ(got[i], 0x5A) << k().name;
  }
};

TEST_P(QuantizeRowKernelTest, n_zero) { check(0); }
TEST_P(QuantizeRowKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check(n);
}
TEST_P(QuantizeRowKernelTest, n_eq_block) { check(k().block); }
TEST_P(QuantizeRowKernelTest, n_gt_block) {
  for (size_t n = k().block + 1; n < 3 * k().block + 2; ++n) check(n);
}

INSTANTIATE_TEST_SUITE_P(Registry, QuantizeRowKernelTest, ::testing::ValuesIn(all(quantize_row_kernels())),
                         kernel_name<QuantizeRowKernel>);

class DequantizeRowKernelTest : public ::testing::TestWithParam<const DequantizeRowKernel*> {
 protected:
  const DequantizeRowKernel& k() const { return *GetParam(); }
  void check(size_t n) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (n * 17));
    std::vector<uint8_t> q(n * element_bytes(k().storage));
    for (auto& b : q) b = static_cast<uint8_t>(g());
    std::vector<float> scales(n), zps(n);
    std::vector<double> scales_d(n), zps_d(n);
    for (size_t i = 0; i < n; ++i) {
      scales[i] = 0.1f * static_cast<float>(i % 7 + 1);
      zps[i] = static_cast<float>(i % 4) - 1.5f;
      scales_d[i] = scales[i];
      zps_d[i] = zps[i];
    }
    std::vector<float> got(n + 2, 3.0f), want(n);
    k().fn(n, q.data(), got.data(), scales.data(), zps.data());
    const ref::QParamsView qp{QScheme::kPerChannelAffineFloatQParams, 1, scales_d.data(), zps_d.data()};
    ref::dequantize(q.data(), {1, static_cast<int64_t>(n)}, qp, dtype_of(k().storage), want.data());
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(std::memcmp(&got[i], &want[i], 4), 0) << k().name << " n=" << n << " index " << i;
    for (size_t i = n; i < got.size(); ++i) ASSERT_EQ(got[i], 3.0f) << k().name;
  }
};

TEST_P(DequantizeRowKernelTest, n_zero) { check(0); }
TEST_P(DequantizeRowKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check(n);
}
TEST_P(DequantizeRowKernelTest, n_eq_block) { check(k().block); }
TEST_P(DequantizeRowKernelTest, n_gt_block) {
  for (size_t n = k().block + 1; n < 3 * k().block + 2; ++n) check(n);
}

INSTANTIATE_TEST_SUITE_P(Registry, DequantizeRowKernelTest, ::testing::ValuesIn(all(dequantize_row_kernels())),
                         kernel_name<DequantizeRowKernel>);

}  // namespace
