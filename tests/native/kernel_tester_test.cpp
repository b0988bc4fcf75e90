// The kernel tester: every kernel listed in the registry (kernels/*.inc) of
// this build, by name, against the naive reference with tolerance 0, in named
// cases that hit each remainder path of its tile (XNNPACK's tester shape):
//   quantize / dequantize / rows: n_zero, n_lt_block, n_eq_block, n_gt_block,
//     n_many_blocks_tail, hand-checked vectors (rounding, the FBGEMM
//     reciprocal, saturation, non-finite), random values;
//   qconv: m_eq_mr, m_lt_mr, n_eq_nr, n_lt_nr, k_eq_kr, k_lt_kr, k_gt_kr,
//     k_div_kr, segments, qmin, qmax, relu_floor, c_stride;
//   qdwconv: channels_eq_cr, valid_lt_channels, channels_gt_cr, taps, qmin, qmax, relu_floor;
//   to_channels_last: c_lt_block, c_eq_block, c_gt_block, w_lt_block, w_eq_block,
//     w_gt_block, slots_gt_channels (padding slots untouched), zero_points 0..255;
//   fconv: m_eq_mr, m_lt_mr, n_lt_nr, segments, relu;
//   winograd input: nd1, nd2, nd3, channels_gt_cr, extremes (every tap at +-255);
//   qgemm: m_eq_mr, m_lt_mr, m_gt_mr, k_blocks (1..9), extremes + wraparound (int32 sums past 2^31);
//   winograd output: nd1, nd2, nd3, nc_lt_cr, nc_gt_cr, partial_tiles (every
//     valid mask), strided_outputs (no adjacent pair), wraparound (full-range
//     int32 points), qmin, qmax, relu_floor;
//   rowmax / rowsum: n_lt_block, n_eq_block, n_gt_block, n_many_blocks_tail,
//     rows (1 to past the SIMD sum's 257-row u16 chunk), saturated (all 255).
// Run natively (scalar kernels) and compiled to wasm (scalar and SIMD).
// Random cases print their seed; replay with QWASM_SEED=<n>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/conv_kernels.h"
#include "kernels/fma_f32.h"
#include "kernels/pool_kernels.h"
#include "kernels/quantize_kernels.h"
#include "kernels/winograd_kernels.h"
#include "qwasm/dtype.h"
#include "reference/conv3d_ref.h"
#include "reference/pool_rows_ref.h"
#include "reference/quantize_ref.h"
#include "reference/requantize_ref.h"
#include "reference/winograd_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using Shape = std::vector<int64_t>;

namespace {

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

DType dtype_of(Storage s) {
  return s == Storage::kU8 ? DType::kQUInt8 : s == Storage::kS8 ? DType::kQInt8 : DType::kQInt32;
}
size_t element_bytes(Storage s) { return s == Storage::kS32 ? 4 : 1; }

int64_t load(Storage s, const std::vector<uint8_t>& bytes, size_t i) {
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
std::vector<float> test_values(size_t n, std::mt19937_64& g) {
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

// ------------------------------------------------------------------- qconv

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

constexpr RequantKind kRequantKinds[] = {RequantKind::kFbgemm, RequantKind::kFbgemmFused, RequantKind::kOnednn};

// kernels::fma_f32 (TwoSum and rounding to odd in double) against the
// reference's integer fma (and libm's fma natively; Emscripten's is not
// exact, see requantize_ref.h), bit for bit: random operands over many exponents, sums that cancel
// to near a float tie (c = -a*b rounded, plus a few units), signed zeros,
// subnormals, infinities and NaN.
TEST(FmaF32, equals_libm_fma) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> mant(-2.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-40, 40), pick(0, 7), small(-4, 4);
  auto bits = [](float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return u;
  };
  size_t cases = 0;
  for (int i = 0; i < 400000; ++i) {
    const float a = std::ldexp(mant(g), ex(g)), b = std::ldexp(mant(g), ex(g));
    float c;
    switch (pick(g)) {
      case 0:
      case 1:
        c = -static_cast<float>(static_cast<double>(a) * b) + std::ldexp(static_cast<float>(small(g)), ex(g) / 4);
        break;
      case 2:  // integers, as an accumulator converted to float
        c = static_cast<float>(static_cast<int32_t>(g()));
        break;
      case 3:
        c = std::nextafter(-static_cast<float>(static_cast<double>(a) * b), small(g) < 0 ? -INFINITY : INFINITY);
        break;
      default:
        c = std::ldexp(mant(g), ex(g));
    }
    const float want = ref::fma_exact(a, b, c), got = kernels::fma_f32(a, b, c);
    ASSERT_EQ(bits(got), bits(want)) << a << " * " << b << " + " << c << " seed " << seed;
#ifndef __EMSCRIPTEN__
    ASSERT_EQ(bits(want), bits(std::fma(a, b, c))) << a << " * " << b << " + " << c << " seed " << seed;
#endif
    ++cases;
  }
  const float specials[] = {0.0f,
                            -0.0f,
                            1e-45f,
                            -1e-45f,
                            1e-40f,
                            1.0f,
                            -1.0f,
                            3.4e38f,
                            INFINITY,
                            -INFINITY,
                            std::numeric_limits<float>::quiet_NaN()};
  for (float a : specials)
    for (float b : specials)
      for (float c : specials) {
        const float want = ref::fma_exact(a, b, c), got = kernels::fma_f32(a, b, c);
#ifndef __EMSCRIPTEN__
        if (!std::isnan(want)) {
          EXPECT_EQ(bits(want), bits(std::fma(a, b, c))) << a << " * " << b << " + " << c;
        }
#endif
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << a << " * " << b << " + " << c;
        } else {
          EXPECT_EQ(bits(got), bits(want)) << a << " * " << b << " + " << c;
        }
      }
  EXPECT_EQ(cases, 400000u);
}

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

// One call of a generic quantized conv kernel: mr pixels x nc channels over
// `segs` segments of seg_len values, with the tester's own packing from the
// entry's (nr, kr) and a naive oracle.
struct QConvCall {
  size_t mr = 1, nc = 1, segs = 1, seg_len = 1, c_stride = 1;
  bool relu = false;
  int32_t zp = 100;
  float multiplier_scale = 1.0f;  // scales the requantization multipliers (saturation cases)
  float bias_shift = 0.0f;        // added to every bias_div
};

class QConvKernelTest : public ::testing::TestWithParam<const QConvKernel*> {
 protected:
  const QConvKernel& k() const { return *GetParam(); }

