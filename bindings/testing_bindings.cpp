// Entry points for the test suites and benchmarks only, linked into the
// testing build (build/wasm/qwasm.testing.*), never into the package: the
// naive reference on a tensor's own qparams, allocation fault injection, and
// the peak microbenchmarks (tests/support/peak.h).
#include "bindings/common.h"

#include "kernels/conv_kernels.h"
#include "kernels/norm_rows.h"
#include "kernels/pool_kernels.h"
#include "kernels/quantize_kernels.h"
#include "kernels/winograd_kernels.h"
#include "qwasm/build_info.h"
#include "qwasm/thread_pool.h"
#include "reference/quantize_ref.h"
#include "support/peak.h"

namespace qwasm_bind {
namespace {

// Quantizes x (the tensor's numel floats) with the naive reference into a
// JS-owned Uint8Array of int_repr() bytes.
val reference_quantize(const QTensor& q, uintptr_t x) {
  QWASM_BIND_ENTER();
  const qwasm::ref::QParamsView qp{q.qscheme(), q.axis(), q.scales().data(), q.zero_points().data()};
  qwasm::Buffer<uint8_t> out;
  const Status s = out.allocate(static_cast<int64_t>(q.nbytes()), "the reference output");
  if (!s.ok()) return error_value(s);
  qwasm::ref::quantize(at<float>(x), q.shape(), qp, q.dtype(), out.data());
  return val::global("Uint8Array").new_(emscripten::typed_memory_view(out.size(), out.data()));
}

void reference_dequantize(const QTensor& q, uintptr_t y) {
  const qwasm::ref::QParamsView qp{q.qscheme(), q.axis(), q.scales().data(), q.zero_points().data()};
  qwasm::ref::dequantize(q.data(), q.shape(), qp, q.dtype(), reinterpret_cast<float*>(y));
}

// The norms' element loops (kernels/norm_rows.h) with the kernels of `isa`,
// on n floats at x: affine_row's y (n floats), or welford8's m1 and m2 after
// n / 8 vectors (16 floats, starting from zeros).
val norm_affine_row(double isa, uintptr_t x, double n, double scale, double bias) {
  qwasm::kernels::Isa i;
  Status s = to_isa(isa, &i);
  qwasm::Buffer<float> y;
  if (s.ok()) s = y.allocate(static_cast<int64_t>(n), "the row");
  if (!s.ok()) return error_value(s);
  qwasm::kernels::affine_row(i, at<float>(x), static_cast<int64_t>(n), static_cast<float>(scale),
                             static_cast<float>(bias), y.data());
  return float32_copy(y);
}

val norm_welford8(double isa, uintptr_t x, double vectors) {
  qwasm::kernels::Isa i;
  Status s = to_isa(isa, &i);
  if (!s.ok()) return error_value(s);
  static const float* r = [] {
    static float t[16];
    for (int j = 0; j < 16; ++j) t[j] = 1.0f / static_cast<float>(j + 1);
    return t;
  }();
  alignas(16) float m[16] = {};
  qwasm::kernels::welford8(i, at<float>(x), static_cast<int64_t>(vectors), r, m, m + 8);
  qwasm::Buffer<float> out;
  s = out.assign(m, 16, "the moments");
  return s.ok() ? float32_copy(out) : error_value(s);
}

void fail_allocations_after(double n) { qwasm::testing::fail_allocations_after(static_cast<int64_t>(n)); }

// The registered conv kernel on L1-resident operands, `pairs` kblocks per
// call: reps * pairs * 64 MACs (the 4x8c2 tile).
double peak_dot16(double reps, double pairs) {
  return qwasm::testing_support::peak_qconv(static_cast<size_t>(reps), static_cast<size_t>(pairs));
}

// The registered depthwise kernel (kSat16 when sat16, else kExact) on
// L1-resident operands: reps * 16 pixels * 64 channels * 27 taps MACs.
double peak_dwconv(double reps, bool sat16) {
  return qwasm::testing_support::peak_qdwconv(static_cast<size_t>(reps), sat16);
}

// Whether the core this was linked with has its asserts (the testing build does).
bool asserts_enabled() { return qwasm::asserts_enabled(); }

// The registry's kernel names, one family after another: the kernel
// equivalence tests check a convolution reports a listed one.
val kernel_names() {
  val o = val::object();
  auto list = [](auto table) {
    val a = val::array();
    for (const auto& k : table) a.call<void>("push", js_string(k.name));
    return a;
  };
  o.set("quantize", list(qwasm::kernels::quantize_kernels()));
  o.set("dequantize", list(qwasm::kernels::dequantize_kernels()));
  o.set("qconv", list(qwasm::kernels::qconv_kernels()));
  o.set("qdwconv", list(qwasm::kernels::qdwconv_kernels()));
  o.set("fconv", list(qwasm::kernels::fconv_kernels()));
  o.set("rowmax", list(qwasm::kernels::rowmax_kernels()));
  o.set("rowsum", list(qwasm::kernels::rowsum_kernels()));
  o.set("qgemm", list(qwasm::kernels::qgemm_kernels()));
  return o;
}

// Tasks each thread ran in the last parallel loop on more than one thread
// (index 0: the calling thread): the benchmarks' balance measurement.
val last_loop_shares() {
  val a = val::array();
  for (int64_t n : qwasm::last_loop_shares()) a.call<void>("push", static_cast<double>(n));
  return a;
}

void set_fine_grained_tasks(bool on) { qwasm::testing::set_fine_grained_tasks(on); }

// 1 / divisor in int32: a divisor of 0 traps (i32.div_s), which the trap
// guard's test needs (web/src/runtime/trap-guard.mjs). Both operands volatile: LLVM
// turns a constant 1 / d into compares, which never trap.
int divide_for_testing(double divisor) {
  volatile int n = 1;
  volatile int d = static_cast<int>(divisor);
  return n / d;
}

// Every code table of codes.h as {table: [[name, code], ...]}: the bridge
// tests check that web/src/runtime/codes.mjs holds the same.
val bridge_codes() {
  val o = val::object();
  auto list = [](const auto& codes) {
    val a = val::array();
    for (const auto& c : codes) {
      val entry = val::array();
      entry.call<void>("push", js_string(c.name));
      entry.call<void>("push", c.code);
      a.call<void>("push", entry);
    }
    return a;
  };
  o.set("dtype", list(kDTypeCodes));
  o.set("qscheme", list(kQSchemeCodes));
  o.set("isa", list(kIsaCodes));
  o.set("errorKind", list(kErrorKindCodes));
  o.set("engine", list(kEngineCodes));
  o.set("backend", list(kBackendCodes));
  o.set("winograd", list(kWinogradCodes));
  o.set("convPath", list(kConvPathCodes));
  o.set("memoryFormat", list(kMemoryFormatCodes));
  o.set("poolKind", list(kPoolKindCodes));
  return o;
}

// One failure of each kind the core reports, as a binding returns it
// ({error, kind}), by the core's name for the kind: the bridge tests check
// the JavaScript error each becomes.
val error_of_every_kind() {
  val o = val::object();
  o.set("TypeError", error_value(Status::TypeError("a TypeError")));
  o.set("RangeError", error_value(Status::RangeError("a RangeError")));
  o.set("Error", error_value(Status::Error("an Error")));
  o.set("OutOfMemory", error_value(Status::OutOfMemory("an OutOfMemory")));
  return o;
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_testing) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_referenceQuantize", &reference_quantize);
  function("_referenceDequantize", &reference_dequantize);
  function("_failAllocationsAfter", &fail_allocations_after);
  function("_normAffineRow", &norm_affine_row);
  function("_normWelford8", &norm_welford8);
  function("_peakDot16", &peak_dot16);
  function("_peakDwconv", &peak_dwconv);
  function("_assertsEnabled", &asserts_enabled);
  function("_kernelNames", &kernel_names);
  function("_lastLoopShares", &last_loop_shares);
  function("_setFineGrainedTasks", &set_fine_grained_tasks);
  function("_divideForTesting", &divide_for_testing);
  function("_bridgeCodes", &bridge_codes);
  function("_errorOfEveryKind", &error_of_every_kind);
}
