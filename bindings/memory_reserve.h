// A reserve of wasm memory that keeps small allocations from aborting.
//
// Input-sized memory is allocated through qwasm::Buffer, which reports a
// failure as a RangeError. What remains are small, bounded allocations
// (a shape vector, an error message, the handle Embind returns to JS) made
// with operator new, which under -fno-exceptions aborts the module when
// malloc fails. So every binding call first makes sure a reserve block is
// held; if malloc fails inside the call, the new-handler releases the reserve
// and the small allocation succeeds. The next call takes the reserve back, or
// refuses to start (RangeError) when memory is too short to do so.
#pragma once
#include "qwasm/status.h"

namespace qwasm_bind {

constexpr unsigned kReserveBytes = 1u << 20;

// Ok when the reserve is held (taking it now if needed).
qwasm::Status ensure_memory_reserve();

}  // namespace qwasm_bind
