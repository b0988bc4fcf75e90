#include "qwasm/conv.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "qwasm/format.h"
#include "qwasm/limits.h"

namespace qwasm {
namespace {

using kernels::kConvMR;
using kernels::kConvNR;

const char* kDimName[3] = {"depth", "height", "width"};

// A geometry triple as the caller gave it: the last `dims` entries.
std::string dims_of(const std::array<int64_t, 3>& v, int dims) {
  if (dims <= 1) return std::to_string(v[2]);
  std::string s = "[";
  for (int d = 3 - dims; d < 3; ++d) s += (d > 3 - dims ? ", " : "") + std::to_string(v[d]);
  return s + "]";
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

// Every offset fits ptrdiff_t: the buffer it indexes holds fewer than 2^31 bytes.
Status segment_offsets(const ConvGeometry& g, const Reduction& r, const Spatial& s, Buffer<ptrdiff_t>* offsets) {
  QWASM_RETURN_IF_ERROR(offsets->allocate(r.nseg, "the conv's segment offsets", false));
  for (int64_t seg = 0; seg < r.nseg; ++seg) {
    int64_t kd, kh, kw, c;
    tap_of(g, r, seg, 0, &kd, &kh, &kw, &c);
    (*offsets)[seg] =
        static_cast<ptrdiff_t>(((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * r.cg);
  }
  return Status::Ok();
}

// Bytes of the padded channels-last input buffer: padded positions x slots per
// position x planes, + `slack` elements, of `element` bytes each.
CheckedSize padded_buffer_elements(const Spatial& s, int64_t slots, int64_t planes, int64_t slack) {
  return CheckedSize(s.Dp) * s.Hp * s.Wp * slots * planes + slack;
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
                   Buffer<Buf>* buffer, Out* y, Convert convert, Tile tile) {
  const int64_t plane = s.padded_size() * r.cg;
  const int64_t out_size = s.out_size();
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  const Buf* a[kConvMR];
  Out* c[kConvMR];
  for (int64_t n = 0; n < batch; ++n) {
    if (n > 0) buffer->fill(Buf{0});
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
  const bool linear = g.spatial_dims == 0;
  const char* in_name = linear ? "inFeatures" : "inChannels";
  const char* out_name = linear ? "outFeatures" : "outChannels";
  for (const auto& [name, v] : {std::pair<const char*, int64_t>{in_name, g.in_channels}, {out_name, g.out_channels},
                                {"groups", g.groups}}) {
    if (v < 1) return Status::RangeError(std::string(name) + " must be >= 1, got " + std::to_string(v));
    if (v > kMaxGeometryValue) {
      return Status::RangeError(std::string(name) + " must be at most " + std::to_string(kMaxGeometryValue) +
                                ", got " + std::to_string(v));
    }
  }
  if (g.in_channels % g.groups != 0) {
    return Status::RangeError("inChannels (" + std::to_string(g.in_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  if (g.out_channels % g.groups != 0) {
    return Status::RangeError("outChannels (" + std::to_string(g.out_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  const int dims = g.spatial_dims;
  if (dims < 0 || dims > 3) return Status::RangeError("spatial_dims must be 0..3, got " + std::to_string(dims));
  // The dimensions a Conv1d / Conv2d / Linear does not have are unit ones:
  // the module's weight shape leaves them out.
  for (int d = 0; d < 3 - dims; ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.dilation[d] != 1 || g.pad_begin[d] != 0 || g.pad_end[d] != 0) {
      return Status::RangeError("a " + std::to_string(dims) + "-d geometry must have kernel, stride and dilation 1 "
                                "and no padding in its first " + std::to_string(3 - dims) + " dimension(s)");
    }
  }
  if (dims == 0 && g.groups != 1) return Status::RangeError("a linear layer has groups 1, got " + std::to_string(g.groups));
  for (const auto& [name, t, lo] : {std::tuple<const char*, const std::array<int64_t, 3>*, int64_t>{
                                        "kernelSize", &g.kernel, 1},
                                    {"stride", &g.stride, 1},
                                    {"dilation", &g.dilation, 1},
                                    {"padding", &g.pad_begin, 0},
                                    {"padding", &g.pad_end, 0}}) {
    for (int d = 0; d < 3; ++d) {
      if ((*t)[d] < lo) {
        return Status::RangeError(std::string(name) + " must be >= " + std::to_string(lo) + ", got " +
                                  dims_of(*t, dims));
      }
      if ((*t)[d] > kMaxGeometryValue) {
        return Status::RangeError(std::string(name) + " must be at most " + std::to_string(kMaxGeometryValue) +
                                  ", got " + dims_of(*t, dims));
      }
    }
  }
  return Status::Ok();
}

Status conv_output_shape(const ConvGeometry& g, const Shape& in, Shape* out) {
  if (in.size() != 5) {
    return Status::RangeError("expected a 5-D input [N, C, D, H, W], got rank " + std::to_string(in.size()));
  }
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(in, &numel));
  if (in[1] != g.in_channels) {
    return Status::RangeError(g.spatial_dims == 0
                                  ? "expected " + std::to_string(g.in_channels) + " input features (the last " +
                                        "dimension), got " + std::to_string(in[1])
                                  : "expected " + std::to_string(g.in_channels) + " input channels (shape[1]), got " +
                                        std::to_string(in[1]));
  }
  *out = {in[0], g.out_channels, 0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    // Every term is at most 2^31 - 1 (validated), so none of this overflows int64.
    const int64_t padded = in[2 + d] + g.pad_begin[d] + g.pad_end[d];
    const int64_t extent = g.dilation[d] * (g.kernel[d] - 1) + 1;
    if (padded < extent) {
      return Status::RangeError(std::string("kernel extent ") + std::to_string(extent) +
                                " is larger than the padded input " + kDimName[d] + " " + std::to_string(padded));
    }
    (*out)[2 + d] = (padded - extent) / g.stride[d] + 1;
  }
  int64_t out_numel = 0;
  const Status s = validate_shape(*out, &out_numel);
  if (!s.ok()) return Status::RangeError("the output would be too large: " + s.message);
  return Status::Ok();
}

Status validate_output_qparams(double scale, int64_t zero_point) {
  if (!(std::isfinite(scale) && scale > 0 && std::isfinite(static_cast<float>(scale)) &&
        static_cast<float>(scale) > 0)) {
    return Status::RangeError("scale (the output scale) must be a finite number > 0 as float32, got " +
                              format_number(scale));
  }
  if (zero_point < 0 || zero_point > 255) {
    return Status::RangeError("zeroPoint (the output zero point) must be in 0..255 (quint8), got " +
                              std::to_string(zero_point));
  }
  return Status::Ok();
}

Shape module_weight_shape(const ConvGeometry& g) {
  if (g.spatial_dims == 0) return {g.out_channels, g.in_channels};
  Shape s = {g.out_channels, g.in_channels / g.groups};
  for (int d = 3 - g.spatial_dims; d < 3; ++d) s.push_back(g.kernel[d]);
  return s;
}

size_t PackedQConv::bytes() const {
  return weights.size() * sizeof(int16_t) + (weight_scales.size() + bias.size()) * sizeof(float);
}

namespace {

Status check_bias(const ConvGeometry& g, const float* bias, int64_t bias_count) {
  if (bias && bias_count != g.out_channels) {
    return Status::RangeError("bias must have " + std::to_string(g.out_channels) + " elements (outChannels), got " +
                              std::to_string(bias_count));
  }
  for (int64_t oc = 0; bias && oc < g.out_channels; ++oc) {
    if (!std::isfinite(bias[oc])) {
      return Status::RangeError("bias[" + std::to_string(oc) + "] must be finite, got " + format_number(bias[oc]));
    }
  }
  return Status::Ok();
}

}  // namespace

Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count,
                  PackedQConv* out) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  // The weight's shape is checked before any product of the geometry is
  // formed: a weight that exists bounds them all.
  const Shape lifted = {g.out_channels, g.in_channels / g.groups, g.kernel[0], g.kernel[1], g.kernel[2]};
  const Shape want = module_weight_shape(g);
  if (weight.dtype() != DType::kQInt8) {
    return Status::TypeError(std::string("weight must be qint8, got ") + dtype_name(weight.dtype()));
  }
  if (weight.shape() != want && weight.shape() != lifted) {
    auto str = [](const Shape& v) {
      std::string t = "[";
      for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
      return t + "]";
    };
    return Status::RangeError("weight shape must be " + str(want) + ", got " + str(weight.shape()));
  }
  const bool per_channel = weight.qscheme() == QScheme::kPerChannelAffine;
  if (!(per_channel && weight.axis() == 0) && weight.qscheme() != QScheme::kPerTensorAffine) {
    return Status::Error(std::string("weight must be per_tensor_affine or per_channel_affine on axis 0, got ") +
                         qscheme_name(weight.qscheme()) +
                         (per_channel ? " on axis " + std::to_string(weight.axis()) : ""));
  }
  QWASM_RETURN_IF_ERROR(check_bias(g, bias, bias_count));
  const Reduction r = reduction_of(g);
  const bool depthwise = is_depthwise(g);
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];  // <= the weight's numel: validated by its shape
  const CheckedSize packed_count =
      depthwise ? CheckedSize(taps) * (ceil_div(g.out_channels, 8) * 8)
                : CheckedSize(g.groups) * r.blocks * r.nseg * r.pairs * 2 * static_cast<int64_t>(kConvNR);
  QWASM_RETURN_IF_ERROR(out->weights.allocate(packed_count, "the packed weights"));
  QWASM_RETURN_IF_ERROR(out->weight_scales.allocate(g.out_channels, "the weight scales"));
  QWASM_RETURN_IF_ERROR(out->bias.allocate(g.out_channels, "the bias"));
  Buffer<int32_t> zps;
  QWASM_RETURN_IF_ERROR(zps.allocate(g.out_channels, "the weight zero points"));
  out->geometry = g;
  out->depthwise = depthwise;
  out->has_bias = bias != nullptr;
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    out->weight_scales[oc] = static_cast<float>(weight.scales()[per_channel ? oc : 0]);
    zps[oc] = static_cast<int32_t>(weight.zero_points()[per_channel ? oc : 0]);
    if (bias) out->bias[oc] = bias[oc];
  }
  const int8_t* w = reinterpret_cast<const int8_t*>(weight.data());
  if (depthwise) {
    // [tap][channel padded to 8]
    const int64_t cpad = ceil_div(g.out_channels, 8) * 8;
    for (int64_t c = 0; c < g.out_channels; ++c) {
      for (int64_t t = 0; t < taps; ++t) out->weights[t * cpad + c] = static_cast<int16_t>(w[c * taps + t] - zps[c]);
    }
    return Status::Ok();
  }
  // [group][block of 8 output channels][segment][pair][8][2]
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
  QWASM_RETURN_IF_ERROR(validate_output_qparams(out_scale, out_zp));
  const Spatial s = spatial_of(g, input.shape(), out_shape);
  const int64_t out_size = s.out_size();
  const Reduction r = reduction_of(g);
  const int64_t cpad = ceil_div(g.in_channels, 8) * 8;
  // Every scratch size, checked before anything is allocated. The generic
  // buffer has 2 slack values: the last pair of the last segment may read one
  // value past the end.
  const CheckedSize buffer_count =
      pw.depthwise ? padded_buffer_elements(s, cpad, 1, 0) : padded_buffer_elements(s, r.cg, g.groups, 2);
  Buffer<int16_t> buffer;
  QWASM_RETURN_IF_ERROR(buffer.allocate(buffer_count, "the conv's padded input"));
  const double scale_d = out_scale, zp_d = static_cast<double>(out_zp);
  QWASM_RETURN_IF_ERROR(make_qtensor(out_shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale_d, &zp_d, 1, out));

  // Requantization constants, in float like FBGEMM; 8 slack entries let the
  // kernels load a whole block past the last channel.
  const float a_scale = static_cast<float>(input.q_scale());
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  const float o_scale = static_cast<float>(out_scale);
  const int64_t nparams = ceil_div(g.out_channels, 8) * 8 + static_cast<int64_t>(kConvNR);
  Buffer<float> bias_div, multiplier;
  QWASM_RETURN_IF_ERROR(bias_div.allocate(nparams, "the requantization constants"));
  QWASM_RETURN_IF_ERROR(multiplier.allocate(nparams, "the requantization constants"));
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    const float atws = a_scale * pw.weight_scales[oc];
    multiplier[oc] = atws / o_scale;
    bias_div[oc] = pw.has_bias ? pw.bias[oc] / atws : 0.0f;
  }
  kernels::ConvRequantParams params{bias_div.data(), multiplier.data(), static_cast<int32_t>(out_zp),
                                    relu ? static_cast<int32_t>(out_zp) : 0, 255};
  const kernels::ConvKernels* k = kernels::conv_kernels(isa);
  if (!k) k = kernels::conv_kernels(kernels::Isa::kScalar);
  const uint8_t* x = input.data();
  uint8_t* y = out->mutable_data();
  auto centered = [a_zp](uint8_t v) { return static_cast<int16_t>(v - a_zp); };

  if (pw.depthwise) {
    const int64_t taps_count = g.kernel[0] * g.kernel[1] * g.kernel[2];
    Buffer<ptrdiff_t> taps;
    QWASM_RETURN_IF_ERROR(taps.allocate(taps_count, "the conv's tap offsets", false));
    size_t t = 0;
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
          taps[t++] =
              static_cast<ptrdiff_t>(((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * cpad);
    if (info) info->scratch_bytes = buffer.size() * 2 + (bias_div.size() + multiplier.size()) * 4 + taps.size() * sizeof(ptrdiff_t);
    for (int64_t n = 0; n < input.shape()[0]; ++n) {
      if (n > 0) buffer.fill(0);
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

  Buffer<ptrdiff_t> offsets;
  QWASM_RETURN_IF_ERROR(segment_offsets(g, r, s, &offsets));
  if (info) info->scratch_bytes = buffer.size() * 2 + (bias_div.size() + multiplier.size()) * 4 + offsets.size() * sizeof(ptrdiff_t);
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

Status pack_fconv(const ConvGeometry& g, const float* weight, int64_t weight_count, const float* bias,
                  int64_t bias_count, PackedFConv* out) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  const CheckedSize want =
      CheckedSize(g.out_channels) * (g.in_channels / g.groups) * g.kernel[0] * g.kernel[1] * g.kernel[2];
  if (!want.ok() || want.value() != weight_count) {
    return Status::RangeError("weight must have " + (want.ok() ? std::to_string(want.value()) : std::string("over 2^63")) +
                              " elements (outChannels x inChannels / groups x kernel), got " +
                              std::to_string(weight_count));
  }
  for (int64_t i = 0; i < weight_count; ++i) {
    if (!std::isfinite(weight[i])) {
      return Status::RangeError("weight element " + std::to_string(i) + " must be finite, got " +
                                format_number(weight[i]));
    }
  }
  QWASM_RETURN_IF_ERROR(check_bias(g, bias, bias_count));
  const Reduction r = reduction_of(g);  // bounded now: the weight exists
  QWASM_RETURN_IF_ERROR(out->bias.allocate(CheckedSize(g.out_channels) + static_cast<int64_t>(kConvNR), "the bias"));
  QWASM_RETURN_IF_ERROR(out->weights.allocate(
      CheckedSize(g.groups) * r.blocks * r.nseg * r.seg_len * static_cast<int64_t>(kConvNR), "the packed weights"));
  out->geometry = g;
  if (bias) std::copy(bias, bias + g.out_channels, out->bias.begin());
  // [group][block of 8][segment][k][8]
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
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  QWASM_RETURN_IF_ERROR(conv_output_shape(g, input_shape, output_shape));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(*output_shape, &numel));
  const Spatial s = spatial_of(g, input_shape, *output_shape);
  const Reduction r = reduction_of(g);
  const int64_t out_size = s.out_size();
  Buffer<float> buffer;
  QWASM_RETURN_IF_ERROR(buffer.allocate(padded_buffer_elements(s, r.cg, g.groups, 0), "the conv's padded input"));
  Buffer<ptrdiff_t> offsets;
  QWASM_RETURN_IF_ERROR(segment_offsets(g, r, s, &offsets));
  QWASM_RETURN_IF_ERROR(output->allocate(numel, "the conv's output"));
  const kernels::ConvKernels* k = kernels::conv_kernels(isa);
  if (!k) k = kernels::conv_kernels(kernels::Isa::kScalar);
  if (info) info->scratch_bytes = buffer.size() * 4 + offsets.size() * sizeof(ptrdiff_t);
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
