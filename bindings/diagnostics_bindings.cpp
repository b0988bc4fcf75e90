// Diagnostics and runtime settings: heap use (leak tests and users' own
// accounting), the kernel family, and the thread pool.
#include "bindings/common.h"

#include <malloc.h>

#include "qwasm/thread_pool.h"

namespace qwasm_bind {
namespace {

// Bytes of wasm heap in use by malloc, exact up to 4 GiB (mallinfo's int
// fields are read as unsigned). The memory reserve counts as in use: it is
// taken back first (if it was spent and memory allows), so that the number
// is comparable from call to call.
double heap_in_use() {
  (void)ensure_memory_reserve();
  return static_cast<double>(static_cast<uint32_t>(mallinfo().uordblks));
}

// The most bytes malloc has held from the system at once since the module
// started (dlmalloc's max footprint, mallinfo().usmblks): a high-water mark
// of the heap that no free lowers. Tests and benchmarks read it around a
// forward to measure its peak (in use before + growth <= this).
double heap_high_water() { return static_cast<double>(static_cast<uint32_t>(mallinfo().usmblks)); }

// The code of the ISA 'auto' runs (codes.h).
int best_isa() { return isa_code(qwasm::kernels::best_isa()); }

// init() starts the pool once, with numThreads threads (1 starts none).
val start_threads(double n) {
  QWASM_BIND_ENTER();
  int64_t threads = 0;
  Status s = to_int(n, "numThreads", 1, static_cast<int64_t>(qwasm::kMaxThreads), &threads);
  if (s.ok()) s = qwasm::start_threads(static_cast<size_t>(threads));
  return s.ok() ? val(true) : error_value(s);
}

val set_num_threads(double n) {
  QWASM_BIND_ENTER();
  int64_t threads = 0;
  Status s = to_int(n, "numThreads", 1, static_cast<int64_t>(qwasm::max_threads()), &threads);
  if (s.ok()) s = qwasm::set_num_threads(static_cast<size_t>(threads));
  return s.ok() ? val(true) : error_value(s);
}

double num_threads() { return static_cast<double>(qwasm::num_threads()); }
double max_threads() { return static_cast<double>(qwasm::max_threads()); }

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_diagnostics) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_heapInUse", &heap_in_use);
  function("_heapHighWater", &heap_high_water);
  function("_bestIsa", &best_isa);
  function("_startThreads", &start_threads);
  function("_setNumThreads", &set_num_threads);
  function("_numThreads", &num_threads);
  function("_maxThreads", &max_threads);
}
