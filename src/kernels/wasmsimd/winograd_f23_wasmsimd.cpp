// The Winograd F(2, 3) kernels for wasm SIMD128 (contracts:
// kernels/winograd_kernels.h). The input transform runs 8 channels (int16x8)
// at a time, the output transform 4 (int32x4), each dimension by dimension
// with adds and subtracts only: every matrix entry is 0 or +-1.
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/wasmsimd/conv_store.h"
#include "kernels/wasmsimd/dot16_4x8c2.h"
#include "kernels/wasmsimd/winograd_f23_steps.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {

using winograd_f23::at2;
using winograd_f23::bt4;
using winograd_f23::g4;

namespace {

// The last two dimensions of a tile: e[i][k] (taps) -> points (a, b) stored at v + (a * 4 + b) * vs.
inline void bt2d_store(const v128_t e[4][4], int16_t* v, size_t vs) {
  v128_t f[4][4];  // f[a][k]
  for (int k = 0; k < 4; ++k) {
    v128_t y[4];
    bt4(e[0][k], e[1][k], e[2][k], e[3][k], y);
    for (int a = 0; a < 4; ++a) f[a][k] = y[a];
  }
  for (int a = 0; a < 4; ++a) {
    v128_t y[4];
    bt4(f[a][0], f[a][1], f[a][2], f[a][3], y);
    for (int b = 0; b < 4; ++b) wasm_v128_store(v + static_cast<size_t>(a * 4 + b) * vs, y[b]);
  }
}

inline void input8_1d(const int16_t* d, const ptrdiff_t* s, int16_t* v, size_t vs) {
  v128_t y[4];
  bt4(wasm_v128_load(d), wasm_v128_load(d + s[0]), wasm_v128_load(d + 2 * s[0]), wasm_v128_load(d + 3 * s[0]), y);
  for (int a = 0; a < 4; ++a) wasm_v128_store(v + a * vs, y[a]);
}

inline void input8_2d(const int16_t* d, const ptrdiff_t* s, int16_t* v, size_t vs) {
  v128_t e[4][4];
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 4; ++k) e[i][k] = wasm_v128_load(d + i * s[0] + k * s[1]);
  bt2d_store(e, v, vs);
}

inline void input8_3d(const int16_t* d, const ptrdiff_t* s, int16_t* v, size_t vs) {
  // B^T over the outermost dimension from one load of each tap, two rows of
  // it at a time (rows 0 and 3, then 1 and 2: each pair reads all 4 taps).
  for (int half = 0; half < 2; ++half) {
    v128_t e0[4][4], e1[4][4];
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 4; ++k) {
        const int16_t* p = d + j * s[1] + k * s[2];
        const v128_t x0 = wasm_v128_load(p), x1 = wasm_v128_load(p + s[0]);
        const v128_t x2 = wasm_v128_load(p + 2 * s[0]), x3 = wasm_v128_load(p + 3 * s[0]);
        if (half == 0) {
          e0[j][k] = wasm_i16x8_sub(x0, x2);  // row 0
          e1[j][k] = wasm_i16x8_sub(x1, x3);  // row 3
        } else {
          e0[j][k] = wasm_i16x8_add(x1, x2);  // row 1
          e1[j][k] = wasm_i16x8_sub(x2, x1);  // row 2
        }
      }
    }
    bt2d_store(e0, v + static_cast<size_t>(half == 0 ? 0 : 1) * 16 * vs, vs);
    bt2d_store(e1, v + static_cast<size_t>(half == 0 ? 3 : 2) * 16 * vs, vs);
  }
}

// The last two dimensions: x[a][b] -> y[p * 2 + q].
inline void at2d(const v128_t x[4][4], v128_t* y) {
  v128_t f[2][4];
  for (int b = 0; b < 4; ++b) at2(x[0][b], x[1][b], x[2][b], x[3][b], &f[0][b], &f[1][b]);
  for (int p = 0; p < 2; ++p) at2(f[p][0], f[p][1], f[p][2], f[p][3], &y[p * 2], &y[p * 2 + 1]);
}

