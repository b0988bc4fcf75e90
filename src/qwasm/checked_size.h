// Sizes computed in checked 64-bit arithmetic. Every multiplication that feeds
// an allocation or an offset goes through CheckedSize: a product that
// overflows int64 (or has a negative factor) is remembered as invalid, and the
// caller refuses it before allocating anything.
#pragma once
#include <cstdint>

namespace qwasm {

class CheckedSize {
 public:
  constexpr CheckedSize() = default;
  constexpr CheckedSize(int64_t v) : value_(v < 0 ? 0 : v), ok_(v >= 0) {}  // NOLINT: implicit on purpose

  friend CheckedSize operator*(CheckedSize a, CheckedSize b) {
    CheckedSize r;
    r.ok_ = a.ok_ && b.ok_ && !__builtin_mul_overflow(a.value_, b.value_, &r.value_);
    if (!r.ok_) r.value_ = 0;
    return r;
  }
  friend CheckedSize operator+(CheckedSize a, CheckedSize b) {
    CheckedSize r;
    r.ok_ = a.ok_ && b.ok_ && !__builtin_add_overflow(a.value_, b.value_, &r.value_);
    if (!r.ok_) r.value_ = 0;
    return r;
  }
  CheckedSize& operator*=(CheckedSize b) { return *this = *this * b; }
  CheckedSize& operator+=(CheckedSize b) { return *this = *this + b; }

  // False when some step overflowed int64 or a factor was negative.
  constexpr bool ok() const { return ok_; }
  // True when ok() and the value is at most `limit`.
  constexpr bool at_most(int64_t limit) const { return ok_ && value_ <= limit; }
  // Only meaningful when ok().
  constexpr int64_t value() const { return value_; }

 private:
  int64_t value_ = 0;
  bool ok_ = true;
};

// A product that saturates at INT64_MIN / INT64_MAX instead of overflowing:
// for strides and walks of an empty tensor, whose dimensions are bounded one
// by one but not as a product; no element is ever reached through them.
inline int64_t mul_saturating(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

}  // namespace qwasm
