#include "reference/winograd_ref.h"

#include <cassert>

namespace qwasm {
namespace ref {

const int kWinogradBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const int kWinogradG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
const int kWinogradAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
const int kWinogradF43BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                  {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
const int kWinogradF43G24[6][3] = {{6, 0, 0}, {-4, -4, -4}, {-4, 4, -4}, {1, 2, 4}, {1, -2, 4}, {0, 0, 24}};
const int kWinogradF43AT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

namespace {
// Digit k (0 = most significant) of x in radix r over nd digits.
size_t digit(size_t x, size_t radix, size_t nd, size_t k) {
  for (size_t i = k + 1; i < nd; ++i) x /= radix;
  return x % radix;
}
size_t power(size_t radix, size_t nd) {
  size_t p = 1;
  for (size_t i = 0; i < nd; ++i) p *= radix;
  return p;
}
int bt(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradBT[i][j] : kWinogradF43BT[i][j]; }
int g(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradG2[i][j] : kWinogradF43G24[i][j]; }
int at(size_t m, size_t i, size_t j) { return m == 2 ? kWinogradAT[i][j] : kWinogradF43AT[i][j]; }
}  // namespace

int64_t winograd_input_point(size_t m, size_t nd, const int16_t* d, const ptrdiff_t* strides, size_t xi) {
  assert((m == 2 && nd >= 1 && nd <= 3) || (m == 4 && nd == 1));
  int64_t sum = 0;
  for (size_t t = 0; t < power(m + 2, nd); ++t) {
    int64_t coef = 1;
    ptrdiff_t off = 0;
    for (size_t k = 0; k < nd; ++k) {
      const size_t tk = digit(t, m + 2, nd, k);
      coef *= bt(m, digit(xi, m + 2, nd, k), tk);
      off += static_cast<ptrdiff_t>(tk) * strides[k];
    }
    sum += coef * d[off];
  }
  return sum;
}

int64_t winograd_weight_point(size_t m, size_t nd, const int32_t* taps, size_t xi) {
  assert((m == 2 && nd >= 1 && nd <= 3) || (m == 4 && nd == 1));
  int64_t sum = 0;
  for (size_t t = 0; t < power(3, nd); ++t) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= g(m, digit(xi, m + 2, nd, k), digit(t, 3, nd, k));
    sum += coef * taps[t];
  }
  return sum;
}

int32_t winograd_output_acc(size_t m, size_t nd, const int32_t* points, size_t stride, size_t o) {
  assert((m == 2 && nd >= 1 && nd <= 3) || (m == 4 && nd == 1));
  int64_t sum = 0;
  for (size_t xi = 0; xi < power(m + 2, nd); ++xi) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= at(m, digit(o, m, nd, k), digit(xi, m + 2, nd, k));
    sum += coef * points[xi * stride];
  }
  // Wrapped to 32 bits as the kernels' int32 adds wrap; then the exact division.
  const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  if (m == 2) return y >> nd;
  const int64_t eighth = y >> 3, mod29 = int64_t{1} << 29;
  for (int64_t k = 0; k < 3; ++k) {
    const int64_t u = eighth + k * mod29;  // one of these three is a multiple of 3 (2^29 = 2 mod 3)
    if (u % 3 != 0) continue;
    int64_t a = (u / 3 % mod29 + mod29) % mod29;
    if (a >= mod29 / 2) a -= mod29;
    return static_cast<int32_t>(a);
  }
  assert(false);
  return 0;
}

}  // namespace ref
}  // namespace qwasm
