// The kernel tester, winograd family: every kernel of winograd.inc in this
// build, by name, against tests/reference/winograd_ref.h with tolerance 0.
// F(2, 3) kernels (m = 2) and F(4, 3) kernels (m = 4: F(4, 3) along the
// innermost active dimension, F(2, 3) along the others) run every case at nd
// 1 to 3, F(4, 3) x F(4, 3) kernels (m = kWinogradF43Both) at nd = 2 (other
// nd report a skip); tiles of 16 outputs take every 211th valid mask:
//   winograd input: nd1, nd2, nd3, channels_gt_cr, extremes (every tap at +-255);
//   qgemm: m_eq_mr, m_lt_mr, m_gt_mr, k_blocks (1..9), extremes + wraparound (int32 sums past 2^31);
//   winograd weights: nd1, nd2, nd3, several periods, extremes (|w - zp| = 255);
//   winograd output: nd1, nd2, nd3, nc_lt_cr, nc_gt_cr, partial_tiles (every
//     valid mask), strided_outputs (no adjacent pair), wraparound (full-range
//     int32 points), qmin, qmax, relu_floor; runs of tiles (1 to 17, steps 1,
//     2, 3, adjacent pairs or not), runs_partial (masks), runs_wraparound,
//     runs_clamped (qmin, qmax, the ReLU floor).
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
#include "kernels/winograd_kernels.h"
#include "reference/winograd_ref.h"
#include "test_util.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

// ----------------------------------------------------------------- winograd

// A tile's input strides along nd dimensions of `taps` taps for `channels`
// channels, with gaps so that a kernel reading the wrong tap reads other values.
std::vector<ptrdiff_t> tile_strides(size_t nd, size_t taps, size_t channels) {
  std::vector<ptrdiff_t> s(3, 0);
  ptrdiff_t inner = static_cast<ptrdiff_t>(channels + 8);
  for (size_t k = nd; k-- > 0;) {
    s[k] = inner;
    inner *= static_cast<ptrdiff_t>(taps + 1);
  }
  return s;
}

// The dimensions a kernel of tile m takes: 1 to 3, or 2 only (F(4, 3) on both).
size_t min_nd(size_t m) { return m == kWinogradF43Both ? 2 : 1; }
size_t max_nd_of(size_t m) { return winograd_max_dims(m); }
#define SKIP_UNLESS_TAKES(nd)                          \
  if ((nd) < min_nd(k().m) || (nd) > max_nd_of(k().m)) \
  GTEST_SKIP() << k().name << " takes " << min_nd(k().m) << " to " << max_nd_of(k().m) << " dimensions"

// The valid masks a test walks for tiles of `outputs` outputs: all of them up
// to 8 outputs (every 7th in 3-D when not `all`), every 211th of 16.
uint32_t mask_step(size_t outputs, size_t nd, bool all) { return outputs > 8 ? 211 : nd == 3 && !all ? 7 : 1; }

