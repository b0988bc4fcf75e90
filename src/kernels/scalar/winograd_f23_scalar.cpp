// Scalar twins of the Winograd wasmsimd kernels: the same contracts
// (kernels/winograd_kernels.h), one channel at a time, one dimension at a time.
#include <cassert>

#include "kernels/requantize.h"
#include "kernels/winograd_kernels.h"
#include "kernels/winograd_separable.h"

namespace qwasm {
namespace kernels {

using winograd_internal::apply_along;

namespace {
const int kBT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
const int kAT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
const int kG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};
}  // namespace

void winograd_weights_f23_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                 size_t u_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && len % kWinoWeightsPeriod == 0);
  size_t taps = 1;
  for (size_t k = 0; k < nd; ++k) taps *= 3;
  const size_t points = size_t{1} << (2 * nd);
  for (size_t i = 0; i < len; ++i) {
    int32_t x[64];  // |values| <= 3^nd * 255
    const size_t lane = i % kWinoWeightsPeriod;
    const int8_t* wi = w + i / kWinoWeightsPeriod * taps * kWinoWeightsPeriod + lane;
    for (size_t t = 0; t < taps; ++t) x[t] = wi[t * kWinoWeightsPeriod] - zp[lane];
    size_t ext[kWinogradMaxDims] = {3, 3, 3};
    for (size_t k = 0; k < nd; ++k) apply_along(kG2, nd, ext, k, x);
    for (size_t xi = 0; xi < points; ++xi) u[xi * u_stride + i] = static_cast<int16_t>(x[xi]);
  }
}

void winograd_input_f23_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                               size_t v_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && channels % 8 == 0);
  const size_t points = size_t{1} << (2 * nd);
  for (size_t c = 0; c < channels; ++c) {
    int32_t x[64];  // |values| <= 2^nd * 2^15: int32 holds every step
    for (size_t t = 0; t < points; ++t) {
      ptrdiff_t off = 0;
      for (size_t k = 0, rest = t; k < nd; ++k) {
        const size_t shift = 2 * (nd - 1 - k);
        off += static_cast<ptrdiff_t>((rest >> shift) & 3) * strides[k];
      }
      x[t] = d[off + static_cast<ptrdiff_t>(c)];
    }
    size_t ext[kWinogradMaxDims] = {4, 4, 4};
    for (size_t k = 0; k < nd; ++k) apply_along(kBT, nd, ext, k, x);
    for (size_t xi = 0; xi < points; ++xi) v[xi * v_stride + c] = static_cast<int16_t>(x[xi]);
  }
}

void gemm_qs16_4x8c2_scalar(size_t rows, size_t kblocks, const int16_t* a, size_t a_stride, const int16_t* w,
                            int32_t* c, size_t c_stride) {
  constexpr size_t kNR = 8, kKR = 2;
  for (size_t m = 0; m < rows; ++m) {
    const int16_t* am = a + m * a_stride;
    uint32_t acc[kNR] = {};  // wraps, as i32x4.add does
    for (size_t k = 0; k < kblocks; ++k) {
      for (size_t j = 0; j < kNR; ++j) {
        for (size_t e = 0; e < kKR; ++e) {
          acc[j] += static_cast<uint32_t>(int32_t{am[kKR * k + e]} * w[(k * kNR + j) * kKR + e]);
        }
      }
    }
    for (size_t j = 0; j < kNR; ++j) c[m * c_stride + j] = static_cast<int32_t>(acc[j]);
  }
}

void winograd_output_f23_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && nt >= 1);
  const size_t points = size_t{1} << (2 * nd), outputs = size_t{1} << nd;
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j = 0; j < nc; ++j) {
      uint32_t y[64];  // wrapping, as the SIMD kernel's int32 adds
      for (size_t xi = 0; xi < points; ++xi) y[xi] = static_cast<uint32_t>(mt[xi * m_stride + j]);
      size_t ext[kWinogradMaxDims] = {4, 4, 4};
      for (size_t k = 0; k < nd; ++k) apply_along(kAT, nd, ext, k, y);
      for (size_t o = 0; o < outputs; ++o) {
        if (!(valid >> o & 1)) continue;
        const int32_t acc = static_cast<int32_t>(y[o]) >> nd;  // exact: 2^nd * acc, checked by the driver
        ct[out_offsets[o] + static_cast<ptrdiff_t>(j * c_stride)] = requantize(acc, j, *params);
      }
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
