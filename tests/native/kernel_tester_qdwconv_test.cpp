// The kernel tester, qdwconv family: every depthwise kernel of qdwconv.inc in
// this build, by name, against the naive sum with tolerance 0, under the three
// requantizations, in named cases that hit each remainder path of its tile:
//   qdwconv: channels_eq_cr, valid_lt_channels, channels_gt_cr, taps, qmin, qmax,
//     relu_floor, fused_bias_rounds_once, fused_bias_double_rounding.
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

INSTANTIATE_TEST_SUITE_P(Registry, QDwConvKernelTest, ::testing::ValuesIn(all(qdwconv_kernels())),
                         kernel_name<QDwConvKernel>);

}  // namespace
