// The Winograd F(4, 3) kernels for wasm SIMD128: F(4, 3) along the innermost
// active dimension, F(2, 3) along the others; and F(4, 3) along both
// dimensions of a two-dimensional tile (contracts and matrices:
// kernels/winograd_kernels.h). The input and weight transforms run 8
// channels (int16x8) at a time, the output transform 4 (int32x4); the
// matrices' entries are small, so multiplies are shifts and adds. In two or
// three dimensions, each transform goes through a small stack block (L1):
// the F(4, 3) dimension first for the input and weights (6 values from each
// line of taps), the F(2, 3) ones first for the output (reducing 16 or 4
// lines to 4 or 2 before the 6-point step). The output transform's
// 3 * 2^s * acc (9 * 2^6 * acc on F(4, 3) x F(4, 3)) is divided exactly: a
// multiply by 3's (9's) inverse mod 2^32 gives 2^s * acc, then an arithmetic
// shift by s.
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/wasmsimd/conv_store.h"
#include "kernels/wasmsimd/winograd_f23_steps.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {

using winograd_f23::at2;
using winograd_f23::bt4;
using winograd_f23::g4;

namespace {

inline v128_t times4(v128_t x) { return wasm_i16x8_shl(x, 2); }

// B^T: 6 taps -> 6 points; every step fits int16 for |taps| <= 255 (the
// input transform runs it first, on the centred input).
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

// G'': 3 taps -> 6 points (|U| <= 7 * |g|).
inline void g6(v128_t g0, v128_t g1, v128_t g2, v128_t* y) {
  const v128_t g0_plus_g2 = wasm_i16x8_add(g0, g2), g0_plus_4g2 = wasm_i16x8_add(g0, times4(g2));
  const v128_t twice_g1 = wasm_i16x8_shl(g1, 1), zero = wasm_i16x8_const_splat(0);
  y[0] = g0;
  y[1] = wasm_i16x8_sub(wasm_i16x8_sub(zero, g0_plus_g2), g1);
  y[2] = wasm_i16x8_sub(g1, g0_plus_g2);
  y[3] = wasm_i16x8_add(g0_plus_4g2, twice_g1);
  y[4] = wasm_i16x8_sub(g0_plus_4g2, twice_g1);
  y[5] = g2;
}

// A'': 6 points (m[xi * ms]) -> 4 outputs (int32, wrapping).
inline void at4(const int32_t* m, size_t ms, v128_t* y) {
  const v128_t m1 = wasm_v128_load(m + ms), m2 = wasm_v128_load(m + 2 * ms);
  const v128_t m3 = wasm_v128_load(m + 3 * ms), m4 = wasm_v128_load(m + 4 * ms);
  const v128_t s12 = wasm_i32x4_shl(wasm_i32x4_add(m1, m2), 2), d12 = wasm_i32x4_shl(wasm_i32x4_sub(m1, m2), 2);
  const v128_t s34 = wasm_i32x4_add(m3, m4), d34 = wasm_i32x4_sub(m3, m4);
  const v128_t m0 = wasm_v128_load(m), m5 = wasm_v128_load(m + 5 * ms);
  const v128_t six_m0 = wasm_i32x4_add(wasm_i32x4_shl(m0, 2), wasm_i32x4_shl(m0, 1));
  const v128_t m5_times_24 = wasm_i32x4_add(wasm_i32x4_shl(m5, 4), wasm_i32x4_shl(m5, 3));
  y[0] = wasm_i32x4_add(wasm_i32x4_add(six_m0, s12), s34);
  y[1] = wasm_i32x4_add(d12, wasm_i32x4_shl(d34, 1));
  y[2] = wasm_i32x4_add(s12, wasm_i32x4_shl(s34, 2));
  y[3] = wasm_i32x4_add(wasm_i32x4_add(d12, wasm_i32x4_shl(d34, 3)), m5_times_24);
}

// A'' then the exact division of each output by odd * 2^s (inverse: odd's
// inverse mod 2^32): y * odd^-1 = 2^s * acc mod 2^32, which is that int32
// itself while |acc| < 2^(31 - s) (the guard), and an arithmetic shift gives acc.
inline void at4_div(const int32_t* m, size_t ms, uint32_t inverse, int s, v128_t* acc) {
  v128_t y[4];
  at4(m, ms, y);
  const v128_t inv = wasm_i32x4_splat(static_cast<int32_t>(inverse));
  const uint32_t shift = static_cast<uint32_t>(s);
  for (int o = 0; o < 4; ++o) acc[o] = wasm_i32x4_shr(wasm_i32x4_mul(y[o], inv), shift);
}

constexpr uint32_t kInverseOf3 = 0xAAAAAAABu;  // 3 * 0xAAAAAAAB = 1 mod 2^32
constexpr uint32_t kInverseOf9 = 0x38E38E39u;  // 9 * 0x38E38E39 = 1 mod 2^32

// The four outputs along the F(4, 3) dimension of one line (out: where the
// first goes in channel 0's plane, o0: its index among the tile's outputs),
// 4 channels: one 32-bit store per channel when all four are stored and
// neighbours in the planes, else one byte each.
inline void store_line(uint8_t* c, size_t c_stride, size_t n, const ptrdiff_t* out_offsets, uint32_t valid, size_t o0,
                       const v128_t* r) {
  if ((valid >> o0 & 0xF) == 0xF && out_offsets[o0 + 1] == out_offsets[o0] + 1 &&
      out_offsets[o0 + 2] == out_offsets[o0] + 2 && out_offsets[o0 + 3] == out_offsets[o0] + 3) {
    store_4tiles(c + out_offsets[o0], c_stride, n, r[0], r[1], r[2], r[3]);
    return;
  }
  for (size_t o = 0; o < 4; ++o) {
    if (valid >> (o0 + o) & 1) store_channels(c + out_offsets[o0 + o], c_stride, n, r[o]);
  }
}

// One tile, 4 channels, two or three dimensions: the F(2, 3) dimensions
// reduced first (4^(nd - 1) lines of 6 points -> 2^(nd - 1) lines), then each
// line's A'', division, requantization and stores.
void output4_mixed(size_t nd, const int32_t* m, size_t ms, const RequantChannels& ch, const RequantVectors& rv,
                   uint8_t* c, size_t c_stride, size_t n, const ptrdiff_t* out_offsets, uint32_t valid) {
  alignas(16) int32_t lines[4][6][4];  // [outer output][point along F(4, 3)][channel]
  auto at = [&](size_t outer, size_t xw) { return wasm_v128_load(m + (outer * 6 + xw) * ms); };
  for (size_t xw = 0; xw < 6; ++xw) {
    if (nd == 2) {
      v128_t y0, y1;
      at2(at(0, xw), at(1, xw), at(2, xw), at(3, xw), &y0, &y1);
      wasm_v128_store(lines[0][xw], y0);
      wasm_v128_store(lines[1][xw], y1);
    } else {
      v128_t f[2][4];  // the outermost dimension reduced: f[a][b]
      for (int b = 0; b < 4; ++b) at2(at(b, xw), at(4 + b, xw), at(8 + b, xw), at(12 + b, xw), &f[0][b], &f[1][b]);
      for (int a = 0; a < 2; ++a) {
        v128_t y0, y1;
        at2(f[a][0], f[a][1], f[a][2], f[a][3], &y0, &y1);
        wasm_v128_store(lines[a * 2][xw], y0);
        wasm_v128_store(lines[a * 2 + 1][xw], y1);
      }
    }
  }
  const size_t outer = size_t{1} << (nd - 1);
  const int s = static_cast<int>(nd) + 2;
  for (size_t line = 0; line < outer; ++line) {
    v128_t r[4];
    at4_div(lines[line][0], 4, kInverseOf3, s, r);
    for (int o = 0; o < 4; ++o) r[o] = requantize4_clamped(r[o], ch, rv);
    store_line(c, c_stride, n, out_offsets, valid, line * 4, r);
  }
}

}  // namespace

