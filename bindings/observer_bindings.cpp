// Observers: the configuration check, one observe() step (batch reduction and
// running update) and the qparams. The running state lives in JS (Float32Arrays);
// every float operation on it happens in the core.
#include "bindings/common.h"

#include <cstring>

#include "qwasm/observer.h"

namespace qwasm_bind {
namespace {

// Validates an observer's configuration; returns {quantMin, quantMax} or an
// error. averaging_constant is checked only when averaging.
val observer_config(double dtype, double qscheme, bool reduce_range, bool per_channel, bool has_custom,
                    double quant_min, double quant_max, double eps, bool averaging, double averaging_constant) {
  QWASM_BIND_ENTER();
  DType d;
  QScheme q;
  int64_t qmin = 0, qmax = 0;
  constexpr int64_t kSafe = (int64_t{1} << 53);  // JS safe integers
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_qscheme(qscheme, &q);
  if (s.ok()) s = qwasm::validate_observer_scheme(d, q, reduce_range, per_channel);
  if (s.ok() && has_custom) s = to_int(quant_min, "quantMin", -kSafe, kSafe, &qmin);
  if (s.ok() && has_custom) s = to_int(quant_max, "quantMax", -kSafe, kSafe, &qmax);
  qwasm::ObserverRange r{};
  if (s.ok()) s = qwasm::observer_range(d, reduce_range, has_custom, qmin, qmax, &r);
  // PyTorch keeps eps in a float32 buffer.
  if (s.ok() && !(std::isfinite(eps) && static_cast<float>(eps) > 0 && std::isfinite(static_cast<float>(eps)))) {
    s = Status::RangeError("eps must be a finite number > 0 (as float32), got " + qwasm::format_number(eps));
  }
  if (s.ok() && averaging && !(averaging_constant > 0 && averaging_constant <= 1)) {
    s = Status::RangeError("averagingConstant must be in (0, 1], got " + qwasm::format_number(averaging_constant));
  }
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("quantMin", static_cast<double>(r.quant_min));
  o.set("quantMax", static_cast<double>(r.quant_max));
  return o;
}

// One observe(x) step. state holds nstate running mins then nstate running
// maxes (nstate = 0: nothing observed yet). Returns the new {min, max}.
val observer_observe(uintptr_t x, double nbytes, val shape, bool per_channel, double ch_axis, uintptr_t state,
                     double nstate, bool averaging, double averaging_constant) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims;
  size_t n = 0, ns = 0;
  int64_t axis = 0, channels = 0;
  Status s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = to_int(ch_axis, "chAxis", INT32_MIN, INT32_MAX, &axis);
  if (s.ok()) s = to_count(nstate, "the running state", &ns);
  if (s.ok()) s = qwasm::observed_channels(dims, per_channel, axis, &channels);
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(dims, &numel);
  if (s.ok() && static_cast<int64_t>(n) != numel * 4) {
    s = Status::RangeError("shape holds " + std::to_string(numel) + " elements but data has " + std::to_string(n / 4));
  }
  if (s.ok() && ns != 0 && static_cast<int64_t>(ns) != channels) {
    s = Status::RangeError("axis " + std::to_string(axis) + " has " + std::to_string(channels) +
                           " channels but earlier batches had " + std::to_string(ns));
  }
  qwasm::Buffer<float> cur_min, cur_max, run_min, run_max;
  if (s.ok()) s = cur_min.allocate(channels, "the observer's batch minimums", false);
  if (s.ok()) s = cur_max.allocate(channels, "the observer's batch maximums", false);
  if (s.ok()) s = qwasm::aminmax(at<float>(x), dims, per_channel, axis, cur_min.data(), cur_max.data());
  if (s.ok()) s = run_min.allocate(channels, "the observer's running minimums", false);
  if (s.ok()) s = run_max.allocate(channels, "the observer's running maximums", false);
  if (!s.ok()) return error_value(s);
  if (ns != 0) {
    std::memcpy(run_min.data(), at<float>(state), ns * 4);
    std::memcpy(run_max.data(), at<float>(state) + ns, ns * 4);
  }
  qwasm::update_running_minmax(run_min.data(), run_max.data(), cur_min.data(), cur_max.data(), run_min.size(), ns == 0,
                               averaging, static_cast<float>(averaging_constant));
  val o = val::object();
  o.set("min", float32_copy(run_min));
  o.set("max", float32_copy(run_max));
  return o;
}

// state: n mins then n maxes. Returns {scale: Float32Array, zeroPoint: Float64Array}.
val observer_calculate_qparams(uintptr_t state, double nstate, double dtype, double qscheme, double quant_min,
                               double quant_max, bool customized, double eps) {
  QWASM_BIND_ENTER();
  DType d;
  QScheme q;
  size_t n = 0;
  Status s = to_dtype(dtype, &d);
  if (s.ok()) s = to_qscheme(qscheme, &q);
  if (s.ok()) s = to_count(nstate, "the running state", &n);
  qwasm::Buffer<float> scales;
  qwasm::Buffer<double> zps;
  if (s.ok()) s = scales.allocate(static_cast<int64_t>(n), "the scales", false);
  if (s.ok()) s = zps.allocate(static_cast<int64_t>(n), "the zero points", false);
  const qwasm::ObserverRange r{static_cast<int64_t>(quant_min), static_cast<int64_t>(quant_max), customized};
  if (s.ok()) {
    s = qwasm::calculate_qparams(at<float>(state), at<float>(state) + n, n, q, d, r, static_cast<float>(eps),
                                 scales.data(), zps.data());
  }
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("scale", float32_copy(scales));
  o.set("zeroPoint", val::global("Float64Array").new_(emscripten::typed_memory_view(zps.size(), zps.data())));
  return o;
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_observer) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_observerConfig", &observer_config);
  function("_observerObserve", &observer_observe);
  function("_observerCalculateQParams", &observer_calculate_qparams);
}