  // Returns the outputs; compares them with the oracle.
  std::vector<uint8_t> check(const QConvCall& t) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (t.mr * 1000003 + t.nc * 1009 + t.segs * 101 + t.seg_len));
    std::uniform_int_distribution<int> act(-255, 255), wgt(-255, 255);
    const size_t kblocks = (t.seg_len + k().kr - 1) / k().kr;
    // Each pixel's input: segments laid out `stride` apart, plus kr slack.
    const size_t seg_stride = t.seg_len + 3;
    std::vector<std::vector<int16_t>> a(t.mr, std::vector<int16_t>(t.segs * seg_stride + k().kr));
    for (auto& row : a)
      for (auto& v : row) v = static_cast<int16_t>(act(g));
    std::vector<ptrdiff_t> offsets(t.segs);
    for (size_t s = 0; s < t.segs; ++s) offsets[s] = static_cast<ptrdiff_t>(s * seg_stride);
    // Unpacked weights [segment][idx][channel], packed [segment][kblock][nr][kr].
    std::vector<int16_t> w(t.segs * t.seg_len * k().nr), packed(t.segs * kblocks * k().nr * k().kr, 0);
    for (auto& v : w) v = static_cast<int16_t>(wgt(g));
    for (size_t s = 0; s < t.segs; ++s)
      for (size_t idx = 0; idx < t.seg_len; ++idx)
        for (size_t j = 0; j < t.nc; ++j)
          packed[((s * kblocks + idx / k().kr) * k().nr + j) * k().kr + idx % k().kr] =
              w[(s * t.seg_len + idx) * k().nr + j];
    std::vector<uint8_t> first;
    for (const RequantKind kind : kRequantKinds) {
      const Requant rq(kind, k().nr + 8, g, t.zp, t.relu, t.multiplier_scale, t.bias_shift, 500.f, 0.0001f, 0.002f);
      std::vector<uint8_t> out(t.mr * k().nr * t.c_stride + 8, 0xEE);
      std::vector<uint8_t*> c(t.mr);
      std::vector<const int16_t*> ap(t.mr);
      for (size_t m = 0; m < t.mr; ++m) {
        c[m] = out.data() + m;  // pixel m; channel j at c[m][j * c_stride]
        ap[m] = a[m].data();
      }
      const size_t c_stride = t.c_stride * t.mr;
      k().fn(t.mr, t.nc, t.segs, kblocks, ap.data(), offsets.data(), packed.data(), c.data(), c_stride, &rq.params);
      for (size_t m = 0; m < t.mr; ++m) {
        for (size_t j = 0; j < k().nr; ++j) {
          const uint8_t got = out[m + j * c_stride];
          if (j >= t.nc) {
            EXPECT_EQ(got, 0xEE) << k().name << " wrote channel " << j << " past nc=" << t.nc;
            continue;
          }
          int32_t acc = 0;
          for (size_t s = 0; s < t.segs; ++s)
            for (size_t idx = 0; idx < t.seg_len; ++idx)
              acc += int32_t{a[m][offsets[s] + idx]} * w[(s * t.seg_len + idx) * k().nr + j];
          EXPECT_EQ(got, rq.want(acc, j))
              << k().name << " pixel " << m << " channel " << j << " acc " << acc << " " << rq.describe(j)
              << " mr=" << t.mr << " nc=" << t.nc << " segs=" << t.segs << " seg_len=" << t.seg_len << " seed " << seed;
        }
      }
      // Saturation and the ReLU floor are the same for both backends.
      if (first.empty()) {
        first = out;
      } else if (std::fabs(t.bias_shift) >= 1e8f) {
        EXPECT_EQ(out[0], first[0]) << k().name << " backends disagree";
      }
    }
    return first;
  }
};