void winograd_input_f43_wasmsimd(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                 size_t v_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && channels % 8 == 0);
  const ptrdiff_t s = strides[nd - 1];
  if (nd == 1) {
    for (size_t c = 0; c < channels; c += 8) {
      v128_t x[6], y[6];
      for (int t = 0; t < 6; ++t) x[t] = wasm_v128_load(d + c + t * s);
      bt6(x, y);
      for (int xi = 0; xi < 6; ++xi) wasm_v128_store(v + c + xi * v_stride, y[xi]);
    }
    return;
  }
  // Each of the 4^(nd - 1) lines of 6 taps through B^T into the block, then
  // each of its 6 columns through the F(2, 3) dimensions.
  const size_t lines = nd == 2 ? 4 : 16;
  for (size_t c = 0; c < channels; c += 8) {
    alignas(16) int16_t block[16][6][8];
    for (size_t line = 0; line < lines; ++line) {
      const ptrdiff_t base =
          nd == 2 ? static_cast<ptrdiff_t>(line) * strides[0]
                  : static_cast<ptrdiff_t>(line / 4) * strides[0] + static_cast<ptrdiff_t>(line % 4) * strides[1];
      v128_t x[6], y[6];
      for (int t = 0; t < 6; ++t) x[t] = wasm_v128_load(d + c + base + t * s);
      bt6(x, y);
      for (int xw = 0; xw < 6; ++xw) wasm_v128_store(block[line][xw], y[xw]);
    }
    for (size_t xw = 0; xw < 6; ++xw) {
      auto col = [&](size_t line) { return wasm_v128_load(block[line][xw]); };
      if (nd == 2) {
        v128_t y[4];
        bt4(col(0), col(1), col(2), col(3), y);
        for (int a = 0; a < 4; ++a) wasm_v128_store(v + c + (a * 6 + xw) * v_stride, y[a]);
      } else {
        v128_t f[4][4];  // f[a][k]: the outermost dimension transformed
        for (int k = 0; k < 4; ++k) {
          v128_t y[4];
          bt4(col(k), col(4 + k), col(8 + k), col(12 + k), y);
          for (int a = 0; a < 4; ++a) f[a][k] = y[a];
        }
        for (int a = 0; a < 4; ++a) {
          v128_t y[4];
          bt4(f[a][0], f[a][1], f[a][2], f[a][3], y);
          for (int b = 0; b < 4; ++b) wasm_v128_store(v + c + ((a * 4 + b) * 6 + xw) * v_stride, y[b]);
        }
      }
    }
  }
}