// The oracle itself: points from its own input and weight transforms of
// random taps, summed over channels, give through its output transform the
// direct correlation's sums, for F(2, 3) and F(4, 3) (innermost) in 1 to 3
// dimensions, at the extremes too (every |d|, |g| at 255 with aligned signs).
TEST(WinogradReference, TransformsGiveTheDirectSums) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 gen(seed);
  struct Tile {
    size_t m, nd;
  };
  for (const Tile tile :
       {Tile{2, 1}, Tile{2, 2}, Tile{2, 3}, Tile{4, 1}, Tile{4, 2}, Tile{4, 3}, Tile{kWinogradF43Both, 2}}) {
    for (const bool extremes : {false, true}) {
      const size_t m = tile.m, nd = tile.nd, channels = 7;
      size_t mk[3], in_size = 1, w_size = 1;  // mk: the tile along each dimension
      for (size_t k = 0; k < nd; ++k) mk[k] = winograd_dim_tile(m, nd, k), in_size *= mk[k] + 2, w_size *= 3;
      std::uniform_int_distribution<int> v(-255, 255);
      std::vector<int16_t> d(channels * in_size);
      std::vector<int32_t> g(channels * w_size);
      for (auto& x : d) x = static_cast<int16_t>(extremes ? 255 : v(gen));
      for (auto& x : g) x = extremes ? -255 : v(gen);
      std::vector<ptrdiff_t> strides(3, 0);
      for (size_t k = nd, inner = 1; k-- > 0; inner *= mk[k] + 2) strides[k] = static_cast<ptrdiff_t>(inner);
      const size_t points = winograd_points(m, nd), outputs = winograd_outputs(m, nd);
      std::vector<int32_t> M(points, 0);
      for (size_t xi = 0; xi < points; ++xi) {
        int64_t sum = 0;
        for (size_t c = 0; c < channels; ++c) {
          sum += ref::winograd_input_point(m, nd, d.data() + c * in_size, strides.data(), xi) *
                 ref::winograd_weight_point(m, nd, g.data() + c * w_size, xi);
        }
        M[xi] = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));  // wraps, as the GEMM
      }
      for (size_t o = 0; o < outputs; ++o) {
        int64_t direct = 0;
        for (size_t c = 0; c < channels; ++c) {
          for (size_t t = 0; t < w_size; ++t) {
            size_t off = 0;
            for (size_t k = nd, ro = o, rt = t; k-- > 0; ro /= mk[k], rt /= 3)
              off += (ro % mk[k] + rt % 3) * strides[k];
            direct += int64_t{d[c * in_size + off]} * g[c * w_size + t];
          }
        }
        EXPECT_EQ(ref::winograd_output_acc(m, nd, M.data(), 1, o), direct)
            << "m " << m << " nd " << nd << " output " << o << (extremes ? " extremes" : "") << " seed " << seed;
      }
    }
  }
}

class WinoInputKernelTest : public ::testing::TestWithParam<const WinoInputKernel*> {
 protected:
  const WinoInputKernel& k() const { return *GetParam(); }
  // Values in [lo, hi], or (extremes) +-255 only.
  void check(size_t nd, size_t channels, bool extremes = false) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (nd * 7919 + channels * 31 + extremes));
    std::uniform_int_distribution<int> v(-255, 255);
    const size_t taps = winograd_dim_tile(k().m, nd, nd - 1) + 2;  // the most taps along a dimension
    const std::vector<ptrdiff_t> strides = tile_strides(nd, taps, channels);
    const size_t span = static_cast<size_t>(strides[0] * static_cast<ptrdiff_t>(taps)) + channels;
    std::vector<int16_t> d(span);
    for (auto& x : d) x = static_cast<int16_t>(extremes ? (g() & 1 ? 255 : -255) : v(g));
    const size_t points = winograd_points(k().m, nd), v_stride = channels + 5;
    std::vector<int16_t> out(points * v_stride, int16_t{0x5a5a});
    k().fn(nd, channels, d.data(), strides.data(), out.data(), v_stride);
    for (size_t xi = 0; xi < points; ++xi) {
      for (size_t c = 0; c < v_stride; ++c) {
        const int16_t got = out[xi * v_stride + c];
        if (c >= channels) {
          EXPECT_EQ(got, 0x5a5a) << k().name << " wrote past the channels at point " << xi;
          continue;
        }
        const int64_t want = ref::winograd_input_point(k().m, nd, d.data() + c, strides.data(), xi);
        ASSERT_EQ(got, want) << k().name << " nd " << nd << " point " << xi << " channel " << c << " seed " << seed;
      }
    }
  }
};

TEST_P(WinoInputKernelTest, nd1) {
  SKIP_UNLESS_TAKES(1);
  check(1, k().cr);
}
TEST_P(WinoInputKernelTest, nd2) {
  SKIP_UNLESS_TAKES(2);
  check(2, k().cr);
}
TEST_P(WinoInputKernelTest, nd3) {
  SKIP_UNLESS_TAKES(3);
  check(3, k().cr);
}
TEST_P(WinoInputKernelTest, channels_gt_cr) {
  for (size_t nd = min_nd(k().m); nd <= max_nd_of(k().m); ++nd) check(nd, 5 * k().cr);
}
TEST_P(WinoInputKernelTest, extremes) {  // |V| reaches 2^nd * 255 (F(4, 3): 10 * 2^(nd - 1) * 255), still int16
  for (size_t nd = min_nd(k().m); nd <= max_nd_of(k().m); ++nd) check(nd, 2 * k().cr, true);
}

