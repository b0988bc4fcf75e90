// Diagnostics: heap use (leak tests and users' own accounting) and the kernel family.
#include "bindings/common.h"

#include <malloc.h>

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

// 1: scalar, 2: wasmsimd.
int best_isa() { return qwasm::kernels::best_isa() == Isa::kScalar ? 1 : 2; }

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_diagnostics) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_heapInUse", &heap_in_use);
  function("_bestIsa", &best_isa);
}
