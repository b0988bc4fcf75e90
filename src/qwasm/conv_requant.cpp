#include "qwasm/conv_requant.h"

#include "qwasm/conv_layout.h"

namespace qwasm {
namespace conv_internal {

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
    const float dst_mul = 1.0f / (1.0f / inv_out);
    for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) {
      rc->weight_scale[oc] = pw.weight_scales[oc];
      rc->bias[oc] = pw.has_bias ? pw.bias[oc] : 0.0f;
      rc->multiplier[oc] = dst_mul;
    }
  } else {
    // FBGEMM: bias / (a_scale * w_scale) and a_scale * w_scale / out_scale, in float.
    const float a = static_cast<float>(a_scale), o = static_cast<float>(o_scale);
    p.input_scale = 1.0f;
    p.zero_point_f = 0.0f;
    p.output_zero_point = static_cast<int32_t>(out_zp);
    for (int64_t oc = 0; oc < pw.geometry.out_channels; ++oc) {
      const float atws = a * pw.weight_scales[oc];
      rc->weight_scale[oc] = 1.0f;
      rc->bias[oc] = pw.has_bias ? pw.bias[oc] / atws : 0.0f;
      rc->multiplier[oc] = atws / o;
    }
  }
  p.weight_scale = rc->weight_scale.data();
  p.bias = rc->bias.data();
  p.multiplier = rc->multiplier.data();
  return Status::Ok();
}

Status make_qoutput(const QCall& call, size_t block, QTensor* out, RequantConstants* rc) {
  const double zp = static_cast<double>(call.out_zp);
  QWASM_RETURN_IF_ERROR(
      make_qtensor(call.out_shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &call.out_scale, &zp, 1, out));
  return requant_constants(call.pw, call.input.q_scale(), call.out_scale, call.out_zp, call.relu, block, rc);
}

// The params of the block of channels starting at oc0 (per tile: tiles run on several threads).
kernels::ConvRequantParams requant_at(const RequantConstants& rc, int64_t oc0) {
  kernels::ConvRequantParams p = rc.params;
  p.weight_scale += oc0;
  p.bias += oc0;
  p.multiplier += oc0;
  return p;
}

}  // namespace conv_internal
}  // namespace qwasm
