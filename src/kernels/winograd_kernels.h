// The exact integer Winograd families (F(2, 3) along each 3-tap dimension of
// a stride-1 convolution, or F(4, 3) along the innermost and F(2, 3) along the others:
// docs/winograd.md): the input transform, the GEMM of the transformed values,
// and the output transform + requantization. Each has
// a scalar twin and a wasmsimd kernel; the tester (tests/native/
// kernel_tester_winograd_test.cpp) checks each against tests/reference/winograd_ref.h and
// the drivers' output against the direct convolution's reference.
//
// A tile covers nd = 1, 2 or 3 "active" dimensions (those with 3 taps),
// outermost first. Per dimension, with d = a - a_zp and g = w - w_zp:
//   B^T = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]]   input, 4 taps -> 4 points
//   G'  = 2G = [[2,0,0],[1,1,1],[1,-1,1],[0,0,2]]        weights, 3 taps -> 4 points
//   A^T = [[1,1,1,0],[0,1,-1,-1]]                        4 points -> 2 outputs
// V = (B^T)^{(x)nd} d fits int16 (|V| <= 2^nd * 255); U = G'^{(x)nd} g fits
// int16 (|U| <= 3^nd * 255); M = sum over input channels of U * V in int32
// (wrapping); Y = (A^T)^{(x)nd} M = 2^nd * acc exactly mod 2^32, where acc is
// the direct convolution's accumulator. So acc = Y >> nd whenever
// |acc| < 2^(31 - nd), which the driver checks before taking this path.
//
// Points of an F(2, 3) tile: P = 4^nd, index xi in mixed radix 4 (the
// outermost active dimension most significant). Outputs: 2^nd, index o in
// mixed radix 2.
//
// F(4, 3) along the innermost active dimension, F(2, 3) along the others (the
// `m = 4` entries, nd 1 to 3). Along the F(4, 3) dimension:
//   B^T = [[4,0,-5,0,1,0],[0,-4,-4,1,1,0],[0,4,-4,-1,1,0],
//          [0,-2,-1,2,1,0],[0,2,-1,-2,1,0],[0,4,0,-5,0,1]]        6 taps -> 6 points
//   G'' = [[1,0,0],[-1,-1,-1],[-1,1,-1],[1,2,4],[1,-2,4],[0,0,1]]  3 taps -> 6 points
//   A'' = [[6,4,4,1,1,0],[0,4,-4,2,-2,0],[0,4,4,4,4,0],[0,4,-4,8,-8,24]]   6 points -> 4 outputs
// 24G = diag(6, 4, 4, 1, 1, 24) G'' and A'' = A^T diag(6, 4, 4, 1, 1, 24):
// each row of 24G keeps its own factor on the output side, so that
// |U| <= 7 * 3^(nd - 1) * 255 fits int16 in three dimensions (24G's would
// not), and |V| <= 10 * 2^(nd - 1) * 255. Y = 24 * 2^(nd - 1) * acc =
// 3 * 2^s * acc mod 2^32 (s = nd + 2), and acc is recovered exactly when
// |acc| < 2^(29 - nd): Y times 3's inverse mod 2^32 (0xAAAAAAAB) is
// 2^s * acc mod 2^32, which is that int32 itself, and (>> s) gives acc.
// Points of such a tile: P = 6 * 4^(nd - 1), outputs 4 * 2^(nd - 1), in
// mixed radix (6 or 4 along the innermost dimension, 4 or 2 elsewhere).
//
// F(4, 3) along both active dimensions of a two-dimensional layer (the
// `m = kWinogradF43Both` entries, nd = 2: 1x3x3, Conv2d 3x3): 36 points per
// 16 outputs. |U| <= 7^2 * 255 and |V| <= 10^2 * 255 fit int16 (with a third
// dimension they would not); Y = 24^2 * acc = 9 * 2^6 * acc mod 2^32, and
// Y times 9's inverse mod 2^32 (0x38E38E39) is 2^6 * acc, itself an int32
// while |acc| < 2^25 (the guard), so (>> 6) gives acc.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "kernels/isa.h"

