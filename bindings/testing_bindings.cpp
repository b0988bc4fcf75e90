// Entry points for the test suites and benchmarks only, linked into the
// testing build (build/wasm/qwasm.testing.*), never into the package: the
// naive reference on a tensor's own qparams, allocation fault injection, and
// the peak microbenchmarks (tests/support/peak.h).
#include "bindings/common.h"

#include "kernels/conv_kernels.h"
#include "kernels/pool_kernels.h"
#include "kernels/quantize_kernels.h"
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

// The registered depthwise kernel on L1-resident operands: reps * 64 * 27 MACs.
double peak_dwconv(double reps) { return qwasm::testing_support::peak_qdwconv(static_cast<size_t>(reps)); }

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
}
