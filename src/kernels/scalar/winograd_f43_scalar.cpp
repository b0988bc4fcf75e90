// Scalar twins of the Winograd F(4, 3) wasmsimd kernels: one active
// dimension, one channel at a time (contracts and matrices:
// kernels/winograd_kernels.h).
#include <cassert>

#include "kernels/requantize.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {

namespace {
const int kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                       {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
const int kG24[6][3] = {{6, 0, 0}, {-4, -4, -4}, {-4, 4, -4}, {1, 2, 4}, {1, -2, 4}, {0, 0, 24}};
const int kAT[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

// acc from y = 24 * acc mod 2^32, exact when |acc| < 2^28 (the driver's guard):
// y >> 3 is 3 * acc mod 2^29, 3's inverse mod 2^32 takes it to acc mod 2^29,
// and the sign extension from bit 28 to acc.
int32_t acc_of_f43(uint32_t y) {
  const uint32_t three_acc = static_cast<uint32_t>(static_cast<int32_t>(y) >> 3);
  const uint32_t acc_mod = three_acc * 0xAAAAAAABu;
  return static_cast<int32_t>(acc_mod << 3) >> 3;
}
}  // namespace

void winograd_weights_f43_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                 size_t u_stride) {
  assert(nd == 1 && len % kWinoWeightsPeriod == 0);
  (void)nd;
  for (size_t i = 0; i < len; ++i) {
    const size_t lane = i % kWinoWeightsPeriod;
    const int8_t* wi = w + i / kWinoWeightsPeriod * 3 * kWinoWeightsPeriod + lane;
    int32_t g[3];  // |g| <= 255, |U| <= 24 * 255
    for (size_t t = 0; t < 3; ++t) g[t] = wi[t * kWinoWeightsPeriod] - zp[lane];
    for (size_t xi = 0; xi < 6; ++xi) {
      u[xi * u_stride + i] = static_cast<int16_t>(kG24[xi][0] * g[0] + kG24[xi][1] * g[1] + kG24[xi][2] * g[2]);
    }
  }
}

void winograd_input_f43_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                               size_t v_stride) {
  assert(nd == 1 && channels % 8 == 0);
  (void)nd;
  for (size_t c = 0; c < channels; ++c) {
    int32_t x[6];
    for (size_t t = 0; t < 6; ++t) x[t] = d[static_cast<ptrdiff_t>(t) * strides[0] + static_cast<ptrdiff_t>(c)];
    for (size_t xi = 0; xi < 6; ++xi) {
      int32_t s = 0;  // |s| <= 10 * 255 for |x| <= 255 (the driver's inputs)
      for (size_t t = 0; t < 6; ++t) s += kBT[xi][t] * x[t];
      v[xi * v_stride + c] = static_cast<int16_t>(s);
    }
  }
}

void winograd_output_f43_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd == 1 && nt >= 1);
  (void)nd;
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j = 0; j < nc; ++j) {
      for (size_t o = 0; o < 4; ++o) {
        if (!(valid >> o & 1)) continue;
        uint32_t y = 0;  // wrapping, as the SIMD kernel's int32 adds
        for (size_t xi = 0; xi < 6; ++xi) {
          y += static_cast<uint32_t>(kAT[o][xi]) * static_cast<uint32_t>(mt[xi * m_stride + j]);
        }
        ct[out_offsets[o] + static_cast<ptrdiff_t>(j * c_stride)] = requantize(acc_of_f43(y), j, *params);
      }
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