INSTANTIATE_TEST_SUITE_P(Registry, WinoInputKernelTest, ::testing::ValuesIn(all(wino_input_kernels())),
                         kernel_name<WinoInputKernel>);

class WinoWeightsKernelTest : public ::testing::TestWithParam<const WinoWeightsKernel*> {
 protected:
  const WinoWeightsKernel& k() const { return *GetParam(); }
  // len lanes of 3^nd taps, w and zp random int8 (or, extremes, -128 / 127
  // against 127 / -128: |w - zp| = 255 everywhere).
  void check(size_t nd, size_t len, bool extremes = false) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (nd * 7919 + len * 31 + extremes));
    std::uniform_int_distribution<int> v(-128, 127);
    size_t taps = 1;
    for (size_t d = 0; d < nd; ++d) taps *= 3;
    std::vector<int8_t> w(taps * len);
    std::vector<int16_t> zp(kWinoWeightsPeriod);
    for (size_t i = 0; i < zp.size(); ++i) zp[i] = static_cast<int16_t>(extremes ? (i & 1 ? 127 : -128) : v(g));
    // Tap t of lane i at w[(i / 16 * taps + t) * 16 + i % 16]: lane i % 16 is every 16th byte.
    for (size_t i = 0; i < w.size(); ++i) {
      const bool high = zp[i % kWinoWeightsPeriod] < 0;
      w[i] = static_cast<int8_t>(extremes ? (high ? 127 : -128) : v(g));
    }
    const size_t points = winograd_points(k().m, nd), u_stride = len + 5;
    std::vector<int16_t> out(points * u_stride, int16_t{0x5a5a});
    k().fn(nd, len, w.data(), zp.data(), out.data(), u_stride);
    for (size_t xi = 0; xi < points; ++xi) {
      for (size_t i = 0; i < u_stride; ++i) {
        const int16_t got = out[xi * u_stride + i];
        if (i >= len) {
          EXPECT_EQ(got, 0x5a5a) << k().name << " wrote past the lanes at point " << xi;
          continue;
        }
        int32_t taps_of_lane[27];
        const size_t P16 = kWinoWeightsPeriod;
        for (size_t t = 0; t < taps; ++t) taps_of_lane[t] = w[(i / P16 * taps + t) * P16 + i % P16] - zp[i % P16];
        const int64_t want = ref::winograd_weight_point(k().m, nd, taps_of_lane, xi);
        ASSERT_EQ(got, want) << k().name << " nd " << nd << " point " << xi << " lane " << i << " seed " << seed;
      }
    }
  }
};

TEST_P(WinoWeightsKernelTest, nd1) {
  SKIP_UNLESS_TAKES(1);
  check(1, kWinoWeightsPeriod);
}
TEST_P(WinoWeightsKernelTest, nd2) {
  SKIP_UNLESS_TAKES(2);
  check(2, kWinoWeightsPeriod);
}
TEST_P(WinoWeightsKernelTest, nd3) {
  SKIP_UNLESS_TAKES(3);
  check(3, kWinoWeightsPeriod);
}
TEST_P(WinoWeightsKernelTest, several_periods) {
  for (size_t nd = min_nd(k().m); nd <= max_nd_of(k().m); ++nd) check(nd, 5 * kWinoWeightsPeriod);
}
TEST_P(WinoWeightsKernelTest, extremes) {  // |U| reaches 3^nd * 255 (F(4, 3): 7 * 3^(nd - 1) * 255), still int16
  for (size_t nd = min_nd(k().m); nd <= max_nd_of(k().m); ++nd) check(nd, 2 * kWinoWeightsPeriod, true);
}

INSTANTIATE_TEST_SUITE_P(Registry, WinoWeightsKernelTest, ::testing::ValuesIn(all(wino_weights_kernels())),
                         kernel_name<WinoWeightsKernel>);

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
  // The largest |V| and |U| of F(4, 3) innermost in 3-D (10 * 4 * 255, 7 * 9 * 255)
  // and of F(4, 3) on both dimensions (10^2 * 255, 7^2 * 255): a pair's two
  // products still sum within int32.
  check(k().mr, 4, 10200, 16065, true);
  check(k().mr, 4, 25500, 12495, true);
  check(k().mr, 100, -25500, 12495, true);
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
  size_t nt = 1;            // tiles in the run
  ptrdiff_t tile_step = 2;  // their outputs' distance in the plane
};

