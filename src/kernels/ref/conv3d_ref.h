// Naive 3-D convolutions: the oracle for the conv kernels. The obvious seven
// loops over NCDHW, padding read as a zero value, one requantize() per output.
#pragma once
#include <cstdint>

#include "qwasm/conv.h"

namespace qwasm {
namespace ref {

struct QConvArgs {
  const uint8_t* x;      // quint8 input, NCDHW
  Shape input_shape;     // [N, Cin, D, H, W]
  float a_scale;
  int32_t a_zero_point;
  const int8_t* w;       // qint8 weight [Cout, Cin / groups, kD, kH, kW]
  const float* w_scales; // Cout entries (per tensor: the same value repeated)
  const int32_t* w_zero_points;
  const float* bias;     // Cout entries or nullptr
  float out_scale;
  int32_t out_zero_point;
  bool relu;
};

// y holds the output shape's elements (conv_output_shape).
void qconv3d(const ConvGeometry& g, const QConvArgs& args, uint8_t* y);

// Float: bias, then the products added in (kd, kh, kw, c) order, each multiply
// and add rounded to float32; ReLU as relu_f32.
void fconv3d(const ConvGeometry& g, const float* x, const Shape& input_shape, const float* w, const float* bias,
             bool relu, float* y);

}  // namespace ref
}  // namespace qwasm
