// Entry points for the test suites and benchmarks only, linked into the
// testing build (build/wasm/qwasm.testing.*), never into the package: the
// naive reference on a tensor's own qparams, allocation fault injection, and
// the peak microbenchmarks (tests/support/peak.h).
#include "bindings/common.h"

#include "kernels/conv_kernels.h"
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
