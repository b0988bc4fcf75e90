// The kernel tester, qconv family: every kernel of qconv.inc in this build, by
// name, against the naive reference with tolerance 0, under the three
// requantizations (FBGEMM's, its fused bias, oneDNN's), in named cases that
// hit each remainder path of its tile (XNNPACK's tester shape):
//   qconv: m_eq_mr, m_lt_mr, n_eq_nr, n_lt_nr, k_eq_kr, k_lt_kr, k_gt_kr,
//     k_div_kr, segments, qmin, qmax, relu_floor, c_stride, fused_bias_rounds_once,
//     fused_bias_double_rounding;
// and kernels::fma_f32 (the fused bias's exact fma) against the reference's.
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
#include "kernels/conv_kernels.h"
#include "kernels/fma_f32.h"
#include "reference/requantize_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

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

}  // namespace