// y[o] (o in mixed radix 2) of 4 channels from m (point xi at m + xi * ms).
inline void output4(size_t nd, const int32_t* m, size_t ms, v128_t* y) {
  auto at = [&](size_t xi) { return wasm_v128_load(m + xi * ms); };
  if (nd == 1) {
    at2(at(0), at(1), at(2), at(3), &y[0], &y[1]);
  } else if (nd == 2) {
    v128_t x[4][4];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) x[a][b] = at(a * 4 + b);
    at2d(x, y);
  } else {
    for (int p = 0; p < 2; ++p) {
      v128_t x[4][4];
      for (int b = 0; b < 4; ++b) {
        for (int c = 0; c < 4; ++c) {
          const size_t xi = b * 4 + c;
          x[b][c] = p == 0 ? wasm_i32x4_add(wasm_i32x4_add(at(xi), at(16 + xi)), at(32 + xi))
                           : wasm_i32x4_sub(wasm_i32x4_sub(at(16 + xi), at(32 + xi)), at(48 + xi));
        }
      }
      at2d(x, y + p * 4);
    }
  }
}

}  // namespace

void winograd_input_f23_wasmsimd(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                 size_t v_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && channels % 8 == 0);
  for (size_t c = 0; c < channels; c += 8) {
    if (nd == 1) {
      input8_1d(d + c, strides, v + c, v_stride);
    } else if (nd == 2) {
      input8_2d(d + c, strides, v + c, v_stride);
    } else {
      input8_3d(d + c, strides, v + c, v_stride);
    }
  }
}

void gemm_qs16_4x8c2_wasmsimd_dot16(size_t rows, size_t kblocks, const int16_t* a, size_t a_stride, const int16_t* w,
                                    int32_t* c, size_t c_stride) {
  const ptrdiff_t whole_row = 0;
  for (size_t m0 = 0; m0 < rows; m0 += 4) {
    const size_t mr = rows - m0 < 4 ? rows - m0 : 4;
    const int16_t* a0 = a + m0 * a_stride;
    const int16_t* a1 = mr > 1 ? a0 + a_stride : a0;
    const int16_t* a2 = mr > 2 ? a1 + a_stride : a1;
    const int16_t* a3 = mr > 3 ? a2 + a_stride : a2;
    Acc4x8 acc;
    dot16_4x8c2(a0, a1, a2, a3, 1, &whole_row, kblocks, w, acc);
    int32_t* c0 = c + m0 * c_stride;
    wasm_v128_store(c0, acc.r0x0123);
    wasm_v128_store(c0 + 4, acc.r0x4567);
    if (mr > 1) wasm_v128_store(c0 + c_stride, acc.r1x0123), wasm_v128_store(c0 + c_stride + 4, acc.r1x4567);
    if (mr > 2) wasm_v128_store(c0 + 2 * c_stride, acc.r2x0123), wasm_v128_store(c0 + 2 * c_stride + 4, acc.r2x4567);
    if (mr > 3) wasm_v128_store(c0 + 3 * c_stride, acc.r3x0123), wasm_v128_store(c0 + 3 * c_stride + 4, acc.r3x4567);
  }
}

