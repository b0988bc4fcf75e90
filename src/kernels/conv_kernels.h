// The convolution micro-kernel families (qconv, qdwconv, fconv): function
// types, registry entries with their tiles, the prototypes of every kernel
// (generated from qconv.inc, qdwconv.inc, fconv.inc) and the dispatcher.
//
// Generic kernels compute an mr x nr tile: mr output pixels by nr output
// channels. Their input is a padded, channels-last buffer (int16 with the
// input zero point already subtracted, so that zero padding is plain 0; or
// float), laid out group-major: [group][Dp][Hp][Wp][Cg]. The reduction runs
// over "segments": runs of consecutive input values that one output pixel
// reads. When the kernel's W dilation is 1, the kW taps of a (kd, kh) row are
// adjacent in memory, so a segment is kW * Cg values long (this keeps
// few-channel first layers dense); otherwise a segment is one tap's Cg
// channels. The quantized kernels read a segment in groups of kr values
// ("kblocks"), the last one possibly reaching kr - 1 values past its end
// (their weights are 0); weights are packed per nr-channel block as
// [segment][kblock][nr][kr] int16 = (w - w_zp), so that with kr = 2
// i32x4.dot_i16x8_s of a broadcast input pair with a weight vector gives four
// output channels' partial sums at once (XNNPACK's "c2" layout).
//
// The depthwise kernels (groups == Cin == Cout) read a channels-last buffer
// padded to a multiple of cr channels and vectorize across channels; one call
// computes a run of output pixels along W (mr at a time), so that each tap
// pair's weights are loaded once per mr pixels and the output bytes of mr
// pixels go to each channel plane in one store. Their
// kSat16 mode is FBGEMM's depthwise fast path (docs/numerics.md, "int16 pair
// saturation"): its buffer holds the raw activations (padding = the input
// zero point) and its weights are the raw int8 values, so that each pair of
// taps (0 + 1, 2 + 3, ... in (kd, kh, kw) order; an odd last tap alone) is
// summed and saturated to int16 as _mm256_maddubs_epi16 does, before the
// zero points' terms are taken off in int32.
//
// Every SIMD kernel has a scalar twin with the same signature and tile; all
// equal the naive reference in tests/reference bit for bit (the float kernels:
// the same sum order, so bit for bit too).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"
#include "kernels/kernel_table.h"

