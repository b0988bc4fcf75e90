#include "qwasm/buffer.h"

#include <atomic>
#include <cstdlib>

namespace qwasm {
namespace {

// Fault injection for tests: allocations left before one fails (-1: never).
std::atomic<int64_t> g_allocations_before_failure{-1};
std::atomic<int64_t> g_allocation_count{0};
// Allocations above this many bytes fail (-1: no limit); fuzzers use it to
// turn large but valid requests into out-of-memory paths quickly.
std::atomic<int64_t> g_max_allocation{-1};

// From this size up, allocations are aligned to a cache line.
constexpr size_t kCacheLineAlignedFrom = 4096;

}  // namespace

void* try_allocate(size_t bytes) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  int64_t left = g_allocations_before_failure.load(std::memory_order_relaxed);
  if (left == 0) return nullptr;
  if (left > 0) g_allocations_before_failure.store(left - 1, std::memory_order_relaxed);
  const int64_t max = g_max_allocation.load(std::memory_order_relaxed);
  if (max >= 0 && static_cast<uint64_t>(bytes) > static_cast<uint64_t>(max)) return nullptr;
  // Large buffers (activations, scratch) start on a cache line: the threads
  // of a parallel loop split them at multiples of 64 bytes, and a buffer
  // malloc happens to place 16 bytes off a line makes two threads write the
  // same line at every split. (free() releases both kinds.)
  if (bytes >= kCacheLineAlignedFrom) {
    void* p = nullptr;
    return posix_memalign(&p, 64, bytes) == 0 ? p : nullptr;
  }
  return std::malloc(bytes);
}

Status allocation_error(const char* what, CheckedSize bytes, bool too_large) {
  const std::string size = bytes.ok() ? std::to_string(bytes.value()) + " bytes" : "more than 2^63 bytes";
  if (too_large) {
    return Status::RangeError(std::string(what) + " would need " + size + ", more than the " +
                              std::to_string(kMaxBufferBytes) + " bytes one allocation can hold");
  }
  return Status::OutOfMemory(std::string(what) + " would need " + size);
}

namespace testing {

void fail_allocations_after(int64_t n) { g_allocations_before_failure.store(n < 0 ? -1 : n); }
int64_t allocation_count() { return g_allocation_count.load(); }
void fail_allocations_larger_than(int64_t bytes) { g_max_allocation.store(bytes < 0 ? -1 : bytes); }

}  // namespace testing
}  // namespace qwasm
