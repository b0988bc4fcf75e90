// Packing conv / linear weights once, in the layout of every kernel tile this
// build lists (kernels/conv_kernels.h). A second tile in a list means a second
// packed copy, made here without any other change.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/conv_kernels.h"
#include "qwasm/conv.h"
#include "qwasm/conv_layout.h"
#include "qwasm/conv_lowered.h"
#include "qwasm/conv_requant.h"
#include "qwasm/conv_winograd.h"
#include "qwasm/format.h"

namespace qwasm {

using namespace conv_internal;

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

std::string shape_string(const Shape& v) {
  std::string t = "[";
  for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
  return t + "]";
}

// Calls add(nr, kr) once per distinct tile among `table`'s kernels.
template <typename Table, typename Tile, typename Add>
Status for_each_tile_kind(Table table, Tile tile, Add add) {
  size_t seen[4][2] = {};
  size_t nseen = 0;
  for (const auto& k : table) {
    const auto t = tile(k);
    bool known = false;
    for (size_t i = 0; i < nseen; ++i) known = known || (seen[i][0] == t.first && seen[i][1] == t.second);
    if (known) continue;
    if (nseen == 2) return Status::Error("internal: more than two kernel tiles in one family");
    seen[nseen][0] = t.first, seen[nseen][1] = t.second, ++nseen;
    QWASM_RETURN_IF_ERROR(add(t.first, t.second));
  }
  return Status::Ok();
}

// [group][block of nr output channels][segment][kblock][nr][kr], 0 past the
// segment's end and past the group's last channel.
Status pack_generic(const ConvGeometry& g, const int8_t* w, const int32_t* zps, size_t nr, size_t kr,
                    QConvLayout* out) {
  const Reduction r = reduction_of(g, static_cast<int64_t>(nr), static_cast<int64_t>(kr));
  QWASM_RETURN_IF_ERROR(out->weights.allocate(
      CheckedSize(g.groups) * r.blocks * r.nseg * r.kblocks * static_cast<int64_t>(kr * nr), "the packed weights"));
  out->nr = nr;
  out->kr = kr;
  int16_t* dst = out->weights.data();
  for (int64_t grp = 0; grp < g.groups; ++grp) {
    for (int64_t b = 0; b < r.blocks; ++b) {
      for (int64_t s = 0; s < r.nseg; ++s) {
        for (int64_t k = 0; k < r.kblocks; ++k) {
          for (int64_t j = 0; j < static_cast<int64_t>(nr); ++j) {
            for (int64_t e = 0; e < static_cast<int64_t>(kr); ++e, ++dst) {
              const int64_t idx = static_cast<int64_t>(kr) * k + e, ocl = b * static_cast<int64_t>(nr) + j;
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

// [tap / kr][channel padded to a multiple of cr][kr] (kr 0 or 1: [tap][channel]);
// a last group short of kr taps is padded with zero weights. w - zps[oc], or
// the raw weights when zps is nullptr (the kSat16 kernels).
Status pack_depthwise(const ConvGeometry& g, const int8_t* w, const int32_t* zps, size_t cr, size_t kr,
                      QConvLayout* out) {
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t group = static_cast<int64_t>(std::max<size_t>(kr, 1));
  const int64_t padded_taps = ceil_div(taps, group) * group;
  const int64_t cpad = ceil_div(g.out_channels, static_cast<int64_t>(cr)) * static_cast<int64_t>(cr);
  QWASM_RETURN_IF_ERROR(out->weights.allocate(CheckedSize(padded_taps) * cpad, "the packed weights"));
  out->nr = cr;
  out->kr = kr;
  for (int64_t ch = 0; ch < g.out_channels; ++ch) {
    for (int64_t t = 0; t < taps; ++t) {
      out->weights[((t / group) * cpad + ch) * group + t % group] =
          static_cast<int16_t>(w[ch * taps + t] - (zps ? zps[ch] : 0));
    }
  }
  return Status::Ok();
}

}  // namespace

size_t PackedQConv::bytes() const {
  size_t n = (weight_scales.size() + bias.size()) * sizeof(float) +
             (weight_sums.size() + weight_zero_points.size()) * sizeof(int32_t);
  for (size_t i = 0; i < nlayouts; ++i) n += layouts[i].weights.size() * sizeof(int16_t);
  // The lowering's int8 taps and its own scales and bias.
  if (hw_lowered) n += hw_lowered->bytes();
  return n + winograd.taps.size();
}

const QConvLayout* PackedQConv::layout(size_t nr, size_t kr) const {
  for (size_t i = 0; i < nlayouts; ++i) {
    if (layouts[i].nr == nr && layouts[i].kr == kr) return &layouts[i];
  }
  return nullptr;
}

ConvBackend conv_backend_for(QEngine engine, const ConvGeometry& g, const QTensor& weight) {
  if (engine != QEngine::kX86 || g.spatial_dims == 0 || g.groups > 100) return ConvBackend::kFbgemm;
  const size_t n = weight.zero_points().size();
  for (size_t i = 0; i < n; ++i) {
    if (weight.zero_points()[i] != 0) return ConvBackend::kFbgemm;
  }
  return ConvBackend::kOnednn;
}

Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count, PackedQConv* out,
                  ConvBackend backend, WinogradMode winograd, bool exact_sums) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  // The weight's shape is checked before any product of the geometry is
  // formed: a weight that exists bounds them all.
  const Shape lifted = {g.out_channels, g.in_channels / g.groups, g.kernel[0], g.kernel[1], g.kernel[2]};
  const Shape want = module_weight_shape(g);
  if (weight.dtype() != DType::kQInt8) {
    return Status::TypeError(std::string("weight must be qint8, got ") + dtype_name(weight.dtype()));
  }
  if (weight.shape() != want && weight.shape() != lifted) {
    return Status::RangeError("weight shape must be " + shape_string(want) + ", got " + shape_string(weight.shape()));
  }
  const bool per_channel = weight.qscheme() == QScheme::kPerChannelAffine;
  if (!(per_channel && weight.axis() == 0) && weight.qscheme() != QScheme::kPerTensorAffine) {
    return Status::Error(std::string("weight must be per_tensor_affine or per_channel_affine on axis 0, got ") +
                         qscheme_name(weight.qscheme()) +
                         (per_channel ? " on axis " + std::to_string(weight.axis()) : ""));
  }
  QWASM_RETURN_IF_ERROR(check_bias(g, bias, bias_count));
  if (backend == ConvBackend::kOnednn) {
    const size_t nzp = per_channel ? static_cast<size_t>(g.out_channels) : 1;
    for (size_t i = 0; i < nzp; ++i) {
      if (weight.zero_points()[i] != 0) {
        return Status::RangeError("the onednn backend takes symmetric weights (every zero point 0), got zero point " +
                                  format_number(weight.zero_points()[i]) +
                                  (per_channel ? " for channel " + std::to_string(i) : std::string()));
      }
    }
  }
  QWASM_RETURN_IF_ERROR(out->weight_scales.allocate(g.out_channels, "the weight scales"));
  QWASM_RETURN_IF_ERROR(out->bias.allocate(g.out_channels, "the bias"));
  Buffer<int32_t> zps;
  QWASM_RETURN_IF_ERROR(zps.allocate(g.out_channels, "the weight zero points"));
  out->geometry = g;
  out->sat16 = !exact_sums && backend == ConvBackend::kFbgemm && fbgemm_depthwise_fast_path(g);
  out->depthwise = is_depthwise(g) || out->sat16;
  out->weight_sums = Buffer<int32_t>();
  out->weight_zero_points = Buffer<int32_t>();
  out->has_bias = bias != nullptr;
  out->backend = backend;
  out->nlayouts = 0;
  out->winograd_mode = winograd;
  out->winograd = WinogradWeights();
  out->hw_lowered.reset();
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    out->weight_scales[oc] = static_cast<float>(weight.scales()[per_channel ? oc : 0]);
    zps[oc] = static_cast<int32_t>(weight.zero_points()[per_channel ? oc : 0]);
    if (bias) out->bias[oc] = bias[oc];
  }
  const size_t nq = per_channel ? static_cast<size_t>(g.out_channels) : 1;
  QWASM_RETURN_IF_ERROR(out->weight_qscales.allocate(nq, "the weight's qparams", false));
  QWASM_RETURN_IF_ERROR(out->weight_qzero_points.allocate(nq, "the weight's qparams", false));
  for (size_t i = 0; i < nq; ++i) {
    out->weight_qscales[i] = weight.scales()[i];
    out->weight_qzero_points[i] = weight.zero_points()[i];
  }
  out->weight_shape = weight.shape();
  out->weight_scheme = weight.qscheme();
  const int8_t* w = reinterpret_cast<const int8_t*>(weight.data());
  if (out->sat16) {
    // FBGEMM's column offsets sum(w - w_zp) (PyTorch packs them), and the
    // zero points when its kernel needs its row offsets (some w_zp != 0).
    const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
    bool asymmetric = false;
    QWASM_RETURN_IF_ERROR(out->weight_sums.allocate(g.out_channels, "the weight sums"));
    for (int64_t oc = 0; oc < g.out_channels; ++oc) {
      int32_t sum = 0;
      for (int64_t t = 0; t < taps; ++t) sum += w[oc * taps + t] - zps[oc];
      out->weight_sums[oc] = sum;
      asymmetric = asymmetric || zps[oc] != 0;
    }
    if (asymmetric) {
      QWASM_RETURN_IF_ERROR(out->weight_zero_points.allocate(g.out_channels, "the weight zero points"));
      for (int64_t oc = 0; oc < g.out_channels; ++oc) out->weight_zero_points[oc] = zps[oc];
    }
  }
  if (out->depthwise) {
    const int32_t* dw_zps = out->sat16 ? nullptr : zps.data();
    return for_each_tile_kind(
        kernels::qdwconv_kernels(), [](const kernels::QDwConvKernel& k) { return std::make_pair(k.cr, k.kr); },
        [&](size_t cr, size_t kr) { return pack_depthwise(g, w, dw_zps, cr, kr, &out->layouts[out->nlayouts++]); });
  }
  // A Winograd layer keeps its int8 taps alone (conv.h, WinogradWeights):
  // the direct packing is made per call when a call runs direct.
  QWASM_RETURN_IF_ERROR(pack_winograd(g, w, zps.data(), winograd, &out->winograd));
  if (out->winograd.nd > 0) return Status::Ok();
  QWASM_RETURN_IF_ERROR(for_each_tile_kind(
      kernels::qconv_kernels(), [](const kernels::QConvKernel& k) { return std::make_pair(k.nr, k.kr); },
      [&](size_t nr, size_t kr) { return pack_generic(g, w, zps.data(), nr, kr, &out->layouts[out->nlayouts++]); }));
  // A stem's lowering to Winograd along D (conv_lowered.h; winograd: true
  // only), beside the direct packing its other calls take.
  return conv_internal::pack_hw_lowered(g, weight, bias, bias_count, backend, winograd, &out->hw_lowered);
}

namespace conv_internal {

namespace {

int64_t weight_count(const ConvGeometry& g) {  // bounded: the weight exists
  return g.out_channels * (g.in_channels / g.groups) * g.kernel[0] * g.kernel[1] * g.kernel[2];
}

// The weight's zero point of output channel oc, as pack_qconv took it.
int32_t weight_zero_point(const PackedQConv& p, int64_t oc) {
  const bool per_channel = p.weight_scheme == QScheme::kPerChannelAffine;
  return static_cast<int32_t>(p.weight_qzero_points[per_channel ? static_cast<size_t>(oc) : 0]);
}

}  // namespace

CheckedSize direct_for_call_bytes(const PackedQConv& pw, size_t nr, size_t kr) {
  if (pw.winograd.nd == 0) return CheckedSize(0);
  const ConvGeometry& g = pw.geometry;
  const Reduction r = reduction_of(g, static_cast<int64_t>(nr), static_cast<int64_t>(kr));
  const CheckedSize layout = CheckedSize(g.groups) * r.blocks * r.nseg * r.kblocks * static_cast<int64_t>(kr * nr) * 2;
  return layout + weight_count(g) + g.out_channels * static_cast<int64_t>(sizeof(int32_t));
}

Status pack_direct_for_call(const PackedQConv& pw, size_t nr, size_t kr, QConvLayout* out) {
  assert(pw.winograd.nd > 0);
  const ConvGeometry& g = pw.geometry;
  Buffer<int8_t> w;
  Buffer<int32_t> zps;
  QWASM_RETURN_IF_ERROR(w.allocate(weight_count(g), "the conv's weights for the direct path", false));
  QWASM_RETURN_IF_ERROR(zps.allocate(g.out_channels, "the weight zero points", false));
  unpack_winograd_taps(pw, w.data());
  for (int64_t oc = 0; oc < g.out_channels; ++oc) zps[oc] = weight_zero_point(pw, oc);
  return pack_generic(g, w.data(), zps.data(), nr, kr, out);
}

}  // namespace conv_internal

Status unpack_qconv_weight(const PackedQConv& p, QTensor* out) {
  const ConvGeometry& g = p.geometry;
  assert(p.nlayouts >= 1 || p.winograd.nd > 0);
  QTensor q;
  QWASM_RETURN_IF_ERROR(make_qtensor(p.weight_shape, DType::kQInt8, p.weight_scheme, 0, p.weight_qscales.data(),
                                     p.weight_qzero_points.data(), p.weight_qscales.size(), &q));
  int8_t* w = reinterpret_cast<int8_t*>(q.mutable_data());
  const bool per_channel = p.weight_scheme == QScheme::kPerChannelAffine;
  const auto zp = [&](int64_t oc) {
    return static_cast<int32_t>(p.weight_qzero_points[per_channel ? static_cast<size_t>(oc) : 0]);
  };
  if (p.winograd.nd > 0) {  // a Winograd layer: its taps are the weight's integers
    unpack_winograd_taps(p, w);
    *out = std::move(q);
    return Status::Ok();
  }
  const QConvLayout& l = p.layouts[0];
  const int16_t* src = l.weights.data();
  if (p.depthwise) {  // the inverse of pack_depthwise
    const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2];
    const int64_t group = static_cast<int64_t>(std::max<size_t>(l.kr, 1));
    const int64_t cpad = ceil_div(g.out_channels, static_cast<int64_t>(l.nr)) * static_cast<int64_t>(l.nr);
    for (int64_t c = 0; c < g.out_channels; ++c)
      for (int64_t t = 0; t < taps; ++t)
        w[c * taps + t] =
            static_cast<int8_t>(src[((t / group) * cpad + c) * group + t % group] + (p.sat16 ? 0 : zp(c)));
  } else {  // the inverse of pack_generic
    const Reduction r = reduction_of(g, static_cast<int64_t>(l.nr), static_cast<int64_t>(l.kr));
    for (int64_t grp = 0; grp < g.groups; ++grp)
      for (int64_t b = 0; b < r.blocks; ++b)
        for (int64_t s = 0; s < r.nseg; ++s)
          for (int64_t k = 0; k < r.kblocks; ++k)
            for (int64_t j = 0; j < static_cast<int64_t>(l.nr); ++j)
              for (int64_t e = 0; e < static_cast<int64_t>(l.kr); ++e, ++src) {
                const int64_t idx = static_cast<int64_t>(l.kr) * k + e, ocl = b * static_cast<int64_t>(l.nr) + j;
                if (idx >= r.seg_len || ocl >= r.og) continue;
                int64_t kd, kh, kw, c;
                tap_of(g, r, s, idx, &kd, &kh, &kw, &c);
                const int64_t oc = grp * r.og + ocl;
                const int64_t wi = (((oc * r.cg + c) * g.kernel[0] + kd) * g.kernel[1] + kh) * g.kernel[2] + kw;
                w[wi] = static_cast<int8_t>(*src + zp(oc));
              }
  }
  *out = std::move(q);
  return Status::Ok();
}

const FConvLayout* PackedFConv::layout(size_t nr) const {
  for (size_t i = 0; i < nlayouts; ++i) {
    if (layouts[i].nr == nr) return &layouts[i];
  }
  return nullptr;
}

Status pack_fconv(const ConvGeometry& g, const float* weight, int64_t weight_count, const float* bias,
                  int64_t bias_count, PackedFConv* out) {
  QWASM_RETURN_IF_ERROR(validate_geometry(g));
  const CheckedSize want =
      CheckedSize(g.out_channels) * (g.in_channels / g.groups) * g.kernel[0] * g.kernel[1] * g.kernel[2];
  if (!want.ok() || want.value() != weight_count) {
    return Status::RangeError(
        "weight must have " + (want.ok() ? std::to_string(want.value()) : std::string("over 2^63")) +
        " elements (outChannels x inChannels / groups x kernel), got " + std::to_string(weight_count));
  }
  for (int64_t i = 0; i < weight_count; ++i) {
    if (!std::isfinite(weight[i])) {
      return Status::RangeError("weight element " + std::to_string(i) + " must be finite, got " +
                                format_number(weight[i]));
    }
  }
  QWASM_RETURN_IF_ERROR(check_bias(g, bias, bias_count));
  // 16 slack entries: a kernel reads a whole block of bias past the last channel.
  QWASM_RETURN_IF_ERROR(out->bias.allocate(CheckedSize(g.out_channels) + 16, "the bias"));
  out->geometry = g;
  out->nlayouts = 0;
  if (bias) std::copy(bias, bias + g.out_channels, out->bias.begin());
  return for_each_tile_kind(
      kernels::fconv_kernels(), [](const kernels::FConvKernel& k) { return std::make_pair(k.nr, size_t{1}); },
      [&](size_t nr, size_t) {
        FConvLayout* l = &out->layouts[out->nlayouts++];
        const Reduction r = reduction_of(g, static_cast<int64_t>(nr), 1);  // bounded: the weight exists
        QWASM_RETURN_IF_ERROR(l->weights.allocate(
            CheckedSize(g.groups) * r.blocks * r.nseg * r.seg_len * static_cast<int64_t>(nr), "the packed weights"));
        l->nr = nr;
        float* dst = l->weights.data();
        for (int64_t grp = 0; grp < g.groups; ++grp) {
          for (int64_t b = 0; b < r.blocks; ++b) {
            for (int64_t s = 0; s < r.nseg; ++s) {
              for (int64_t idx = 0; idx < r.seg_len; ++idx) {
                for (int64_t j = 0; j < static_cast<int64_t>(nr); ++j, ++dst) {
                  const int64_t ocl = b * static_cast<int64_t>(nr) + j;
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
      });
}

}  // namespace qwasm