TEST_P(QConvKernelTest, m_eq_mr) { check({k().mr, k().nr, 2, 3 * k().kr}); }
TEST_P(QConvKernelTest, m_lt_mr) {
  for (size_t mr = 1; mr < k().mr; ++mr) check({mr, k().nr, 2, 3 * k().kr});
}
TEST_P(QConvKernelTest, n_eq_nr) { check({k().mr, k().nr, 1, k().kr}); }
TEST_P(QConvKernelTest, n_lt_nr) {
  for (size_t nc = 1; nc < k().nr; ++nc) check({k().mr, nc, 2, 2 * k().kr + 1});
}
TEST_P(QConvKernelTest, k_eq_kr) { check({k().mr, k().nr, 1, k().kr}); }
TEST_P(QConvKernelTest, k_lt_kr) {
  for (size_t len = 1; len < k().kr; ++len) check({k().mr, k().nr, 1, len});
}
TEST_P(QConvKernelTest, k_gt_kr) {
  for (size_t len = k().kr + 1; len < 4 * k().kr; ++len) check({k().mr, k().nr, 1, len});
}
TEST_P(QConvKernelTest, k_div_kr) {
  for (size_t mult = 2; mult <= 5; ++mult) check({k().mr, k().nr, 1, mult * k().kr});
}
TEST_P(QConvKernelTest, segments) {
  for (size_t segs : {2, 3, 9, 27}) check({k().mr, k().nr, segs, 2 * k().kr + 1});
}
TEST_P(QConvKernelTest, qmin) {
  QConvCall t{k().mr, k().nr, 2, 5};
  // Far past any accumulator (|acc| <= 10 * 255 * 255) even at the smallest
  // multiplier (1e-4): every output 0. (-1e6 left some seeds short of it.)
  t.bias_shift = -1e8f;
  const auto out = check(t);
  EXPECT_EQ(out[0], 0);
}
TEST_P(QConvKernelTest, qmax) {
  QConvCall t{k().mr, k().nr, 2, 5};
  t.bias_shift = 1e8f;  // past any accumulator: every output 255
  const auto out = check(t);
  EXPECT_EQ(out[0], 255);
}
TEST_P(QConvKernelTest, relu_floor) {
  QConvCall t{k().mr, k().nr, 2, 5};
  t.relu = true;
  t.zp = 77;
  t.bias_shift = -1e8f;  // far below the zero point: the ReLU floor
  const auto out = check(t);
  EXPECT_EQ(out[0], 77);
  t.bias_shift = 0;
  check(t);
}
TEST_P(QConvKernelTest, c_stride) {
  QConvCall t{k().mr, k().nr, 2, 5};
  t.c_stride = 3;
  check(t);
}

// One pixel, one tap of value 1: the accumulators are the weights.
TEST_P(QConvKernelTest, fused_bias_rounds_once) {
  const FusedBiasCase fc(k().nr);
  std::vector<int16_t> a(2 * k().kr, 0), packed(k().nr * k().kr, 0);
  a[0] = 1;
  for (size_t j = 0; j < k().nr; ++j) packed[j * k().kr] = static_cast<int16_t>(fc.acc[j]);
  std::vector<uint8_t> out(k().nr, 0xEE);
  const int16_t* ap[1] = {a.data()};
  uint8_t* cp[1] = {out.data()};
  const ptrdiff_t offsets[1] = {0};
  k().fn(1, k().nr, 1, 1, ap, offsets, packed.data(), cp, 1, &fc.params);
  for (size_t j = 0; j < k().nr; ++j) EXPECT_EQ(out[j], fc.want(j)) << k().name << " channel " << j;
}

// Every channel of one pixel on the DoubleRoundingCase.
TEST_P(QConvKernelTest, fused_bias_double_rounding) {
  ASSERT_LE(k().nr, 8u);
  ASSERT_EQ(k().kr, 2u);
  const DoubleRoundingCase dc;
  const int16_t a[4] = {DoubleRoundingCase::kA[0], DoubleRoundingCase::kA[1], 0, 0};
  std::vector<int16_t> packed(k().nr * 2);
  for (size_t j = 0; j < k().nr; ++j)
    packed[j * 2] = DoubleRoundingCase::kW[0], packed[j * 2 + 1] = DoubleRoundingCase::kW[1];
  std::vector<uint8_t> out(k().nr, 0xEE);
  const int16_t* ap[1] = {a};
  uint8_t* cp[1] = {out.data()};
  const ptrdiff_t offsets[1] = {0};
  k().fn(1, k().nr, 1, 1, ap, offsets, packed.data(), cp, 1, &dc.params);
  for (size_t j = 0; j < k().nr; ++j) EXPECT_EQ(out[j], dc.want()) << k().name << " channel " << j;
}

INSTANTIATE_TEST_SUITE_P(Registry, QConvKernelTest, ::testing::ValuesIn(all(qconv_kernels())),
                         kernel_name<QConvKernel>);

// ----------------------------------------------------------------- qdwconv

class QDwConvKernelTest : public ::testing::TestWithParam<const QDwConvKernel*> {
 protected:
  const QDwConvKernel& k() const { return *GetParam(); }
  std::vector<uint8_t> check(size_t channels, size_t valid, size_t ntaps, bool relu = false, float shift = 0,
                             int32_t zp = 90) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (channels * 31 + valid * 7 + ntaps));
    std::uniform_int_distribution<int> v(-255, 255);
    // The kernel's layout: taps in groups of kr ([group][channel][kr]), the
    // last group padded with taps that read tap 0 with zero weights.
    const size_t group = std::max<size_t>(k().kr, 1);
    const size_t padded = (ntaps + group - 1) / group * group;
    std::vector<ptrdiff_t> taps(padded, 0);
    for (size_t t = 0; t < ntaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * (channels + 5));
    std::vector<int16_t> a(ntaps * (channels + 5) + channels), w(ntaps * channels), packed(padded * channels, 0);
    for (auto& x : a) x = static_cast<int16_t>(v(g));
    for (auto& x : w) x = static_cast<int16_t>(v(g));  // [tap][channel], what the reference reads
    for (size_t t = 0; t < ntaps; ++t)
      for (size_t ch = 0; ch < channels; ++ch)
        packed[((t / group) * channels + ch) * group + t % group] = w[t * channels + ch];
    std::vector<uint8_t> first;
    for (const RequantKind kind : kRequantKinds) {
      const Requant rq(kind, channels + 8, g, zp, relu, 1.0f, shift, 100.f, 0.0005f, 0.004f);
      const size_t stride = 2;
      std::vector<uint8_t> out(channels * stride + 4, 0xEE);
      k().fn(channels, valid, padded, a.data(), taps.data(), packed.data(), out.data(), stride, &rq.params);
      for (size_t ch = 0; ch < channels; ++ch) {
        if (ch >= valid) {
          EXPECT_EQ(out[ch * stride], 0xEE) << k().name << " wrote channel " << ch << " past valid=" << valid;
          continue;
        }
        int32_t acc = 0;
        for (size_t t = 0; t < ntaps; ++t) acc += int32_t{a[taps[t] + ch]} * w[t * channels + ch];
        EXPECT_EQ(out[ch * stride], rq.want(acc, ch))
            << k().name << " channel " << ch << " ntaps " << ntaps << " " << rq.describe(ch) << " seed " << seed;
      }
      if (first.empty()) {
        first = out;
      } else if (std::fabs(shift) >= 1e8f) {
        EXPECT_EQ(out[0], first[0]) << k().name << " backends disagree";
      }
    }
    return first;
  }
};

