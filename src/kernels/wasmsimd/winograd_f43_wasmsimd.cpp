// The Winograd F(4, 3) kernels for wasm SIMD128, one active dimension
// (contracts and matrices: kernels/winograd_kernels.h). The input and weight
// transforms run 8 channels (int16x8) at a time, the output transform 4
// (int32x4); the matrices' entries are small, so multiplies are shifts and
// adds. The output transform's 24 * acc is divided exactly: an arithmetic
// shift by 3, a multiply by 3's inverse mod 2^32, a sign extension from bit 28.
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/wasmsimd/conv_store.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {
namespace {

inline v128_t times4(v128_t x) { return wasm_i16x8_shl(x, 2); }

// B^T: 6 taps -> 6 points; every step fits int16 for taps in [-255, 255].
inline void bt6(const v128_t* x, v128_t* y) {
  const v128_t x4_minus_x2 = wasm_i16x8_sub(x[4], x[2]);
  const v128_t twice_x3_minus_x1 = wasm_i16x8_shl(wasm_i16x8_sub(x[3], x[1]), 1);
  y[0] = wasm_i16x8_add(wasm_i16x8_sub(times4(wasm_i16x8_sub(x[0], x[2])), x[2]), x[4]);  // 4x0 - 5x2 + x4
  y[1] = wasm_i16x8_sub(wasm_i16x8_add(x[3], x[4]), times4(wasm_i16x8_add(x[1], x[2])));
  y[2] = wasm_i16x8_add(wasm_i16x8_sub(x[4], x[3]), times4(wasm_i16x8_sub(x[1], x[2])));
  y[3] = wasm_i16x8_add(x4_minus_x2, twice_x3_minus_x1);
  y[4] = wasm_i16x8_sub(x4_minus_x2, twice_x3_minus_x1);
  y[5] = wasm_i16x8_add(wasm_i16x8_sub(times4(wasm_i16x8_sub(x[1], x[3])), x[3]), x[5]);  // 4x1 - 5x3 + x5
}

// A^T: 6 points -> 4 outputs (int32, wrapping), each divided by 24 exactly.
inline void at4_div24(const int32_t* m, size_t ms, v128_t* acc) {
  const v128_t m1 = wasm_v128_load(m + ms), m2 = wasm_v128_load(m + 2 * ms);
  const v128_t m3 = wasm_v128_load(m + 3 * ms), m4 = wasm_v128_load(m + 4 * ms);
  const v128_t s12 = wasm_i32x4_add(m1, m2), d12 = wasm_i32x4_sub(m1, m2);
  const v128_t s34 = wasm_i32x4_add(m3, m4), d34 = wasm_i32x4_sub(m3, m4);
  v128_t y[4];
  y[0] = wasm_i32x4_add(wasm_i32x4_add(wasm_v128_load(m), s12), s34);
  y[1] = wasm_i32x4_add(d12, wasm_i32x4_shl(d34, 1));
  y[2] = wasm_i32x4_add(s12, wasm_i32x4_shl(s34, 2));
  y[3] = wasm_i32x4_add(wasm_i32x4_add(d12, wasm_i32x4_shl(d34, 3)), wasm_v128_load(m + 5 * ms));
  const v128_t inverse_of_3 = wasm_i32x4_const_splat(static_cast<int32_t>(0xAAAAAAABu));
  for (int o = 0; o < 4; ++o) {
    const v128_t acc_mod = wasm_i32x4_mul(wasm_i32x4_shr(y[o], 3), inverse_of_3);
    acc[o] = wasm_i32x4_shr(wasm_i32x4_shl(acc_mod, 3), 3);
  }
}

}  // namespace

void winograd_input_f43_wasmsimd(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                 size_t v_stride) {
  assert(nd == 1 && channels % 8 == 0);
  (void)nd;
  const ptrdiff_t s = strides[0];
  for (size_t c = 0; c < channels; c += 8) {
    v128_t x[6], y[6];
    for (int t = 0; t < 6; ++t) x[t] = wasm_v128_load(d + c + t * s);
    bt6(x, y);
    for (int xi = 0; xi < 6; ++xi) wasm_v128_store(v + c + xi * v_stride, y[xi]);
  }
}

// Four tiles at a time where they are neighbours in the planes (tile_step 1:
// a 3x1x1 layer's tiles along W; one 32-bit store per channel and output),
// then one tile at a time (its four outputs one 32-bit store per channel when
// they are adjacent: W the active dimension); 4 channels at a time.
void winograd_output_f43_wasmsimd(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                  size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                  const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd == 1 && nt >= 1);
  (void)nd;
  const RequantVectors rv(*params);
  size_t t = 0;
  for (; tile_step == 1 && t + 4 <= nt; t += 4) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t);
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      v128_t r[4][4];  // [tile][output]
      for (size_t k = 0; k < 4; ++k) {
        at4_div24(mt + k * m_tile_stride + j0, m_stride, r[k]);
        for (int o = 0; o < 4; ++o) r[k][o] = requantize4_clamped(r[k][o], ch, rv);
      }
      uint8_t* cj = ct + j0 * c_stride;
      for (size_t o = 0; o < 4; ++o) {
        if (valid >> o & 1) store_4tiles(cj + out_offsets[o], c_stride, n, r[0][o], r[1][o], r[2][o], r[3][o]);
      }
    }
  }
  const bool adjacent = valid == 0xF && out_offsets[1] == out_offsets[0] + 1 && out_offsets[2] == out_offsets[0] + 2 &&
                        out_offsets[3] == out_offsets[0] + 3;
  for (; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      v128_t r[4];
      at4_div24(mt + j0, m_stride, r);
      for (int o = 0; o < 4; ++o) r[o] = requantize4_clamped(r[o], ch, rv);
      uint8_t* cj = ct + j0 * c_stride;
      if (adjacent) {
        store_4tiles(cj + out_offsets[0], c_stride, n, r[0], r[1], r[2], r[3]);
        continue;
      }
      for (size_t o = 0; o < 4; ++o) {
        if (valid >> o & 1) store_channels(cj + out_offsets[o], c_stride, n, r[o]);
      }
    }
  }
}

