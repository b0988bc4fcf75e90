// QTensor: quantize, wrap integers, read back, and the reference path for tests.
#include "bindings/common.h"

#include "kernels/ref/quantize_ref.h"

namespace qwasm_bind {
namespace {

val quantize_per_tensor(uintptr_t x, val shape, double scale, double zero_point, std::string dtype, int isa) {
  DType d;
  Isa i;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok()) s = parse_isa(isa, &i);
  QTensor q;
  if (s.ok()) s = qwasm::quantize_per_tensor(at<float>(x), to_shape(shape), scale, zero_point, d, i, &q);
  return result(s, std::move(q));
}

// Per-channel qparams arrive as one heap block of doubles: nscales scales then
// nzps zero points.
Status check_qparams_lengths(size_t nscales, size_t nzps) {
  if (nscales == nzps) return Status::Ok();
  return Status::RangeError("scales and zero points must have the same length, got " + std::to_string(nscales) +
                            " and " + std::to_string(nzps));
}

val quantize_per_channel(uintptr_t x, val shape, uintptr_t qparams, size_t nscales, size_t nzps, int axis,
                         bool float_zp, std::string dtype, int isa) {
  DType d;
  Isa i;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok()) s = parse_isa(isa, &i);
  if (s.ok()) s = check_qparams_lengths(nscales, nzps);
  QTensor q;
  const double* sc = at<double>(qparams);
  if (s.ok()) s = qwasm::quantize_per_channel(at<float>(x), to_shape(shape), sc, sc + nscales, nscales, axis, float_zp, d, i, &q);
  return result(s, std::move(q));
}

val make_per_tensor(uintptr_t bytes, size_t nbytes, val shape, double scale, double zero_point, std::string dtype) {
  DType d;
  Status s = parse_dtype_arg(dtype, &d);
  QTensor q;
  if (s.ok()) s = qwasm::make_per_tensor_quantized(at<uint8_t>(bytes), nbytes, to_shape(shape), scale, zero_point, d, &q);
  return result(s, std::move(q));
}

val make_per_channel(uintptr_t bytes, size_t nbytes, val shape, uintptr_t qparams, size_t nscales, size_t nzps,
                     int axis, bool float_zp, std::string dtype) {
  DType d;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok()) s = check_qparams_lengths(nscales, nzps);
  QTensor q;
  const double* sc = at<double>(qparams);
  if (s.ok()) {
    s = qwasm::make_per_channel_quantized(at<uint8_t>(bytes), nbytes, to_shape(shape), sc, sc + nscales, nscales, axis,
                                          float_zp, d, &q);
  }
  return result(s, std::move(q));
}

std::string qtensor_dtype(const QTensor& q) { return qwasm::dtype_name(q.dtype()); }
std::string qtensor_qscheme(const QTensor& q) { return qwasm::qscheme_name(q.qscheme()); }
val qtensor_shape(const QTensor& q) {
  return to_js_shape(q.shape());
}
double qtensor_numel(const QTensor& q) { return static_cast<double>(q.numel()); }
double qtensor_q_zero_point(const QTensor& q) { return static_cast<double>(q.q_zero_point()); }
int qtensor_axis(const QTensor& q) { return static_cast<int>(q.axis()); }
val qtensor_scales(const QTensor& q) { return val(emscripten::typed_memory_view(q.scales().size(), q.scales().data())); }
val qtensor_zero_points(const QTensor& q) {
  return val(emscripten::typed_memory_view(q.zero_points().size(), q.zero_points().data()));
}
// A view of int_repr() storage, typed by dtype (quint4x2: the packed bytes).
val qtensor_int_repr_view(const QTensor& q) {
  const size_t n = static_cast<size_t>(q.numel());
  switch (q.dtype()) {
    case DType::kQInt8: return val(emscripten::typed_memory_view(n, reinterpret_cast<const int8_t*>(q.data())));
    case DType::kQInt32: return val(emscripten::typed_memory_view(n, reinterpret_cast<const int32_t*>(q.data())));
    default: return val(emscripten::typed_memory_view(q.nbytes(), q.data()));
  }
}
// Dequantizes elements [begin, end) into y (end - begin floats).
val qtensor_dequantize_into(const QTensor& q, uintptr_t y, double begin, double end, int isa) {
  Isa i;
  Status s = parse_isa(isa, &i);
  if (s.ok() && !(0 <= begin && begin <= end && end <= static_cast<double>(q.numel()))) {
    s = Status::RangeError("element range out of bounds");
  }
  if (!s.ok()) return error_value(s);
  qwasm::dequantize_range(q, i, static_cast<int64_t>(begin), static_cast<int64_t>(end), reinterpret_cast<float*>(y));
  return val::undefined();
}

// The naive reference (kernels/ref) on a tensor's own qparams, for the tests
// that hold the kernels to it: quantizes x into a JS-owned Uint8Array of
// int_repr() bytes, or dequantizes the tensor into y.
val reference_quantize(const QTensor& q, uintptr_t x) {
  const qwasm::ref::QParamsView qp{q.qscheme(), q.axis(), q.scales().data(), q.zero_points().data()};
  std::vector<uint8_t> out(q.nbytes());
  qwasm::ref::quantize(at<float>(x), q.shape(), qp, q.dtype(), out.data());
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
}
void reference_dequantize(const QTensor& q, uintptr_t y) {
  const qwasm::ref::QParamsView qp{q.qscheme(), q.axis(), q.scales().data(), q.zero_points().data()};
  qwasm::ref::dequantize(q.data(), q.shape(), qp, q.dtype(), reinterpret_cast<float*>(y));
}

// Observers: per-batch reduction and qparams. chAxis < 0 reduces everything.

// A copy of q with another shape of the same element count (conv1d/2d/linear
// run as conv3d with unit dimensions).
val qtensor_reshaped(const QTensor& q, val shape) {
  const qwasm::Shape dims = to_shape(shape);
  QTensor out;
  Status s = q.qscheme() == QScheme::kPerTensorAffine
                 ? qwasm::make_per_tensor_quantized(q.data(), q.nbytes(), dims, q.q_scale(),
                                                    static_cast<double>(q.q_zero_point()), q.dtype(), &out)
                 : qwasm::make_per_channel_quantized(q.data(), q.nbytes(), dims, q.scales().data(),
                                                     q.zero_points().data(), q.scales().size(), q.axis(),
                                                     q.qscheme() == QScheme::kPerChannelAffineFloatQParams, q.dtype(),
                                                     &out);
  return result(s, std::move(out));
}


}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_qtensor) {
  using namespace emscripten;
  using namespace qwasm_bind;
  class_<QTensor>("_QTensor")
      .function("dtype", &qtensor_dtype)
      .function("qscheme", &qtensor_qscheme)
      .function("shape", &qtensor_shape)
      .function("numel", &qtensor_numel)
      .function("qScale", &QTensor::q_scale)
      .function("qZeroPoint", &qtensor_q_zero_point)
      .function("axis", &qtensor_axis)
      .function("scalesView", &qtensor_scales)
      .function("zeroPointsView", &qtensor_zero_points)
      .function("intReprView", &qtensor_int_repr_view)
      .function("dequantizeInto", &qtensor_dequantize_into);
  function("_quantizePerTensor", &quantize_per_tensor);
  function("_quantizePerChannel", &quantize_per_channel);
  function("_makePerTensor", &make_per_tensor);
  function("_makePerChannel", &make_per_channel);
  function("_reshaped", &qtensor_reshaped);
  function("_referenceQuantize", &reference_quantize);
  function("_referenceDequantize", &reference_dequantize);
}
