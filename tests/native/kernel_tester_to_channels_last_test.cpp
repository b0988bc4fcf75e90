// The kernel tester, to_channels_last family: every kernel of
// to_channels_last.inc in this build, by name, against
// ref::to_channels_last with tolerance 0:
//   to_channels_last: c_lt_block, c_eq_block, c_gt_block, w_lt_block, w_eq_block,
//     w_gt_block, slots_gt_channels (padding slots untouched), zero_points 0..255.
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
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

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

}  // namespace