// 8 lanes at a time: the 3 taps (int8, widened and centred as they load),
// then G' = 24G.
void winograd_weights_f43_wasmsimd(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                   size_t u_stride) {
  assert(nd == 1 && len % kWinoWeightsPeriod == 0);
  (void)nd;
  for (size_t i = 0; i < len; i += 8) {
    const size_t lane = i % kWinoWeightsPeriod;
    const v128_t z = wasm_v128_load(zp + lane);
    const int8_t* wi = w + i / kWinoWeightsPeriod * 3 * kWinoWeightsPeriod + lane;
    auto tap = [&](size_t t) { return wasm_i16x8_sub(wasm_i16x8_load8x8(wi + t * kWinoWeightsPeriod), z); };
    const v128_t g0 = tap(0), g1 = tap(1), g2 = tap(2);
    const v128_t g0_plus_g2 = wasm_i16x8_add(g0, g2), g0_plus_4g2 = wasm_i16x8_add(g0, times4(g2));
    const v128_t twice_g1 = wasm_i16x8_shl(g1, 1), minus4 = wasm_i16x8_const_splat(-4);
    int16_t* ui = u + i;
    wasm_v128_store(ui, wasm_i16x8_mul(g0, wasm_i16x8_const_splat(6)));
    wasm_v128_store(ui + u_stride, wasm_i16x8_mul(wasm_i16x8_add(g0_plus_g2, g1), minus4));
    wasm_v128_store(ui + 2 * u_stride, wasm_i16x8_mul(wasm_i16x8_sub(g0_plus_g2, g1), minus4));
    wasm_v128_store(ui + 3 * u_stride, wasm_i16x8_add(g0_plus_4g2, twice_g1));
    wasm_v128_store(ui + 4 * u_stride, wasm_i16x8_sub(g0_plus_4g2, twice_g1));
    wasm_v128_store(ui + 5 * u_stride, wasm_i16x8_mul(g2, wasm_i16x8_const_splat(24)));
  }
}

}  // namespace kernels
}  // namespace qwasm
