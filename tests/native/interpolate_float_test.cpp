// The generic linear interpolation kernel (qwasm/interpolate_float.h) against
// torch 2.15's F.interpolate (one thread; shapes with C <= 3, where PyTorch
// takes the generic kernel): inputs from a formula both sides compute in
// float32, the expected value the FNV-1a hash of PyTorch's output bits
// (printed by tests/native/expected_from_torch.py). The
// axes' tables are built here as web/src/nn/interpolate.mjs linearAxis builds
// them (UpSample.h, unfused). Also the checks made before allocating.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "quint8_test_util.h"
#include "qwasm/interpolate_float.h"

using namespace qwasm;
using qwasm_test::expect_error;
namespace tc = qwasm::torch_cpu;

namespace {

std::vector<float> inputs(int64_t n, int64_t salt) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919 + salt) % 1000 - 500) / 37.0f;
  return v;
}

uint64_t fnv(const Buffer<float>& y) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < y.size(); ++i) {
    uint32_t u = 0;
    std::memcpy(&u, &y[i], 4);
    h ^= u;
    h *= 0x100000001b3ull;
  }
  return h;
}

// One axis's table (compute_source_index_and_lambda in float32; scale <= 0: none given).
struct Table {
  std::vector<int32_t> i0, i1;
  std::vector<float> l0, l1;
  tc::LinearAxis axis() const { return {i0.data(), i1.data(), l0.data(), l1.data()}; }
};

Table table(int64_t in, int64_t out, double scale, bool align_corners) {
  Table t;
  t.i0.resize(out);
  t.i1.resize(out);
  t.l0.resize(out);
  t.l1.resize(out);
  float s = 0;
  if (align_corners)
    s = out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  else
    s = scale > 0 ? static_cast<float>(1 / scale) : static_cast<float>(in) / static_cast<float>(out);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) {
      t.i0[o] = t.i1[o] = static_cast<int32_t>(o);
      t.l0[o] = 1;
      t.l1[o] = 0;
      continue;
    }
    float real = align_corners ? s * static_cast<float>(o) : s * static_cast<float>(o + 0.5) - 0.5f;
    if (real < 0) real = 0;
    const int64_t i = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const float w1 = std::min(std::max(real - static_cast<float>(i), 0.0f), 1.0f);
    t.i0[o] = static_cast<int32_t>(i);
    t.i1[o] = static_cast<int32_t>(i < in - 1 ? i + 1 : i);
    t.l1[o] = w1;
    t.l0[o] = 1 - w1;
  }
  return t;
}

uint64_t run(const Shape& shape, const Shape& out, double scale, bool align_corners, int64_t salt) {
  std::vector<Table> tables;
  std::vector<tc::LinearAxis> axes;
  Shape in(shape.begin() + 2, shape.end());
  for (size_t a = 0; a < out.size(); ++a) tables.push_back(table(in[a], out[a], scale, align_corners));
  for (const Table& t : tables) axes.push_back(t.axis());
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const std::vector<float> x = inputs(n, salt);
  Buffer<float> y;
  const Status s = tc::linear_generic(x.data(), shape[0] * shape[1], in, out, axes.data(), &y);
  EXPECT_TRUE(s.ok()) << s.message;
  return fnv(y);
}

}  // namespace

TEST(LinearInterpolateFloat, EqualsPyTorchTrilinearBilinearLinear) {
  EXPECT_EQ(run({1, 2, 3, 4, 5}, {6, 8, 9}, 0, false, 3), 0xa36cf221c725f6cull);
  EXPECT_EQ(run({2, 3, 4, 4, 4}, {8, 8, 8}, 2.0, false, 3), 0x53841c0da6c38b2aull);
  EXPECT_EQ(run({1, 3, 5, 7}, {9, 4}, 0, true, 3), 0x5e668ca5847d2f83ull);
  EXPECT_EQ(run({2, 2, 10}, {25}, 0, false, 3), 0x8c9e7d940c008cecull);
}

TEST(LinearInterpolateFloat, RefusesBadTablesAndSizesBeforeAllocating) {
  const Table t = table(4, 8, 0, false);
  Table bad = t;
  bad.i1[7] = 4;  // one past the input
  const tc::LinearAxis good[1] = {t.axis()}, outside[1] = {bad.axis()};
  const std::vector<float> x(4, 1.0f);
  Buffer<float> y;
  ASSERT_TRUE(tc::linear_generic(x.data(), 1, {4}, {8}, good, &y).ok());
  EXPECT_EQ(y.size(), 8u);
  expect_error(tc::linear_generic(x.data(), 1, {4}, {8}, outside, &y), StatusCode::kRangeError, "outside 0..3");
  expect_error(tc::linear_generic(x.data(), -1, {4}, {8}, good, &y), StatusCode::kRangeError, "negative");
  expect_error(tc::linear_generic(x.data(), 1, {4}, {8, 8}, good, &y), StatusCode::kRangeError, "spatial");
  expect_error(tc::linear_generic(x.data(), 1, {}, {}, good, &y), StatusCode::kRangeError, "spatial");
  expect_error(tc::linear_generic(x.data(), int64_t{1} << 40, {4}, {8}, good, &y), StatusCode::kRangeError, "");
  // An empty batch: no plane, an empty output.
  ASSERT_TRUE(tc::linear_generic(nullptr, 0, {4}, {8}, good, &y).ok());
  EXPECT_EQ(y.size(), 0u);
}
