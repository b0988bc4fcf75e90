// The kernel tester, qdwconv family: every depthwise kernel of qdwconv.inc in
// this build, by name, with tolerance 0, under the three requantizations, in
// named cases that hit each remainder path of its tile:
//   kExact kernels, against the naive exact sum: channels_eq_cr,
//     valid_lt_channels, channels_gt_cr, taps, qmin, qmax, relu_floor,
//     fused_bias_rounds_once, fused_bias_double_rounding;
//   kSat16 kernels (FBGEMM's depthwise fast path), against
//     ref::fbgemm_depthwise_acc: channels_eq_cr, valid_lt_channels,
//     channels_gt_cr, taps (odd and even counts, 1 to 343), pairs_saturate
//     (activations and weights that drive pair sums past +-32767: the clamped
//     and the exact sums differ), row_offset_saturates (asymmetric weights,
//     more than 128 taps of large activations: the row sum past 32767),
//     symmetric_and_asymmetric_weights, qmin, qmax, relu_floor,
//     fused_bias_rounds_once.
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
#include "reference/conv3d_ref.h"
#include "reference/requantize_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

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

std::vector<const QDwConvKernel*> of_mode(DwConvMode mode) {
  std::vector<const QDwConvKernel*> v;
  for (const QDwConvKernel* k : all(qdwconv_kernels()))
    if (k->mode == mode) v.push_back(k);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Registry, QDwConvKernelTest, ::testing::ValuesIn(of_mode(DwConvMode::kExact)),
                         kernel_name<QDwConvKernel>);

// --------------------------------------------------------- qdwconv kSat16

// One call of a kSat16 depthwise kernel: `channels` (of which `valid` are
// stored), ntaps taps of raw activations in [a_lo, 255] and raw weights in
// [w_lo, w_hi]; w_zp != 0 gives every channel a zero point (asymmetric).
struct Sat16Call {
  size_t channels = 8, valid = 8, ntaps = 9;
  int a_lo = 0, w_lo = -128, w_hi = 127;
  int32_t a_zp = 130, w_zp = 0;
  bool relu = false;
  float shift = 0;
  int32_t zp = 90;
};

// What a call saw: whether some pair sum was clamped, whether some row sum
// passed 32767, and the outputs of the first requantization.
struct Sat16Seen {
  bool clamped = false, row_sum_clamped = false;
  std::vector<uint8_t> out;
};

class QDwConvSat16KernelTest : public ::testing::TestWithParam<const QDwConvKernel*> {
 protected:
  const QDwConvKernel& k() const { return *GetParam(); }
  Sat16Seen check(const Sat16Call& c) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (c.channels * 31 + c.valid * 7 + c.ntaps * 1009 + static_cast<size_t>(c.a_lo) * 13 +
                              static_cast<size_t>(c.w_zp + 128) * 17));
    std::uniform_int_distribution<int> av(c.a_lo, 255), wv(c.w_lo, c.w_hi), zv(-9, 9);
    const size_t group = std::max<size_t>(k().kr, 1);
    const size_t padded = (c.ntaps + group - 1) / group * group;
    std::vector<ptrdiff_t> taps(padded, 0);
    for (size_t t = 0; t < c.ntaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * (c.channels + 5));
    std::vector<int16_t> a(c.ntaps * (c.channels + 5) + c.channels), packed(padded * c.channels, 0);
    std::vector<int32_t> w(c.ntaps * c.channels);  // [tap][channel], raw
    for (auto& x : a) x = static_cast<int16_t>(av(g));
    for (auto& x : w) x = wv(g);
    for (size_t t = 0; t < c.ntaps; ++t)
      for (size_t ch = 0; ch < c.channels; ++ch)
        packed[((t / group) * c.channels + ch) * group + t % group] = static_cast<int16_t>(w[t * c.channels + ch]);
    // Per channel: its zero point, a_zp * sum(w - w_zp), the oracle's accumulator.
    std::vector<int32_t> zps(c.channels + 8, 0), offsets(c.channels + 8, 0), want_acc(c.channels);
    Sat16Seen seen;
    for (size_t ch = 0; ch < c.channels; ++ch) {
      zps[ch] = c.w_zp == 0 ? 0 : c.w_zp + zv(g);
      std::vector<int32_t> xs(c.ntaps), ws(c.ntaps);
      int64_t exact = 0, row_sum = 0;
      for (size_t t = 0; t < c.ntaps; ++t) {
        xs[t] = a[taps[t] + ch], ws[t] = w[t * c.channels + ch];
        offsets[ch] += c.a_zp * (ws[t] - zps[ch]);
        exact += int64_t{xs[t] - c.a_zp} * (ws[t] - zps[ch]);
        row_sum += xs[t];
        if (t % 2 == 1) {
          const int64_t pair = int64_t{xs[t - 1]} * ws[t - 1] + int64_t{xs[t]} * ws[t];
          seen.clamped = seen.clamped || pair > 32767 || pair < -32768;
        }
      }
      seen.row_sum_clamped = seen.row_sum_clamped || (zps[ch] != 0 && row_sum > 32767);
      want_acc[ch] = ref::fbgemm_depthwise_acc(c.ntaps, xs.data(), ws.data(), c.a_zp, zps[ch]);
      // Without clamping, the oracle is the exact sum (its pairs and row sum in range).
      if (!seen.clamped && !seen.row_sum_clamped) {
        EXPECT_EQ(want_acc[ch], exact) << "channel " << ch;
      }
    }
    for (const RequantKind kind : kRequantKinds) {
      Requant rq(kind, c.channels + 8, g, c.zp, c.relu, 1.0f, c.shift, 100.f, 0.0005f, 0.004f);
      rq.params.acc_offset = offsets.data();
      rq.params.weight_zero_point = c.w_zp == 0 ? nullptr : zps.data();
      const size_t stride = 2;
      std::vector<uint8_t> out(c.channels * stride + 4, 0xEE);
      k().fn(c.channels, c.valid, c.ntaps, a.data(), taps.data(), packed.data(), out.data(), stride, &rq.params);
      for (size_t ch = 0; ch < c.channels; ++ch) {
        if (ch >= c.valid) {
          EXPECT_EQ(out[ch * stride], 0xEE) << k().name << " wrote channel " << ch << " past valid=" << c.valid;
          continue;
        }
        EXPECT_EQ(out[ch * stride], rq.want(want_acc[ch], ch))
            << k().name << " channel " << ch << " ntaps " << c.ntaps << " acc " << want_acc[ch] << " a_zp " << c.a_zp
            << " w_zp " << zps[ch] << " " << rq.describe(ch) << " seed " << seed;
      }
      if (seen.out.empty()) seen.out = out;
    }
    return seen;
  }
};

