// Scalar twins of the Winograd F(4, 3) wasmsimd kernels: F(4, 3) along the
// innermost active dimension, F(2, 3) along the others (m = 4); and F(4, 3)
// along both dimensions of a two-dimensional tile (kWinogradF43Both). One
// channel at a time, one dimension at a time (scalar/winograd_tiles.h;
// contracts and matrices: kernels/winograd_kernels.h).
#include "kernels/scalar/winograd_tiles.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {

void winograd_weights_f43_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                 size_t u_stride) {
  winograd_tiles::weights(4, nd, len, w, zp, u, u_stride);
}

void winograd_input_f43_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                               size_t v_stride) {
  winograd_tiles::input(4, nd, channels, d, strides, v, v_stride);
}

void winograd_output_f43_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  winograd_tiles::output(4, nd, nt, nc, m, m_stride, m_tile_stride, c, c_stride, tile_step, out_offsets, valid,
                         *params);
}

void winograd_weights_f43x43_scalar(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                    size_t u_stride) {
  winograd_tiles::weights(kWinogradF43Both, nd, len, w, zp, u, u_stride);
}

void winograd_input_f43x43_scalar(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                  size_t v_stride) {
  winograd_tiles::input(kWinogradF43Both, nd, channels, d, strides, v, v_stride);
}

void winograd_output_f43x43_scalar(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                   size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                   const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  winograd_tiles::output(kWinogradF43Both, nd, nt, nc, m, m_stride, m_tile_stride, c, c_stride, tile_step, out_offsets,
                         valid, *params);
}

}  // namespace kernels
}  // namespace qwasm
