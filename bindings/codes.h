// The codes that cross the bridge: every number the bindings take or return
// that stands for a choice, not a quantity, with the core value it means and
// the name JavaScript knows it by. This is the one C++ home of those numbers,
// and their source of truth: web/src/runtime/codes.mjs holds the same tables
// for JavaScript, and tests/js/package/bridge-codes.test.mjs checks that they
// equal these (the testing build's _bridgeCodes returns them) and what each
// code does in the core. Codes, not Embind enums (docs/architecture.md, "The
// bridge, declared once"): a code is checked when it arrives, and a table is
// known to JavaScript before the wasm is loaded.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "kernels/isa.h"
#include "qwasm/conv.h"
#include "qwasm/format.h"
#include "qwasm/memory_format.h"
#include "qwasm/pool.h"
#include "qwasm/quant_types.h"
#include "qwasm/status.h"

namespace qwasm_bind {

// One code: its number, the core value it stands for, its name in JavaScript.
template <typename T>
struct Code {
  int code;
  T value;
  const char* name;
};

// The path a quantized conv's last forward took (_QConvModule.lastPath()).
enum class ConvPath { kNone, kDirect, kWinograd };

inline constexpr Code<qwasm::DType> kDTypeCodes[] = {
    {0, qwasm::DType::kQUInt8, "quint8"},
    {1, qwasm::DType::kQInt8, "qint8"},
    {2, qwasm::DType::kQInt32, "qint32"},
    {3, qwasm::DType::kQUInt4x2, "quint4x2"},
};
inline constexpr Code<qwasm::QScheme> kQSchemeCodes[] = {
    {0, qwasm::QScheme::kPerTensorAffine, "per_tensor_affine"},
    {1, qwasm::QScheme::kPerChannelAffine, "per_channel_affine"},
    {2, qwasm::QScheme::kPerChannelAffineFloatQParams, "per_channel_affine_float_qparams"},
    {3, qwasm::QScheme::kPerTensorSymmetric, "per_tensor_symmetric"},
    {4, qwasm::QScheme::kPerChannelSymmetric, "per_channel_symmetric"},
};
// The kernel family a call runs; 'auto' (no value) is the fastest this build has.
inline constexpr Code<std::optional<qwasm::kernels::Isa>> kIsaCodes[] = {
    {0, std::nullopt, "auto"},
    {1, qwasm::kernels::Isa::kScalar, "scalar"},
    {2, qwasm::kernels::Isa::kWasmSimd, "wasmsimd"},
};
// A failure's kind: the JavaScript error class it becomes (errors.mjs).
inline constexpr Code<qwasm::StatusCode> kErrorKindCodes[] = {
    {1, qwasm::StatusCode::kTypeError, "TypeError"},
    {2, qwasm::StatusCode::kRangeError, "RangeError"},
    {3, qwasm::StatusCode::kError, "Error"},
    {4, qwasm::StatusCode::kOutOfMemory, "outOfMemory"},
};
// torch.backends.quantized.engine when a layer's weights are packed.
inline constexpr Code<qwasm::QEngine> kEngineCodes[] = {
    {0, qwasm::QEngine::kFbgemm, "fbgemm"},
    {1, qwasm::QEngine::kX86, "x86"},
};
// Whose requantization a quantized conv layer reproduces.
inline constexpr Code<qwasm::ConvBackend> kBackendCodes[] = {
    {0, qwasm::ConvBackend::kFbgemm, "fbgemm"},
    {1, qwasm::ConvBackend::kOnednn, "onednn"},
};
// The `winograd` option, named as JavaScript prints its values (false, 'auto', true).
inline constexpr Code<qwasm::WinogradMode> kWinogradCodes[] = {
    {0, qwasm::WinogradMode::kOff, "false"},
    {1, qwasm::WinogradMode::kAuto, "auto"},
    {2, qwasm::WinogradMode::kOn, "true"},
};
inline constexpr Code<ConvPath> kConvPathCodes[] = {
    {0, ConvPath::kNone, ""},
    {1, ConvPath::kDirect, "direct"},
    {2, ConvPath::kWinograd, "winograd"},
};
// channels_last stands for torch.channels_last at rank 4 and channels_last_3d at rank 5.
inline constexpr Code<qwasm::MemoryFormat> kMemoryFormatCodes[] = {
    {0, qwasm::MemoryFormat::kContiguous, "contiguous"},
    {1, qwasm::MemoryFormat::kChannelsLast, "channels_last"},
};
inline constexpr Code<qwasm::PoolKind> kPoolKindCodes[] = {
    {0, qwasm::PoolKind::kMax, "max"},
    {1, qwasm::PoolKind::kAvg, "avg"},
};

// The value a code stands for; false for a number that is no code of the table.
template <typename T, size_t N>
bool from_code(const Code<T> (&codes)[N], double code, T* out) {
  for (const Code<T>& c : codes) {
    if (code == c.code) {
      *out = c.value;
      return true;
    }
  }
  return false;
}

// The code of a value (every value the core returns has one: the testing
// build's tests enumerate them).
template <typename T, size_t N>
int code_of(const Code<T> (&codes)[N], T value) {
  for (const Code<T>& c : codes) {
    if (c.value == value) return c.code;
  }
  return -1;
}

// A code argument the JS layer sent; `what` names its table in the message.
template <typename T, size_t N>
qwasm::Status read_code(const Code<T> (&codes)[N], double code, const char* what, T* out) {
  if (from_code(codes, code, out)) return qwasm::Status::Ok();
  return qwasm::Status::TypeError(std::string("unknown ") + what + " code " + qwasm::format_number(code));
}

inline qwasm::Status to_dtype(double code, qwasm::DType* out) { return read_code(kDTypeCodes, code, "dtype", out); }

inline qwasm::Status to_qscheme(double code, qwasm::QScheme* out) {
  return read_code(kQSchemeCodes, code, "qscheme", out);
}

// An ISA code: 'auto' is the best this build has; an ISA the build lacks is refused.
inline qwasm::Status to_isa(double code, qwasm::kernels::Isa* out) {
  std::optional<qwasm::kernels::Isa> isa;
  QWASM_RETURN_IF_ERROR(read_code(kIsaCodes, code, "kernel ISA", &isa));
  if (isa && !qwasm::kernels::isa_available(*isa)) {
    return qwasm::Status::RangeError(std::string("kernel ISA ") + qwasm::kernels::isa_name(*isa) +
                                     " is not available in this build");
  }
  *out = isa.value_or(qwasm::kernels::best_isa());
  return qwasm::Status::Ok();
}

inline int isa_code(qwasm::kernels::Isa isa) { return code_of(kIsaCodes, std::optional<qwasm::kernels::Isa>(isa)); }

// A failed Status's kind; anything without a kind of its own is an Error.
inline int error_kind_code(qwasm::StatusCode code) {
  const int kind = code_of(kErrorKindCodes, code);
  return kind >= 0 ? kind : code_of(kErrorKindCodes, qwasm::StatusCode::kError);
}

}  // namespace qwasm_bind
