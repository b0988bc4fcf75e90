// Convolution micro-kernels and their registry.
//
// The generic kernels compute an MR x 8 tile: MR output pixels by 8 output
// channels. The input is a padded, channels-last int16 buffer with the input
// zero point already subtracted (zero padding is then plain 0), laid out
// group-major: [group][Dp][Hp][Wp][Cg]. The reduction runs over "segments":
// runs of consecutive input values that one output pixel reads. When the
// kernel's W dilation is 1, the kW taps of a (kd, kh) row are adjacent in
// memory, so a segment is kW * Cg values long (this keeps few-channel first
// layers dense); otherwise a segment is one tap's Cg channels. A segment is
// read in pairs of int16 values, the last pair possibly one past its end (its
// weight is 0). Weights are packed per 8-channel block as
// [segment][pair][8 output channels][2] int16 = (w - w_zp), so that
// i32x4.dot_i16x8_s of a broadcast input pair with a weight vector gives four
// output channels' partial sums at once (XNNPACK's "c2" layout).
//
// The depthwise kernels (groups == Cin == Cout) read a channels-last buffer
// padded to a multiple of 8 channels and vectorize across channels.
//
// Naming: conv3d_qu8_qs8w_<MR>x8c2__<isa>, dwconv3d_qu8_qs8w_8c__<isa>,
// conv3d_f32_<MR>x8__<isa>. Each SIMD kernel has a scalar twin with the same
// signature; both equal the naive reference in kernels/ref bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/quantize_kernels.h"

namespace qwasm {
namespace kernels {

// Requantization of one block of output channels (SPEC.md):
//   f = (float)acc + bias_div[j];  q = clamp(nearbyint(f * multiplier[j]) + zp, min, max)
// bias_div = bias / (a_scale * w_scale) (0 without bias); multiplier =
// a_scale * w_scale / out_scale; min = zp with ReLU, else 0; max = 255.
struct ConvRequantParams {
  const float* bias_div;
  const float* multiplier;
  int32_t output_zero_point;
  int32_t output_min;
  int32_t output_max;
};

using QConvFn = void (*)(size_t mr, size_t nc, size_t nseg, size_t pairs, const int16_t* const* a,
                         const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c, size_t c_stride,
                         const ConvRequantParams* params);

// Depthwise: one output pixel, `channels` (a multiple of 8) channels of which
// `valid` are stored; w is [ntaps][channels].
using QDwConvFn = void (*)(size_t channels, size_t valid, size_t ntaps, const int16_t* a,
                           const ptrdiff_t* tap_offsets, const int16_t* w, uint8_t* c, size_t c_stride,
                           const ConvRequantParams* params);

// Float: MR pixels x 8 channels; w is [segment][k][8]; bias[8]; relu clamps at 0.
using FConvFn = void (*)(size_t mr, size_t nc, size_t nseg, size_t seg_len, const float* const* a,
                         const ptrdiff_t* seg_offsets, const float* w, const float* bias, float* const* c,
                         size_t c_stride, bool relu);

constexpr size_t kConvMR = 4;
constexpr size_t kConvNR = 8;

struct ConvKernels {
  const char* qconv_name;
  QConvFn qconv;
  const char* qdwconv_name;
  QDwConvFn qdwconv;
  const char* fconv_name;
  FConvFn fconv;
};

// nullptr when the ISA is not compiled in.
const ConvKernels* conv_kernels(Isa isa);

extern const ConvKernels kConvKernelsScalar;
#if defined(QWASM_HAVE_WASMSIMD)
extern const ConvKernels kConvKernelsWasmSimd;

// Benchmark: the 4x8c2 inner loop on L1-resident data; reps * pairs * 64 MACs.
int32_t peak_dot16__wasmsimd(size_t reps, size_t pairs);
#endif

}  // namespace kernels
}  // namespace qwasm
