// 3-D convolution (with optional fused ReLU), quantized and float, in PyTorch's
// semantics: NCDHW input, weight [Cout, Cin / groups, kD, kH, kW], zero
// padding, general stride, dilation and groups. 1-D, 2-D and linear layers are
// the same operation with unit dimensions.
//
// Quantized arithmetic is SPEC.md's (FBGEMM's requantization); the kernels are
// described in kernels/conv_kernels.h. Weights are packed once (PackedQConv /
// PackedFConv); each forward call converts the input once into the padded
// channels-last int16 (or float) buffer the kernels stream.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "kernels/conv_kernels.h"
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
};

// Checks channel counts, groups, kernel, stride, dilation and padding.
Status validate_geometry(const ConvGeometry& g);

// Output shape for a 5-D input [N, Cin, D, H, W]; errors on wrong rank,
// channel mismatch or a kernel larger than the padded input.
Status conv_output_shape(const ConvGeometry& g, const Shape& input, Shape* output);

// Quantized weights, packed once: int16 (w - w_zp) in the kernels' layout, the
// per-channel weight scales as float, and the float bias.
struct PackedQConv {
  ConvGeometry geometry;
  bool depthwise = false;            // groups == Cin == Cout: the depthwise kernel
  std::vector<int16_t> weights;      // see conv.cpp for the layouts
  std::vector<float> weight_scales;  // per output channel (float, as FBGEMM keeps them)
  std::vector<float> bias;           // per output channel, 0 when there is no bias
  bool has_bias = false;
  size_t bytes() const;
};

// weight: qint8, per_tensor_affine or per_channel_affine on axis 0, shape
// [Cout, Cin / groups, kD, kH, kW]. bias: Cout floats or nullptr.
Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, PackedQConv* out);

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
  std::vector<float> weights;
  std::vector<float> bias;  // Cout entries (0 without bias)
};

Status pack_fconv(const ConvGeometry& g, const float* weight, const float* bias, PackedFConv* out);

// Float conv (+ ReLU): y = relu(conv3d(x, w, b)). output must hold the output
// shape's element count.
Status fconv3d(const PackedFConv& w, const float* input, const Shape& input_shape, bool relu, kernels::Isa isa,
               std::vector<float>* output, Shape* output_shape, ConvRunInfo* info = nullptr);

}  // namespace qwasm
