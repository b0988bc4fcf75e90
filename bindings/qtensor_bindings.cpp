// QTensor: quantize, wrap integers quantized elsewhere, views, and reading back.
#include "bindings/common.h"

namespace qwasm_bind {
namespace {

// Float input of a quantize call: nbytes at x must be shape's floats.
Status check_float_bytes(const qwasm::Shape& shape, size_t nbytes) {
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(qwasm::validate_shape(shape, &numel));
  if (static_cast<int64_t>(nbytes) != numel * 4) {
    return Status::RangeError("shape holds " + std::to_string(numel) + " elements but data has " +
                              std::to_string(nbytes / 4));
  }
  return Status::Ok();
}

// Per-channel qparams arrive as one heap block of doubles: nscales scales,
// then nzps zero points.
Status read_qparams_counts(double nscales, double nzps, size_t* n) {
  size_t s = 0, z = 0;
  QWASM_RETURN_IF_ERROR(to_count(nscales, "scales.length", &s));
  QWASM_RETURN_IF_ERROR(to_count(nzps, "zeroPoints.length", &z));
  if (s != z) {
    return Status::RangeError("scales and zeroPoints must have the same length, got " + std::to_string(s) + " and " +
                              std::to_string(z));
  }
  *n = s;
  return Status::Ok();
}

val quantize_per_tensor(uintptr_t x, double nbytes, val shape, double scale, double zero_point, double dtype,
                        double isa) {
  QWASM_BIND_ENTER();
  DType d;
  Isa i;
  qwasm::Shape dims;
  size_t n = 0;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_isa(isa, &i);
  if (s.ok()) s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = check_float_bytes(dims, n);
  QTensor q;
  if (s.ok()) s = qwasm::quantize_per_tensor(at<float>(x), dims, scale, zero_point, d, i, &q);
  return result(s, std::move(q));
}

val quantize_per_channel(uintptr_t x, double nbytes, val shape, uintptr_t qparams, double nscales, double nzps,
                         double axis, bool float_zp, double dtype, double isa) {
  QWASM_BIND_ENTER();
  DType d;
  Isa i;
  qwasm::Shape dims;
  size_t n = 0, nch = 0;
  int64_t ax = 0;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_isa(isa, &i);
  if (s.ok()) s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = check_float_bytes(dims, n);
  if (s.ok()) s = to_int(axis, "axis", INT32_MIN, INT32_MAX, &ax);
  if (s.ok()) s = read_qparams_counts(nscales, nzps, &nch);
  QTensor q;
  const double* qp = at<double>(qparams);
  if (s.ok()) s = qwasm::quantize_per_channel(at<float>(x), dims, qp, qp + nch, nch, ax, float_zp, d, i, &q);
  return result(s, std::move(q));
}

val make_per_tensor(uintptr_t bytes, double nbytes, val shape, double scale, double zero_point, double dtype) {
  QWASM_BIND_ENTER();
  DType d;
  qwasm::Shape dims;
  size_t n = 0;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "data.byteLength", &n);
  QTensor q;
  if (s.ok()) s = qwasm::make_per_tensor_quantized(at<uint8_t>(bytes), n, dims, scale, zero_point, d, &q);
  return result(s, std::move(q));
}

// A per-tensor QTensor whose integers are not set (depth streaming writes
// them in place, through intReprView, instead of copying them in twice).
val empty_per_tensor(val shape, double scale, double zero_point, double dtype) {
  QWASM_BIND_ENTER();
  DType d;
  qwasm::Shape dims;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_shape(shape, &dims);
  QTensor q;
  if (s.ok()) s = qwasm::make_qtensor(dims, d, QScheme::kPerTensorAffine, -1, &scale, &zero_point, 1, &q);
  return result(s, std::move(q));
}

val make_per_channel(uintptr_t bytes, double nbytes, val shape, uintptr_t qparams, double nscales, double nzps,
                     double axis, bool float_zp, double dtype) {
  QWASM_BIND_ENTER();
  DType d;
  qwasm::Shape dims;
  size_t n = 0, nch = 0;
  int64_t ax = 0;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "data.byteLength", &n);
  if (s.ok()) s = to_int(axis, "axis", INT32_MIN, INT32_MAX, &ax);
  if (s.ok()) s = read_qparams_counts(nscales, nzps, &nch);
  QTensor q;
  const double* qp = at<double>(qparams);
  if (s.ok()) {
    s = qwasm::make_per_channel_quantized(at<uint8_t>(bytes), n, dims, qp, qp + nch, nch, ax, float_zp, d, &q);
  }
  return result(s, std::move(q));
}

