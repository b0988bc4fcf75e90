// Shared by the binding files: errors as {error, kind} values, argument
// parsing, and reading JS arrays. The conventions of all of bindings/:
//  - big arrays cross as wasm heap addresses (the JS side mallocs, copies once,
//    frees), small ones as JS arrays;
//  - a failure comes back as {error, kind} (kind: TypeError | RangeError | Error)
//    and the JS layer throws it; nothing throws across the boundary;
//  - getters return typed_memory_view()s that the JS layer copies at once.
// Names registered with Embind start with '_': users see the web/ layer only.
#pragma once
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/quantize_kernels.h"
#include "qwasm/dtype.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm_bind {

using emscripten::val;
using qwasm::DType;
using qwasm::QScheme;
using qwasm::QTensor;
using qwasm::Status;
using qwasm::kernels::Isa;

inline const char* kind_name(qwasm::StatusCode code) {
  switch (code) {
    case qwasm::StatusCode::kTypeError: return "TypeError";
    case qwasm::StatusCode::kRangeError: return "RangeError";
    default: return "Error";
  }
}

inline val error_value(const Status& s) {
  val o = val::object();
  o.set("error", s.message);
  o.set("kind", std::string(kind_name(s.code)));
  return o;
}

inline val result(const Status& s, QTensor&& q) { return s.ok() ? val(std::move(q)) : error_value(s); }

inline Status parse_dtype_arg(const std::string& name, DType* out) {
  if (qwasm::parse_dtype(name, out)) return Status::Ok();
  return Status::TypeError("dtype must be 'quint8', 'qint8', 'qint32' or 'quint4x2', got '" + name + "'");
}

inline Status parse_isa(int isa, Isa* out) {
  if (isa == 0) *out = qwasm::kernels::best_isa();
  else if (isa == 1) *out = Isa::kScalar;
  else if (isa == 2 && qwasm::kernels::isa_available(Isa::kWasmSimd)) *out = Isa::kWasmSimd;
  else return Status::RangeError("isa " + std::to_string(isa) + " is not available in this build");
  return Status::Ok();
}

inline std::vector<int64_t> to_shape(const val& shape) {
  const std::vector<double> dims = emscripten::convertJSArrayToNumberVector<double>(shape);
  return std::vector<int64_t>(dims.begin(), dims.end());
}

inline std::vector<double> to_doubles(const val& a) { return emscripten::convertJSArrayToNumberVector<double>(a); }

template <typename T>
inline const T* at(uintptr_t address) {
  return reinterpret_cast<const T*>(address);
}

// A shape as a JS array of numbers.
inline val to_js_shape(const qwasm::Shape& shape) {
  val a = val::array();
  for (int64_t d : shape) a.call<void>("push", static_cast<double>(d));
  return a;
}

}  // namespace qwasm_bind