TEST_P(QDwConvKernelTest, channels_eq_cr) { check(k().cr, k().cr, 9); }
TEST_P(QDwConvKernelTest, valid_lt_channels) {
  for (size_t valid = 1; valid < k().cr; ++valid) check(k().cr, valid, 9);
}
TEST_P(QDwConvKernelTest, channels_gt_cr) {
  check(3 * k().cr, 3 * k().cr, 27);
  check(3 * k().cr, 2 * k().cr + 1, 27);
}
TEST_P(QDwConvKernelTest, taps) {  // odd counts take the zero-weight padding tap
  for (size_t ntaps : {1, 2, 3, 8, 9, 27, 125}) check(k().cr, k().cr, ntaps);
}
TEST_P(QDwConvKernelTest, qmin) { EXPECT_EQ(check(k().cr, k().cr, 9, false, -1e8f)[0], 0); }
TEST_P(QDwConvKernelTest, qmax) { EXPECT_EQ(check(k().cr, k().cr, 9, false, 1e8f)[0], 255); }
TEST_P(QDwConvKernelTest, relu_floor) { EXPECT_EQ(check(k().cr, k().cr, 9, true, -1e8f, 61)[0], 61); }

// Two taps (the second 0, weight 0), the first of value 1: the accumulators are its weights.
TEST_P(QDwConvKernelTest, fused_bias_rounds_once) {
  const size_t channels = 2 * k().cr, group = std::max<size_t>(k().kr, 1);
  const FusedBiasCase fc(channels);
  std::vector<int16_t> a(2 * channels, 0), packed(group * channels, 0);
  for (size_t ch = 0; ch < channels; ++ch) a[ch] = 1;
  for (size_t ch = 0; ch < channels; ++ch) packed[ch * group] = static_cast<int16_t>(fc.acc[ch]);
  std::vector<ptrdiff_t> taps(group, static_cast<ptrdiff_t>(channels));
  taps[0] = 0;
  std::vector<uint8_t> out(channels, 0xEE);
  k().fn(channels, channels, group, a.data(), taps.data(), packed.data(), out.data(), 1, &fc.params);
  for (size_t ch = 0; ch < channels; ++ch) EXPECT_EQ(out[ch], fc.want(ch)) << k().name << " channel " << ch;
}

// Every channel on the DoubleRoundingCase: tap 0 holds 256, tap 1 holds 1.
TEST_P(QDwConvKernelTest, fused_bias_double_rounding) {
  ASSERT_EQ(k().kr, 2u);
  const size_t channels = k().cr;
  ASSERT_LE(channels, 16u);
  const DoubleRoundingCase dc;
  std::vector<int16_t> a(2 * channels), packed(2 * channels);
  for (size_t ch = 0; ch < channels; ++ch) {
    a[ch] = DoubleRoundingCase::kA[0], a[channels + ch] = DoubleRoundingCase::kA[1];
    packed[ch * 2] = DoubleRoundingCase::kW[0], packed[ch * 2 + 1] = DoubleRoundingCase::kW[1];
  }
  const ptrdiff_t taps[2] = {0, static_cast<ptrdiff_t>(channels)};
  std::vector<uint8_t> out(channels, 0xEE);
  k().fn(channels, channels, 2, a.data(), taps, packed.data(), out.data(), 1, &dc.params);
  for (size_t ch = 0; ch < channels; ++ch) EXPECT_EQ(out[ch], dc.want()) << k().name << " channel " << ch;
}

INSTANTIATE_TEST_SUITE_P(Registry, QDwConvKernelTest, ::testing::ValuesIn(all(qdwconv_kernels())),
                         kernel_name<QDwConvKernel>);

// ----------------------------------------------------------------- winograd

// A tile's input strides along nd dimensions for `channels` channels, with
// gaps so that a kernel reading the wrong tap reads other values.
std::vector<ptrdiff_t> tile_strides(size_t nd, size_t channels) {
  std::vector<ptrdiff_t> s(3, 0);
  ptrdiff_t inner = static_cast<ptrdiff_t>(channels + 8);
  for (size_t k = nd; k-- > 0;) {
    s[k] = inner;
    inner *= 5;
  }
  return s;
}

