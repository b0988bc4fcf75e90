// Shared by the binding files. The conventions of all of bindings/:
//  - Names registered with Embind start with '_': users see the web/ layer only.
//  - Every number crosses as a double and is converted here with a check
//    (integer, range), so nothing wraps on the way in; the messages name the
//    argument as the JavaScript API calls it.
//  - Big arrays cross as wasm heap addresses (uintptr_t, unsigned: addresses
//    above 2 GiB are valid) with their byte counts; the JS side mallocs,
//    copies once, frees. Small ones (shapes, geometry) as fresh JS arrays of
//    numbers the JS layer built itself, so no user code runs while C++ reads them.
//  - No std::string crosses the boundary (this Emscripten's Embind reads
//    string lengths with signed shifts, wrong above 2 GiB): dtypes, schemes
//    and every other choice are codes (codes.h), messages are decoded from bytes.
//  - A failure comes back as {error, kind} and the JS layer throws it; nothing
//    throws across the boundary.
//  - web/src/runtime/bridge.d.mts declares every name bound here, with named
//    parameters; tests/js/package/bridge.test.mjs holds the two lists equal.
//  - Getters return typed_memory_view()s that the JS layer copies at once.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "bindings/codes.h"
#include "bindings/memory_reserve.h"
#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/format.h"
#include "qwasm/limits.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm_bind {

using emscripten::val;
using qwasm::DType;
using qwasm::QScheme;
using qwasm::QTensor;
using qwasm::Status;
using qwasm::kernels::Isa;

// A JS string from bytes in wasm memory, copied out before decoding.
inline val js_string(const std::string& s) {
  val bytes = val::global("Uint8Array")
                  .new_(emscripten::typed_memory_view(s.size(), reinterpret_cast<const uint8_t*>(s.data())));
  return val::global("TextDecoder").new_().call<val>("decode", bytes);
}

inline val error_value(const Status& s) {
  val o = val::object();
  o.set("error", js_string(s.message));
  o.set("kind", error_kind_code(s.code));
  return o;
}

inline val result(const Status& s, QTensor&& q) { return s.ok() ? val(std::move(q)) : error_value(s); }

// Every binding that may allocate starts with this (see memory_reserve.h).
#define QWASM_BIND_ENTER()                                                         \
  do {                                                                             \
    const ::qwasm::Status reserve_status_ = ::qwasm_bind::ensure_memory_reserve(); \
    if (!reserve_status_.ok()) return ::qwasm_bind::error_value(reserve_status_);  \
  } while (0)

// A JS number that must be an integer in [lo, hi].
inline Status to_int(double v, const char* name, int64_t lo, int64_t hi, int64_t* out) {
  if (!(std::isfinite(v) && v == std::floor(v))) {
    return Status::TypeError(std::string(name) + " must be an integer, got " + qwasm::format_number(v));
  }
  if (v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    return Status::RangeError(std::string(name) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
                              ", got " + qwasm::format_number(v));
  }
  *out = static_cast<int64_t>(v);
  return Status::Ok();
}

// A count of elements or bytes in a heap block (the JS layer computed it).
inline Status to_count(double v, const char* name, size_t* out) {
  int64_t n = 0;
  QWASM_RETURN_IF_ERROR(to_int(v, name, 0, qwasm::kMaxBufferBytes, &n));
  *out = static_cast<size_t>(n);
  return Status::Ok();
}

// A shape from a JS array of numbers. The JS layer builds these arrays itself
// from validated numbers; the checks here are a second line (no caller code
// runs: elements are tested with typeof before they are converted).
inline Status to_shape(const val& shape, qwasm::Shape* out) {
  const unsigned rank = shape["length"].as<unsigned>();
  if (rank > qwasm::kMaxRank) {
    return Status::RangeError("a tensor has at most " + std::to_string(qwasm::kMaxRank) + " dimensions, got " +
                              std::to_string(rank));
  }
  out->resize(rank);
  for (unsigned i = 0; i < rank; ++i) {
    const std::string name = "shape[" + std::to_string(i) + "]";
    const val d = shape[i];
    // typeof only: converting anything else could run a caller's valueOf.
    if (!d.isNumber()) return Status::TypeError(name + " must be a number");
    QWASM_RETURN_IF_ERROR(to_int(d.as<double>(), name.c_str(), 0, qwasm::kMaxNumel, &(*out)[i]));
  }
  return Status::Ok();
}

template <typename T>
inline const T* at(uintptr_t address) {
  return reinterpret_cast<const T*>(address);
}

// A JS-owned Float32Array copy of a buffer (never a view into wasm memory).
inline val float32_copy(const qwasm::Buffer<float>& b) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(b.size(), b.data()));
}

// A shape as a JS array of numbers.
inline val to_js_shape(const qwasm::Shape& shape) {
  val a = val::array();
  for (int64_t d : shape) a.call<void>("push", static_cast<double>(d));
  return a;
}

}  // namespace qwasm_bind