namespace {

// Output o (values 0..255, int32) of one 4-channel group of one tile: the
// output transform of its points, >> nd, and the requantization
// (requantize4_clamped: requantize4's integers in fewer instructions).
inline void tile_outputs4(size_t nd, const int32_t* m, size_t ms, const RequantChannels& ch, const RequantVectors& rv,
                          v128_t* r) {
  v128_t y[8];
  output4(nd, m, ms, y);
  const size_t outputs = size_t{1} << nd;
  for (size_t o = 0; o < outputs; ++o) {
    r[o] = requantize4_clamped(wasm_i32x4_shr(y[o], static_cast<uint32_t>(nd)), ch, rv);  // exact: see the header
  }
}

// Two neighbouring outputs (a and b = a + 1 in the plane) of four tiles 2
// apart (tile_step 2), n <= 4 channels: 8 neighbouring bytes per channel,
// one 64-bit store each.
inline void store_4pairs(uint8_t* p, size_t c_stride, size_t n, const v128_t* a, const v128_t* b) {
  const v128_t v01 = wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(a[0], b[0]), wasm_i16x8_narrow_i32x4(a[1], b[1]));
  const v128_t v23 = wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(a[2], b[2]), wasm_i16x8_narrow_i32x4(a[3], b[3]));
  const v128_t c01 = wasm_i8x16_shuffle(v01, v23, 0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
  const v128_t c23 = wasm_i8x16_shuffle(v01, v23, 2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31);
  wasm_v128_store64_lane(p, c01, 0);
  if (n > 1) wasm_v128_store64_lane(p + c_stride, c01, 1);
  if (n > 2) wasm_v128_store64_lane(p + 2 * c_stride, c23, 0);
  if (n > 3) wasm_v128_store64_lane(p + 3 * c_stride, c23, 1);
}

}  // namespace

// Four tiles at a time, their bytes stored together where they are
// neighbours in the planes (tile_step 1: one output's 4 bytes per channel;
// tile_step 2 with W's output pairs adjacent, 1-D: 8 bytes), then the run's
// last tiles one by one; within a tile or a group of four, 4 channels at a
// time (a tile's points are read while in cache: 3-D tiles' 64 points of 64
// channels take 16 KiB). A 3-tap W with 2 or 3 active dimensions (tile_step
// 2, 4 or 8 outputs per tile) stays one tile at a time: four tiles' 16-32
// output vectors spill registers, and its stores are already 2 bytes per
// channel (grouped, r3d_18's 64-channel 3x3x3 layer and r2plus1d_18's 1x3x3
// one measured 0.92x and 0.98x in one run).
void winograd_output_f23_wasmsimd(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                  size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                  const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && nt >= 1);
  const size_t outputs = size_t{1} << nd;
  const RequantVectors rv(*params);
  const bool grouped = tile_step == 1 || nd == 1;
  size_t t = 0;
  for (; grouped && t + 4 <= nt; t += 4) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      v128_t r[4][8];
      for (size_t k = 0; k < 4; ++k) tile_outputs4(nd, mt + k * m_tile_stride + j0, m_stride, ch, rv, r[k]);
      uint8_t* cj = ct + j0 * c_stride;
      for (size_t o = 0; o < outputs; ++o) {
        if (!(valid >> o & 1)) continue;
        uint8_t* p = cj + out_offsets[o];
        if (tile_step == 1) {
          store_4tiles(p, c_stride, n, r[0][o], r[1][o], r[2][o], r[3][o]);
          continue;
        }
        if (tile_step == 2 && o % 2 == 0 && (valid >> (o + 1) & 1) && out_offsets[o + 1] == out_offsets[o] + 1) {
          const v128_t a[4] = {r[0][o], r[1][o], r[2][o], r[3][o]};
          const v128_t b[4] = {r[0][o + 1], r[1][o + 1], r[2][o + 1], r[3][o + 1]};
          store_4pairs(p, c_stride, n, a, b);
          ++o;
          continue;
        }
        for (size_t k = 0; k < 4; ++k) store_channels(p + static_cast<ptrdiff_t>(k) * tile_step, c_stride, n, r[k][o]);
      }
    }
  }
  for (; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      v128_t r[8];
      tile_outputs4(nd, mt + j0, m_stride, ch, rv, r);
      uint8_t* cj = ct + j0 * c_stride;
      for (size_t o = 0; o < outputs; ++o) {
        if (!(valid >> o & 1)) continue;
        // Two outputs adjacent in the plane (the innermost dimension is W): one 2-byte store per channel.
        if (o % 2 == 0 && (valid >> (o + 1) & 1) && out_offsets[o + 1] == out_offsets[o] + 1 && n == 4) {
          const v128_t b16 = wasm_i16x8_narrow_i32x4(r[o], r[o + 1]);
          const v128_t b8 = wasm_u8x16_narrow_i16x8(b16, b16);
          const v128_t pairs = wasm_i8x16_shuffle(b8, b8, 0, 4, 1, 5, 2, 6, 3, 7, 0, 0, 0, 0, 0, 0, 0, 0);
          uint8_t* p = cj + out_offsets[o];
          wasm_v128_store16_lane(p, pairs, 0);
          wasm_v128_store16_lane(p + c_stride, pairs, 1);
          wasm_v128_store16_lane(p + 2 * c_stride, pairs, 2);
          wasm_v128_store16_lane(p + 3 * c_stride, pairs, 3);
          ++o;
          continue;
        }
        store_channels(cj + out_offsets[o], c_stride, n, r[o]);
      }
    }
  }
}