class WinoInputKernelTest : public ::testing::TestWithParam<const WinoInputKernel*> {
 protected:
  const WinoInputKernel& k() const { return *GetParam(); }
  // Values in [lo, hi], or (extremes) +-255 only.
  void check(size_t nd, size_t channels, bool extremes = false) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (nd * 7919 + channels * 31 + extremes));
    std::uniform_int_distribution<int> v(-255, 255);
    const std::vector<ptrdiff_t> strides = tile_strides(nd, channels);
    const size_t span = static_cast<size_t>(strides[0] * 4) + channels;
    std::vector<int16_t> d(span);
    for (auto& x : d) x = static_cast<int16_t>(extremes ? (g() & 1 ? 255 : -255) : v(g));
    const size_t points = size_t{1} << (2 * nd), v_stride = channels + 5;
    std::vector<int16_t> out(points * v_stride, int16_t{0x5a5a});
    k().fn(nd, channels, d.data(), strides.data(), out.data(), v_stride);
    for (size_t xi = 0; xi < points; ++xi) {
      for (size_t c = 0; c < v_stride; ++c) {
        const int16_t got = out[xi * v_stride + c];
        if (c >= channels) {
          EXPECT_EQ(got, 0x5a5a) << k().name << " wrote past the channels at point " << xi;
          continue;
        }
        const int64_t want = ref::winograd_input_point(nd, d.data() + c, strides.data(), xi);
        ASSERT_EQ(got, want) << k().name << " nd " << nd << " point " << xi << " channel " << c << " seed " << seed;
      }
    }
  }
};

TEST_P(WinoInputKernelTest, nd1) { check(1, k().cr); }
TEST_P(WinoInputKernelTest, nd2) { check(2, k().cr); }
TEST_P(WinoInputKernelTest, nd3) { check(3, k().cr); }
TEST_P(WinoInputKernelTest, channels_gt_cr) {
  for (size_t nd = 1; nd <= 3; ++nd) check(nd, 5 * k().cr);
}
TEST_P(WinoInputKernelTest, extremes) {  // |V| reaches 2^nd * 255, still int16
  for (size_t nd = 1; nd <= 3; ++nd) check(nd, 2 * k().cr, true);
}

INSTANTIATE_TEST_SUITE_P(Registry, WinoInputKernelTest, ::testing::ValuesIn(all(wino_input_kernels())),
                         kernel_name<WinoInputKernel>);

class QGemmKernelTest : public ::testing::TestWithParam<const QGemmKernel*> {
 protected:
  const QGemmKernel& k() const { return *GetParam(); }
  // rows x nr with a in [-a_max, a_max], w in [-w_max, w_max] (or exactly the extremes).
  void check(size_t rows, size_t kblocks, int a_max = 2040, int w_max = 6885, bool extremes = false) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (rows * 131 + kblocks * 7 + extremes));
    std::uniform_int_distribution<int> av(-a_max, a_max), wv(-w_max, w_max);
    const size_t len = kblocks * k().kr, a_stride = len + 3, c_stride = k().nr + 5;
    std::vector<int16_t> a(rows * a_stride + 1);
    // Extremes: the signs line up so that every product is a_max * w_max and the sums wrap.
    for (auto& x : a) x = static_cast<int16_t>(extremes ? a_max : av(g));
    std::vector<int16_t> w(len * k().nr);  // [kblock][nr][kr]
    for (auto& x : w) x = static_cast<int16_t>(extremes ? w_max : wv(g));
    std::vector<int32_t> c((rows + 1) * c_stride, 0x5a5a5a5a);
    k().fn(rows, kblocks, a.data(), a_stride, w.data(), c.data(), c_stride);
    for (size_t m = 0; m <= rows; ++m) {
      for (size_t j = 0; j < c_stride; ++j) {
        if (m == rows || j >= k().nr) {
          EXPECT_EQ(c[m * c_stride + j], 0x5a5a5a5a)
              << k().name << " wrote row " << m << " column " << j << " (rows " << rows << ")";
          continue;
        }
        int64_t sum = 0;
        for (size_t kb = 0; kb < kblocks; ++kb)
          for (size_t e = 0; e < k().kr; ++e)
            sum += int64_t{a[m * a_stride + kb * k().kr + e]} * w[(kb * k().nr + j) * k().kr + e];
        const int32_t want = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
        ASSERT_EQ(c[m * c_stride + j], want)
            << k().name << " row " << m << " column " << j << " kblocks " << kblocks << " seed " << seed;
      }
    }
  }
};

TEST_P(QGemmKernelTest, m_eq_mr) { check(k().mr, 8); }
TEST_P(QGemmKernelTest, m_lt_mr) {
  for (size_t mr = 1; mr < k().mr; ++mr) check(mr, 8);
}
TEST_P(QGemmKernelTest, m_gt_mr) {  // several row groups, the last one short
  for (size_t rows = k().mr + 1; rows <= 4 * k().mr + 1; ++rows) check(rows, 5);
}
TEST_P(QGemmKernelTest, k_blocks) {
  for (size_t kb = 1; kb <= 9; ++kb) check(k().mr, kb);
}
TEST_P(QGemmKernelTest, extremes_and_wraparound) {
  check(k().mr, 4, 2040, 6885, true);    // 8 * 2040 * 6885: still int32
  check(k().mr, 100, 2040, 6885, true);  // 200 products: the int32 sums wrap, as the transforms expect
  check(k().mr, 100, -2040, 6885, true);
}

INSTANTIATE_TEST_SUITE_P(Registry, QGemmKernelTest, ::testing::ValuesIn(all(qgemm_kernels())),
                         kernel_name<QGemmKernel>);

struct WinoOutputCall {
  size_t nd = 3, nc = 4;
  uint32_t valid = 0xFF;
  bool adjacent = true;       // output pairs along the innermost dimension adjacent in the plane
  int64_t m_range = 1 << 22;  // points drawn from [-m_range, m_range] (full int32 when larger)
  bool relu = false;
  int32_t zp = 100;
  float bias_shift = 0;
};

