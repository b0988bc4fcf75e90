// The kernel tester, pool_rows family: every kernel of pool_rows.inc in this
// build, by name, against tests/reference/pool_rows_ref.h with tolerance 0:
//   rowmax / rowsum: n_lt_block, n_eq_block, n_gt_block, n_many_blocks_tail,
//     rows (1 to past the SIMD sum's 257-row u16 chunk), saturated (all 255).
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
#include "kernels/pool_kernels.h"
#include "reference/pool_rows_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

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

}  // namespace
