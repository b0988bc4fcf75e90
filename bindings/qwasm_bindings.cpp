// Embind glue: the raw API the JavaScript layer in web/ wraps. Names start with
// '_' because users never see them. Conventions:
//  - big arrays cross as wasm heap addresses (the JS side mallocs, copies once,
//    frees), small ones as JS arrays;
//  - a failure comes back as {error, kind} (kind: TypeError | RangeError | Error)
//    and the JS layer throws it; nothing throws across the boundary;
//  - getters return typed_memory_view()s that the JS layer copies at once.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "kernels/quantize_kernels.h"
#include "kernels/ref/quantize_ref.h"
#include "qwasm/conv.h"
#include "qwasm/observer.h"
#include "qwasm/qtensor.h"

using emscripten::val;
using qwasm::DType;
using qwasm::QScheme;
using qwasm::QTensor;
using qwasm::Status;
using qwasm::kernels::Isa;

namespace {

const char* kind_name(qwasm::StatusCode code) {
  switch (code) {
    case qwasm::StatusCode::kTypeError: return "TypeError";
    case qwasm::StatusCode::kRangeError: return "RangeError";
    default: return "Error";
  }
}

val error_value(const Status& s) {
  val o = val::object();
  o.set("error", s.message);
  o.set("kind", std::string(kind_name(s.code)));
  return o;
}

val result(const Status& s, QTensor&& q) { return s.ok() ? val(std::move(q)) : error_value(s); }

Status parse_dtype_arg(const std::string& name, DType* out) {
  if (qwasm::parse_dtype(name, out)) return Status::Ok();
  return Status::TypeError("dtype must be 'quint8', 'qint8', 'qint32' or 'quint4x2', got '" + name + "'");
}

Status parse_isa(int isa, Isa* out) {
  if (isa == 0) *out = qwasm::kernels::best_isa();
  else if (isa == 1) *out = Isa::kScalar;
  else if (isa == 2 && qwasm::kernels::isa_available(Isa::kWasmSimd)) *out = Isa::kWasmSimd;
  else return Status::RangeError("isa " + std::to_string(isa) + " is not available in this build");
  return Status::Ok();
}

std::vector<int64_t> to_shape(const val& shape) {
  const std::vector<double> dims = emscripten::convertJSArrayToNumberVector<double>(shape);
  return std::vector<int64_t>(dims.begin(), dims.end());
}

std::vector<double> to_doubles(const val& a) { return emscripten::convertJSArrayToNumberVector<double>(a); }

template <typename T>
const T* at(uintptr_t address) {
  return reinterpret_cast<const T*>(address);
}

val quantize_per_tensor(uintptr_t x, val shape, double scale, double zero_point, std::string dtype, int isa) {
  DType d;
  Isa i;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok()) s = parse_isa(isa, &i);
  QTensor q;
  if (s.ok()) s = qwasm::quantize_per_tensor(at<float>(x), to_shape(shape), scale, zero_point, d, i, &q);
  return result(s, std::move(q));
}

val quantize_per_channel(uintptr_t x, val shape, val scales, val zero_points, int axis, bool float_zp,
                         std::string dtype, int isa) {
  DType d;
  Isa i;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok()) s = parse_isa(isa, &i);
  QTensor q;
  const std::vector<double> sc = to_doubles(scales), zp = to_doubles(zero_points);
  if (s.ok() && sc.size() != zp.size()) {
    s = Status::RangeError("scales and zero points must have the same length, got " + std::to_string(sc.size()) +
                           " and " + std::to_string(zp.size()));
  }
  if (s.ok()) {
    s = qwasm::quantize_per_channel(at<float>(x), to_shape(shape), sc.data(), zp.data(), sc.size(), axis,
                                    float_zp, d, i, &q);
  }
  return result(s, std::move(q));
}

val make_per_tensor(uintptr_t bytes, size_t nbytes, val shape, double scale, double zero_point, std::string dtype) {
  DType d;
  Status s = parse_dtype_arg(dtype, &d);
  QTensor q;
  if (s.ok()) s = qwasm::make_per_tensor_quantized(at<uint8_t>(bytes), nbytes, to_shape(shape), scale, zero_point, d, &q);
  return result(s, std::move(q));
}