class WinoOutputKernelTest : public ::testing::TestWithParam<const WinoOutputKernel*> {
 protected:
  const WinoOutputKernel& k() const { return *GetParam(); }
  std::vector<uint8_t> check(const WinoOutputCall& t) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (t.nd * 1009 + t.nc * 31 + t.valid * 7 + t.adjacent));
    const size_t points = size_t{1} << (2 * t.nd), outputs = size_t{1} << t.nd;
    const size_t slots = (t.nc + k().cr - 1) / k().cr * k().cr + 3, m_stride = slots;
    std::vector<int32_t> m(points * m_stride);
    const int64_t lo = std::max<int64_t>(-t.m_range, INT32_MIN), hi = std::min<int64_t>(t.m_range, INT32_MAX);
    std::uniform_int_distribution<int64_t> mv(lo, hi);
    for (auto& x : m) x = static_cast<int32_t>(mv(g));
    // Outputs: the innermost dimension's pairs adjacent (W) or a row apart.
    std::vector<ptrdiff_t> offsets(outputs);
    const ptrdiff_t inner = t.adjacent ? 1 : 3;
    for (size_t o = 0; o < outputs; ++o) {
      ptrdiff_t off = 0, stride = inner;
      for (size_t kk = t.nd; kk-- > 0;) {
        off += static_cast<ptrdiff_t>((o >> (t.nd - 1 - kk)) & 1) * stride;
        stride *= 7;
      }
      offsets[o] = off;
    }
    const size_t c_stride = 7 * 7 * 7 * 3;
    std::vector<uint8_t> first;
    for (const RequantKind kind : kRequantKinds) {
      const Requant rq(kind, slots + 8, g, t.zp, t.relu, 1.0f, t.bias_shift, 500.f, 0.0001f, 0.002f);
      std::vector<uint8_t> out((t.nc + 1) * c_stride, 0xEE);
      k().fn(t.nd, t.nc, m.data(), m_stride, out.data(), c_stride, offsets.data(), t.valid, &rq.params);
      for (size_t j = 0; j <= t.nc; ++j) {
        for (size_t o = 0; o < outputs; ++o) {
          const uint8_t got = out[j * c_stride + static_cast<size_t>(offsets[o])];
          if (j == t.nc || !(t.valid >> o & 1)) {
            EXPECT_EQ(got, 0xEE) << k().name << " stored output " << o << " channel " << j << " (nc " << t.nc
                                 << ", valid " << t.valid << ")";
            continue;
          }
          const int32_t acc = ref::winograd_output_acc(t.nd, m.data() + j, m_stride, o);
          EXPECT_EQ(got, rq.want(acc, j)) << k().name << " nd " << t.nd << " output " << o << " channel " << j
                                          << " acc " << acc << " " << rq.describe(j) << " seed " << seed;
        }
      }
      if (first.empty()) first = out;
    }
    return first;
  }
};

TEST_P(WinoOutputKernelTest, nd1) { check({1, k().cr, 0x3}); }
TEST_P(WinoOutputKernelTest, nd2) { check({2, k().cr, 0xF}); }
TEST_P(WinoOutputKernelTest, nd3) { check({3, k().cr, 0xFF}); }
TEST_P(WinoOutputKernelTest, nc_lt_cr) {
  for (size_t nc = 1; nc < k().cr; ++nc) check({3, nc, 0xFF});
}
TEST_P(WinoOutputKernelTest, nc_gt_cr) {
  for (size_t nc : {k().cr + 1, 2 * k().cr, 2 * k().cr + 3, 16 * k().cr + 1}) check({3, nc, 0xFF});
}
TEST_P(WinoOutputKernelTest, partial_tiles) {
  for (size_t nd = 1; nd <= 3; ++nd)
    for (uint32_t valid = 0; valid < (1u << (1u << nd)); ++valid) check({nd, k().cr + 1, valid});
}
TEST_P(WinoOutputKernelTest, strided_outputs) {
  for (size_t nd = 1; nd <= 3; ++nd) check({nd, 2 * k().cr, (1u << (1u << nd)) - 1, false});
}
TEST_P(WinoOutputKernelTest, wraparound) {  // full-range int32 points: the transform's sums wrap
  for (size_t nd = 1; nd <= 3; ++nd) check({nd, 2 * k().cr, (1u << (1u << nd)) - 1, true, int64_t{1} << 40});
}
TEST_P(WinoOutputKernelTest, qmin) {
  WinoOutputCall t{3, k().cr, 0xFF};
  t.bias_shift = -1e12f;
  EXPECT_EQ(check(t)[0], 0);
}
TEST_P(WinoOutputKernelTest, qmax) {
  WinoOutputCall t{3, k().cr, 0xFF};
  t.bias_shift = 1e12f;
  EXPECT_EQ(check(t)[0], 255);
}
TEST_P(WinoOutputKernelTest, relu_floor) {
  WinoOutputCall t{3, k().cr, 0xFF};
  t.relu = true;
  t.zp = 77;
  t.bias_shift = -1e12f;
  EXPECT_EQ(check(t)[0], 77);
}

INSTANTIATE_TEST_SUITE_P(Registry, WinoOutputKernelTest, ::testing::ValuesIn(all(wino_output_kernels())),
                         kernel_name<WinoOutputKernel>);

// ----------------------------------------------------------------- to_channels_last
class ToChannelsLastKernelTest : public ::testing::TestWithParam<const ToChannelsLastKernel*> {
 protected:
  // One row of `channels` x `width` random bytes (rows `x_stride` apart) into
  // `slots`-wide positions; equal to the reference, and the slots past
  // `channels` keep their sentinel.
  void check(size_t channels, size_t width, size_t slots, int32_t zero_point) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (channels * 1000003 + width * 131 + slots));
    const size_t x_stride = width + 5;
    std::vector<uint8_t> x(channels * x_stride);
    for (auto& v : x) v = static_cast<uint8_t>(g() & 255);
    std::vector<int16_t> got(width * slots, int16_t{0x5a5a}), want(width * slots, int16_t{0x5a5a});
    GetParam()->fn(channels, width, x.data(), x_stride, zero_point, got.data(), slots);
    ref::to_channels_last(channels, width, x.data(), x_stride, zero_point, want.data(), slots);
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << GetParam()->name << " channels " << channels << " width " << width << " slots "
                                 << slots << " zp " << zero_point << " index " << i << " seed " << seed;
    }
  }
};

