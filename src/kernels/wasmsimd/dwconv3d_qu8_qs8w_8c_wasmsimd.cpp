// Depthwise: one output pixel, 8 channels per step; int16 x int16 -> int32
// with extmul (the channels are the vector lanes, so no pairs to dot).
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"

namespace qwasm {
namespace kernels {

void dwconv3d_qu8_qs8w_8c_wasmsimd(size_t channels, size_t valid, size_t ntaps, const int16_t* a,
                                   const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c, size_t c_stride,
                                   const ConvRequantParams* params) {
  assert(channels % 8 == 0 && valid <= channels);
  const RequantVectors r(*params);
  for (size_t cb = 0; cb < valid; cb += 8) {
    v128_t acc_lo = wasm_i32x4_const_splat(0);
    v128_t acc_hi = wasm_i32x4_const_splat(0);
    const int16_t* wt = w + cb;
    for (size_t t = 0; t < ntaps; ++t, wt += channels) {
      const v128_t va = wasm_v128_load(a + tap_offsets[t] + cb);
      const v128_t vw = wasm_v128_load(wt);
      acc_lo = wasm_i32x4_add(acc_lo, wasm_i32x4_extmul_low_i16x8(va, vw));
      acc_hi = wasm_i32x4_add(acc_hi, wasm_i32x4_extmul_high_i16x8(va, vw));
    }
    const v128_t lo =
        requantize4(acc_lo, wasm_v128_load(params->bias_div + cb), wasm_v128_load(params->multiplier + cb), r);
    const v128_t hi =
        requantize4(acc_hi, wasm_v128_load(params->bias_div + cb + 4), wasm_v128_load(params->multiplier + cb + 4), r);
    store_u8_lanes(c + cb * c_stride, c_stride, std::min<size_t>(8, valid - cb), lo, hi);
  }
}

}  // namespace kernels
}  // namespace qwasm