namespace qwasm {
namespace kernels {

// Requantization of one block of output channels (docs/numerics.md), one
// sequence of float32 steps that gives both of PyTorch's x86 backends:
//   f = (float)acc * input_scale;  f = f * weight_scale[j];
//   f = fused_bias ? fma(bias[j], bias_rcp, f) : f + bias[j]   (fma: one rounding)
//   f = f * multiplier[j];  f = f + zero_point_f;
//   q = clamp(nearbyint(f), min - zp, max - zp) + zp          (zp: output_zero_point)
// FBGEMM (ReQuantizeOutput): input_scale = weight_scale = 1 (exact),
//   multiplier = atws / out_scale (atws = a_scale * w_scale), zero_point_f =
//   0, zp = out_zp; the bias term as FBGEMM's path adds it: per-channel
//   weights bias = bias / atws; per-tensor weights in its depthwise kernel
//   bias = bias * rcp (rcp = (float)(1.0 / atws)), in its GEMM kernels
//   fused_bias with bias as given and bias_rcp = rcp.
// oneDNN (x86 engine): input_scale = 1 / (float)(1 / a_scale), weight_scale
//   = w_scale, bias as given, multiplier = 1 / (1 / (float)(1 / out_scale)),
//   zero_point_f = out_zp, zp = 0 (the zero point is added before rounding).
// min = out_zp with ReLU, else 0; max = 255. Arrays hold a block of slack.
struct ConvRequantParams {
  const float* weight_scale;
  const float* bias;
  const float* multiplier;
  float input_scale;
  float zero_point_f;
  int32_t output_zero_point;
  int32_t output_min;
  int32_t output_max;
  float bias_rcp = 1.0f;    // read only when fused_bias
  bool fused_bias = false;  // FBGEMM's GEMM kernels with a per-tensor weight
  // Read only by the kSat16 depthwise kernels, per channel (a block of slack):
  // acc_offset = a_zp * sum over taps of (w - w_zp), subtracted from the
  // saturated pair sums; weight_zero_point (nullptr when every w_zp is 0)
  // multiplies min(sum of the raw activations, 32767), FBGEMM's row offset
  // (summed with saturating int16 adds), also subtracted.
  const int32_t* acc_offset = nullptr;
  const int32_t* weight_zero_point = nullptr;
};

// mr pixels (a[0..mr)) x nc <= nr channels; c[m][j * c_stride] receives pixel
// m, channel j.
using QConvFn = void (*)(size_t mr, size_t nc, size_t nseg, size_t kblocks, const int16_t* const* a,
                         const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c, size_t c_stride,
                         const ConvRequantParams* params);

// Depthwise: a run of npix output pixels along W, `channels` (a multiple of
// cr) channels of which `valid` are stored; pixel m reads its taps at
// a + m * pixel_step + tap_offsets[t] and writes channel j at
// c[j * c_stride + m] (consecutive bytes of each NCDHW plane). w is
// [ntaps / kr][channels][kr]. kExact: ntaps is a multiple of kr (padded with
// zero-weight taps), a holds (x - a_zp) and w (w - w_zp). kSat16: ntaps is the
// real tap count (the weights of an odd count are still padded to whole pairs
// with a zero weight), a holds the raw x and w the raw weights.
enum class DwConvMode : uint8_t { kExact, kSat16 };
using QDwConvFn = void (*)(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a,
                           ptrdiff_t pixel_step, const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c,
                           size_t c_stride, const ConvRequantParams* params);

// Float: mr pixels x nc <= nr channels; w is [segment][k][nr]; bias[nr]; relu clamps at 0.
using FConvFn = void (*)(size_t mr, size_t nc, size_t nseg, size_t seg_len, const float* const* a,
                         const ptrdiff_t* seg_offsets, const float* w, const float* bias, float* const* c,
                         size_t c_stride, bool relu);

// One input row: for c < channels and w < width,
// dst[w * slots + c] = x[c * x_stride + w] - zero_point (slots >= channels).
using ToChannelsLastFn = void (*)(size_t channels, size_t width, const uint8_t* x, size_t x_stride, int32_t zero_point,
                                  int16_t* dst, size_t slots);

struct ToChannelsLastKernel {
  const char* name;
  Isa isa;
  ToChannelsLastFn fn;
};

struct QConvKernel {
  const char* name;
  Isa isa;
  size_t mr, nr, kr;
  QConvFn fn;
};

struct QDwConvKernel {
  const char* name;
  Isa isa;
  size_t mr, cr, kr;  // mr: pixels per step along W (remainders run one at a time)
  DwConvMode mode;
  QDwConvFn fn;
};

struct FConvKernel {
  const char* name;
  Isa isa;
  size_t mr, nr;
  FConvFn fn;
};

#define QWASM_QCONV(name, isa, mr, nr, kr)                                                                             \
  void name(size_t mr_, size_t nc, size_t nseg, size_t kblocks, const int16_t* const* a, const ptrdiff_t* seg_offsets, \
            const int16_t* w, uint8_t* const* c, size_t c_stride, const ConvRequantParams* params);
#define QWASM_QDWCONV(name, isa, mr, cr, kr, mode)                                                            \
  void name(size_t channels, size_t valid, size_t npix, size_t ntaps, const int16_t* a, ptrdiff_t pixel_step, \
            const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c, size_t c_stride,                      \
            const ConvRequantParams* params);
#define QWASM_FCONV(name, isa, mr, nr)                                                                               \
  void name(size_t mr_, size_t nc, size_t nseg, size_t seg_len, const float* const* a, const ptrdiff_t* seg_offsets, \
            const float* w, const float* bias, float* const* c, size_t c_stride, bool relu);
#define QWASM_TO_CHANNELS_LAST(name, isa)                                                                       \
  void name(size_t channels, size_t width, const uint8_t* x, size_t x_stride, int32_t zero_point, int16_t* dst, \
            size_t slots);
#include "kernels/fconv.inc"
#include "kernels/qconv.inc"
#include "kernels/qdwconv.inc"
#include "kernels/to_channels_last.inc"
#undef QWASM_QCONV
#undef QWASM_QDWCONV
#undef QWASM_FCONV
#undef QWASM_TO_CHANNELS_LAST

KernelTable<QConvKernel> qconv_kernels();
KernelTable<QDwConvKernel> qdwconv_kernels();
KernelTable<ToChannelsLastKernel> to_channels_last_kernels();
KernelTable<FConvKernel> fconv_kernels();

// The dispatcher: the first listed kernel of `isa` (scalar when this build lacks it).
const QConvKernel* find_qconv(Isa isa);
const QDwConvKernel* find_qdwconv(Isa isa, DwConvMode mode = DwConvMode::kExact);
const ToChannelsLastKernel* find_to_channels_last(Isa isa);
const FConvKernel* find_fconv(Isa isa);

}  // namespace kernels
}  // namespace qwasm