TEST_P(ToChannelsLastKernelTest, c_lt_block) {
  for (size_t c = 1; c < 8; ++c) check(c, 9, c, 128);
}
TEST_P(ToChannelsLastKernelTest, c_eq_block) { check(8, 16, 8, 100); }
TEST_P(ToChannelsLastKernelTest, c_gt_block) {
  for (size_t c : {9, 15, 16, 17, 64}) check(c, 16, c, 7);
}
TEST_P(ToChannelsLastKernelTest, w_lt_block) {
  for (size_t w = 1; w < 8; ++w) check(16, w, 16, 128);
}
TEST_P(ToChannelsLastKernelTest, w_eq_block) { check(16, 8, 16, 0); }
TEST_P(ToChannelsLastKernelTest, w_gt_block) {
  for (size_t w : {9, 15, 17, 28, 33}) check(24, w, 24, 255);
}
TEST_P(ToChannelsLastKernelTest, slots_gt_channels) {
  for (size_t c : {3, 8, 13}) check(c, 11, c + 5, 90);
}
TEST_P(ToChannelsLastKernelTest, zero_points) {
  for (int32_t zp : {0, 1, 127, 128, 254, 255}) check(17, 19, 17, zp);
}

INSTANTIATE_TEST_SUITE_P(Registry, ToChannelsLastKernelTest, ::testing::ValuesIn(all(to_channels_last_kernels())),
                         kernel_name<ToChannelsLastKernel>);

// ------------------------------------------------------------------- fconv

class FConvKernelTest : public ::testing::TestWithParam<const FConvKernel*> {
 protected:
  const FConvKernel& k() const { return *GetParam(); }
  void check(size_t mr, size_t nc, size_t segs, size_t seg_len, bool relu) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (mr * 97 + nc * 13 + segs * 7 + seg_len));
    std::normal_distribution<float> nd(0.f, 1.f);
    const size_t seg_stride = seg_len + 2;
    std::vector<std::vector<float>> a(mr, std::vector<float>(segs * seg_stride));
    for (auto& row : a)
      for (auto& v : row) v = nd(g);
    std::vector<ptrdiff_t> offsets(segs);
    for (size_t s = 0; s < segs; ++s) offsets[s] = static_cast<ptrdiff_t>(s * seg_stride);
    std::vector<float> w(segs * seg_len * k().nr), bias(k().nr + 8);
    for (auto& v : w) v = nd(g);
    for (auto& v : bias) v = nd(g);
    std::vector<float> out(mr * k().nr + 4, 9.0f);
    std::vector<float*> c(mr);
    std::vector<const float*> ap(mr);
    for (size_t m = 0; m < mr; ++m) c[m] = out.data() + m, ap[m] = a[m].data();
    k().fn(mr, nc, segs, seg_len, ap.data(), offsets.data(), w.data(), bias.data(), c.data(), mr, relu);
    for (size_t m = 0; m < mr; ++m) {
      for (size_t j = 0; j < k().nr; ++j) {
        const float got = out[m + j * mr];
        if (j >= nc) {
          EXPECT_EQ(got, 9.0f) << k().name << " wrote past nc";
          continue;
        }
        float acc = bias[j];  // the reference's order: bias, then (segment, k)
        for (size_t s = 0; s < segs; ++s)
          for (size_t idx = 0; idx < seg_len; ++idx) {
            const float product = a[m][offsets[s] + idx] * w[(s * seg_len + idx) * k().nr + j];
            acc = acc + product;
          }
        if (relu && acc < 0.0f) acc = 0.0f;
        EXPECT_EQ(std::memcmp(&got, &acc, 4), 0) << k().name << " pixel " << m << " channel " << j << " seed " << seed;
      }
    }
  }
};

TEST_P(FConvKernelTest, m_eq_mr) { check(k().mr, k().nr, 2, 7, false); }
TEST_P(FConvKernelTest, m_lt_mr) {
  for (size_t mr = 1; mr < k().mr; ++mr) check(mr, k().nr, 2, 7, false);
}
TEST_P(FConvKernelTest, n_lt_nr) {
  for (size_t nc = 1; nc < k().nr; ++nc) check(k().mr, nc, 2, 5, false);
}
TEST_P(FConvKernelTest, segments) {
  for (size_t segs : {1, 3, 27}) check(k().mr, k().nr, segs, 4, false);
}
TEST_P(FConvKernelTest, relu) { check(k().mr, k().nr, 3, 5, true); }

INSTANTIATE_TEST_SUITE_P(Registry, FConvKernelTest, ::testing::ValuesIn(all(fconv_kernels())),
                         kernel_name<FConvKernel>);

// --------------------------------------------------------------- pool rows

// rows x (n + 16) random bytes (or all `fill`), each row at its own offset so
// that rows are not aligned alike; the kernel reads n of each.
struct RowsInput {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<const uint8_t*> rows;
  RowsInput(size_t n, size_t count, uint64_t seed, int fill) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    for (size_t r = 0; r < count; ++r) {
      storage.emplace_back(n + 16);
      for (auto& b : storage.back()) b = static_cast<uint8_t>(fill >= 0 ? fill : byte(g));
    }
    for (size_t r = 0; r < count; ++r) rows.push_back(storage[r].data() + r % 7);
  }
};

