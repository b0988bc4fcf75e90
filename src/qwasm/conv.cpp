#include "qwasm/conv.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "qwasm/format.h"

namespace qwasm {
namespace {

using kernels::kConvMR;
using kernels::kConvNR;

const char* kDimName[3] = {"depth", "height", "width"};

std::string triple(const std::array<int64_t, 3>& v) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// How the generic kernels walk the reduction (kernels/conv_kernels.h).
struct Reduction {
  int64_t cg, og;        // channels per group, in and out
  bool merged_rows;      // W dilation 1: a (kd, kh) row of kW taps is one segment
  int64_t nseg, seg_len, pairs, blocks;
};

Reduction reduction_of(const ConvGeometry& g) {
  Reduction r;
  r.cg = g.in_channels / g.groups;
  r.og = g.out_channels / g.groups;
  r.merged_rows = g.dilation[2] == 1;
  r.nseg = g.kernel[0] * g.kernel[1] * (r.merged_rows ? 1 : g.kernel[2]);
  r.seg_len = r.merged_rows ? g.kernel[2] * r.cg : r.cg;
  r.pairs = ceil_div(r.seg_len, 2);
  r.blocks = ceil_div(r.og, kConvNR);
  return r;
}

// Maps position idx of segment s to (kd, kh, kw, c).
void tap_of(const ConvGeometry& g, const Reduction& r, int64_t s, int64_t idx, int64_t* kd, int64_t* kh,
            int64_t* kw, int64_t* c) {
  if (r.merged_rows) {
    *kd = s / g.kernel[1];
    *kh = s % g.kernel[1];
    *kw = idx / r.cg;
    *c = idx % r.cg;
  } else {
    *kd = s / (g.kernel[1] * g.kernel[2]);
    *kh = (s / g.kernel[2]) % g.kernel[1];
    *kw = s % g.kernel[2];
    *c = idx;
  }
}

bool is_depthwise(const ConvGeometry& g) { return g.groups == g.in_channels && g.groups == g.out_channels && g.groups > 1; }

struct Spatial {
  int64_t D, H, W;     // input
  int64_t Dp, Hp, Wp;  // padded input
  int64_t Do, Ho, Wo;  // output
  int64_t out_size() const { return Do * Ho * Wo; }
  int64_t padded_size() const { return Dp * Hp * Wp; }
};

Spatial spatial_of(const ConvGeometry& g, const Shape& in, const Shape& out) {
  Spatial s;
  s.D = in[2], s.H = in[3], s.W = in[4];
  s.Dp = s.D + g.pad_begin[0] + g.pad_end[0];
  s.Hp = s.H + g.pad_begin[1] + g.pad_end[1];
  s.Wp = s.W + g.pad_begin[2] + g.pad_end[2];
  s.Do = out[2], s.Ho = out[3], s.Wo = out[4];
  return s;
}

// Offset (in elements) of output pixel p's first input value in a padded
// channels-last plane with `channels` values per position.
int64_t pixel_offset(const ConvGeometry& g, const Spatial& s, int64_t p, int64_t channels) {
  const int64_t od = p / (s.Ho * s.Wo), oh = (p / s.Wo) % s.Ho, ow = p % s.Wo;
  return ((od * g.stride[0] * s.Hp + oh * g.stride[1]) * s.Wp + ow * g.stride[2]) * channels;
}

std::vector<ptrdiff_t> segment_offsets(const ConvGeometry& g, const Reduction& r, const Spatial& s) {
  std::vector<ptrdiff_t> offsets(static_cast<size_t>(r.nseg));
  for (int64_t seg = 0; seg < r.nseg; ++seg) {
    int64_t kd, kh, kw, c;
    tap_of(g, r, seg, 0, &kd, &kh, &kw, &c);
    offsets[seg] = ((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * r.cg;
  }
  return offsets;
}

// Copies batch item n of an NCDHW tensor into padded channels-last planes:
// value (c, d, h, w) goes to plane c / per_plane, position (d, h, w) shifted by
// the front padding, slot c % per_plane of `slots`. Padding stays zero.
template <typename Out, typename In, typename Convert>
void to_padded_channels_last(const In* x, int64_t channels, int64_t per_plane, int64_t slots, const ConvGeometry& g,
                             const Spatial& s, Out* planes, Convert convert) {
  const int64_t plane_size = s.padded_size() * slots;
  // Row by row, all channels: the output row (W * slots values) stays in L1
  // while every channel writes its slot.
  for (int64_t d = 0; d < s.D; ++d) {
    for (int64_t h = 0; h < s.H; ++h) {
      const int64_t row_offset = (((d + g.pad_begin[0]) * s.Hp + h + g.pad_begin[1]) * s.Wp + g.pad_begin[2]) * slots;
      for (int64_t c = 0; c < channels; ++c) {
        const In* row = x + ((c * s.D + d) * s.H + h) * s.W;
        Out* dst = planes + (c / per_plane) * plane_size + c % per_plane + row_offset;
        for (int64_t w = 0; w < s.W; ++w) dst[w * slots] = convert(row[w]);
      }
    }
  }
}

// Drives the generic kernels: per batch item, converts the input into the
// padded group-major channels-last buffer (zero padding), then walks tiles of
// kConvMR output pixels and blocks of kConvNR output channels, calling
// tile(mr, nc, a, c, group, block, first_output_channel).
template <typename Buf, typename Out, typename In, typename Convert, typename Tile>
void for_each_tile(const ConvGeometry& g, const Reduction& r, const Spatial& s, int64_t batch, const In* x,
                   std::vector<Buf>* buffer, Out* y, Convert convert, Tile tile) {
  const int64_t plane = s.padded_size() * r.cg;
  const int64_t out_size = s.out_size();
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  const Buf* a[kConvMR];
  Out* c[kConvMR];
  for (int64_t n = 0; n < batch; ++n) {
    if (n > 0) std::fill(buffer->begin(), buffer->end(), Buf{0});
    to_padded_channels_last(x + n * in_item, g.in_channels, r.cg, r.cg, g, s, buffer->data(), convert);
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const Buf* planes = buffer->data() + grp * plane;
      for (int64_t p0 = 0; p0 < out_size; p0 += kConvMR) {
        const size_t mr = static_cast<size_t>(std::min<int64_t>(kConvMR, out_size - p0));
        for (size_t m = 0; m < mr; ++m) a[m] = planes + pixel_offset(g, s, p0 + m, r.cg);
        for (int64_t b = 0; b < r.blocks; ++b) {
          const int64_t oc0 = grp * r.og + b * kConvNR;
          const size_t nc = static_cast<size_t>(std::min<int64_t>(kConvNR, r.og - b * kConvNR));
          for (size_t m = 0; m < mr; ++m) c[m] = y + (n * g.out_channels + oc0) * out_size + p0 + m;
          tile(mr, nc, a, c, grp, b, oc0);
        }
      }
    }
  }
}

}  // namespace

Status validate_geometry(const ConvGeometry& g) {
  if (g.in_channels < 1 || g.out_channels < 1) {
    return Status::RangeError("inChannels and outChannels must be >= 1, got " + std::to_string(g.in_channels) +
                              " and " + std::to_string(g.out_channels));
  }
  if (g.groups < 1) return Status::RangeError("groups must be >= 1, got " + std::to_string(g.groups));
  if (g.in_channels % g.groups != 0) {
    return Status::RangeError("inChannels (" + std::to_string(g.in_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  if (g.out_channels % g.groups != 0) {
    return Status::RangeError("outChannels (" + std::to_string(g.out_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  for (int d = 0; d < 3; ++d) {
    if (g.kernel[d] < 1) return Status::RangeError("kernelSize must be >= 1, got " + triple(g.kernel));
    if (g.stride[d] < 1) return Status::RangeError("stride must be >= 1, got " + triple(g.stride));
    if (g.dilation[d] < 1) return Status::RangeError("dilation must be >= 1, got " + triple(g.dilation));
    if (g.pad_begin[d] < 0 || g.pad_end[d] < 0) {
      return Status::RangeError("padding must be >= 0, got " + triple(g.pad_begin));
    }
  }
  return Status::Ok();
}

Status conv_output_shape(const ConvGeometry& g, const Shape& in, Shape* out) {
  if (in.size() != 5) {
    return Status::RangeError("expected a 5-D input [N, C, D, H, W], got rank " + std::to_string(in.size()));
  }
  if (in[1] != g.in_channels) {
    return Status::RangeError("expected " + std::to_string(g.in_channels) + " input channels (shape[1]), got " +
                              std::to_string(in[1]));
  }
  *out = {in[0], g.out_channels, 0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    const int64_t padded = in[2 + d] + g.pad_begin[d] + g.pad_end[d];
    const int64_t extent = g.dilation[d] * (g.kernel[d] - 1) + 1;
    if (padded < extent) {
      return Status::RangeError(std::string("kernel extent ") + std::to_string(extent) + " is larger than the padded input " +
                                kDimName[d] + " " + std::to_string(padded));
    }
    (*out)[2 + d] = (padded - extent) / g.stride[d] + 1;
  }
  return Status::Ok();
}

size_t PackedQConv::bytes() const {
  return weights.size() * sizeof(int16_t) + (weight_scales.size() + bias.size()) * sizeof(float);
}

Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, PackedQConv* out) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  const Reduction r = reduction_of(g);
  const Shape want = {g.out_channels, r.cg, g.kernel[0], g.kernel[1], g.kernel[2]};
  if (weight.dtype() != DType::kQInt8) {
    return Status::TypeError(std::string("weight must be qint8, got ") + dtype_name(weight.dtype()));
  }
  if (weight.shape() != want) {
    std::string got = "[";
    for (size_t i = 0; i < weight.shape().size(); ++i) got += (i ? ", " : "") + std::to_string(weight.shape()[i]);
    return Status::RangeError("weight shape must be " + std::string("[") + std::to_string(want[0]) + ", " +
                              std::to_string(want[1]) + ", " + std::to_string(want[2]) + ", " + std::to_string(want[3]) +
                              ", " + std::to_string(want[4]) + "], got " + got + "]");
  }
  const bool per_channel = weight.qscheme() == QScheme::kPerChannelAffine;
  if (!(per_channel && weight.axis() == 0) && weight.qscheme() != QScheme::kPerTensorAffine) {
    return Status::Error(std::string("weight must be per_tensor_affine or per_channel_affine on axis 0, got ") +
                         qscheme_name(weight.qscheme()) + (per_channel ? " on axis " + std::to_string(weight.axis()) : ""));
  }
  for (int64_t oc = 0; bias && oc < g.out_channels; ++oc) {
    if (!std::isfinite(bias[oc])) {
      return Status::RangeError("bias[" + std::to_string(oc) + "] must be finite, got " + format_number(bias[oc]));
    }
  }
  out->geometry = g;
  out->depthwise = is_depthwise(g);
  out->has_bias = bias != nullptr;
  out->weight_scales.resize(g.out_channels);
  out->bias.assign(g.out_channels, 0.0f);
  std::vector<int32_t> zps(g.out_channels);
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    out->weight_scales[oc] = static_cast<float>(weight.scales()[per_channel ? oc : 0]);
    zps[oc] = static_cast<int32_t>(weight.zero_points()[per_channel ? oc : 0]);
    if (bias) out->bias[oc] = bias[oc];
  }
  const int8_t* w = reinterpret_cast<const int8_t*>(weight.data());
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  if (out->depthwise) {
    // [tap][channel padded to 8]
    const int64_t cpad = ceil_div(g.out_channels, 8) * 8;
    out->weights.assign(static_cast<size_t>(taps * cpad), 0);
    for (int64_t c = 0; c < g.out_channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) out->weights[t * cpad + c] = static_cast<int16_t>(w[c * taps + t] - zps[c]);
    }
    return Status::Ok();
  }
  // [group][block of 8 output channels][segment][pair][8][2]
  out->weights.assign(static_cast<size_t>(g.groups * r.blocks * r.nseg * r.pairs * 2 * kConvNR), 0);
  int16_t* dst = out->weights.data();
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t b = 0; b < r.blocks; ++b) {
      for (int64_t s = 0; s < r.nseg; ++s) {
        for (int64_t k = 0; k < r.pairs; ++k) {
          for (int64_t j = 0; j < static_cast<int64_t>(kConvNR); ++j) {
            for (int64_t e = 0; e < 2; ++e, ++dst) {
              const int64_t idx = 2 * k + e, ocl = b * kConvNR + j;
              if (idx >= r.seg_len || ocl >= r.og) continue;
              int64_t kd, kh, kw, c;
              tap_of(g, r, s, idx, &kd, &kh, &kw, &c);
              const int64_t oc = grp * r.og + ocl;
              const int64_t wi = (((oc * r.cg + c) * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw;
              *dst = static_cast<int16_t>(w[wi] - zps[oc]);
            }
          }
        }
      }
    }
  }
  return Status::Ok();
}

Status qconv3d(const PackedQConv& pw, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  if (input.dtype() != DType::kQUInt8 || input.qscheme() != QScheme::kPerTensorAffine) {
    return Status::TypeError(std::string("input must be a quint8 per_tensor_affine tensor, got ") +
                             dtype_name(input.dtype()) + " " + qscheme_name(input.qscheme()));
  }
  Shape out_shape;
  QWASM_RETURN_IF_ERROR(conv_output_shape(g, input.shape(), &out_shape));
  if (!(std::isfinite(out_scale) && out_scale > 0)) {
    return Status::RangeError("output scale must be a finite number > 0, got " + format_number(out_scale));
  }
  if (out_zp < 0 || out_zp > 255) {
    return Status::RangeError("output zero point must be in 0..255 (quint8), got " + std::to_string(out_zp));
  }
  QWASM_RETURN_IF_ERROR(make_qtensor(out_shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, {out_scale},
                                     {static_cast<double>(out_zp)}, out));
  const kernels::ConvKernels* k = kernels::conv_kernels(isa);
  if (!k) k = kernels::conv_kernels(kernels::Isa::kScalar);

  // Requantization constants, in float like FBGEMM; 8 slack entries let the
  // kernels load a whole block past the last channel.
  const float a_scale = static_cast<float>(input.q_scale());
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  const float o_scale = static_cast<float>(out_scale);
  const size_t nparams = static_cast<size_t>(ceil_div(g.out_channels, 8) * 8 + kConvNR);
  std::vector<float> bias_div(nparams, 0.0f), multiplier(nparams, 0.0f);
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    const float atws = a_scale * pw.weight_scales[oc];
    multiplier[oc] = atws / o_scale;
    bias_div[oc] = pw.has_bias ? pw.bias[oc] / atws : 0.0f;
  }
  kernels::ConvRequantParams params{nullptr, nullptr, static_cast<int32_t>(out_zp),
                                    relu ? static_cast<int32_t>(out_zp) : 0, 255};

  const Spatial s = spatial_of(g, input.shape(), out_shape);
  const int64_t out_size = s.out_size();
  const uint8_t* x = input.data();
  uint8_t* y = out->data();
  auto centered = [a_zp](uint8_t v) { return static_cast<int16_t>(v - a_zp); };

  if (pw.depthwise) {
    const int64_t cpad = ceil_div(g.in_channels, 8) * 8;
    std::vector<int16_t> buffer(static_cast<size_t>(s.padded_size() * cpad), 0);
    std::vector<ptrdiff_t> taps;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
          taps.push_back(((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * cpad);
    if (info) info->scratch_bytes = buffer.size() * 2 + (bias_div.size() + multiplier.size()) * 4 + taps.size() * 8;
    params.bias_div = bias_div.data();
    params.multiplier = multiplier.data();
    for (int64_t n = 0; n < input.shape()[0]; ++n) {
      if (n > 0) std::fill(buffer.begin(), buffer.end(), 0);
      to_padded_channels_last(x + n * g.in_channels * s.D * s.H * s.W, g.in_channels, cpad, cpad, g, s, buffer.data(),
                              centered);
      uint8_t* yn = y + n * g.out_channels * out_size;
      for (int64_t p = 0; p < out_size; ++p) {
        k->qdwconv(static_cast<size_t>(cpad), static_cast<size_t>(g.out_channels), taps.size(),
                   buffer.data() + pixel_offset(g, s, p, cpad), taps.data(), pw.weights.data(), yn + p,
                   static_cast<size_t>(out_size), &params);
      }
    }
    return Status::Ok();
  }

  const Reduction r = reduction_of(g);
  const int64_t plane = s.padded_size() * r.cg;
  // +2: the last pair of the last segment may read one value past the end.
  std::vector<int16_t> buffer(static_cast<size_t>(g.groups * plane + 2), 0);
  const std::vector<ptrdiff_t> offsets = segment_offsets(g, r, s);
  if (info) info->scratch_bytes = buffer.size() * 2 + (bias_div.size() + multiplier.size()) * 4 + offsets.size() * 8;
  const size_t block_weights = static_cast<size_t>(r.nseg * r.pairs * 2 * kConvNR);
  for_each_tile(g, r, s, input.shape()[0], x, &buffer, y, centered,
                [&](size_t mr, size_t nc, const int16_t* const* a, uint8_t* const* c, int64_t grp, int64_t b,
                    int64_t oc0) {
                  params.bias_div = bias_div.data() + oc0;
                  params.multiplier = multiplier.data() + oc0;
                  k->qconv(mr, nc, static_cast<size_t>(r.nseg), static_cast<size_t>(r.pairs), a, offsets.data(),
                           pw.weights.data() + (grp * r.blocks + b) * block_weights, c,
                           static_cast<size_t>(out_size), &params);
                });
  return Status::Ok();
}

Status pack_fconv(const ConvGeometry& g, const float* weight, const float* bias, PackedFConv* out) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  const Reduction r = reduction_of(g);
  out->geometry = g;
  out->bias.assign(static_cast<size_t>(g.out_channels + kConvNR), 0.0f);
  if (bias) std::copy(bias, bias + g.out_channels, out->bias.begin());
  // [group][block of 8][segment][k][8]
  out->weights.assign(static_cast<size_t>(g.groups * r.blocks * r.nseg * r.seg_len * kConvNR), 0.0f);
  float* dst = out->weights.data();
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t b = 0; b < r.blocks; ++b) {
      for (int64_t s = 0; s < r.nseg; ++s) {
        for (int64_t idx = 0; idx < r.seg_len; ++idx) {
          for (int64_t j = 0; j < static_cast<int64_t>(kConvNR); ++j, ++dst) {
            const int64_t ocl = b * kConvNR + j;
            if (ocl >= r.og) continue;
            int64_t kd, kh, kw, c;
            tap_of(g, r, s, idx, &kd, &kh, &kw, &c);
            const int64_t oc = grp * r.og + ocl;
            *dst = weight[(((oc * r.cg + c) * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw];
          }
        }
      }
    }
  }
  return Status::Ok();
}

Status fconv3d(const PackedFConv& pw, const float* x, const Shape& input_shape, bool relu, kernels::Isa isa,
               std::vector<float>* output, Shape* output_shape, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  QWASM_RETURN_IF_ERROR(conv_output_shape(g, input_shape, output_shape));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(*output_shape, &numel));
  output->assign(static_cast<size_t>(numel), 0.0f);
  const kernels::ConvKernels* k = kernels::conv_kernels(isa);
  if (!k) k = kernels::conv_kernels(kernels::Isa::kScalar);
  const Spatial s = spatial_of(g, input_shape, *output_shape);
  const Reduction r = reduction_of(g);
  const int64_t out_size = s.out_size();
  const int64_t plane = s.padded_size() * r.cg;
  std::vector<float> buffer(static_cast<size_t>(g.groups * plane), 0.0f);
  const std::vector<ptrdiff_t> offsets = segment_offsets(g, r, s);
  if (info) info->scratch_bytes = buffer.size() * 4 + offsets.size() * 8;
  const size_t block_weights = static_cast<size_t>(r.nseg * r.seg_len * kConvNR);
  for_each_tile(g, r, s, input_shape[0], x, &buffer, output->data(), [](float v) { return v; },
                [&](size_t mr, size_t nc, const float* const* a, float* const* c, int64_t grp, int64_t b, int64_t oc0) {
                  k->fconv(mr, nc, static_cast<size_t>(r.nseg), static_cast<size_t>(r.seg_len), a, offsets.data(),
                           pw.weights.data() + (grp * r.blocks + b) * block_weights, pw.bias.data() + oc0, c,
                           static_cast<size_t>(out_size), relu);
                });
  return Status::Ok();
}

}  // namespace qwasm