class WinoOutputKernelTest : public ::testing::TestWithParam<const WinoOutputKernel*> {
 protected:
  const WinoOutputKernel& k() const { return *GetParam(); }
  // The kernel's largest tile, and the mask that stores every output of a
  // tile in nd dimensions.
  size_t max_nd() const { return max_nd_of(k().m); }
  size_t first_nd() const { return min_nd(k().m); }
  uint32_t all_outputs(size_t nd) const { return (1u << winograd_outputs(k().m, nd)) - 1; }
  // Every byte of the output buffer is checked: the run's stored outputs
  // against the reference, every other byte untouched.
  // The first byte of the first requantization's output (0xEE when the check failed).
  int first_byte(const WinoOutputCall& t) {
    const std::vector<uint8_t> out = check(t);
    return out.empty() ? 0xEE : out[0];
  }
  std::vector<uint8_t> check(const WinoOutputCall& t) {
    const uint64_t seed = qwasm_test::test_seed();
    std::mt19937_64 g(seed ^ (t.nd * 1009 + t.nc * 31 + t.valid * 7 + t.adjacent + t.nt * 65537 +
                              static_cast<uint64_t>(t.tile_step) * 257));
    const size_t mo = k().m, points = winograd_points(mo, t.nd), outputs = winograd_outputs(mo, t.nd);
    const size_t slots = (t.nc + k().cr - 1) / k().cr * k().cr + 3, m_stride = slots;
    const size_t m_tile_stride = points * m_stride + 5;  // a gap between tiles
    std::vector<int32_t> m(t.nt * m_tile_stride);
    const int64_t lo = std::max<int64_t>(-t.m_range, INT32_MIN), hi = std::min<int64_t>(t.m_range, INT32_MAX);
    std::uniform_int_distribution<int64_t> mv(lo, hi);
    for (auto& x : m) x = static_cast<int32_t>(mv(g));
    // Outputs: the innermost dimension's pairs adjacent (W) or apart (past
    // the run's tiles: a 3x1x1 layer's D, a dilated W), the outer dimensions
    // further apart, so that no two (tile, output) share a byte.
    const ptrdiff_t run_span = static_cast<ptrdiff_t>(t.nt) * t.tile_step;
    const ptrdiff_t inner = t.adjacent ? 1 : run_span + 1;
    std::vector<ptrdiff_t> offsets(outputs);
    for (size_t o = 0; o < outputs; ++o) {
      ptrdiff_t off = 0, stride = inner;
      for (size_t kk = t.nd, rest = o; kk-- > 0;) {
        const size_t mk = winograd_dim_tile(mo, t.nd, kk);
        off += static_cast<ptrdiff_t>(rest % mk) * stride;
        stride = (stride == inner ? run_span + inner : stride) * static_cast<ptrdiff_t>(mk + 1);
        rest /= mk;
      }
      offsets[o] = off;
    }
    ptrdiff_t span = 1;
    for (size_t o = 0; o < outputs; ++o) span = std::max(span, offsets[o] + run_span + 1);
    const size_t c_stride = static_cast<size_t>(span) + 3;
    std::vector<uint8_t> first;
    for (const RequantKind kind : kRequantKinds) {
      const Requant rq(kind, slots + 8, g, t.zp, t.relu, 1.0f, t.bias_shift, 500.f, 0.0001f, 0.002f);
      std::vector<uint8_t> out((t.nc + 1) * c_stride, 0xEE), want(out.size(), 0xEE);
      // Which (tile, output, channel) each byte is, -1 for none: described only on a failure.
      std::vector<int64_t> what(out.size(), -1);
      const auto describe = [&](int64_t w) {
        if (w < 0) return std::string("not an output of the run");
        const size_t tile = static_cast<size_t>(w) / (outputs * t.nc), o = static_cast<size_t>(w) / t.nc % outputs,
                     j = static_cast<size_t>(w) % t.nc;
        const int32_t acc = ref::winograd_output_acc(mo, t.nd, m.data() + tile * m_tile_stride + j, m_stride, o);
        return "tile " + std::to_string(tile) + " output " + std::to_string(o) + " channel " + std::to_string(j) +
               " acc " + std::to_string(acc) + " " + rq.describe(j);
      };
      for (size_t tile = 0; tile < t.nt; ++tile) {
        for (size_t j = 0; j < t.nc; ++j) {
          for (size_t o = 0; o < outputs; ++o) {
            if (!(t.valid >> o & 1)) continue;
            const size_t at =
                j * c_stride + static_cast<size_t>(static_cast<ptrdiff_t>(tile) * t.tile_step + offsets[o]);
            if (what[at] >= 0) {
              ADD_FAILURE() << "the test's layout overlaps at byte " << at;
              return {};
            }
            const int32_t acc = ref::winograd_output_acc(mo, t.nd, m.data() + tile * m_tile_stride + j, m_stride, o);
            want[at] = rq.want(acc, j);
            what[at] = static_cast<int64_t>((tile * outputs + o) * t.nc + j);
          }
        }
      }
      k().fn(t.nd, t.nt, t.nc, m.data(), m_stride, m_tile_stride, out.data(), c_stride, t.tile_step, offsets.data(),
             t.valid, &rq.params);
      for (size_t i = 0; i < out.size(); ++i) {
        if (out[i] == want[i]) continue;
        ADD_FAILURE() << "got " << int{out[i]} << ", want " << int{want[i]} << ": " << k().name << " nd " << t.nd
                      << " nt " << t.nt << " tile_step " << t.tile_step << " nc " << t.nc << " valid " << t.valid
                      << " byte " << i << ": " << describe(what[i]) << " seed " << seed;
        return {};
      }
      if (first.empty()) first = out;
    }
    return first;
  }
};

