// Family file: every scalar quantize / dequantize kernel of quantize.inc,
// dequantize.inc and quantize_row.inc, each one loop around the element
// functions of kernels/quantize_val.h (the twins of the wasmsimd family).
#include <cassert>

#include "kernels/quantize_kernels.h"
#include "kernels/quantize_val.h"

namespace qwasm {
namespace kernels {
namespace {

template <typename Q, bool kFloatZeroPoint>
void quantize_scalar(size_t n, const float* x, void* y, const QuantizeParams* p) {
  assert(n == 0 || (x != nullptr && y != nullptr));
  Q* out = static_cast<Q*>(y);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<Q>(kFloatZeroPoint ? quantize_val_float_qparams(x[i], *p) : quantize_val(x[i], *p));
  }
}

template <typename Q, float (*kDequantizeVal)(int32_t, const DequantizeParams&)>
void dequantize_scalar(size_t n, const void* q, float* y, const DequantizeParams* p) {
  assert(n == 0 || (q != nullptr && y != nullptr));
  const Q* in = static_cast<const Q*>(q);
  for (size_t i = 0; i < n; ++i) y[i] = kDequantizeVal(in[i], *p);
}

template <typename Q, bool kFloatZeroPoint>
void quantize_row_scalar(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points,
                         int32_t qmin, int32_t qmax) {
  assert(n == 0 || (x != nullptr && y != nullptr && inv_scales != nullptr && zero_points != nullptr));
  Q* out = static_cast<Q*>(y);
  for (size_t i = 0; i < n; ++i) {
    const QuantizeParams p{inv_scales[i], zero_points[i], qmin, qmax};
    out[i] = static_cast<Q>(kFloatZeroPoint ? quantize_val_float_qparams(x[i], p) : quantize_val(x[i], p));
  }
}

template <typename Q>
void dequantize_row_scalar(size_t n, const void* q, float* y, const float* scales, const float* zero_points) {
  assert(n == 0 || (q != nullptr && y != nullptr && scales != nullptr && zero_points != nullptr));
  const Q* in = static_cast<const Q*>(q);
  for (size_t i = 0; i < n; ++i) {
    const DequantizeParams p{scales[i], scales[i], 0, zero_points[i]};
    y[i] = dequantize_val_float_qparams(in[i], p);
  }
}

}  // namespace

#define QUANTIZE(name, type, fzp) \
  void name(size_t n, const float* x, void* y, const QuantizeParams* p) { quantize_scalar<type, fzp>(n, x, y, p); }
QUANTIZE(quantize_f32_qu8_scalar, uint8_t, false)
QUANTIZE(quantize_f32_qs8_scalar, int8_t, false)
QUANTIZE(quantize_f32_qs32_scalar, int32_t, false)
QUANTIZE(quantize_fqp_f32_qu8_scalar, uint8_t, true)
QUANTIZE(quantize_fqp_f32_qs8_scalar, int8_t, true)
QUANTIZE(quantize_fqp_f32_qs32_scalar, int32_t, true)
#undef QUANTIZE

#define DEQUANTIZE(name, type, fn) \
  void name(size_t n, const void* q, float* y, const DequantizeParams* p) { dequantize_scalar<type, fn>(n, q, y, p); }
DEQUANTIZE(dequantize_qu8_f32_scalar, uint8_t, dequantize_val_per_tensor)
DEQUANTIZE(dequantize_qs8_f32_scalar, int8_t, dequantize_val_per_tensor)
DEQUANTIZE(dequantize_qs32_f32_scalar, int32_t, dequantize_val_per_tensor)
DEQUANTIZE(dequantize_pc_qu8_f32_scalar, uint8_t, dequantize_val_per_channel)
DEQUANTIZE(dequantize_pc_qs8_f32_scalar, int8_t, dequantize_val_per_channel)
DEQUANTIZE(dequantize_pc_qs32_f32_scalar, int32_t, dequantize_val_per_channel)
DEQUANTIZE(dequantize_fqp_qu8_f32_scalar, uint8_t, dequantize_val_float_qparams)
DEQUANTIZE(dequantize_fqp_qs8_f32_scalar, int8_t, dequantize_val_float_qparams)
DEQUANTIZE(dequantize_fqp_qs32_f32_scalar, int32_t, dequantize_val_float_qparams)
#undef DEQUANTIZE

#define QUANTIZE_ROW(name, type, fzp)                                                                           \
  void name(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points, int32_t qmin, \
            int32_t qmax) {                                                                                     \
    quantize_row_scalar<type, fzp>(n, x, y, inv_scales, zero_points, qmin, qmax);                               \
  }
QUANTIZE_ROW(quantize_row_f32_qu8_scalar, uint8_t, false)
QUANTIZE_ROW(quantize_row_f32_qs8_scalar, int8_t, false)
QUANTIZE_ROW(quantize_row_f32_qs32_scalar, int32_t, false)
QUANTIZE_ROW(quantize_row_fqp_f32_qu8_scalar, uint8_t, true)
QUANTIZE_ROW(quantize_row_fqp_f32_qs8_scalar, int8_t, true)
QUANTIZE_ROW(quantize_row_fqp_f32_qs32_scalar, int32_t, true)
#undef QUANTIZE_ROW

#define DEQUANTIZE_ROW(name, type)                                                              \
  void name(size_t n, const void* q, float* y, const float* scales, const float* zero_points) { \
    dequantize_row_scalar<type>(n, q, y, scales, zero_points);                                  \
  }
DEQUANTIZE_ROW(dequantize_row_qu8_f32_scalar, uint8_t)
DEQUANTIZE_ROW(dequantize_row_qs8_f32_scalar, int8_t)
DEQUANTIZE_ROW(dequantize_row_qs32_f32_scalar, int32_t)
#undef DEQUANTIZE_ROW

}  // namespace kernels
}  // namespace qwasm
