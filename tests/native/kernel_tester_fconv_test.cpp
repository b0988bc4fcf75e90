// The kernel tester, fconv family: every float conv kernel of fconv.inc in this
// build, by name, against the naive sum in the reference's order, bit for bit:
//   fconv: m_eq_mr, m_lt_mr, n_lt_nr, segments, relu.
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
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

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

}  // namespace
