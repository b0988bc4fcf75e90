// The separable step of the Winograd transforms done in plain C++ (the scalar
// kernels, and the weight transform at pack time): one small matrix applied
// along one dimension of a row-major block (kernels/winograd_kernels.h).
#pragma once
#include <cassert>
#include <cstddef>

namespace qwasm {
namespace kernels {
namespace winograd_internal {

// x holds a block with extents ext[0..nd) (row-major); replaces its dimension
// k (extent cols) by rows values: y[.., r, ..] = sum_c mat[r][c] * x[.., c, ..].
// T is uint32_t where the sums wrap, int32_t where they cannot overflow.
template <typename T, size_t Rows, size_t Cols>
void apply_along(const int (&mat)[Rows][Cols], size_t nd, size_t* ext, size_t k, T* x) {
  size_t outer = 1, inner = 1;
  for (size_t i = 0; i < k; ++i) outer *= ext[i];
  for (size_t i = k + 1; i < nd; ++i) inner *= ext[i];
  T tmp[96];  // the largest tile: F(4, 3) x F(2, 3) x F(2, 3), 6 * 4 * 4 points
  assert(outer * Rows * inner <= 96);
  for (size_t o = 0; o < outer; ++o) {
    for (size_t in = 0; in < inner; ++in) {
      for (size_t r = 0; r < Rows; ++r) {
        T s = 0;
        for (size_t c = 0; c < Cols; ++c) s += static_cast<T>(mat[r][c]) * x[(o * Cols + c) * inner + in];
        tmp[(o * Rows + r) * inner + in] = s;
      }
    }
  }
  ext[k] = Rows;
  for (size_t i = 0; i < outer * Rows * inner; ++i) x[i] = tmp[i];
}

}  // namespace winograd_internal
}  // namespace kernels
}  // namespace qwasm
