// One quantized conv / linear call as its drivers see it, and the setup they
// share: its output tensor and requantization constants (the direct and
// depthwise drivers in conv_run.cpp, the Winograd driver in conv_winograd.cpp).
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
  Buffer<int32_t> acc_offset, weight_zero_point;  // the kSat16 depthwise kernels' (PackedQConv::sat16)
  kernels::ConvRequantParams params{};
  size_t bytes() const {
    return (weight_scale.size() + bias.size() + multiplier.size()) * sizeof(float) +
           (acc_offset.size() + weight_zero_point.size()) * sizeof(int32_t);
  }
};

// The bytes of a call's RequantConstants for kernels that load `block`
// channels at once (what make_qoutput allocates).
int64_t requant_constant_bytes(const PackedQConv& pw, size_t block);

// A quantized conv / linear call whose arguments qconv3d / qlinear have
// checked (the layer's kind, the input's dtype and scheme, the output shape
// and qparams): what every driver runs.
struct QCall {
  const PackedQConv& pw;
  const QTensor& input;  // quint8, per tensor
  Shape out_shape;
  double out_scale;  // as the output tensor keeps it
  int64_t out_zp;
  bool relu;
  kernels::Isa isa;
};

// The drivers' shared setup, after their scratch: the call's output tensor
// (quint8, per tensor, out_scale / out_zp) in *out and its requantization
// constants for kernels that load `block` channels at once in *rc.
Status make_qoutput(const QCall& call, size_t block, QTensor* out, RequantConstants* rc);

// a_scale and o_scale as the tensors keep them (double): each backend derives
// its float constants from them the way PyTorch's path does. `block`: the
// widest channel block a kernel loads at once.
Status requant_constants(const PackedQConv& pw, double a_scale, double o_scale, int64_t out_zp, bool relu, size_t block,
                         RequantConstants* rc);

// Whether PyTorch's FBGEMM runs this conv on its depthwise kernel
// (takeDepthWiseFastPath) rather than a GEMM: the bias term differs
// (requant_constants).
bool fbgemm_depthwise_fast_path(const ConvGeometry& g);

// The params of the block of channels starting at oc0 (per tile: tiles run on several threads).
kernels::ConvRequantParams requant_at(const RequantConstants& rc, int64_t oc0);

}  // namespace conv_internal
}  // namespace qwasm
