// Diagnostics: heap use (leak tests), the kernel family, the peak microbenchmark.
#include "bindings/common.h"

#include <malloc.h>

#include "kernels/conv_kernels.h"

namespace qwasm_bind {
namespace {

// Benchmark only: the conv kernel's inner loop on L1-resident operands.
double peak_dot16(double reps, double pairs) {
  return qwasm::kernels::peak_dot16__wasmsimd(static_cast<size_t>(reps), static_cast<size_t>(pairs));
}

// Bytes of wasm heap in use by malloc: the leak tests watch it.
double heap_in_use() { return static_cast<double>(mallinfo().uordblks); }

std::string best_isa_name() { return qwasm::kernels::isa_name(qwasm::kernels::best_isa()); }


}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_diagnostics) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_heapInUse", &heap_in_use);
  function("_peakDot16", &peak_dot16);
  function("_bestIsa", &best_isa_name);
}
