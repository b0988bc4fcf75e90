// Scalar twins of the Winograd F(4, 3) wasmsimd kernels: F(4, 3) along the
// innermost active dimension, F(2, 3) along the others; and F(4, 3) along
// both dimensions of a two-dimensional tile. One channel at a time, one
// dimension at a time (contracts and matrices: kernels/winograd_kernels.h).
#include <cassert>

#include "kernels/requantize.h"
#include "kernels/winograd_kernels.h"
#include "kernels/winograd_separable.h"

namespace qwasm {
namespace kernels {

using winograd_internal::apply_along;

namespace {
const int kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                       {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
const int kG[6][3] = {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1}, {1, 2, 4}, {1, -2, 4}, {0, 0, 1}};
const int kAT[4][6] = {{6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}};
const int kBT2[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const int kG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
const int kAT2[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

// acc from y = 3 * 2^s * acc mod 2^32 (s = nd + 2), exact when
// |acc| < 2^(31 - s) (the driver's guard): 3's inverse mod 2^32 takes y to
// 2^s * acc mod 2^32, which is that int32 itself under the guard, and an
// arithmetic shift by s to acc.
int32_t acc_of_f43(uint32_t y, size_t nd) {
  const int s = static_cast<int>(nd) + 2;
  return static_cast<int32_t>(y * 0xAAAAAAABu) >> s;
}
}  // namespace

void winograd_weights_f43_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                 size_t u_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && len % kWinoWeightsPeriod == 0);
  size_t taps = 1;
  for (size_t k = 0; k < nd; ++k) taps *= 3;
  const size_t points = winograd_points(4, nd);
  for (size_t i = 0; i < len; ++i) {
    int32_t x[96];  // |values| <= 7 * 3^(nd - 1) * 255
    const size_t lane = i % kWinoWeightsPeriod;
    const int8_t* wi = w + i / kWinoWeightsPeriod * taps * kWinoWeightsPeriod + lane;
    for (size_t t = 0; t < taps; ++t) x[t] = wi[t * kWinoWeightsPeriod] - zp[lane];
    size_t ext[kWinogradMaxDims] = {3, 3, 3};
    for (size_t k = 0; k + 1 < nd; ++k) apply_along(kG2, nd, ext, k, x);
    apply_along(kG, nd, ext, nd - 1, x);
    for (size_t xi = 0; xi < points; ++xi) u[xi * u_stride + i] = static_cast<int16_t>(x[xi]);
  }
}

void winograd_input_f43_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                               size_t v_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && channels % 8 == 0);
  const size_t points = winograd_points(4, nd);
  for (size_t c = 0; c < channels; ++c) {
    int32_t x[96];  // |values| <= 10 * 2^(nd - 1) * 255 for |taps| <= 255 (the driver's inputs)
    for (size_t t = 0; t < points; ++t) {
      // Tap t: radix 6 innermost, 4 outside it.
      ptrdiff_t off = static_cast<ptrdiff_t>(t % 6) * strides[nd - 1];
      for (size_t k = nd - 1, rest = t / 6; k-- > 0; rest /= 4) off += static_cast<ptrdiff_t>(rest % 4) * strides[k];
      x[t] = d[off + static_cast<ptrdiff_t>(c)];
    }
    size_t ext[kWinogradMaxDims] = {4, 4, 4};
    ext[nd - 1] = 6;
    for (size_t k = 0; k + 1 < nd; ++k) apply_along(kBT2, nd, ext, k, x);
    apply_along(kBT, nd, ext, nd - 1, x);
    for (size_t xi = 0; xi < points; ++xi) v[xi * v_stride + c] = static_cast<int16_t>(x[xi]);
  }
}

void winograd_output_f43_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && nt >= 1);
  const size_t points = winograd_points(4, nd), outputs = winograd_outputs(4, nd);
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j = 0; j < nc; ++j) {
      uint32_t y[96];  // wrapping, as the SIMD kernel's int32 adds
      for (size_t xi = 0; xi < points; ++xi) y[xi] = static_cast<uint32_t>(mt[xi * m_stride + j]);
      size_t ext[kWinogradMaxDims] = {4, 4, 4};
      ext[nd - 1] = 6;
      for (size_t k = 0; k + 1 < nd; ++k) apply_along(kAT2, nd, ext, k, y);
      apply_along(kAT, nd, ext, nd - 1, y);
      for (size_t o = 0; o < outputs; ++o) {
        if (!(valid >> o & 1)) continue;
        ct[out_offsets[o] + static_cast<ptrdiff_t>(j * c_stride)] = requantize(acc_of_f43(y[o], nd), j, *params);
      }
    }
  }
}

// F(4, 3) along both dimensions of a two-dimensional tile (kWinogradF43Both).

namespace {
// acc from y = 9 * 2^6 * acc mod 2^32, exact when |acc| < 2^25 (the driver's
// guard): 9's inverse mod 2^32 takes y to 2^6 * acc, that int32 itself.
int32_t acc_of_f43x43(uint32_t y) { return static_cast<int32_t>(y * 0x38E38E39u) >> 6; }
}  // namespace

void winograd_weights_f43x43_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                    size_t u_stride) {
  assert(nd == 2 && len % kWinoWeightsPeriod == 0);
  for (size_t i = 0; i < len; ++i) {
    int32_t x[36];  // |values| <= 7^2 * 255
    const size_t lane = i % kWinoWeightsPeriod;
    const int8_t* wi = w + i / kWinoWeightsPeriod * 9 * kWinoWeightsPeriod + lane;
    for (size_t t = 0; t < 9; ++t) x[t] = wi[t * kWinoWeightsPeriod] - zp[lane];
    size_t ext[kWinogradMaxDims] = {3, 3, 1};
    apply_along(kG, nd, ext, 0, x);
    apply_along(kG, nd, ext, 1, x);
    for (size_t xi = 0; xi < 36; ++xi) u[xi * u_stride + i] = static_cast<int16_t>(x[xi]);
  }
}

void winograd_input_f43x43_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                  size_t v_stride) {
  assert(nd == 2 && channels % 8 == 0);
  for (size_t c = 0; c < channels; ++c) {
    int32_t x[36];  // |values| <= 10^2 * 255 for |taps| <= 255 (the driver's inputs)
    for (size_t t = 0; t < 36; ++t) {
      x[t] = d[static_cast<ptrdiff_t>(t / 6) * strides[0] + static_cast<ptrdiff_t>(t % 6) * strides[1] +
               static_cast<ptrdiff_t>(c)];
    }
    size_t ext[kWinogradMaxDims] = {6, 6, 1};
    apply_along(kBT, nd, ext, 0, x);
    apply_along(kBT, nd, ext, 1, x);
    for (size_t xi = 0; xi < 36; ++xi) v[xi * v_stride + c] = static_cast<int16_t>(x[xi]);
  }
}

void winograd_output_f43x43_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                   size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                   const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd == 2 && nt >= 1);
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j = 0; j < nc; ++j) {
      uint32_t y[36];  // wrapping, as the SIMD kernel's int32 adds
      for (size_t xi = 0; xi < 36; ++xi) y[xi] = static_cast<uint32_t>(mt[xi * m_stride + j]);
      size_t ext[kWinogradMaxDims] = {6, 6, 1};
      apply_along(kAT, nd, ext, 0, y);
      apply_along(kAT, nd, ext, 1, y);
      for (size_t o = 0; o < 16; ++o) {
        if (!(valid >> o & 1)) continue;
        ct[out_offsets[o] + static_cast<ptrdiff_t>(j * c_stride)] = requantize(acc_of_f43x43(y[o]), j, *params);
      }
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
