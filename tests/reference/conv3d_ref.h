// Naive 3-D convolutions: the oracle for the conv kernels and drivers. The
// obvious loop nest over NCDHW (batch, output channel, output d / h / w, then
// kernel d / h / w and input channel: nine loops), padding read as a zero
// value, one requantization per output, written here separately from the
// kernels' (docs/numerics.md). Under FBGEMM's requantization a conv of its
// depthwise fast path sums as that kernel does (fbgemm_depthwise_acc).
//
// The oracle includes none of the core it checks: only the plain geometry and
// backend types its callers already build (qwasm/conv_types.h, data with no
// code), so that a test hands it the very ConvGeometry it hands the core.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "qwasm/conv_types.h"
#include "reference/requantize_ref.h"

namespace qwasm {
namespace ref {

using Shape = std::vector<int64_t>;  // [N, C, D, H, W]

struct QConvArgs {
  const uint8_t* x;   // quint8 input, NCDHW
  Shape input_shape;  // [N, Cin, D, H, W]
  double a_scale;     // as the tensor keeps it
  int32_t a_zero_point;
  const int8_t* w;        // qint8 weight [Cout, Cin / groups, kD, kH, kW]
  const float* w_scales;  // Cout entries (per tensor: the same value repeated)
  const int32_t* w_zero_points;
  const float* bias;  // Cout entries or nullptr
  double out_scale;
  int32_t out_zero_point;
  bool relu;
  ConvBackend backend = ConvBackend::kFbgemm;  // whose requantization (requantize_ref.h)
  // FBGEMM adds the bias of a per-tensor weight differently (requantize_ref.h
  // FbgemmBias): callers say which the weight is.
  bool per_tensor_weight = false;
};

// Whether PyTorch's FBGEMM conv takes its depthwise kernel: the shapes
// FBGEMM's takeDepthWiseFastPath accepts (src/FbgemmConv.cc); a Conv1d (2-D
// with a kernel height of 1 to FBGEMM) never, nor a linear layer.
bool fbgemm_depthwise(const ConvGeometry& g);

// Which way FBGEMM adds this layer's bias: its depthwise kernel or its GEMM
// kernels (fbgemm_depthwise); linear layers are GEMMs.
FbgemmBias fbgemm_bias_path(const ConvGeometry& g, bool per_tensor_weight);

// The accumulator of FBGEMM's depthwise kernel for one output
// (src/GenerateI8Depthwise.cc, FbgemmI8DepthwiseAvx2-inl.h requantize_): the
// raw activations x[t] (uint8; a padded position holds a_zp) times the raw
// weights w[t] (int8), taps in (kd, kh, kw) order added in pairs (0 + 1,
// 2 + 3, ...; an odd last tap alone), each pair's sum saturated to int16
// (vpmaddubsw), the pairs summed in int32; minus w_zp times the activations'
// sum (its row offset, summed with saturating int16 adds: at most 32767) and
// a_zp times sum(w - w_zp) (the column offset PyTorch packs).
int32_t fbgemm_depthwise_acc(size_t ntaps, const int32_t* x, const int32_t* w, int32_t a_zp, int32_t w_zp);

// The output shape, computed here on its own: [N, Cout, Do, Ho, Wo].
Shape conv_output_shape(const ConvGeometry& g, const Shape& input_shape);

// y holds the output shape's elements.
void qconv3d(const ConvGeometry& g, const QConvArgs& args, uint8_t* y);

// Float: bias, then the products added in (kd, kh, kw, c) order, each multiply
// and add rounded to float32; ReLU as x < 0 ? 0 : x (keeping -0 and NaN).
void fconv3d(const ConvGeometry& g, const float* x, const Shape& input_shape, const float* w, const float* bias,
             bool relu, float* y);

// The quantized convolutions' input conversion, one (d, h) row:
// dst[w * slots + c] = x[c * x_stride + w] - zero_point for c < channels, w < width.
void to_channels_last(size_t channels, size_t width, const uint8_t* x, size_t x_stride, int32_t zero_point,
                      int16_t* dst, size_t slots);

}  // namespace ref
}  // namespace qwasm