val make_per_channel(uintptr_t bytes, size_t nbytes, val shape, val scales, val zero_points, int axis,
                     bool float_zp, std::string dtype) {
  DType d;
  Status s = parse_dtype_arg(dtype, &d);
  QTensor q;
  const std::vector<double> sc = to_doubles(scales), zp = to_doubles(zero_points);
  if (s.ok() && sc.size() != zp.size()) {
    s = Status::RangeError("scales and zero points must have the same length, got " + std::to_string(sc.size()) +
                           " and " + std::to_string(zp.size()));
  }
  if (s.ok()) {
    s = qwasm::make_per_channel_quantized(at<uint8_t>(bytes), nbytes, to_shape(shape), sc.data(), zp.data(),
                                          sc.size(), axis, float_zp, d, &q);
  }
  return result(s, std::move(q));
}

std::string qtensor_dtype(const QTensor& q) { return qwasm::dtype_name(q.dtype()); }
std::string qtensor_qscheme(const QTensor& q) { return qwasm::qscheme_name(q.qscheme()); }
val qtensor_shape(const QTensor& q) {
  val a = val::array();
  for (int64_t d : q.shape()) a.call<void>("push", static_cast<double>(d));
  return a;
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
val observer_aminmax(uintptr_t x, val shape, int axis) {
  const std::vector<int64_t> dims = to_shape(shape);
  const size_t channels = axis >= 0 && axis < static_cast<int>(dims.size()) ? static_cast<size_t>(dims[axis]) : 1;
  std::vector<float> mins(channels), maxs(channels);
  const Status s = qwasm::aminmax(at<float>(x), dims, axis, mins.data(), maxs.data());
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("min", val::global("Float32Array").new_(emscripten::typed_memory_view(channels, mins.data())));
  o.set("max", val::global("Float32Array").new_(emscripten::typed_memory_view(channels, maxs.data())));
  return o;
}

// Validates an observer's configuration; returns {quantMin, quantMax} or an error.
val observer_config(std::string dtype, std::string qscheme, bool reduce_range, bool per_channel, bool has_custom,
                    double quant_min, double quant_max) {
  DType d;
  QScheme q;
  Status s = parse_dtype_arg(dtype, &d);
  if (s.ok() && !qwasm::parse_qscheme(qscheme, &q)) s = Status::TypeError("unknown qscheme '" + qscheme + "'");
  if (s.ok()) s = qwasm::validate_observer_scheme(d, q, reduce_range, per_channel);
  qwasm::ObserverRange r{};
  if (s.ok()) {
    s = qwasm::observer_range(d, reduce_range, has_custom, static_cast<int64_t>(quant_min),
                              static_cast<int64_t>(quant_max), &r);
  }
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("quantMin", static_cast<double>(r.quant_min));
  o.set("quantMax", static_cast<double>(r.quant_max));
  return o;
}

val observer_calculate_qparams(val mins, val maxs, std::string dtype, std::string qscheme, double quant_min,
                               double quant_max, bool customized, double eps) {
  DType d;
  QScheme q;
  if (!qwasm::parse_dtype(dtype, &d) || !qwasm::parse_qscheme(qscheme, &q)) {
    return error_value(Status::TypeError("bad dtype or qscheme"));
  }
  const std::vector<float> mn = emscripten::convertJSArrayToNumberVector<float>(mins);
  const std::vector<float> mx = emscripten::convertJSArrayToNumberVector<float>(maxs);
  std::vector<float> scales(mn.size());
  std::vector<double> zps(mn.size());
  const qwasm::ObserverRange r{static_cast<int64_t>(quant_min), static_cast<int64_t>(quant_max), customized};
  qwasm::calculate_qparams(mn.data(), mx.data(), mn.size(), q, d, r, static_cast<float>(eps), scales.data(),
                           zps.data());
  val o = val::object();
  o.set("scale", val::global("Float32Array").new_(emscripten::typed_memory_view(scales.size(), scales.data())));
  o.set("zeroPoint", val::global("Float64Array").new_(emscripten::typed_memory_view(zps.size(), zps.data())));
  return o;
}

// --- Convolution modules -------------------------------------------------

// {inChannels, outChannels, groups, kernel, stride, dilation, padBegin, padEnd}
qwasm::ConvGeometry to_geometry(const val& o) {
  qwasm::ConvGeometry g;
  g.in_channels = static_cast<int64_t>(o["inChannels"].as<double>());
  g.out_channels = static_cast<int64_t>(o["outChannels"].as<double>());
  g.groups = static_cast<int64_t>(o["groups"].as<double>());
  auto fill = [&](const char* name, std::array<int64_t, 3>* t) {
    const std::vector<double> v = emscripten::convertJSArrayToNumberVector<double>(o[name]);
    for (size_t i = 0; i < 3 && i < v.size(); ++i) (*t)[i] = static_cast<int64_t>(v[i]);
  };
  fill("kernel", &g.kernel);
  fill("stride", &g.stride);
  fill("dilation", &g.dilation);
  fill("padBegin", &g.pad_begin);
  fill("padEnd", &g.pad_end);
  return g;
}

// A quantized conv module's packed weights, owned by the JS module object.
struct QConvModule {
  qwasm::PackedQConv packed;
  double scratch_bytes = 0;  // of the last forward call
};

val make_qconv(val geometry, const QTensor& weight, uintptr_t bias, bool has_bias) {
  QConvModule m;
  const Status s = qwasm::pack_qconv(to_geometry(geometry), weight, has_bias ? at<float>(bias) : nullptr, &m.packed);
  return s.ok() ? val(std::move(m)) : error_value(s);
}

val qconv_forward(QConvModule& m, const QTensor& input, double out_scale, double out_zp, bool relu, int isa) {
  Isa i;
  Status s = parse_isa(isa, &i);
  QTensor out;
  qwasm::ConvRunInfo info;
  if (s.ok()) s = qwasm::qconv3d(m.packed, input, out_scale, static_cast<int64_t>(out_zp), relu, i, &out, &info);
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  return result(s, std::move(out));
}

double qconv_packed_bytes(const QConvModule& m) { return static_cast<double>(m.packed.bytes()); }
double qconv_scratch_bytes(const QConvModule& m) { return m.scratch_bytes; }

// A float conv module's packed weights plus its last output (copied out by JS, then released).
struct FConvModule {
  qwasm::PackedFConv packed;
  std::vector<float> output;
  double scratch_bytes = 0;
};

val make_fconv(val geometry, uintptr_t weight, uintptr_t bias, bool has_bias) {
  FConvModule m;
  const Status s = qwasm::pack_fconv(to_geometry(geometry), at<float>(weight), has_bias ? at<float>(bias) : nullptr,
                                     &m.packed);
  return s.ok() ? val(std::move(m)) : error_value(s);
}

// Returns {shape, view} (view into m.output: copy it, then call releaseOutput()).
val fconv_forward(FConvModule& m, uintptr_t x, val shape, bool relu, int isa) {
  Isa i;
  Status s = parse_isa(isa, &i);
  qwasm::Shape out_shape;
  qwasm::ConvRunInfo info;
  const qwasm::Shape in_shape = to_shape(shape);
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(in_shape, &numel);
  if (s.ok()) s = qwasm::fconv3d(m.packed, at<float>(x), in_shape, relu, i, &m.output, &out_shape, &info);
  if (!s.ok()) return error_value(s);
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  val o = val::object();
  val dims = val::array();
  for (int64_t d : out_shape) dims.call<void>("push", static_cast<double>(d));
  o.set("shape", dims);
  o.set("view", val(emscripten::typed_memory_view(m.output.size(), m.output.data())));
  return o;
}

void fconv_release_output(FConvModule& m) { std::vector<float>().swap(m.output); }
double fconv_scratch_bytes(const FConvModule& m) { return m.scratch_bytes; }

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

// Benchmark only: the conv kernel's inner loop on L1-resident operands.
double peak_dot16(double reps, double pairs) {
  return qwasm::kernels::peak_dot16__wasmsimd(static_cast<size_t>(reps), static_cast<size_t>(pairs));
}

// Bytes of wasm heap in use by malloc: the leak tests watch it.
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

std::string best_isa_name() { return qwasm::kernels::isa_name(qwasm::kernels::best_isa()); }

}  // namespace