class RowMaxKernelTest : public ::testing::TestWithParam<const RowMaxKernel*> {
 protected:
  const RowMaxKernel& k() const { return *GetParam(); }
  void check(size_t n, size_t rows, int fill = -1) {
    const uint64_t seed = qwasm_test::test_seed() ^ (n * 131 + rows);
    RowsInput in(n, rows, seed, fill);
    std::vector<uint8_t> got(n + 4, 0xEE), want(n);
    k().fn(n, rows, in.rows.data(), got.data());
    ref::rowmax_qu8(n, rows, in.rows.data(), want.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], want[i]) << k().name << " n " << n << " rows " << rows << " element " << i << " seed " << seed;
    }
    for (size_t i = n; i < n + 4; ++i) ASSERT_EQ(got[i], 0xEE) << k().name << " wrote past n " << n;
  }
};

TEST_P(RowMaxKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check(n, 4);
}
TEST_P(RowMaxKernelTest, n_eq_block) { check(k().block, 4); }
TEST_P(RowMaxKernelTest, n_gt_block) { check(k().block + 1, 4); }
TEST_P(RowMaxKernelTest, n_many_blocks_tail) { check(5 * k().block + 3, 4); }
TEST_P(RowMaxKernelTest, rows) {
  for (size_t rows : {1, 2, 3, 8, 27, 258}) check(3 * k().block + 1, rows);
}
TEST_P(RowMaxKernelTest, saturated) { check(2 * k().block + 1, 9, 255); }

INSTANTIATE_TEST_SUITE_P(Registry, RowMaxKernelTest, ::testing::ValuesIn(all(rowmax_kernels())),
                         kernel_name<RowMaxKernel>);

class RowSumKernelTest : public ::testing::TestWithParam<const RowSumKernel*> {
 protected:
  const RowSumKernel& k() const { return *GetParam(); }
  void check(size_t n, size_t rows, int fill = -1) {
    const uint64_t seed = qwasm_test::test_seed() ^ (n * 131 + rows);
    RowsInput in(n, rows, seed, fill);
    std::vector<int32_t> got(n + 4, -7);
    std::vector<int64_t> want(n);
    k().fn(n, rows, in.rows.data(), got.data());
    ref::rowsum_qu8(n, rows, in.rows.data(), want.data());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], want[i]) << k().name << " n " << n << " rows " << rows << " element " << i << " seed " << seed;
    }
    for (size_t i = n; i < n + 4; ++i) ASSERT_EQ(got[i], -7) << k().name << " wrote past n " << n;
  }
};

TEST_P(RowSumKernelTest, n_lt_block) {
  for (size_t n = 1; n < k().block; ++n) check(n, 4);
}
TEST_P(RowSumKernelTest, n_eq_block) { check(k().block, 4); }
TEST_P(RowSumKernelTest, n_gt_block) { check(k().block + 1, 4); }
TEST_P(RowSumKernelTest, n_many_blocks_tail) { check(5 * k().block + 3, 4); }
TEST_P(RowSumKernelTest, rows) {
  for (size_t rows : {1, 2, 3, 8, 256, 257, 258, 600}) check(3 * k().block + 1, rows);
}
// All 255: the u16 lanes of a 257-row chunk end at exactly 65535, and the next chunk starts afresh.
TEST_P(RowSumKernelTest, saturated) {
  for (size_t rows : {257, 258, 515, 1000}) check(2 * k().block + 1, rows, 255);
}

INSTANTIATE_TEST_SUITE_P(Registry, RowSumKernelTest, ::testing::ValuesIn(all(rowsum_kernels())),
                         kernel_name<RowSumKernel>);

// ------------------------------------------------------------- the registry

TEST(Registry, EveryScalarKernelHasItsSimdTwinInTheWasmBuild) {
  size_t scalar = 0, simd = 0;
  for (const auto& k : qconv_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : quantize_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : dequantize_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : rowmax_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : rowsum_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : wino_input_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : qgemm_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : wino_output_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
#if QWASM_HAVE_WASMSIMD
  EXPECT_EQ(simd, scalar);
  EXPECT_EQ(best_isa(), Isa::kWasmSimd);
#else
  EXPECT_EQ(simd, 0u);
  EXPECT_EQ(best_isa(), Isa::kScalar);
#endif
}

TEST(Registry, TheDispatcherPicksTheFirstListedKernelOfTheIsa) {
  EXPECT_STREQ(find_qconv(Isa::kScalar)->name, "conv3d_qu8_qs8w_4x8c2_scalar");
  EXPECT_STREQ(find_rowmax(Isa::kScalar)->name, "rowmax_qu8_scalar");
  EXPECT_STREQ(find_rowsum(Isa::kScalar)->name, "rowsum_qu8_qs32_scalar");
#if QWASM_HAVE_WASMSIMD
  EXPECT_STREQ(find_rowmax(Isa::kWasmSimd)->name, "rowmax_qu8_wasmsimd");
  EXPECT_STREQ(find_rowsum(Isa::kWasmSimd)->name, "rowsum_qu8_qs32_wasmsimd");
#endif
#if QWASM_HAVE_WASMSIMD
  EXPECT_STREQ(find_qconv(Isa::kWasmSimd)->name, "conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16");
#else
  EXPECT_STREQ(find_qconv(Isa::kWasmSimd)->name, "conv3d_qu8_qs8w_4x8c2_scalar");  // falls back
#endif
  EXPECT_STREQ(find_quantize(Isa::kScalar, Storage::kS8, QuantizeMode::kFloatZeroPoint)->name,
               "quantize_fqp_f32_qs8_scalar");
}

}  // namespace
