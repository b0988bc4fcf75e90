#include "reference/quantize_ref.h"

#include <cmath>
#include <cstring>
#include <limits>

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
  for (int64_t d : shape) l.numel = d == 0 || l.numel == 0 ? 0 : l.numel * d;  // zero first: no overflow
  if (l.numel == 0) return l;
  if (qp.scheme != QScheme::kPerTensorAffine) {
    l.channels = shape[qp.axis];
    for (size_t d = qp.axis + 1; d < shape.size(); ++d) l.inner *= shape[d];
  }
  return l;
}

// PyTorch's ranges of the quantized dtypes (c10/core/ScalarType.h), written
// here rather than read from the core's dtype_range.
void range_of(DType dtype, int32_t* qmin, int32_t* qmax) {
  switch (dtype) {
    case DType::kQUInt8:
      *qmin = 0, *qmax = 255;
      return;
    case DType::kQInt8:
      *qmin = -128, *qmax = 127;
      return;
    case DType::kQInt32:
      *qmin = INT32_MIN, *qmax = INT32_MAX;
      return;
    case DType::kQUInt4x2:
      *qmin = 0, *qmax = 15;
      return;
  }
}

// A rounded float (or +-Inf) clamped to [qmin, qmax], compared in double.
int32_t clamp(float r, int32_t qmin, int32_t qmax) {
  if (static_cast<double>(r) >= qmax) return qmax;
  if (static_cast<double>(r) <= qmin) return qmin;
  return static_cast<int32_t>(r);
}

// FBGEMM's Quantize: the reciprocal of the float32 scale, a float multiply,
// round half to even, the zero point added after rounding (in float32).
// NaN gives the zero point (qwasm's definition). A scale whose reciprocal
// overflows float32 (below ~2.94e-39) makes 0 * inv NaN: PyTorch's per-tensor
// quint8 / qint8 kernel (FBGEMM's AVX2 QuantizeAvx2, whose _mm256_min_ps
// against the clip bound returns the bound for NaN) gives qmax, and so does
// qwasm, on every path.
int32_t quantize_value(float x, double scale, double zero_point, int32_t qmin, int32_t qmax) {
  const float inv = 1.0f / static_cast<float>(scale);
  float t = x * inv;
  if (std::isnan(x)) {
    t = 0.0f;
  } else if (std::isnan(t)) {
    t = std::numeric_limits<float>::infinity();
  }
  const float r = std::nearbyint(t) + static_cast<float>(zero_point);
  return clamp(r, qmin, qmax);
}

// PyTorch's quantize_val_float_qparams: the zero point added before rounding;
// a zero scale means an inverse of 1.
int32_t quantize_value_float_qparams(float x, float scale, float zero_point, int32_t qmin, int32_t qmax) {
  const float inv = scale == 0.0f ? 1.0f : 1.0f / scale;
  float t = x * inv;
  if (std::isnan(x)) {
    t = 0.0f;
  } else if (std::isnan(t)) {
    t = std::numeric_limits<float>::infinity();  // 0 * an infinite reciprocal, as above
  }
  return clamp(std::nearbyint(t + zero_point), qmin, qmax);
}

void store(DType dtype, uint8_t* out, int64_t i, int32_t q) {
  switch (dtype) {
    case DType::kQUInt8:
      out[i] = static_cast<uint8_t>(q);
      break;
    case DType::kQInt8:
      out[i] = static_cast<uint8_t>(static_cast<int8_t>(q));
      break;
    case DType::kQInt32:
      std::memcpy(out + 4 * i, &q, 4);
      break;
    case DType::kQUInt4x2:
      if (i % 2 == 0)
        out[i / 2] = static_cast<uint8_t>(q);
      else
        out[i / 2] |= static_cast<uint8_t>(q << 4);
      break;
  }
}

int32_t load(DType dtype, const uint8_t* q, int64_t i) {
  switch (dtype) {
    case DType::kQUInt8:
      return q[i];
    case DType::kQInt8:
      return static_cast<int8_t>(q[i]);
    case DType::kQInt32: {
      int32_t v;
      std::memcpy(&v, q + 4 * i, 4);
      return v;
    }
    case DType::kQUInt4x2:
      return (q[i / 2] >> (4 * (i % 2))) & 0xF;
  }
  return 0;
}

}  // namespace

void quantize(const float* x, const std::vector<int64_t>& shape, const QParamsView& qp, DType dtype, uint8_t* out) {
  const Layout l = layout_of(shape, qp);
  int32_t qmin = 0, qmax = 0;
  range_of(dtype, &qmin, &qmax);
  for (int64_t i = 0; i < l.numel; ++i) {
    const int64_t c = (i / l.inner) % l.channels;
    const int32_t q = qp.scheme == QScheme::kPerChannelAffineFloatQParams
                          ? quantize_value_float_qparams(x[i], static_cast<float>(qp.scales[c]),
                                                         static_cast<float>(qp.zero_points[c]), qmin, qmax)
                          : quantize_value(x[i], qp.scales[c], qp.zero_points[c], qmin, qmax);
    store(dtype, out, i, q);
  }
}

void dequantize(const uint8_t* q, const std::vector<int64_t>& shape, const QParamsView& qp, DType dtype, float* y) {
  const Layout l = layout_of(shape, qp);
  for (int64_t i = 0; i < l.numel; ++i) {
    const int64_t c = (i / l.inner) % l.channels;
    const int32_t v = load(dtype, q, i);
    const double scale = qp.scales[c], zp = qp.zero_points[c];
    switch (qp.scheme) {
      case QScheme::kPerChannelAffine:  // (float)((double)((float)q - (float)zp) * scale)
        y[i] = static_cast<float>(static_cast<double>(static_cast<float>(v) - static_cast<float>(zp)) * scale);
        break;
      case QScheme::kPerChannelAffineFloatQParams:  // ((float)q - zp) * scale, all float32
        y[i] = (static_cast<float>(v) - static_cast<float>(zp)) * static_cast<float>(scale);
        break;
      default:  // (float)scale * (float)(q - zp), the difference exact
        y[i] = static_cast<float>(scale) * static_cast<float>(static_cast<int64_t>(v) - static_cast<int64_t>(zp));
        break;
    }
  }
}

}  // namespace ref
}  // namespace qwasm