TEST_P(WinoOutputKernelTest, nd1) {
  SKIP_UNLESS_TAKES(1);
  check({1, k().cr, all_outputs(1)});
}
TEST_P(WinoOutputKernelTest, nd2) {
  SKIP_UNLESS_TAKES(2);
  check({2, k().cr, all_outputs(2)});
}
TEST_P(WinoOutputKernelTest, nd3) {
  SKIP_UNLESS_TAKES(3);
  check({3, k().cr, all_outputs(3)});
}
TEST_P(WinoOutputKernelTest, nc_lt_cr) {
  for (size_t nc = 1; nc < k().cr; ++nc) check({max_nd(), nc, all_outputs(max_nd())});
}
TEST_P(WinoOutputKernelTest, nc_gt_cr) {
  for (size_t nc : {k().cr + 1, 2 * k().cr, 2 * k().cr + 3, 16 * k().cr + 1})
    check({max_nd(), nc, all_outputs(max_nd())});
}
TEST_P(WinoOutputKernelTest, partial_tiles) {
  for (size_t nd = first_nd(); nd <= max_nd(); ++nd)
    for (uint32_t valid = 0; valid <= all_outputs(nd); valid += mask_step(winograd_outputs(k().m, nd), nd, true))
      check({nd, k().cr + 1, valid});
}
TEST_P(WinoOutputKernelTest, strided_outputs) {
  for (size_t nd = first_nd(); nd <= max_nd(); ++nd) check({nd, 2 * k().cr, all_outputs(nd), false});
}
TEST_P(WinoOutputKernelTest, wraparound) {  // full-range int32 points: the transform's sums wrap
  for (size_t nd = first_nd(); nd <= max_nd(); ++nd) check({nd, 2 * k().cr, all_outputs(nd), true, int64_t{1} << 40});
}
// Runs of tiles, every length up to two groups of four (the SIMD kernel's
// step) and one more, and a block's 16 and 17: a 3x1x1 layer's (outputs of
// the run 1 apart, the tile's own a plane apart), a 3-tap W's (m apart, the
// tile's outputs adjacent), a dilated or odd step; a whole 4-channel group and
// remainders of 1 and 3.
TEST_P(WinoOutputKernelTest, runs) {
  struct Layout {
    ptrdiff_t step;
    bool adjacent;
  };
  const ptrdiff_t m = static_cast<ptrdiff_t>(winograd_dim_tile(k().m, first_nd(), first_nd() - 1));
  for (const Layout l : {Layout{1, false}, Layout{m, true}, Layout{m, false}, Layout{m + 1, true}}) {
    for (size_t nd = first_nd(); nd <= max_nd(); ++nd) {
      for (size_t nt = 1; nt <= 17; ++nt) {
        // 3-D: a group of four, one more, two groups and one more.
        if ((nt > 9 && nt != 16 && nt != 17) || (nd == 3 && nt != 1 && nt != 4 && nt != 5 && nt != 9)) continue;
        for (size_t nc : {k().cr + 1, 2 * k().cr + 3}) {
          WinoOutputCall t{nd, nc, all_outputs(nd), l.adjacent};
          t.nt = nt;
          t.tile_step = l.step;
          check(t);
        }
      }
    }
  }
}
// A run's mask with some outputs not stored: every mask in 1-D and 2-D,
// some in 3-D, on runs of 4 and 5 tiles (a group of four, and one more).
TEST_P(WinoOutputKernelTest, runs_partial) {
  const ptrdiff_t m = static_cast<ptrdiff_t>(winograd_dim_tile(k().m, first_nd(), first_nd() - 1));
  for (const ptrdiff_t step : {ptrdiff_t{1}, m}) {
    for (size_t nd = first_nd(); nd <= max_nd(); ++nd) {
      for (uint32_t valid = 0; valid <= all_outputs(nd); valid += mask_step(winograd_outputs(k().m, nd), nd, false)) {
        for (size_t nt : {4, 5}) {
          WinoOutputCall t{nd, k().cr + 1, valid, step == m};
          t.nt = nt;
          t.tile_step = step;
          check(t);
        }
      }
    }
  }
}
TEST_P(WinoOutputKernelTest, runs_wraparound) {
  const ptrdiff_t m = static_cast<ptrdiff_t>(winograd_dim_tile(k().m, first_nd(), first_nd() - 1));
  for (const ptrdiff_t step : {ptrdiff_t{1}, m}) {
    for (size_t nd = first_nd(); nd <= max_nd(); ++nd) {
      WinoOutputCall t{nd, 2 * k().cr, all_outputs(nd), step == m, int64_t{1} << 40};
      t.nt = 6;
      t.tile_step = step;
      check(t);
    }
  }
}
TEST_P(WinoOutputKernelTest, qmin) {
  WinoOutputCall t{max_nd(), k().cr, all_outputs(max_nd())};
  t.bias_shift = -1e12f;
  EXPECT_EQ(first_byte(t), 0);
}
TEST_P(WinoOutputKernelTest, qmax) {
  WinoOutputCall t{max_nd(), k().cr, all_outputs(max_nd())};
  t.bias_shift = 1e12f;
  EXPECT_EQ(first_byte(t), 255);
}
TEST_P(WinoOutputKernelTest, relu_floor) {
  WinoOutputCall t{max_nd(), k().cr, all_outputs(max_nd())};
  t.relu = true;
  t.zp = 77;
  t.bias_shift = -1e12f;
  EXPECT_EQ(first_byte(t), 77);
}
// The same on a run of tiles (the SIMD kernel's grouped stores).
TEST_P(WinoOutputKernelTest, runs_clamped) {
  const ptrdiff_t m = static_cast<ptrdiff_t>(winograd_dim_tile(k().m, first_nd(), first_nd() - 1));
  for (const ptrdiff_t step : {ptrdiff_t{1}, m}) {
    for (const float shift : {-1e12f, 1e12f}) {
      for (const bool relu : {false, true}) {
        WinoOutputCall t{first_nd(), k().cr, all_outputs(first_nd()), step == m};
        t.nt = 4;
        t.tile_step = step;
        t.relu = relu;
        t.zp = 77;
        t.bias_shift = shift;
        EXPECT_EQ(first_byte(t), shift > 0 ? 255 : relu ? 77 : 0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, WinoOutputKernelTest, ::testing::ValuesIn(all(wino_output_kernels())),
                         kernel_name<WinoOutputKernel>);

}  // namespace