// One dimension: four tiles at a time where they are neighbours in the
// planes (tile_step 1: a 3x1x1 layer's tiles along W; one 32-bit store per
// channel and output), then one tile at a time (its four outputs one 32-bit
// store per channel when they are adjacent: W the active dimension). Two or
// three: one tile at a time, each line of four outputs along the F(4, 3)
// dimension stored together when adjacent. 4 channels at a time.
void winograd_output_f43_wasmsimd(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                  size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                  const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && nt >= 1);
  const RequantVectors rv(*params);
  size_t t = 0;
  if (nd > 1) {
    for (; t < nt; ++t) {
      const int32_t* mt = m + t * m_tile_stride;
      uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
      for (size_t j0 = 0; j0 < nc; j0 += 4) {
        const RequantChannels ch(*params, j0);
        output4_mixed(nd, mt + j0, m_stride, ch, rv, ct + j0 * c_stride, c_stride, nc - j0 < 4 ? nc - j0 : 4,
                      out_offsets, valid);
      }
    }
    return;
  }
  for (; tile_step == 1 && t + 4 <= nt; t += 4) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t);
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      v128_t r[4][4];  // [tile][output]
      for (size_t k = 0; k < 4; ++k) {
        at4_div(mt + k * m_tile_stride + j0, m_stride, kInverseOf3, 3, r[k]);
        for (int o = 0; o < 4; ++o) r[k][o] = requantize4_clamped(r[k][o], ch, rv);
      }
      uint8_t* cj = ct + j0 * c_stride;
      for (size_t o = 0; o < 4; ++o) {
        if (valid >> o & 1) store_4tiles(cj + out_offsets[o], c_stride, n, r[0][o], r[1][o], r[2][o], r[3][o]);
      }
    }
  }
  for (; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      v128_t r[4];
      at4_div(mt + j0, m_stride, kInverseOf3, 3, r);
      for (int o = 0; o < 4; ++o) r[o] = requantize4_clamped(r[o], ch, rv);
      store_line(ct + j0 * c_stride, c_stride, nc - j0 < 4 ? nc - j0 : 4, out_offsets, valid, 0, r);
    }
  }
}

