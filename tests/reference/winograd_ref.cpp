#include "reference/winograd_ref.h"

namespace qwasm {
namespace ref {

const int kWinogradBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const int kWinogradG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
const int kWinogradAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

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
}  // namespace

int64_t winograd_input_point(size_t nd, const int16_t* d, const ptrdiff_t* strides, size_t xi) {
  int64_t sum = 0;
  for (size_t t = 0; t < power(4, nd); ++t) {
    int64_t coef = 1;
    ptrdiff_t off = 0;
    for (size_t k = 0; k < nd; ++k) {
      const size_t tk = digit(t, 4, nd, k);
      coef *= kWinogradBT[digit(xi, 4, nd, k)][tk];
      off += static_cast<ptrdiff_t>(tk) * strides[k];
    }
    sum += coef * d[off];
  }
  return sum;
}

int64_t winograd_weight_point(size_t nd, const int32_t* g, size_t xi) {
  int64_t sum = 0;
  for (size_t t = 0; t < power(3, nd); ++t) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= kWinogradG2[digit(xi, 4, nd, k)][digit(t, 3, nd, k)];
    sum += coef * g[t];
  }
  return sum;
}

int32_t winograd_output_acc(size_t nd, const int32_t* m, size_t m_stride, size_t o) {
  int64_t sum = 0;
  for (size_t xi = 0; xi < power(4, nd); ++xi) {
    int64_t coef = 1;
    for (size_t k = 0; k < nd; ++k) coef *= kWinogradAT[digit(o, 2, nd, k)][digit(xi, 4, nd, k)];
    sum += coef * m[xi * m_stride];
  }
  // Wrapped to 32 bits as the kernels' int32 adds wrap; then the exact shift.
  const int32_t y = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
  return y >> nd;
}

}  // namespace ref
}  // namespace qwasm
