// Winograd along D for a convolution with 3 taps along D at stride 1 whose
// H and W Winograd cannot take (a stem: 3x7x7 at stride (1, 2, 2), 3 input
// channels). An im2col along H and W turns it into a (3, 1, 1) convolution
// over Cin * kH * kW input channels: input channel (c, i, j) of position
// (d, h, w) is x[c][d][h * sH + i * dH - pH][w * sW + j * dW - pW] (the input
// zero point where that lies in the padding), and weight (o, (c, i, j), k) is
// w[o][c][k][i][j]. Both sum the same products in the same int32 accumulator,
// so the lowered layer, on the exact F(4, 3) / F(2, 3) path of
// conv_winograd.cpp, gives the convolution's bytes (docs/winograd.md,
// "Stems: Winograd along D"). Internal to the conv implementation.
#pragma once
#include <cstdint>
#include <memory>

#include "qwasm/checked_size.h"
#include "qwasm/conv.h"

namespace qwasm {
namespace conv_internal {

// The (3, 1, 1) geometry of g's lowering, when g qualifies (3 dimensions,
// groups 1, kD = 3 at stride 1 and dilation 1, H and W not Winograd's: some
// stride, dilation or extent other than 1 and 3, at most kMaxLoweredChannels
// lowered input channels); false otherwise.
bool hw_lowered_geometry(const ConvGeometry& g, ConvGeometry* lowered);

// Packs g's lowering (its weights permuted, the same qparams and bias, the
// same backend) for the Winograd path when `mode` is kOn (an explicit
// `winograd: true`: the im2col's memory is not what 'auto' spends); leaves
// *out empty when g does not qualify, under any other mode, or when the
// lowered layer is not packed for Winograd (a guard no input could pass).
Status pack_hw_lowered(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count,
                       ConvBackend backend, WinogradMode mode, std::unique_ptr<PackedQConv>* out);

// The lowered layer's input for `input` (quint8, [N, Cin, D, H, W]): the
// im2col along H and W, [N, Cin * kH * kW, D, Ho, Wo], the input's qparams.
Status hw_im2col(const ConvGeometry& g, const QTensor& input, int64_t ho, int64_t wo, QTensor* cols);

// The shape hw_im2col makes for this input shape and output shape.
Shape hw_im2col_shape(const ConvGeometry& g, const Shape& input_shape, const Shape& out_shape);

}  // namespace conv_internal
}  // namespace qwasm