namespace {

// The last two dimensions: e[j][k] (taps) -> points (b, c) stored at u + (b * 4 + c) * us.
inline void g2d_store(const v128_t e[3][3], int16_t* u, size_t us) {
  v128_t f[4][3];  // f[b][k]
  for (int k = 0; k < 3; ++k) {
    v128_t y[4];
    g4(e[0][k], e[1][k], e[2][k], y);
    for (int b = 0; b < 4; ++b) f[b][k] = y[b];
  }
  for (int b = 0; b < 4; ++b) {
    v128_t y[4];
    g4(f[b][0], f[b][1], f[b][2], y);
    for (int c = 0; c < 4; ++c) wasm_v128_store(u + static_cast<size_t>(b * 4 + c) * us, y[c]);
  }
}

}  // namespace

// 8 lanes at a time, every step in registers: the taps (int8, widened and
// centred as they load), then G' dimension by dimension. In 3-D the
// outermost dimension goes first, one of its 4 points at a time, reading
// the taps again for each (a group's 432 bytes stay in L1) rather than
// holding all 27.
void winograd_weights_f23_wasmsimd(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                   size_t u_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && len % kWinoWeightsPeriod == 0);
  size_t taps = 1;
  for (size_t k = 0; k < nd; ++k) taps *= 3;
  for (size_t i = 0; i < len; i += 8) {
    const size_t lane = i % kWinoWeightsPeriod;
    const v128_t z = wasm_v128_load(zp + lane);
    const int8_t* wi = w + i / kWinoWeightsPeriod * taps * kWinoWeightsPeriod + lane;
    auto tap = [&](size_t t) { return wasm_i16x8_sub(wasm_i16x8_load8x8(wi + t * kWinoWeightsPeriod), z); };
    int16_t* ui = u + i;
    if (nd == 1) {
      v128_t y[4];
      g4(tap(0), tap(1), tap(2), y);
      for (int a = 0; a < 4; ++a) wasm_v128_store(ui + a * u_stride, y[a]);
    } else if (nd == 2) {
      v128_t e[3][3];
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) e[j][k] = tap(j * 3 + k);
      g2d_store(e, ui, u_stride);
    } else {
      for (int a = 0; a < 4; ++a) {
        v128_t e[3][3];
        for (int j = 0; j < 3; ++j) {
          for (int k = 0; k < 3; ++k) {
            const size_t t = j * 3 + k;
            // Row a of G' over the outermost dimension's taps t, t + 9, t + 18.
            if (a == 0) {
              const v128_t x0 = tap(t);
              e[j][k] = wasm_i16x8_add(x0, x0);
            } else if (a == 3) {
              const v128_t x2 = tap(t + 18);
              e[j][k] = wasm_i16x8_add(x2, x2);
            } else {
              const v128_t ac = wasm_i16x8_add(tap(t), tap(t + 18)), b = tap(t + 9);
              e[j][k] = a == 1 ? wasm_i16x8_add(ac, b) : wasm_i16x8_sub(ac, b);
            }
          }
        }
        g2d_store(e, ui + static_cast<size_t>(a) * 16 * u_stride, u_stride);
      }
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
