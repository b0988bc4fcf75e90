#include "qwasm/conv_requant.h"

#include "qwasm/conv_layout.h"

namespace qwasm {
namespace conv_internal {

bool fbgemm_depthwise_fast_path(const ConvGeometry& g) {
  // FBGEMM's takeDepthWiseFastPath (src/FbgemmConv.cc) on the conv_param_t
  // PyTorch builds: a Conv1d is a 2-D conv with a kernel height of 1, which
  // fails the kernel test, as does a linear layer (no conv at all).
  if (g.spatial_dims < 2) return false;
  if (g.groups != g.in_channels || (g.out_channels != g.groups && g.out_channels != 2 * g.groups) ||
      g.groups % 8 != 0) {
    return false;
  }
  if (g.kernel[1] != g.kernel[2]) return false;
  for (int d = 3 - g.spatial_dims; d < 3; ++d) {
    const int64_t k = g.kernel[d];
    if (k != 3 && k != 5 && k != 7) return false;
    if (g.stride[d] != 1 && g.stride[d] != 2) return false;
    if (g.dilation[d] != 1) return false;
    if (g.pad_begin[d] != (k - 1) / 2 || g.pad_end[d] != g.pad_begin[d]) return false;
  }
  return true;
}

Status requant_constants(const PackedQConv& pw, double a_scale, double o_scale, int64_t out_zp, bool relu, size_t block,
                         RequantConstants* rc) {
  const int64_t n = ceil_div(pw.geometry.out_channels, static_cast<int64_t>(block)) * static_cast<int64_t>(block) +
                    static_cast<int64_t>(block);
  QWASM_RETURN_IF_ERROR(rc->weight_scale.allocate(n, "the requantization constants"));
  QWASM_RETURN_IF_ERROR(rc->bias.allocate(n, "the requantization constants"));
  QWASM_RETURN_IF_ERROR(rc->multiplier.allocate(n, "the requantization constants"));
  kernels::ConvRequantParams& p = rc->params;
  p.output_min = relu ? static_cast<int32_t>(out_zp) : 0;
  p.output_max = 255;
  if (pw.backend == ConvBackend::kOnednn) {
    // PyTorch hands oneDNN 1 / scale (double, then float); oneDNN inverts
    // what it is given in float (qconv.cpp apply_impl, ideep's attributes).
    const float inv_out = static_cast<float>(1.0 / o_scale);
    p.input_scale = 1.0f / static_cast<float>(1.0 / a_scale);
    p.zero_point_f = static_cast<float>(out_zp);
    p.output_zero_point = 0;
    p.fused_bias = false;
    const float dst_mul = 1.0f / (1.0f / inv_out);
    for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) {
      rc->weight_scale[oc] = pw.weight_scales[oc];
      rc->bias[oc] = pw.has_bias ? pw.bias[oc] : 0.0f;
      rc->multiplier[oc] = dst_mul;
    }
  } else {
    // FBGEMM: atws = a_scale * w_scale and atws / out_scale in float
    // (qconv.cpp GetQuantizationParams, qlinear.cpp); the bias term as the
    // path FBGEMM takes adds it (docs/numerics.md): per-channel weights
    // divide by atws; per-tensor weights multiply by the reciprocal
    // rcp = (float)(1.0 / atws), which the GEMM kernels' compiled code fuses
    // into the add (fma(bias, rcp, acc)) and the depthwise kernel does not.
    const float a = static_cast<float>(a_scale), o = static_cast<float>(o_scale);
    const bool per_channel = pw.weight_scheme == QScheme::kPerChannelAffine;
    const bool fused = pw.has_bias && !per_channel && !fbgemm_depthwise_fast_path(pw.geometry);
    p.input_scale = 1.0f;
    p.zero_point_f = 0.0f;
    p.output_zero_point = static_cast<int32_t>(out_zp);
    for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) {
      const float atws = a * pw.weight_scales[oc];
      const float rcp = static_cast<float>(1.0 / static_cast<double>(atws));
      rc->weight_scale[oc] = 1.0f;
      rc->bias[oc] = !pw.has_bias ? 0.0f : per_channel ? pw.bias[oc] / atws : fused ? pw.bias[oc] : pw.bias[oc] * rcp;
      rc->multiplier[oc] = atws / o;
      if (fused) p.bias_rcp = rcp;  // one weight scale: the same for every channel
    }
    p.fused_bias = fused;
  }
  p.weight_scale = rc->weight_scale.data();
  p.bias = rc->bias.data();
  p.multiplier = rc->multiplier.data();
  return Status::Ok();
}

int64_t requant_constant_bytes(const PackedQConv& pw, size_t block) {
  const int64_t b = static_cast<int64_t>(block);
  const int64_t n = (ceil_div(pw.geometry.out_channels, b) + 1) * b;
  const int64_t int_arrays = !pw.sat16 ? 0 : pw.weight_zero_points.size() ? 2 : 1;
  return n * (3 * static_cast<int64_t>(sizeof(float)) + int_arrays * static_cast<int64_t>(sizeof(int32_t)));
}

Status make_qoutput(const QCall& call, size_t block, QTensor* out, RequantConstants* rc) {
  const double zp = static_cast<double>(call.out_zp);
  QWASM_RETURN_IF_ERROR(
      make_qtensor(call.out_shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &call.out_scale, &zp, 1, out));
  QWASM_RETURN_IF_ERROR(
      requant_constants(call.pw, call.input.q_scale(), call.out_scale, call.out_zp, call.relu, block, rc));
  const PackedQConv& pw = call.pw;
  if (!pw.sat16) return Status::Ok();
  // FBGEMM's depthwise kernel takes a_zp * sum(w - w_zp) and, with
  // asymmetric weights, w_zp * (its row offset) off the pair sums in int32.
  const int64_t n = (ceil_div(pw.geometry.out_channels, static_cast<int64_t>(block)) + 1) * static_cast<int64_t>(block);
  const int32_t a_zp = static_cast<int32_t>(call.input.q_zero_point());
  QWASM_RETURN_IF_ERROR(rc->acc_offset.allocate(n, "the requantization constants"));
  for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) rc->acc_offset[oc] = a_zp * pw.weight_sums[oc];
  rc->params.acc_offset = rc->acc_offset.data();
  if (pw.weight_zero_points.size()) {
    QWASM_RETURN_IF_ERROR(rc->weight_zero_point.allocate(n, "the requantization constants"));
    for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) rc->weight_zero_point[oc] = pw.weight_zero_points[oc];
    rc->params.weight_zero_point = rc->weight_zero_point.data();
  }
  return Status::Ok();
}

// The params of the block of channels starting at oc0 (per tile: tiles run on several threads).
kernels::ConvRequantParams requant_at(const RequantConstants& rc, int64_t oc0) {
  kernels::ConvRequantParams p = rc.params;
  p.weight_scale += oc0;
  p.bias += oc0;
  p.multiplier += oc0;
  if (p.acc_offset) p.acc_offset += oc0;
  if (p.weight_zero_point) p.weight_zero_point += oc0;
  return p;
}

}  // namespace conv_internal
}  // namespace qwasm
