#include "reference/winograd_ref.h"

#include <cassert>

namespace qwasm {
namespace ref {

const int kWinogradBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const int kWinogradG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
const int kWinogradAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
const int kWinogradF43BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                  {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
const int kWinogradF43G[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1}, {1, 2, 4}, {1, -2, 4}, {0, 0, 1}};
const int kWinogradF43AT[4][6] = {{6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}};

namespace {
constexpr size_t kF43Both = 44;  // kernels::kWinogradF43Both
// Digit k (0 = most significant) of x in the mixed radix of `radix` (one per dimension).
size_t digit(size_t x, const size_t* radix, size_t nd, size_t k) {
  for (size_t i = nd; i-- > k + 1;) x /= radix[i];
  return x % radix[k];
}
// The tile along active dimension k: m on the innermost, F(2, 3) on the
// others; F(4, 3) on both for kF43Both.
size_t tile_m(size_t m, size_t nd, size_t k) { return m == kF43Both ? 4 : k + 1 == nd ? m : 2; }
int bt(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradBT[i][j] : kWinogradF43BT[i][j]; }
int g(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradG2[i][j] : kWinogradF43G[i][j]; }
int at(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradAT[i][j] : kWinogradF43AT[i][j]; }
// Per dimension: its m, its points (m + 2) and its taps (3).
struct Radices {
  size_t m[3], points[3], outputs[3], taps[3], npoints = 1, noutputs = 1, ntaps = 1, ninput = 1;
  Radices(size_t tile, size_t nd) {
    assert(nd >= 1 && nd <= 3 && (tile == 2 || tile == 4 || (tile == kF43Both && nd == 2)));
    for (size_t k = 0; k < nd; ++k) {
      m[k] = outputs[k] = tile_m(tile, nd, k);
      points[k] = m[k] + 2;
      taps[k] = 3;
      npoints *= points[k];
      noutputs *= outputs[k];
      ntaps *= 3;
    }
    ninput = npoints;  // an input tile has m + 2 taps per dimension, as many as its points
  }
};
}  // namespace

int64_t winograd_input_point(size_t m, size_t nd, const int16_t* d, const ptrdiff_t* strides, size_t xi) {
  const Radices r(m, nd);
  int64_t sum = 0;
  for (size_t t = 0; t < r.ninput; ++t) {
    int64_t coef = 1;
    ptrdiff_t off = 0;
    for (size_t k = 0; k < nd; ++k) {
      const size_t tk = digit(t, r.points, nd, k);
      coef *= bt(r.m[k], digit(xi, r.points, nd, k), tk);
      off += static_cast<ptrdiff_t>(tk) * strides[k];
    }
    sum += coef * d[off];
  }
  return sum;
}

int64_t winograd_weight_point(size_t m, size_t nd, const int32_t* taps, size_t xi) {
  const Radices r(m, nd);
  int64_t sum = 0;
  for (size_t t = 0; t < r.ntaps; ++t) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= g(r.m[k], digit(xi, r.points, nd, k), digit(t, r.taps, nd, k));
    sum += coef * taps[t];
  }
  return sum;
}

int32_t winograd_output_acc(size_t m, size_t nd, const int32_t* points, size_t stride, size_t o) {
  const Radices r(m, nd);
  int64_t sum = 0;
  for (size_t xi = 0; xi < r.npoints; ++xi) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= at(r.m[k], digit(o, r.outputs, nd, k), digit(xi, r.points, nd, k));
    sum += coef * points[xi * stride];
  }
  // Wrapped to 32 bits as the kernels' int32 adds wrap; then the exact division.
  const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  if (m == 2) return y >> nd;
  // y = odd * 2^s * acc mod 2^32 (F(4, 3) innermost: 3 * 2^(nd + 2); on both
  // dimensions: 9 * 2^6): the int32 z with odd * z = y mod 2^32 is
  // 2^s * acc, and acc = floor(z / 2^s).
  const int s = m == kF43Both ? 6 : static_cast<int>(nd) + 2;
  const int64_t odd = m == kF43Both ? 9 : 3;
  const int64_t mod = int64_t{1} << 32;
  for (int64_t k = 0; k < odd; ++k) {
    const int64_t u = static_cast<int64_t>(static_cast<uint32_t>(y)) + k * mod;  // one of these is a multiple of odd
    if (u % odd != 0) continue;
    int64_t z = u / odd % mod;
    if (z >= mod / 2) z -= mod;
    return static_cast<int32_t>(z >> s);  // an arithmetic shift: floor
  }
  assert(false);
  return 0;
}

}  // namespace ref
}  // namespace qwasm
