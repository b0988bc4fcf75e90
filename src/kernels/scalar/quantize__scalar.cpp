// Scalar twins of the quantize / dequantize micro-kernels: one loop around the
// element functions of ref/quantize_val.h.
#include <cassert>

#include "kernels/quantize_kernels.h"
#include "kernels/ref/quantize_val.h"

namespace qwasm {
namespace kernels {
namespace {

template <typename Q, bool kFloatZeroPoint>
void quantize_scalar(size_t n, const float* x, void* y, const QuantizeParams* p) {
  assert(n == 0 || (x != nullptr && y != nullptr));
  Q* out = static_cast<Q*>(y);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<Q>(kFloatZeroPoint ? quantize_val_float_qparams(x[i], *p)
                                            : quantize_val(x[i], *p));
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

#define Q_ENTRY(name, storage, mode, type, fzp) \
  {#name "__scalar", Isa::kScalar, Storage::storage, QuantizeMode::mode, &quantize_scalar<type, fzp>}
#define DQ_ENTRY(name, storage, mode, type, fn) \
  {#name "__scalar", Isa::kScalar, Storage::storage, DequantizeMode::mode, &dequantize_scalar<type, fn>}

const QuantizeKernel kQuantizeKernelsScalar[] = {
    Q_ENTRY(quantize_f32_qu8, kU8, kIntZeroPoint, uint8_t, false),
    Q_ENTRY(quantize_f32_qs8, kS8, kIntZeroPoint, int8_t, false),
    Q_ENTRY(quantize_f32_qs32, kS32, kIntZeroPoint, int32_t, false),
    Q_ENTRY(quantize_fqp_f32_qu8, kU8, kFloatZeroPoint, uint8_t, true),
    Q_ENTRY(quantize_fqp_f32_qs8, kS8, kFloatZeroPoint, int8_t, true),
    Q_ENTRY(quantize_fqp_f32_qs32, kS32, kFloatZeroPoint, int32_t, true),
};
const size_t kQuantizeKernelsScalarCount = sizeof(kQuantizeKernelsScalar) / sizeof(QuantizeKernel);

const DequantizeKernel kDequantizeKernelsScalar[] = {
    DQ_ENTRY(dequantize_qu8_f32, kU8, kPerTensor, uint8_t, dequantize_val_per_tensor),
    DQ_ENTRY(dequantize_qs8_f32, kS8, kPerTensor, int8_t, dequantize_val_per_tensor),
    DQ_ENTRY(dequantize_qs32_f32, kS32, kPerTensor, int32_t, dequantize_val_per_tensor),
    DQ_ENTRY(dequantize_pc_qu8_f32, kU8, kPerChannel, uint8_t, dequantize_val_per_channel),
    DQ_ENTRY(dequantize_pc_qs8_f32, kS8, kPerChannel, int8_t, dequantize_val_per_channel),
    DQ_ENTRY(dequantize_pc_qs32_f32, kS32, kPerChannel, int32_t, dequantize_val_per_channel),
    DQ_ENTRY(dequantize_fqp_qu8_f32, kU8, kFloatQParams, uint8_t, dequantize_val_float_qparams),
    DQ_ENTRY(dequantize_fqp_qs8_f32, kS8, kFloatQParams, int8_t, dequantize_val_float_qparams),
    DQ_ENTRY(dequantize_fqp_qs32_f32, kS32, kFloatQParams, int32_t, dequantize_val_float_qparams),
};
const size_t kDequantizeKernelsScalarCount =
    sizeof(kDequantizeKernelsScalar) / sizeof(DequantizeKernel);

#define QR_ENTRY(name, storage, mode, type, fzp) \
  {#name "__scalar", Isa::kScalar, Storage::storage, QuantizeMode::mode, &quantize_row_scalar<type, fzp>}
#define DQR_ENTRY(name, storage, type) {#name "__scalar", Isa::kScalar, Storage::storage, &dequantize_row_scalar<type>}

const QuantizeRowKernel kQuantizeRowKernelsScalar[] = {
    QR_ENTRY(quantize_row_f32_qu8, kU8, kIntZeroPoint, uint8_t, false),
    QR_ENTRY(quantize_row_f32_qs8, kS8, kIntZeroPoint, int8_t, false),
    QR_ENTRY(quantize_row_f32_qs32, kS32, kIntZeroPoint, int32_t, false),
    QR_ENTRY(quantize_row_fqp_f32_qu8, kU8, kFloatZeroPoint, uint8_t, true),
    QR_ENTRY(quantize_row_fqp_f32_qs8, kS8, kFloatZeroPoint, int8_t, true),
    QR_ENTRY(quantize_row_fqp_f32_qs32, kS32, kFloatZeroPoint, int32_t, true),
};
const size_t kQuantizeRowKernelsScalarCount = sizeof(kQuantizeRowKernelsScalar) / sizeof(QuantizeRowKernel);

const DequantizeRowKernel kDequantizeRowKernelsScalar[] = {
    DQR_ENTRY(dequantize_row_qu8_f32, kU8, uint8_t),
    DQR_ENTRY(dequantize_row_qs8_f32, kS8, int8_t),
    DQR_ENTRY(dequantize_row_qs32_f32, kS32, int32_t),
};
const size_t kDequantizeRowKernelsScalarCount = sizeof(kDequantizeRowKernelsScalar) / sizeof(DequantizeRowKernel);

}  // namespace kernels
}  // namespace qwasm