EMSCRIPTEN_BINDINGS(qwasm) {
  using namespace emscripten;
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
  class_<QConvModule>("_QConvModule")
      .function("forward", &qconv_forward)
      .function("packedBytes", &qconv_packed_bytes)
      .function("scratchBytes", &qconv_scratch_bytes);
  class_<FConvModule>("_FConvModule")
      .function("forward", &fconv_forward)
      .function("releaseOutput", &fconv_release_output)
      .function("scratchBytes", &fconv_scratch_bytes);
  function("_makeQConv", &make_qconv);
  function("_makeFConv", &make_fconv);
  function("_reshaped", &qtensor_reshaped);
  function("_quantizePerTensor", &quantize_per_tensor);
  function("_quantizePerChannel", &quantize_per_channel);
  function("_makePerTensor", &make_per_tensor);
  function("_makePerChannel", &make_per_channel);
  function("_observerAminmax", &observer_aminmax);
  function("_observerConfig", &observer_config);
  function("_observerCalculateQParams", &observer_calculate_qparams);
  function("_heapInUse", &heap_in_use);
  function("_peakDot16", &peak_dot16);
  function("_referenceQuantize", &reference_quantize);
  function("_referenceDequantize", &reference_dequantize);
  function("_bestIsa", &best_isa_name);
}
