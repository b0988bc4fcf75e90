// Dispatch over the kernel tables of quantize_kernels.h.
#include "kernels/quantize_kernels.h"

namespace qwasm {
namespace kernels {

#if !defined(__wasm_simd128__)
// Built without SIMD128 (native g++, or wasm without -msimd128): no entries.
const QuantizeKernel kQuantizeKernelsWasmSimd[] = {{nullptr, Isa::kWasmSimd, Storage::kU8, QuantizeMode::kIntZeroPoint, nullptr}};
const size_t kQuantizeKernelsWasmSimdCount = 0;
const DequantizeKernel kDequantizeKernelsWasmSimd[] = {{nullptr, Isa::kWasmSimd, Storage::kU8, DequantizeMode::kPerTensor, nullptr}};
const size_t kDequantizeKernelsWasmSimdCount = 0;
const QuantizeRowKernel kQuantizeRowKernelsWasmSimd[] = {{nullptr, Isa::kWasmSimd, Storage::kU8, QuantizeMode::kIntZeroPoint, nullptr}};
const size_t kQuantizeRowKernelsWasmSimdCount = 0;
const DequantizeRowKernel kDequantizeRowKernelsWasmSimd[] = {{nullptr, Isa::kWasmSimd, Storage::kU8, nullptr}};
const size_t kDequantizeRowKernelsWasmSimdCount = 0;
#endif

bool isa_available(Isa isa) {
#if defined(__wasm_simd128__)
  (void)isa;
  return true;
#else
  return isa == Isa::kScalar;
#endif
}

Isa best_isa() { return isa_available(Isa::kWasmSimd) ? Isa::kWasmSimd : Isa::kScalar; }

const char* isa_name(Isa isa) { return isa == Isa::kScalar ? "scalar" : "wasmsimd"; }

QuantizeFn find_quantize_kernel(Isa isa, Storage storage, QuantizeMode mode) {
  const QuantizeKernel* table = isa == Isa::kScalar ? kQuantizeKernelsScalar : kQuantizeKernelsWasmSimd;
  const size_t count = isa == Isa::kScalar ? kQuantizeKernelsScalarCount : kQuantizeKernelsWasmSimdCount;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].storage == storage && table[i].mode == mode) return table[i].fn;
  }
  return nullptr;
}

DequantizeFn find_dequantize_kernel(Isa isa, Storage storage, DequantizeMode mode) {
  const DequantizeKernel* table = isa == Isa::kScalar ? kDequantizeKernelsScalar : kDequantizeKernelsWasmSimd;
  const size_t count = isa == Isa::kScalar ? kDequantizeKernelsScalarCount : kDequantizeKernelsWasmSimdCount;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].storage == storage && table[i].mode == mode) return table[i].fn;
  }
  return nullptr;
}

QuantizeRowFn find_quantize_row_kernel(Isa isa, Storage storage, QuantizeMode mode) {
  const QuantizeRowKernel* table = isa == Isa::kScalar ? kQuantizeRowKernelsScalar : kQuantizeRowKernelsWasmSimd;
  const size_t count = isa == Isa::kScalar ? kQuantizeRowKernelsScalarCount : kQuantizeRowKernelsWasmSimdCount;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].storage == storage && table[i].mode == mode) return table[i].fn;
  }
  return nullptr;
}

DequantizeRowFn find_dequantize_row_kernel(Isa isa, Storage storage) {
  const DequantizeRowKernel* table = isa == Isa::kScalar ? kDequantizeRowKernelsScalar : kDequantizeRowKernelsWasmSimd;
  const size_t count = isa == Isa::kScalar ? kDequantizeRowKernelsScalarCount : kDequantizeRowKernelsWasmSimdCount;
  for (size_t i = 0; i < count; ++i) {
    if (table[i].storage == storage) return table[i].fn;
  }
  return nullptr;
}

}  // namespace kernels
}  // namespace qwasm