namespace qwasm {
namespace kernels {

constexpr size_t kWinogradMaxDims = 3;

// A kernel entry's tile m: m outputs along the innermost active dimension
// from m + 2 taps, 2 from 4 along the others (m = 2: F(2, 3) throughout;
// m = 4: F(4, 3) innermost), nd 1 to 3; or kWinogradF43Both: F(4, 3) along
// both dimensions of a two-dimensional tile.
constexpr size_t kWinogradF43Both = 44;
constexpr size_t winograd_dim_tile(size_t m, size_t nd, size_t k) {
  return m == kWinogradF43Both ? 4 : k + 1 == nd ? m : 2;
}
constexpr size_t winograd_max_dims(size_t m) { return m == kWinogradF43Both ? 2 : kWinogradMaxDims; }
constexpr size_t winograd_points(size_t m, size_t nd) {
  size_t p = 1;
  for (size_t k = 0; k < nd; ++k) p *= winograd_dim_tile(m, nd, k) + 2;
  return p;
}
constexpr size_t winograd_outputs(size_t m, size_t nd) {
  size_t o = 1;
  for (size_t k = 0; k < nd; ++k) o *= winograd_dim_tile(m, nd, k);
  return o;
}

// One tile, `channels` channels (a multiple of the entry's cr): the tile's
// first input value is d[0] (a channels-last buffer, channel c at d[c]); along
// active dimension k its m_k + 2 taps (m_k = winograd_dim_tile(m, nd, k)) are strides[k] elements apart. Point xi of
// channel c goes to v[xi * v_stride + c].
using WinoInputFn = void (*)(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v,
                             size_t v_stride);

// rows of the transformed-input matrix (row m at a + m * a_stride) times one
// packed block of nr columns: c[m * c_stride + j] = sum_k a_m[k] * w(k, j),
// wrapping int32, all nr columns stored. The kernel walks the rows mr at a
// time (a last group short of mr repeats its last row, never stored).
// kblocks groups of kr values per row; w is [kblock][nr][kr] int16 (the conv
// kernels' "c2" packing).
using QGemmFn = void (*)(size_t rows, size_t kblocks, const int16_t* a, size_t a_stride, const int16_t* w, int32_t* c,
                         size_t c_stride);

// A run of nt tiles (nt >= 1), nc output channels: point xi of channel j of
// tile t is m[t * m_tile_stride + xi * m_stride + j] (m has slots up to a
// multiple of the entry's cr past nc). Output o of channel j of tile t goes to
// c[t * tile_step + out_offsets[o] + j * c_stride] when bit o of `valid` is
// set (partial tiles at the edges; one mask for the run). params:
// ConvRequantParams of channel 0; points and outputs as the entry's m gives
// them (above). The driver passes the tiles of a block that follow one
// another along W in one output row: tile_step is 1 when W has 1 tap (a 3x1x1
// layer's neighbours: their outputs are neighbouring bytes of every channel's
// plane) or is dilated, m when W is an undilated 3-tap dimension; the SIMD
// kernels then store several bytes per channel at once (docs/winograd.md,
// "Kernels").
using WinoOutputFn = void (*)(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride, size_t m_tile_stride,
                              uint8_t* c, size_t c_stride, ptrdiff_t tile_step, const ptrdiff_t* out_offsets,
                              uint32_t valid, const ConvRequantParams* params);

// The weight transform, run per block of output channels at call time (the
// weights stay int8 in memory: docs/winograd.md "Memory"). `len` lanes (a
// multiple of kWinoWeightsPeriod = P16) of 3^nd taps: tap t of lane i is
// w[(i / P16 * 3^nd + t) * P16 + i % P16] (taps in radix 3, the outermost
// active dimension most significant: a group of 16 lanes reads one run of
// bytes), centred by zp[i % P16], g = w - zp (|g| <= 255). Point xi of lane i,
// U = G'^{(x)nd} g (G'' along an F(4, 3) dimension), goes to
// u[xi * u_stride + i]: int16, as |U| <= 3^nd * 255 (F(4, 3):
// 7 * 3^(nd - 1) * 255; every step fits int16).
constexpr size_t kWinoWeightsPeriod = 16;
using WinoWeightsFn = void (*)(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u, size_t u_stride);

struct WinoWeightsKernel {
  const char* name;
  Isa isa;
  size_t m;  // outputs per tile along the innermost active dimension: 2 (F(2, 3)) or 4 (F(4, 3))
  WinoWeightsFn fn;
};

struct WinoInputKernel {
  const char* name;
  Isa isa;
  size_t cr, m;
  WinoInputFn fn;
};

struct QGemmKernel {
  const char* name;
  Isa isa;
  size_t mr, nr, kr;
  QGemmFn fn;
};

struct WinoOutputKernel {
  const char* name;
  Isa isa;
  size_t cr, m;
  WinoOutputFn fn;
};

#define QWASM_WINO_INPUT(name, isa, cr, tile_m) \
  void name(size_t nd, size_t channels, const int16_t* d, const ptrdiff_t* strides, int16_t* v, size_t v_stride);
#define QWASM_QGEMM(name, isa, mr, nr, kr)                                                                \
  void name(size_t rows, size_t kblocks, const int16_t* a, size_t a_stride, const int16_t* w, int32_t* c, \
            size_t c_stride);
#define QWASM_WINO_OUTPUT(name, isa, cr, tile_m)                                                                  \
  void name(size_t nd, size_t nt, size_t nc, const int32_t* m, size_t m_stride, size_t m_tile_stride, uint8_t* c, \
            size_t c_stride, ptrdiff_t tile_step, const ptrdiff_t* out_offsets, uint32_t valid,                   \
            const ConvRequantParams* params);
#include "kernels/winograd.inc"
#undef QWASM_WINO_INPUT
#undef QWASM_QGEMM
#undef QWASM_WINO_OUTPUT
#define QWASM_WINO_WEIGHTS(name, isa, tile_m) \
  void name(size_t nd, size_t len, const int8_t* w, const int16_t* zp, int16_t* u, size_t u_stride);
#include "kernels/winograd_weights.inc"
#undef QWASM_WINO_WEIGHTS

KernelTable<WinoInputKernel> wino_input_kernels();
KernelTable<QGemmKernel> qgemm_kernels();
KernelTable<WinoOutputKernel> wino_output_kernels();
KernelTable<WinoWeightsKernel> wino_weights_kernels();

// The first listed kernel of `isa` (scalar when this build lacks it) for the tile m.
const WinoInputKernel* find_wino_input(Isa isa, size_t m = 2);
const QGemmKernel* find_qgemm(Isa isa);
const WinoOutputKernel* find_wino_output(Isa isa, size_t m = 2);
const WinoWeightsKernel* find_wino_weights(Isa isa, size_t m = 2);

}  // namespace kernels
}  // namespace qwasm
