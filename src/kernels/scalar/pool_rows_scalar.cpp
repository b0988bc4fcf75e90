// The pool_rows.inc family, scalar: rowmax_qu8_scalar and rowsum_qu8_qs32_scalar.
#include <algorithm>
#include <cassert>

#include "kernels/pool_kernels.h"

namespace qwasm {
namespace kernels {

void rowmax_qu8_scalar(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out) {
  assert(rows >= 1);
  for (size_t i = 0; i < n; ++i) {
    uint8_t m = in[0][i];
    for (size_t r = 1; r < rows; ++r) m = std::max(m, in[r][i]);
    out[i] = m;
  }
}

void rowsum_qu8_qs32_scalar(size_t n, size_t rows, const uint8_t* const* in, int32_t* out) {
  assert(rows >= 1 && rows <= kRowSumMaxRows);
  for (size_t i = 0; i < n; ++i) {
    int32_t s = 0;
    for (size_t r = 0; r < rows; ++r) s += in[r][i];
    out[i] = s;
  }
}

}  // namespace kernels
}  // namespace qwasm
