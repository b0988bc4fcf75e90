// Scalar twins of the Winograd F(2, 3) wasmsimd kernels and of the GEMM: the
// same contracts (kernels/winograd_kernels.h), the transforms one channel at
// a time, one dimension at a time (scalar/winograd_tiles.h).
#include <cassert>

#include "kernels/scalar/winograd_tiles.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {

void winograd_weights_f23_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                 size_t u_stride) {
  winograd_tiles::weights(2, nd, len, w, zp, u, u_stride);
}

void winograd_input_f23_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                               size_t v_stride) {
  winograd_tiles::input(2, nd, channels, d, strides, v, v_stride);
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
  winograd_tiles::output(2, nd, nt, nc, m, m_stride, m_tile_stride, c, c_stride, tile_step, out_offsets, valid,
                         *params);
}

}  // namespace kernels
}  // namespace qwasm