// 8 lanes at a time: the taps (int8, widened and centred as they load), then
// G'' along the innermost dimension (each line of 3 taps into 6 values) and,
// in two or three dimensions, G' = 2G along the others from a stack block.
void winograd_weights_f43_wasmsimd(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                   size_t u_stride) {
  assert(nd >= 1 && nd <= kWinogradMaxDims && len % kWinoWeightsPeriod == 0);
  const size_t lines = nd == 1 ? 1 : nd == 2 ? 3 : 9;
  const size_t taps = lines * 3;
  for (size_t i = 0; i < len; i += 8) {
    const size_t lane = i % kWinoWeightsPeriod;
    const v128_t z = wasm_v128_load(zp + lane);
    const int8_t* wi = w + i / kWinoWeightsPeriod * taps * kWinoWeightsPeriod + lane;
    auto tap = [&](size_t t) { return wasm_i16x8_sub(wasm_i16x8_load8x8(wi + t * kWinoWeightsPeriod), z); };
    int16_t* ui = u + i;
    if (nd == 1) {
      v128_t y[6];
      g6(tap(0), tap(1), tap(2), y);
      for (int xi = 0; xi < 6; ++xi) wasm_v128_store(ui + xi * u_stride, y[xi]);
      continue;
    }
    alignas(16) int16_t block[9][6][8];
    for (size_t line = 0; line < lines; ++line) {
      v128_t y[6];
      g6(tap(line * 3), tap(line * 3 + 1), tap(line * 3 + 2), y);
      for (int xw = 0; xw < 6; ++xw) wasm_v128_store(block[line][xw], y[xw]);
    }
    for (size_t xw = 0; xw < 6; ++xw) {
      auto col = [&](size_t line) { return wasm_v128_load(block[line][xw]); };
      if (nd == 2) {
        v128_t y[4];
        g4(col(0), col(1), col(2), y);
        for (int a = 0; a < 4; ++a) wasm_v128_store(ui + (a * 6 + xw) * u_stride, y[a]);
      } else {
        v128_t f[4][3];  // f[a][k]: the outermost dimension transformed
        for (int k = 0; k < 3; ++k) {
          v128_t y[4];
          g4(col(k), col(3 + k), col(6 + k), y);
          for (int a = 0; a < 4; ++a) f[a][k] = y[a];
        }
        for (int a = 0; a < 4; ++a) {
          v128_t y[4];
          g4(f[a][0], f[a][1], f[a][2], y);
          for (int b = 0; b < 4; ++b) wasm_v128_store(ui + ((a * 4 + b) * 6 + xw) * u_stride, y[b]);
        }
      }
    }
  }
}

// F(4, 3) along both dimensions of a two-dimensional tile (kWinogradF43Both):
// the inner dimension's lines first for the input (6 lines of 6 taps) and the
// weights (3 lines of 3 taps), each then through the outer dimension from a
// stack block; the output's outer dimension first (6 columns of 6 points to 4
// lines), then each line's A'', the division by 9 * 2^6, requantization and
// stores.

