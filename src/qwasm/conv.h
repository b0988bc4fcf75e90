// 3-D convolution (with optional fused ReLU), quantized and float, in PyTorch's
// semantics: NCDHW input, weight [Cout, Cin / groups, kD, kH, kW], zero
// padding, general stride, dilation and groups. 1-D, 2-D and linear layers are
// the same operation with unit dimensions.
//
// Quantized arithmetic is FBGEMM's requantization (docs/numerics.md); the
// kernels are described in kernels/conv_kernels.h. Weights are packed once (PackedQConv /
// PackedFConv); each forward call converts the input once into the padded
// channels-last int16 (or float) buffer the kernels stream.
#pragma once
#include <array>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "qwasm/buffer.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

struct ConvGeometry {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t groups = 1;
  std::array<int64_t, 3> kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  std::array<int64_t, 3> pad_begin{0, 0, 0};  // 'same' may pad one more at the end
  std::array<int64_t, 3> pad_end{0, 0, 0};
  // How the caller sees it, for messages only: 1, 2 or 3 spatial dimensions
  // (the last ones of each triple), or 0 for a linear layer.
  int spatial_dims = 3;
};

// Checks channel counts, groups, kernel, stride, dilation and padding: each at
// least its minimum and at most kMaxGeometryValue.
Status validate_geometry(const ConvGeometry& g);

// Output shape for a 5-D input [N, Cin, D, H, W]; errors on wrong rank,
// channel mismatch, a kernel larger than the padded input, or an output too
// large for a tensor.
Status conv_output_shape(const ConvGeometry& g, const Shape& input, Shape* output);

// Quantized weights, packed once: int16 (w - w_zp) in the kernels' layout, the
// per-channel weight scales as float, and the float bias.
struct PackedQConv {
  ConvGeometry geometry;
  bool depthwise = false;            // groups == Cin == Cout: the depthwise kernel
  Buffer<int16_t> weights;      // see conv.cpp for the layouts
  Buffer<float> weight_scales;  // per output channel (float, as FBGEMM keeps them)
  Buffer<float> bias;           // per output channel, 0 when there is no bias
  bool has_bias = false;
  size_t bytes() const;
};

// weight: qint8, per_tensor_affine or per_channel_affine on axis 0, of
// module_weight_shape(g) (or the same lifted to 5-D). bias: bias_count (= Cout) finite floats, or nullptr.
Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count,
                  PackedQConv* out);

// The output qparams of a quantized conv: a scale that is a finite positive
// float32, a zero point in 0..255 (quint8).
Status validate_output_qparams(double scale, int64_t zero_point);

// The weight shape a module of g's kind takes: [Cout, Cin / groups, k...] with
// g.spatial_dims kernel entries ([Cout, Cin] for a linear layer).
Shape module_weight_shape(const ConvGeometry& g);

struct ConvRunInfo {
  size_t scratch_bytes = 0;  // extra memory of the call beyond input, output and weights
};

// input: quint8, per-tensor, [N, Cin, D, H, W]. Output quint8 per tensor with
// (out_scale, out_zp); relu clamps at out_zp in the same pass.
Status qconv3d(const PackedQConv& w, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info = nullptr);

// Float weights packed for the float kernels.
struct PackedFConv {
  ConvGeometry geometry;
  Buffer<float> weights;
  Buffer<float> bias;  // Cout + 8 entries (0 without bias)
};

// weight: weight_count floats laid out [Cout, Cin / groups, kD, kH, kW];
// bias: bias_count (= Cout) floats, or nullptr. All finite.
Status pack_fconv(const ConvGeometry& g, const float* weight, int64_t weight_count, const float* bias,
                  int64_t bias_count, PackedFConv* out);

// Float conv (+ ReLU): y = relu(conv3d(x, w, b)); output is allocated here
// with the output shape's element count.
Status fconv3d(const PackedFConv& w, const float* input, const Shape& input_shape, bool relu, kernels::Isa isa,
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info = nullptr);

}  // namespace qwasm
