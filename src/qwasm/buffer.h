// Buffer<T>: an owning array for everything whose size comes from input.
//
// std::vector cannot report an allocation failure without exceptions (under
// -fno-exceptions it aborts the module), so every allocation whose size a
// caller controls goes through Buffer::allocate, which refuses sizes above
// kMaxBufferBytes and reports a failed allocation as a RangeError naming what
// was being allocated and how many bytes it would need. Nothing is allocated
// when the size is refused.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "qwasm/checked_size.h"
#include "qwasm/limits.h"
#include "qwasm/status.h"

namespace qwasm {

// The one place that asks the allocator for input-sized memory: malloc
// (aligned to a 64-byte cache line from 4096 bytes up), or nullptr; free()
// releases it. Tests can make it fail (testing::fail_allocations_after).
void* try_allocate(size_t bytes);

// "<what> would need N bytes, more than the 2147483647 one allocation can hold"
// or "out of memory: <what> would need N bytes". `count` elements of `element_size`.
Status allocation_error(const char* what, CheckedSize bytes, bool too_large);

template <typename T>
class Buffer {
  static_assert(std::is_trivially_copyable<T>::value, "Buffer holds plain values");

 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~Buffer() { std::free(data_); }

  // Replaces the contents with `count` elements, zero-filled unless told not to.
  Status allocate(CheckedSize count, const char* what, bool zero_fill = true) {
    const CheckedSize bytes = count * CheckedSize(static_cast<int64_t>(sizeof(T)));
    if (!bytes.at_most(kMaxBufferBytes)) return allocation_error(what, bytes, true);
    void* p = try_allocate(static_cast<size_t>(bytes.value() > 0 ? bytes.value() : 1));
    if (p == nullptr) return allocation_error(what, bytes, false);
    if (zero_fill) std::memset(p, 0, static_cast<size_t>(bytes.value()));
    std::free(data_);
    data_ = static_cast<T*>(p);
    size_ = static_cast<size_t>(count.value());
    return Status::Ok();
  }

  // Allocates and copies n elements from src.
  Status assign(const T* src, size_t n, const char* what) {
    QWASM_RETURN_IF_ERROR(allocate(CheckedSize(static_cast<int64_t>(n)), what, false));
    if (n) std::memcpy(data_, src, n * sizeof(T));
    return Status::Ok();
  }

  void fill(T v) {
    for (size_t i = 0; i < size_; ++i) data_[i] = v;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

namespace testing {
// Makes try_allocate fail once `n` more allocations have succeeded (n = 0: the
// next one fails); a negative n turns the failure off. For the tests that
// force an out-of-memory in every allocating call.
void fail_allocations_after(int64_t n);
// Allocations try_allocate has made (successful or not) since start.
int64_t allocation_count();
// Makes try_allocate fail for requests above `bytes` (negative: no limit).
void fail_allocations_larger_than(int64_t bytes);
}  // namespace testing

}  // namespace qwasm