void winograd_input_f43x43_wasmsimd(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                                    size_t v_stride) {
  assert(nd == 2 && channels % 8 == 0);
  (void)nd;
  for (size_t c = 0; c < channels; c += 8) {
    alignas(16) int16_t block[6][6][8];  // [outer tap][inner point][channel]: |values| <= 10 * 255
    for (int a = 0; a < 6; ++a) {
      v128_t x[6], y[6];
      for (int t = 0; t < 6; ++t) x[t] = wasm_v128_load(d + c + a * strides[0] + t * strides[1]);
      bt6(x, y);
      for (int xw = 0; xw < 6; ++xw) wasm_v128_store(block[a][xw], y[xw]);
    }
    for (size_t xw = 0; xw < 6; ++xw) {
      v128_t x[6], y[6];  // every step fits int16 for |x| <= 10 * 255: |y| <= 10^2 * 255
      for (int a = 0; a < 6; ++a) x[a] = wasm_v128_load(block[a][xw]);
      bt6(x, y);
      for (int xa = 0; xa < 6; ++xa) wasm_v128_store(v + c + (xa * 6 + xw) * v_stride, y[xa]);
    }
  }
}

void winograd_output_f43x43_wasmsimd(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride,
                                     size_t m_tile_stride, uint8_t* c, size_t c_stride, ptrdiff_t tile_step,
                                     const ptrdiff_t* out_offsets, uint32_t valid, const ConvRequantParams* params) {
  assert(nd == 2 && nt >= 1);
  (void)nd;
  const RequantVectors rv(*params);
  for (size_t t = 0; t < nt; ++t) {
    const int32_t* mt = m + t * m_tile_stride;
    uint8_t* ct = c + static_cast<ptrdiff_t>(t) * tile_step;
    for (size_t j0 = 0; j0 < nc; j0 += 4) {
      const RequantChannels ch(*params, j0);
      const size_t n = nc - j0 < 4 ? nc - j0 : 4;
      alignas(16) int32_t lines[4][6][4];  // [outer output][inner point][channel]
      for (size_t xw = 0; xw < 6; ++xw) {
        v128_t y[4];
        at4(mt + j0 + xw * m_stride, 6 * m_stride, y);
        for (int oa = 0; oa < 4; ++oa) wasm_v128_store(lines[oa][xw], y[oa]);
      }
      for (size_t oa = 0; oa < 4; ++oa) {
        v128_t r[4];
        at4_div(lines[oa][0], 4, kInverseOf9, 6, r);
        for (int o = 0; o < 4; ++o) r[o] = requantize4_clamped(r[o], ch, rv);
        store_line(ct + j0 * c_stride, c_stride, n, out_offsets, valid, oa * 4, r);
      }
    }
  }
}

void winograd_weights_f43x43_wasmsimd(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u,
                                      size_t u_stride) {
  assert(nd == 2 && len % kWinoWeightsPeriod == 0);
  (void)nd;
  for (size_t i = 0; i < len; i += 8) {
    const size_t lane = i % kWinoWeightsPeriod;
    const v128_t z = wasm_v128_load(zp + lane);
    const int8_t* wi = w + i / kWinoWeightsPeriod * 9 * kWinoWeightsPeriod + lane;
    auto tap = [&](size_t t) { return wasm_i16x8_sub(wasm_i16x8_load8x8(wi + t * kWinoWeightsPeriod), z); };
    alignas(16) int16_t block[3][6][8];  // [outer tap][inner point][lane]: |values| <= 7 * 255
    for (size_t a = 0; a < 3; ++a) {
      v128_t y[6];
      g6(tap(a * 3), tap(a * 3 + 1), tap(a * 3 + 2), y);
      for (int xw = 0; xw < 6; ++xw) wasm_v128_store(block[a][xw], y[xw]);
    }
    for (size_t xw = 0; xw < 6; ++xw) {
      v128_t y[6];  // |y| <= 7^2 * 255
      g6(wasm_v128_load(block[0][xw]), wasm_v128_load(block[1][xw]), wasm_v128_load(block[2][xw]), y);
      for (int xa = 0; xa < 6; ++xa) wasm_v128_store(u + i + (xa * 6 + xw) * u_stride, y[xa]);
    }
  }
}

}  // namespace kernels
}  // namespace qwasm
