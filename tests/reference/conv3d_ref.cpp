#include "reference/conv3d_ref.h"

#include <cmath>
#include <vector>

#include "reference/requantize_ref.h"

namespace qwasm {
namespace ref {
namespace {

// Calls element(oc, out_index, taps) for every output element in NCDHW order;
// taps(accumulate) calls accumulate(input_index, weight_index) for each tap in
// (kd, kh, kw, c) order, with input_index -1 for a padded position.
template <typename Element>
void for_each_output(const ConvGeometry& g, const Shape& in, Element element) {
  const Shape out = conv_output_shape(g, in);
  const int64_t cg = g.in_channels / g.groups, og = g.out_channels / g.groups;
  const int64_t D = in[2], H = in[3], W = in[4];
  int64_t index = 0;
  for (int64_t n = 0; n < in[0]; ++n) {
    for (int64_t oc = 0; oc < g.out_channels; ++oc) {
      const int64_t group = oc / og;
      for (int64_t od = 0; od < out[2]; ++od) {
        for (int64_t oh = 0; oh < out[3]; ++oh) {
          for (int64_t ow = 0; ow < out[4]; ++ow, ++index) {
            element(oc, index, [&](auto&& accumulate) {
              for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
                for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
                  for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
                    for (int64_t c = 0; c < cg; ++c) {
                      const int64_t d = od * g.stride[0] + kd * g.dilation[0] - g.pad_begin[0];
                      const int64_t h = oh * g.stride[1] + kh * g.dilation[1] - g.pad_begin[1];
                      const int64_t w = ow * g.stride[2] + kw * g.dilation[2] - g.pad_begin[2];
                      const bool inside = d >= 0 && d < D && h >= 0 && h < H && w >= 0 && w < W;
                      const int64_t ic = group * cg + c;
                      const int64_t xi = inside ? (((n * g.in_channels + ic) * D + d) * H + h) * W + w : -1;
                      const int64_t wi = (((oc * cg + c) * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw;
                      accumulate(xi, wi);
                    }
                  }
                }
              }
            });
          }
        }
      }
    }
  }
}

}  // namespace

Shape conv_output_shape(const ConvGeometry& g, const Shape& in) {
  Shape out = {in[0], g.out_channels, 0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    const int64_t span = in[2 + d] + g.pad_begin[d] + g.pad_end[d] - g.dilation[d] * (g.kernel[d] - 1) - 1;
    out[2 + d] = span / g.stride[d] + 1;
  }
  return out;
}

bool fbgemm_depthwise(const ConvGeometry& g) {
  // The conv PyTorch hands FBGEMM has 2 or 3 dimensions: a Conv1d is 2-D with
  // a kernel height of 1 (never 3, 5 or 7), a linear layer is no conv.
  bool depthwise = g.spatial_dims >= 2 && g.groups == g.in_channels && g.groups % 8 == 0 &&
                   (g.out_channels == g.groups || g.out_channels == 2 * g.groups) && g.kernel[1] == g.kernel[2];
  for (int d = 3 - g.spatial_dims; depthwise && d < 3; ++d) {
    depthwise = (g.kernel[d] == 3 || g.kernel[d] == 5 || g.kernel[d] == 7) && (g.stride[d] == 1 || g.stride[d] == 2) &&
                g.dilation[d] == 1 && g.pad_begin[d] == (g.kernel[d] - 1) / 2 && g.pad_end[d] == g.pad_begin[d];
  }
  return depthwise;
}

FbgemmBias fbgemm_bias_path(const ConvGeometry& g, bool per_tensor_weight) {
  if (!per_tensor_weight) return FbgemmBias::kDivide;
  return fbgemm_depthwise(g) ? FbgemmBias::kMultiplyThenAdd : FbgemmBias::kFusedMultiplyAdd;
}

int32_t fbgemm_depthwise_acc(size_t ntaps, const int32_t* x, const int32_t* w, int32_t a_zp, int32_t w_zp) {
  int64_t acc = 0, x_sum = 0, w_sum = 0;
  for (size_t t = 0; t < ntaps; t += 2) {
    int64_t pair = int64_t{x[t]} * w[t];
    if (t + 1 < ntaps) pair += int64_t{x[t + 1]} * w[t + 1];
    acc += pair < -32768 ? -32768 : pair > 32767 ? 32767 : pair;
  }
  for (size_t t = 0; t < ntaps; ++t) x_sum += x[t], w_sum += w[t] - w_zp;
  const int64_t row_offset = x_sum < 32767 ? x_sum : 32767;
  return static_cast<int32_t>(acc - w_zp * row_offset - a_zp * w_sum);
}

void qconv3d(const ConvGeometry& g, const QConvArgs& a, uint8_t* y) {
  const FbgemmBias path = fbgemm_bias_path(g, a.per_tensor_weight);
  const bool pair_saturation = a.backend == ConvBackend::kFbgemm && fbgemm_depthwise(g);
  std::vector<int32_t> xs, ws;  // one output's raw taps (FBGEMM's depthwise kernel)
  for_each_output(g, a.input_shape, [&](int64_t oc, int64_t index, auto&& taps) {
    int32_t raw = 0;  // sum of (x - a_zp) * (w - w_zp); padding is x = a_zp
    if (pair_saturation) {
      xs.clear(), ws.clear();
      taps([&](int64_t xi, int64_t wi) {
        xs.push_back(xi < 0 ? a.a_zero_point : a.x[xi]);
        ws.push_back(a.w[wi]);
      });
      raw = fbgemm_depthwise_acc(xs.size(), xs.data(), ws.data(), a.a_zero_point, a.w_zero_points[oc]);
    } else {
      taps([&](int64_t xi, int64_t wi) {
        const int32_t xv = xi < 0 ? 0 : a.x[xi] - a.a_zero_point;
        raw += xv * (a.w[wi] - a.w_zero_points[oc]);
      });
    }
    if (a.backend == ConvBackend::kOnednn) {
      y[index] = requantize_onednn(raw, a.a_scale, a.w_scales[oc], a.bias ? a.bias[oc] : 0.0f, a.bias != nullptr,
                                   a.out_scale, a.out_zero_point, a.relu);
      return;
    }
    const float atws = static_cast<float>(a.a_scale) * a.w_scales[oc];
    const float multiplier = atws / static_cast<float>(a.out_scale);
    const int32_t out_min = a.relu ? a.out_zero_point : 0;
    y[index] = a.bias ? requantize_fbgemm(raw, a.bias[oc], atws, path, multiplier, a.out_zero_point, out_min, 255)
                      : requantize(raw, 0.0f, multiplier, a.out_zero_point, out_min, 255);
  });
}

void fconv3d(const ConvGeometry& g, const float* x, const Shape& input_shape, const float* w, const float* bias,
             bool relu, float* y) {
  for_each_output(g, input_shape, [&](int64_t oc, int64_t index, auto&& taps) {
    float acc = bias ? bias[oc] : 0.0f;
    taps([&](int64_t xi, int64_t wi) {
      const float product = (xi < 0 ? 0.0f : x[xi]) * w[wi];
      acc = acc + product;
    });
    y[index] = relu && acc < 0.0f ? 0.0f : acc;
  });
}

void to_channels_last(size_t channels, size_t width, const uint8_t* x, size_t x_stride, int32_t zero_point,
                      int16_t* dst, size_t slots) {
  for (size_t w = 0; w < width; ++w) {
    for (size_t c = 0; c < channels; ++c) {
      dst[w * slots + c] = static_cast<int16_t>(static_cast<int32_t>(x[c * x_stride + w]) - zero_point);
    }
  }
}

}  // namespace ref
}  // namespace qwasm
