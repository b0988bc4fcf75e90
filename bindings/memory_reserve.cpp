#include "bindings/memory_reserve.h"

#include <cstdlib>
#include <new>

namespace qwasm_bind {
namespace {

void* g_reserve = nullptr;

// Called by operator new when malloc fails: give the reserve back so that the
// retry succeeds. With no reserve left, uninstall ourselves so that operator
// new aborts rather than looping (the reserve is sized so this cannot happen
// within one call).
void release_reserve() {
  if (g_reserve != nullptr) {
    std::free(g_reserve);
    g_reserve = nullptr;
  } else {
    std::set_new_handler(nullptr);
  }
}

}  // namespace

qwasm::Status ensure_memory_reserve() {
  if (g_reserve == nullptr) {
    g_reserve = std::malloc(kReserveBytes);
    if (g_reserve == nullptr) {
      return qwasm::Status::OutOfMemory(
          "less than 1 MiB of wasm memory is left; dispose() tensors and modules you no longer need");
    }
  }
  std::set_new_handler(release_reserve);
  return qwasm::Status::Ok();
}

}  // namespace qwasm_bind
