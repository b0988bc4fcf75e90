#include "kernels/ref/quantize_ref.h"

#include <cstring>

#include "kernels/params.h"
#include "kernels/ref/quantize_val.h"

namespace qwasm {
namespace ref {
namespace {

struct Layout {
  int64_t numel = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

Layout layout_of(const std::vector<int64_t>& shape, const QParamsView& qp) {
  Layout l;
  for (int64_t d : shape) l.numel *= d;
  if (qp.scheme != QScheme::kPerTensorAffine) {
    l.channels = shape[qp.axis];
    for (size_t d = qp.axis + 1; d < shape.size(); ++d) l.inner *= shape[d];
  }
  return l;
}

int64_t channel_of(int64_t i, const Layout& l) { return (i / l.inner) % l.channels; }

void store(DType dtype, uint8_t* out, int64_t i, int32_t q) {
  switch (dtype) {
    case DType::kQUInt8: out[i] = static_cast<uint8_t>(q); break;
    case DType::kQInt8: out[i] = static_cast<uint8_t>(static_cast<int8_t>(q)); break;
    case DType::kQInt32: std::memcpy(out + 4 * i, &q, 4); break;
    case DType::kQUInt4x2:
      if (i % 2 == 0) out[i / 2] = static_cast<uint8_t>(q);
      else out[i / 2] |= static_cast<uint8_t>(q << 4);
      break;
  }
}

int32_t load(DType dtype, const uint8_t* q, int64_t i) {
  switch (dtype) {
    case DType::kQUInt8: return q[i];
    case DType::kQInt8: return static_cast<int8_t>(q[i]);
    case DType::kQInt32: {
      int32_t v;
      std::memcpy(&v, q + 4 * i, 4);
      return v;
    }
    case DType::kQUInt4x2: return (q[i / 2] >> (4 * (i % 2))) & 0xF;
  }
  return 0;
}

}  // namespace

void quantize(const float* x, const std::vector<int64_t>& shape, const QParamsView& qp, DType dtype,
              uint8_t* out) {
  const Layout l = layout_of(shape, qp);
  const QRange range = dtype_range(dtype);
  for (int64_t i = 0; i < l.numel; ++i) {
    const int64_t c = channel_of(i, l);
    int32_t q;
    if (qp.scheme == QScheme::kPerChannelAffineFloatQParams) {
      const auto p = kernels::quantize_float_qparams_init(static_cast<float>(qp.scales[c]),
                                                          static_cast<float>(qp.zero_points[c]),
                                                          range.qmin, range.qmax);
      q = kernels::quantize_val_float_qparams(x[i], p);
    } else {
      const auto p = kernels::quantize_params_init(qp.scales[c], static_cast<int32_t>(qp.zero_points[c]),
                                                   range.qmin, range.qmax);
      q = kernels::quantize_val(x[i], p);
    }
    store(dtype, out, i, q);
  }
}

void dequantize(const uint8_t* q, const std::vector<int64_t>& shape, const QParamsView& qp,
                DType dtype, float* y) {
  const Layout l = layout_of(shape, qp);
  for (int64_t i = 0; i < l.numel; ++i) {
    const int64_t c = channel_of(i, l);
    const auto p = kernels::dequantize_params_init(qp.scales[c], qp.zero_points[c]);
    const int32_t v = load(dtype, q, i);
    switch (qp.scheme) {
      case QScheme::kPerChannelAffine: y[i] = kernels::dequantize_val_per_channel(v, p); break;
      case QScheme::kPerChannelAffineFloatQParams: y[i] = kernels::dequantize_val_float_qparams(v, p); break;
      default: y[i] = kernels::dequantize_val_per_tensor(v, p); break;
    }
  }
}

}  // namespace ref
}  // namespace qwasm
