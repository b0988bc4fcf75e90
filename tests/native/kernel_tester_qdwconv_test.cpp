// The kernel tester, qdwconv family: every depthwise kernel of qdwconv.inc in
// this build, by name, with tolerance 0, under the three requantizations, in
// named cases that hit each remainder path of its tile (cr channels x mr
// pixels along W: runs of 1 to 3 * mr + 1 pixels, pixel steps of stride 1
// and 2 and an odd one, channels below, at and above cr):
//   kExact kernels, against the naive exact sum: channels_eq_cr,
//     valid_lt_channels, channels_gt_cr, taps, pixels, pixels_and_channels,
//     qmin, qmax, relu_floor, fused_bias_rounds_once,
//     fused_bias_double_rounding;
//   kSat16 kernels (FBGEMM's depthwise fast path), against
//     ref::fbgemm_depthwise_acc: channels_eq_cr, valid_lt_channels,
//     channels_gt_cr, taps (odd and even counts, 1 to 343), pixels,
//     pixels_and_channels, pairs_saturate
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
  // npix pixels along W, pixel m reading its taps at m * step values past
  // pixel 0's; outputs at out[ch * c_stride + m], c_stride = npix + 3 (the
  // bytes between must stay untouched).
  std::vector<uint8_t> check(size_t channels, size_t valid, size_t ntaps, bool relu = false, float shift = 0,
                             int32_t zp = 90, size_t npix = 1, size_t step = 0) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (channels * 31 + valid * 7 + ntaps + npix * 4099 + step * 65537));
    std::uniform_int_distribution<int> v(-255, 255);
    if (step == 0) step = channels + 3;
    // The kernel's layout: taps in groups of kr ([group][channel][kr]), the
    // last group padded with taps that read tap 0 with zero weights.
    const size_t group = std::max<size_t>(k().kr, 1);
    const size_t padded = (ntaps + group - 1) / group * group;
    std::vector<ptrdiff_t> taps(padded, 0);
    for (size_t t = 0; t < ntaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * (channels + 5));
    std::vector<int16_t> a(ntaps * (channels + 5) + channels + (npix - 1) * step), w(ntaps * channels),
        packed(padded * channels, 0);
    for (auto& x : a) x = static_cast<int16_t>(v(g));
    for (auto& x : w) x = static_cast<int16_t>(v(g));  // [tap][channel], what the reference reads
    for (size_t t = 0; t < ntaps; ++t)
      for (size_t ch = 0; ch < channels; ++ch)
        packed[((t / group) * channels + ch) * group + t % group] = w[t * channels + ch];
    std::vector<uint8_t> first;
    const size_t c_stride = npix + 3;
    for (const RequantKind kind : kRequantKinds) {
      const Requant rq(kind, channels + 8, g, zp, relu, 1.0f, shift, 100.f, 0.0005f, 0.004f);
      std::vector<uint8_t> out(channels * c_stride + 4, 0xEE);
      k().fn(channels, valid, npix, padded, a.data(), static_cast<ptrdiff_t>(step), taps.data(), packed.data(),
             out.data(), c_stride, &rq.params);
      for (size_t ch = 0; ch < channels; ++ch) {
        for (size_t m = 0; m < c_stride; ++m) {
          const uint8_t got = out[ch * c_stride + m];
          if (ch >= valid || m >= npix) {
            EXPECT_EQ(got, 0xEE) << k().name << " wrote channel " << ch << " pixel " << m << " past valid=" << valid
                                 << " npix=" << npix;
            continue;
          }
          int32_t acc = 0;
          for (size_t t = 0; t < ntaps; ++t) acc += int32_t{a[m * step + taps[t] + ch]} * w[t * channels + ch];
          EXPECT_EQ(got, rq.want(acc, ch))
              << k().name << " channel " << ch << " pixel " << m << " of " << npix << " step " << step << " ntaps "
              << ntaps << " " << rq.describe(ch) << " seed " << seed;
        }
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
// Runs of pixels: below, at and above mr, and whole groups plus each remainder.
TEST_P(QDwConvKernelTest, pixels) {
  for (size_t npix = 1; npix <= 3 * k().mr + 1; ++npix) check(k().cr, k().cr, 27, false, 0, 90, npix);
  for (size_t step : {k().cr, 2 * k().cr, 2 * k().cr + 6}) check(k().cr, k().cr, 9, false, 0, 90, 2 * k().mr + 3, step);
}
TEST_P(QDwConvKernelTest, pixels_and_channels) {
  for (size_t channels : {k().cr, 2 * k().cr, 7 * k().cr})
    for (size_t valid : {channels, channels - 1, channels - k().cr + 1})
      for (size_t npix : {k().mr - 1, k().mr, k().mr + 1, 5 * k().mr + 2})
        for (size_t ntaps : {3, 27}) check(channels, valid, ntaps, false, 0, 90, npix, 2 * channels);
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
  k().fn(channels, channels, 1, group, a.data(), 0, taps.data(), packed.data(), out.data(), 1, &fc.params);
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
  k().fn(channels, channels, 1, 2, a.data(), 0, taps, packed.data(), out.data(), 1, &dc.params);
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
// [w_lo, w_hi]; w_zp != 0 gives every channel a zero point (asymmetric);
// npix pixels along W, pixel m reading its taps `step` values (0: channels +
// 3) after pixel m - 1's.
struct Sat16Call {
  size_t channels = 8, valid = 8, ntaps = 9, npix = 1, step = 0;
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
                              static_cast<size_t>(c.w_zp + 128) * 17 + c.npix * 4099 + c.step * 65537));
    std::uniform_int_distribution<int> av(c.a_lo, 255), wv(c.w_lo, c.w_hi), zv(-9, 9);
    const size_t group = std::max<size_t>(k().kr, 1);
    const size_t padded = (c.ntaps + group - 1) / group * group;
    const size_t step = c.step ? c.step : c.channels + 3, npix = c.npix;
    std::vector<ptrdiff_t> taps(padded, 0);
    for (size_t t = 0; t < c.ntaps; ++t) taps[t] = static_cast<ptrdiff_t>(t * (c.channels + 5));
    std::vector<int16_t> a(c.ntaps * (c.channels + 5) + c.channels + (npix - 1) * step), packed(padded * c.channels, 0);
    std::vector<int32_t> w(c.ntaps * c.channels);  // [tap][channel], raw
    for (auto& x : a) x = static_cast<int16_t>(av(g));
    for (auto& x : w) x = wv(g);
    for (size_t t = 0; t < c.ntaps; ++t)
      for (size_t ch = 0; ch < c.channels; ++ch)
        packed[((t / group) * c.channels + ch) * group + t % group] = static_cast<int16_t>(w[t * c.channels + ch]);
    // Per channel: its zero point, a_zp * sum(w - w_zp); per pixel and
    // channel the oracle's accumulator.
    std::vector<int32_t> zps(c.channels + 8, 0), offsets(c.channels + 8, 0), want_acc(npix * c.channels);
    for (size_t ch = 0; ch < c.channels; ++ch) {
      zps[ch] = c.w_zp == 0 ? 0 : c.w_zp + zv(g);
      for (size_t t = 0; t < c.ntaps; ++t) offsets[ch] += c.a_zp * (w[t * c.channels + ch] - zps[ch]);
    }
    Sat16Seen seen;
    for (size_t m = 0; m < npix; ++m) {
      for (size_t ch = 0; ch < c.channels; ++ch) {
        std::vector<int32_t> xs(c.ntaps), ws(c.ntaps);
        int64_t exact = 0, row_sum = 0;
        bool clamped = false;
        for (size_t t = 0; t < c.ntaps; ++t) {
          xs[t] = a[m * step + taps[t] + ch], ws[t] = w[t * c.channels + ch];
          exact += int64_t{xs[t] - c.a_zp} * (ws[t] - zps[ch]);
          row_sum += xs[t];
          if (t % 2 == 1) {
            const int64_t pair = int64_t{xs[t - 1]} * ws[t - 1] + int64_t{xs[t]} * ws[t];
            clamped = clamped || pair > 32767 || pair < -32768;
          }
        }
        const bool row_sum_clamped = zps[ch] != 0 && row_sum > 32767;
        seen.clamped = seen.clamped || clamped;
        seen.row_sum_clamped = seen.row_sum_clamped || row_sum_clamped;
        want_acc[m * c.channels + ch] = ref::fbgemm_depthwise_acc(c.ntaps, xs.data(), ws.data(), c.a_zp, zps[ch]);
        // Without clamping, the oracle is the exact sum (its pairs and row sum in range).
        if (!clamped && !row_sum_clamped) {
          EXPECT_EQ(want_acc[m * c.channels + ch], exact) << "channel " << ch << " pixel " << m;
        }
      }
    }
    const size_t c_stride = npix + 3;
    for (const RequantKind kind : kRequantKinds) {
      Requant rq(kind, c.channels + 8, g, c.zp, c.relu, 1.0f, c.shift, 100.f, 0.0005f, 0.004f);
      rq.params.acc_offset = offsets.data();
      rq.params.weight_zero_point = c.w_zp == 0 ? nullptr : zps.data();
      std::vector<uint8_t> out(c.channels * c_stride + 4, 0xEE);
      k().fn(c.channels, c.valid, npix, c.ntaps, a.data(), static_cast<ptrdiff_t>(step), taps.data(), packed.data(),
             out.data(), c_stride, &rq.params);
      for (size_t ch = 0; ch < c.channels; ++ch) {
        for (size_t m = 0; m < c_stride; ++m) {
          const uint8_t got = out[ch * c_stride + m];
          if (ch >= c.valid || m >= npix) {
            EXPECT_EQ(got, 0xEE) << k().name << " wrote channel " << ch << " pixel " << m << " past valid=" << c.valid
                                 << " npix=" << npix;
            continue;
          }
          const int32_t acc = want_acc[m * c.channels + ch];
          EXPECT_EQ(got, rq.want(acc, ch))
              << k().name << " channel " << ch << " pixel " << m << " of " << npix << " step " << step << " ntaps "
              << c.ntaps << " acc " << acc << " a_zp " << c.a_zp << " w_zp " << zps[ch] << " " << rq.describe(ch)
              << " seed " << seed;
        }
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
// Runs of pixels: below, at and above mr, and whole groups plus each
// remainder; symmetric and asymmetric weights (the row sums per pixel).
TEST_P(QDwConvSat16KernelTest, pixels) {
  for (int32_t w_zp : {0, 7})
    for (size_t npix = 1; npix <= 3 * k().mr + 1; ++npix) {
      Sat16Call c{k().cr, k().cr, 27, npix};
      c.w_zp = w_zp;
      check(c);
    }
  for (size_t step : {k().cr, 2 * k().cr, 2 * k().cr + 6}) check({k().cr, k().cr, 9, 2 * k().mr + 3, step});
}
TEST_P(QDwConvSat16KernelTest, pixels_and_channels) {
  for (size_t channels : {k().cr, 2 * k().cr, 7 * k().cr})
    for (size_t valid : {channels, channels - 1, channels - k().cr + 1})
      for (size_t npix : {k().mr - 1, k().mr, k().mr + 1, 5 * k().mr + 2})
        for (size_t ntaps : {3, 27}) check({channels, valid, ntaps, npix, 2 * channels});
}
TEST_P(QDwConvSat16KernelTest, pairs_saturate) {
  // Activations in [200, 255] and weights of one sign: most pairs pass +-32767.
  for (size_t ntaps : {2, 9, 27}) {
    Sat16Call c{2 * k().cr, 2 * k().cr, ntaps, k().mr + 1};
    c.a_lo = 200, c.w_lo = 100, c.w_hi = 127;
    EXPECT_TRUE(check(c).clamped) << k().name << " ntaps " << ntaps;
    c.w_lo = -128, c.w_hi = -100;
    EXPECT_TRUE(check(c).clamped) << k().name << " ntaps " << ntaps;
  }
}
TEST_P(QDwConvSat16KernelTest, row_offset_saturates) {
  for (size_t ntaps : {147, 343}) {
    Sat16Call c{k().cr, k().cr, ntaps, k().mr + 1};
    c.a_lo = 240, c.a_zp = 250, c.w_zp = 20;
    EXPECT_TRUE(check(c).row_sum_clamped) << k().name << " ntaps " << ntaps;
  }
}
TEST_P(QDwConvSat16KernelTest, symmetric_and_asymmetric_weights) {
  for (int32_t w_zp : {0, -30, 25})
    for (int32_t a_zp : {0, 1, 127, 128, 255}) {
      Sat16Call c{2 * k().cr, 2 * k().cr - 3, 9, k().mr + 2};
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
  k().fn(channels, channels, 1, 1, a.data(), 0, taps.data(), packed.data(), out.data(), 1, &params);
  for (size_t ch = 0; ch < channels; ++ch) EXPECT_EQ(out[ch], fc.want(ch)) << k().name << " channel " << ch;
}

INSTANTIATE_TEST_SUITE_P(Registry, QDwConvSat16KernelTest, ::testing::ValuesIn(of_mode(DwConvMode::kSat16)),
                         kernel_name<QDwConvKernel>);

}  // namespace
