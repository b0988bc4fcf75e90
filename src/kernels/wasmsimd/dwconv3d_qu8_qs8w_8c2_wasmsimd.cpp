// Depthwise: one output pixel, 8 channels per step, two taps per
// i32x4.dot_i16x8_s: the two taps' activations are interleaved per channel
// (one i16x8 shuffle each half), the weights come packed that way
// ([tap pair][channel][2]), and each dot adds both taps of four channels.
// (The earlier form, extmul + add per tap, costs V8 three instructions per
// extmul on x64; a dot is one pmaddwd.)
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"

namespace qwasm {
namespace kernels {

void dwconv3d_qu8_qs8w_8c2_wasmsimd(size_t channels, size_t valid, size_t ntaps, const int16_t* a,
                                    const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c, size_t c_stride,
                                    const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels && ntaps % 2 == 0);
  const RequantVectors r(*params);
  for (size_t cb = 0; cb < valid; cb += 8) {
    v128_t acc_lo = wasm_i32x4_const_splat(0);
    v128_t acc_hi = wasm_i32x4_const_splat(0);
    const int16_t* wp = w + 2 * cb;
    for (size_t t = 0; t < ntaps; t += 2, wp += 2 * channels) {
      const v128_t a0 = wasm_v128_load(a + tap_offsets[t] + cb);
      const v128_t a1 = wasm_v128_load(a + tap_offsets[t + 1] + cb);
      const v128_t lo = wasm_i16x8_shuffle(a0, a1, 0, 8, 1, 9, 2, 10, 3, 11);
      const v128_t hi = wasm_i16x8_shuffle(a0, a1, 4, 12, 5, 13, 6, 14, 7, 15);
      acc_lo = wasm_i32x4_add(acc_lo, wasm_i32x4_dot_i16x8(lo, wasm_v128_load(wp)));
      acc_hi = wasm_i32x4_add(acc_hi, wasm_i32x4_dot_i16x8(hi, wasm_v128_load(wp + 8)));
    }
    const v128_t lo = requantize4(acc_lo, RequantChannels(*params, cb), r);
    const v128_t hi = requantize4(acc_hi, RequantChannels(*params, cb + 4), r);
    store_u8_lanes(c + cb * c_stride, c_stride, std::min<size_t>(8, valid - cb), lo, hi);
  }
}

}  // namespace kernels
}  // namespace qwasm
