// The requantization constants of one quantized conv / linear call, shared
// by the direct and the Winograd drivers (conv_run.cpp, conv_winograd.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/conv_kernels.h"
#include "qwasm/buffer.h"
#include "qwasm/conv.h"

namespace qwasm {
namespace conv_internal {

// The per-channel requantization constants of a call (ConvRequantParams),
// with a block of slack so that a kernel may load a whole block past the last
// channel.
struct RequantConstants {
  Buffer<float> weight_scale, bias, multiplier;
  kernels::ConvRequantParams params{};
  size_t bytes() const { return (weight_scale.size() + bias.size() + multiplier.size()) * sizeof(float); }
};

// a_scale and o_scale as the tensors keep them (double): each backend derives
// its float constants from them the way PyTorch's path does. `block`: the
// widest channel block a kernel loads at once.
Status requant_constants(const PackedQConv& pw, double a_scale, double o_scale, int64_t out_zp, bool relu, size_t block,
                         RequantConstants* rc);

// The params of the block of channels starting at oc0 (per tile: tiles run on several threads).
kernels::ConvRequantParams requant_at(const RequantConstants& rc, int64_t oc0);

}  // namespace conv_internal
}  // namespace qwasm