TEST_P(QDwConvSat16KernelTest, channels_eq_cr) { check({k().cr, k().cr, 9}); }
TEST_P(QDwConvSat16KernelTest, valid_lt_channels) {
  for (size_t valid = 1; valid < k().cr; ++valid) check({k().cr, valid, 9});
}
TEST_P(QDwConvSat16KernelTest, channels_gt_cr) {
  check({3 * k().cr, 3 * k().cr, 27});
  check({3 * k().cr, 2 * k().cr + 1, 25});
}
TEST_P(QDwConvSat16KernelTest, taps) {  // odd counts end on a lone tap
  for (size_t ntaps : {1, 2, 3, 8, 9, 25, 27, 45, 49, 75, 125, 147, 343}) check({k().cr, k().cr, ntaps});
}
TEST_P(QDwConvSat16KernelTest, pairs_saturate) {
  // Activations in [200, 255] and weights of one sign: most pairs pass +-32767.
  for (size_t ntaps : {2, 9, 27}) {
    Sat16Call c{2 * k().cr, 2 * k().cr, ntaps};
    c.a_lo = 200, c.w_lo = 100, c.w_hi = 127;
    EXPECT_TRUE(check(c).clamped) << k().name << " ntaps " << ntaps;
    c.w_lo = -128, c.w_hi = -100;
    EXPECT_TRUE(check(c).clamped) << k().name << " ntaps " << ntaps;
  }
}
TEST_P(QDwConvSat16KernelTest, row_offset_saturates) {
  for (size_t ntaps : {147, 343}) {
    Sat16Call c{k().cr, k().cr, ntaps};
    c.a_lo = 240, c.a_zp = 250, c.w_zp = 20;
    EXPECT_TRUE(check(c).row_sum_clamped) << k().name << " ntaps " << ntaps;
  }
}
TEST_P(QDwConvSat16KernelTest, symmetric_and_asymmetric_weights) {
  for (int32_t w_zp : {0, -30, 25})
    for (int32_t a_zp : {0, 1, 127, 128, 255}) {
      Sat16Call c{2 * k().cr, 2 * k().cr - 3, 9};
      c.w_zp = w_zp, c.a_zp = a_zp;
      check(c);
    }
}
TEST_P(QDwConvSat16KernelTest, qmin) {
  Sat16Call c{k().cr, k().cr, 9};
  c.shift = -1e8f;
  EXPECT_EQ(check(c).out[0], 0);
}
TEST_P(QDwConvSat16KernelTest, qmax) {
  Sat16Call c{k().cr, k().cr, 9};
  c.shift = 1e8f;
  EXPECT_EQ(check(c).out[0], 255);
}
TEST_P(QDwConvSat16KernelTest, relu_floor) {
  Sat16Call c{k().cr, k().cr, 9};
  c.relu = true, c.shift = -1e8f, c.zp = 61;
  EXPECT_EQ(check(c).out[0], 61);
}

// One tap of value 1 (the lone-tap path): the accumulators are its weights
// (up to 30000, raw), no offset.
TEST_P(QDwConvSat16KernelTest, fused_bias_rounds_once) {
  const size_t channels = 2 * k().cr, group = std::max<size_t>(k().kr, 1);
  const FusedBiasCase fc(channels);
  std::vector<int16_t> a(channels, 1), packed(group * channels, 0);
  for (size_t ch = 0; ch < channels; ++ch) packed[ch * group] = static_cast<int16_t>(fc.acc[ch]);
  const std::vector<ptrdiff_t> taps(group, 0);
  const std::vector<int32_t> zero(channels + 8, 0);
  kernels::ConvRequantParams params = fc.params;
  params.acc_offset = zero.data();
  std::vector<uint8_t> out(channels, 0xEE);
  k().fn(channels, channels, 1, a.data(), taps.data(), packed.data(), out.data(), 1, &params);
  for (size_t ch = 0; ch < channels; ++ch) EXPECT_EQ(out[ch], fc.want(ch)) << k().name << " channel " << ch;
}

INSTANTIATE_TEST_SUITE_P(Registry, QDwConvSat16KernelTest, ::testing::ValuesIn(of_mode(DwConvMode::kSat16)),
                         kernel_name<QDwConvKernel>);

}  // namespace
