// Observers: the per-batch min/max reduction, the range and the qparams.
#include "bindings/common.h"

#include "qwasm/observer.h"

namespace qwasm_bind {
namespace {

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


}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_observer) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_observerAminmax", &observer_aminmax);
  function("_observerConfig", &observer_config);
  function("_observerCalculateQParams", &observer_calculate_qparams);
}
