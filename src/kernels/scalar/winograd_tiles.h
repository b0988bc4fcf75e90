// The scalar Winograd kernels' one body for every tile (kernels/winograd_kernels.h):
// a tile's values run through one small matrix per active dimension (F(2, 3)'s
// or F(4, 3)'s, by winograd_dim_tile), one channel or lane at a time, in
// plain C++. The registered scalar kernels (winograd_f23_scalar.cpp,
// winograd_f43_scalar.cpp) are this code for their tile m.
#pragma once
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "kernels/requantize.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {
namespace winograd_tiles {

// F(2, 3): B^T, G' = 2G, A^T. F(4, 3): B^T, G'', A'' (the header's matrices).
constexpr int kF23BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
constexpr int kF23G[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
constexpr int kF23AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
constexpr int kF43BT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr int kF43G[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1}, {1, 2, 4}, {1, -2, 4}, {0, 0, 1}};
constexpr int kF43AT[4][6] = {{6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}};

constexpr size_t kMaxValues = 96;  // the largest tile: F(4, 3) x F(2, 3) x F(2, 3), 6 * 4 * 4 points

// x holds a block with extents ext[0..nd) (row-major); replaces its dimension
// k (extent Cols) by Rows values: y[.., r, ..] = sum_c mat[r][c] * x[.., c, ..].
// T is uint32_t where the sums wrap, int32_t where they cannot overflow.
template <typename T, size_t Rows, size_t Cols>
void apply_along(const int (&mat)[Rows][Cols], size_t nd, size_t* ext, size_t k, T* x) {
  size_t outer = 1, inner = 1;
  for (size_t i = 0; i < k; ++i) outer *= ext[i];
  for (size_t i = k + 1; i < nd; ++i) inner *= ext[i];
  T tmp[kMaxValues];
  assert(outer * Rows * inner <= kMaxValues);
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

// Each active dimension through its tile's matrix (F(2, 3)'s or F(4, 3)'s).
template <typename T, size_t R2, size_t C2, size_t R4, size_t C4>
void apply_each(size_t m, size_t nd, const int (&f23)[R2][C2], const int (&f43)[R4][C4], size_t* ext, T* x) {
  for (size_t k = 0; k < nd; ++k) {
    if (winograd_dim_tile(m, nd, k) == 2) {
      apply_along(f23, nd, ext, k, x);
    } else {
      apply_along(f43, nd, ext, k, x);
    }
  }
}

// The exact division of Y = odd * 2^shift * acc mod 2^32 (F(2, 3): 1 * 2^nd;
// F(4, 3) innermost: 3 * 2^(nd + 2); on both: 9 * 2^6): times odd's inverse
// mod 2^32 it is 2^shift * acc, that int32 itself under the driver's guard,
// and an arithmetic shift gives acc.
struct Division {
  uint32_t odd_inverse;
  int shift;
};
inline Division division(size_t m, size_t nd) {
  if (m == 2) return {1u, static_cast<int>(nd)};
  if (m == kWinogradF43Both) return {0x38E38E39u, 6};  // 9 * 0x38E38E39 = 1 mod 2^32
  return {0xAAAAAAABu, static_cast<int>(nd) + 2};      // 3 * 0xAAAAAAAB = 1 mod 2^32
}

inline void check_dims(size_t m, size_t nd) {
  assert(nd >= 1 && nd <= winograd_max_dims(m) && (m != kWinogradF43Both || nd == 2));
  (void)m, (void)nd;
}

// WinoWeightsFn for the tile m: |values| <= 7^a * 3^b * 255 (a F(4, 3) and
// b F(2, 3) dimensions), int16 for every tile.
inline void weights(size_t m, size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u, size_t u_stride) {
  check_dims(m, nd);
  assert(len % kWinoWeightsPeriod == 0);
  size_t taps = 1;
  for (size_t k = 0; k < nd; ++k) taps *= 3;
  const size_t points = winograd_points(m, nd);
  for (size_t i = 0; i < len; ++i) {
    int32_t x[kMaxValues];
    const size_t lane = i % kWinoWeightsPeriod;
    const int8_t* wi = w + i / kWinoWeightsPeriod * taps * kWinoWeightsPeriod + lane;
    for (size_t t = 0; t < taps; ++t) x[t] = wi[t * kWinoWeightsPeriod] - zp[lane];
    size_t ext[kWinogradMaxDims] = {3, 3, 3};
    apply_each(m, nd, kF23G, kF43G, ext, x);
    for (size_t xi = 0; xi < points; ++xi) u[xi * u_stride + i] = static_cast<int16_t>(x[xi]);
  }
}

// WinoInputFn for the tile m: tap t in the tile's mixed radix (winograd_dim_tile
// + 2 taps per dimension); |values| <= 10^a * 2^b * 255 for |taps| <= 255.
inline void input(size_t m, size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                  size_t v_stride) {
  check_dims(m, nd);
  assert(channels % 8 == 0);
  const size_t points = winograd_points(m, nd);
  for (size_t c = 0; c < channels; ++c) {
    int32_t x[kMaxValues];
    for (size_t t = 0; t < points; ++t) {
      ptrdiff_t off = static_cast<ptrdiff_t>(c);
      size_t rest = t;
      for (size_t k = nd; k-- > 0;) {
        const size_t taps = winograd_dim_tile(m, nd, k) + 2;
        off += static_cast<ptrdiff_t>(rest % taps) * strides[k];
        rest /= taps;
      }
      x[t] = d[off];
    }
    size_t ext[kWinogradMaxDims] = {};
    for (size_t k = 0; k < nd; ++k) ext[k] = winograd_dim_tile(m, nd, k) + 2;
    apply_each(m, nd, kF23BT, kF43BT, ext, x);
    for (size_t xi = 0; xi < points; ++xi) v[xi * v_stride + c] = static_cast<int16_t>(x[xi]);
  }
}

// WinoOutputFn for the tile m, one tile and one channel at a time.
inline void output(size_t m, size_t nd, size_t nt, size_t nc, const int32_t* mv, size_t m_stride, size_t m_tile_stride,
                   uint8_t* c, size_t c_stride, ptrdiff_t tile_step, const ptrdiff_t* out_offsets, uint32_t valid,
                   const ConvRequantParams& params) {
  check_dims(m, nd);
  assert(nt >= 1);
  const size_t points = winograd_points(m, nd), outputs = winograd_outputs(m, nd);
  const Division div = division(m, nd);
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = mv + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j = 0; j < nc; ++j) {
      uint32_t y[kMaxValues];  // wrapping, as the SIMD kernels' int32 adds
      for (size_t xi = 0; xi < points; ++xi) y[xi] = static_cast<uint32_t>(mt[xi * m_stride + j]);
      size_t ext[kWinogradMaxDims] = {};
      for (size_t k = 0; k < nd; ++k) ext[k] = winograd_dim_tile(m, nd, k) + 2;
      apply_each(m, nd, kF23AT, kF43AT, ext, y);
      for (size_t o = 0; o < outputs; ++o) {
        if (!(valid >> o & 1)) continue;
        const int32_t acc = static_cast<int32_t>(y[o] * div.odd_inverse) >> div.shift;
        ct[out_offsets[o] + static_cast<ptrdiff_t>(j * c_stride)] = requantize(acc, j, params);
      }
    }
  }
}

}  // namespace winograd_tiles
}  // namespace kernels
}  // namespace qwasm