// A view of q with another shape (shared storage); axis: the channel
// dimension in the new shape (ignored per tensor).
val view(const QTensor& q, val shape, double axis) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims;
  int64_t ax = 0;
  Status s = to_shape(shape, &dims);
  if (s.ok()) s = to_int(axis, "axis", -1, qwasm::kMaxRank, &ax);
  QTensor out;
  if (s.ok()) s = qwasm::view_as(q, dims, ax, &out);
  return result(s, std::move(out));
}

// q.contiguous(memory_format).
val with_memory_format(const QTensor& q, double format) {
  QWASM_BIND_ENTER();
  qwasm::MemoryFormat f{};
  Status s = read_code(kMemoryFormatCodes, format, "memory format", &f);
  QTensor out;
  if (s.ok()) s = qwasm::as_memory_format(q, f, &out);
  return result(s, std::move(out));
}

int qtensor_dtype(const QTensor& q) { return code_of(kDTypeCodes, q.dtype()); }
int qtensor_qscheme(const QTensor& q) { return code_of(kQSchemeCodes, q.qscheme()); }
val qtensor_shape(const QTensor& q) { return to_js_shape(q.shape()); }
val qtensor_strides(const QTensor& q) { return to_js_shape(q.strides()); }
// q.is_contiguous(memory_format) (channels-last: rank 4 or 5); false for a number that is no format's code.
bool qtensor_is_contiguous_in(const QTensor& q, double format) {
  qwasm::MemoryFormat f{};
  if (!from_code(kMemoryFormatCodes, format, &f)) return false;
  return f == qwasm::MemoryFormat::kContiguous ? qwasm::is_contiguous(q.shape(), q.strides())
                                               : qwasm::is_channels_last_contiguous(q.shape(), q.strides());
}
double qtensor_numel(const QTensor& q) { return static_cast<double>(q.numel()); }
double qtensor_nbytes(const QTensor& q) { return static_cast<double>(q.nbytes()); }
double qtensor_q_zero_point(const QTensor& q) { return static_cast<double>(q.q_zero_point()); }
double qtensor_axis(const QTensor& q) { return static_cast<double>(q.axis()); }
val qtensor_scales(const QTensor& q) {
  return val(emscripten::typed_memory_view(q.scales().size(), q.scales().data()));
}
val qtensor_zero_points(const QTensor& q) {
  return val(emscripten::typed_memory_view(q.zero_points().size(), q.zero_points().data()));
}
// A view of int_repr() storage, typed by dtype (quint4x2: the packed bytes).
val qtensor_int_repr_view(const QTensor& q) {
  const size_t n = static_cast<size_t>(q.numel());
  switch (q.dtype()) {
    case DType::kQInt8:
      return val(emscripten::typed_memory_view(n, reinterpret_cast<const int8_t*>(q.data())));
    case DType::kQInt32:
      return val(emscripten::typed_memory_view(n, reinterpret_cast<const int32_t*>(q.data())));
    default:
      return val(emscripten::typed_memory_view(q.nbytes(), q.data()));
  }
}

// Dequantizes elements [begin, end) into y (end - begin floats).
val qtensor_dequantize_into(const QTensor& q, uintptr_t y, double begin, double end, double isa) {
  QWASM_BIND_ENTER();
  Isa i;
  int64_t b = 0, e = 0;
  Status s = to_isa(isa, &i);
  if (s.ok()) s = to_int(begin, "begin", 0, q.numel(), &b);
  if (s.ok()) s = to_int(end, "end", b, q.numel(), &e);
  if (s.ok()) s = qwasm::dequantize_range(q, i, b, e, reinterpret_cast<float*>(y));
  return s.ok() ? val::undefined() : error_value(s);
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_qtensor) {
  using namespace emscripten;
  using namespace qwasm_bind;
  class_<QTensor>("_QTensor")
      .function("dtypeCode", &qtensor_dtype)
      .function("qschemeCode", &qtensor_qscheme)
      .function("shape", &qtensor_shape)
      .function("strides", &qtensor_strides)
      .function("isContiguousIn", &qtensor_is_contiguous_in)
      .function("numel", &qtensor_numel)
      .function("nbytes", &qtensor_nbytes)
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
  function("_emptyPerTensor", &empty_per_tensor);
  function("_makePerChannel", &make_per_channel);
  function("_view", &view);
  function("_withMemoryFormat", &with_memory_format);
}
