// Instruction sets a kernel can be written for. QWASM_HAVE_WASMSIMD is defined
// (to 1) by the wasm build, whose SIMD sources alone are compiled with
// -msimd128; every other object is plain scalar code.
#pragma once

#ifndef QWASM_HAVE_WASMSIMD
#define QWASM_HAVE_WASMSIMD 0
#endif

namespace qwasm {
namespace kernels {

enum class Isa { kScalar, kWasmSimd };

constexpr bool isa_available(Isa isa) { return isa == Isa::kScalar || QWASM_HAVE_WASMSIMD; }
// The fastest ISA this build has.
constexpr Isa best_isa() { return QWASM_HAVE_WASMSIMD ? Isa::kWasmSimd : Isa::kScalar; }
constexpr const char* isa_name(Isa isa) { return isa == Isa::kScalar ? "scalar" : "wasmsimd"; }
// An available ISA: `isa` itself, or scalar when this build lacks it.
constexpr Isa usable_isa(Isa isa) { return isa_available(isa) ? isa : Isa::kScalar; }

}  // namespace kernels
}  // namespace qwasm
