// Status: how the core reports failure without exceptions. The bindings turn a
// non-ok Status into a JavaScript error of the matching class.
#pragma once
#include <string>
#include <utility>

namespace qwasm {

enum class StatusCode {
  kOk = 0,
  kTypeError,    // wrong kind of argument (JS TypeError)
  kRangeError,   // value outside what is allowed (JS RangeError)
  kError,        // anything else, e.g. an operation the tensor's scheme lacks
  kOutOfMemory,  // an allocation failed (JS RangeError with kind 'outOfMemory')
};

struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;

  bool ok() const { return code == StatusCode::kOk; }
  static Status Ok() { return {}; }
  static Status TypeError(std::string m) { return {StatusCode::kTypeError, std::move(m)}; }
  static Status RangeError(std::string m) { return {StatusCode::kRangeError, std::move(m)}; }
  static Status Error(std::string m) { return {StatusCode::kError, std::move(m)}; }
  // The message starts "out of memory: " (what users read); the code is what
  // callers test, so no layer has to match the text.
  static Status OutOfMemory(const std::string& m) { return {StatusCode::kOutOfMemory, "out of memory: " + m}; }
};

// Propagates a failed Status to the caller.
#define QWASM_RETURN_IF_ERROR(expr)    \
  do {                                 \
    ::qwasm::Status status_ = (expr);  \
    if (!status_.ok()) return status_; \
  } while (0)

}  // namespace qwasm
