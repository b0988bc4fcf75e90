// Reads the fuzzer's bytes as small integers; past the end it yields zeros,
// so every input decodes to something.
#pragma once
#include <cstddef>
#include <cstdint>

namespace qwasm_fuzz {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // An integer in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(byte()) % (hi - lo + 1); }
  bool flag() { return byte() & 1; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace qwasm_fuzz
