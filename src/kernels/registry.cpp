// Dispatch over the kernel tables of quantize_kernels.h.
#include "kernels/quantize_kernels.h"

namespace qwasm {
namespace kernels {

#if !defined(QWASM_HAVE_WASMSIMD)
// Built without the SIMD128 kernels (native): no entries.
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
#if defined(QWASM_HAVE_WASMSIMD)
  (void)isa;
  return true;
#else
  return isa == Isa::kScalar;
#endif
}

Isa best_isa() { return isa_available(Isa::kWasmSimd) ? Isa::kWasmSimd : Isa::kScalar; }

const char* isa_name(Isa isa) { return isa == Isa::kScalar ? "scalar" : "wasmsimd"; }

namespace {

// The first entry of an ISA's table that `matches`, or nullptr.
template <typename Entry, typename Match>
auto find_in(Isa isa, const Entry* scalar, size_t nscalar, const Entry* simd, size_t nsimd, Match matches)
    -> decltype(scalar->fn) {
  const Entry* table = isa == Isa::kScalar ? scalar : simd;
  const size_t count = isa == Isa::kScalar ? nscalar : nsimd;
  for (size_t i = 0; i < count; ++i) {
    if (matches(table[i])) return table[i].fn;
  }
  return nullptr;
}

}  // namespace

QuantizeFn find_quantize_kernel(Isa isa, Storage storage, QuantizeMode mode) {
  return find_in(isa, kQuantizeKernelsScalar, kQuantizeKernelsScalarCount, kQuantizeKernelsWasmSimd,
                 kQuantizeKernelsWasmSimdCount,
                 [&](const QuantizeKernel& k) { return k.storage == storage && k.mode == mode; });
}

DequantizeFn find_dequantize_kernel(Isa isa, Storage storage, DequantizeMode mode) {
  return find_in(isa, kDequantizeKernelsScalar, kDequantizeKernelsScalarCount, kDequantizeKernelsWasmSimd,
                 kDequantizeKernelsWasmSimdCount,
                 [&](const DequantizeKernel& k) { return k.storage == storage && k.mode == mode; });
}

QuantizeRowFn find_quantize_row_kernel(Isa isa, Storage storage, QuantizeMode mode) {
  return find_in(isa, kQuantizeRowKernelsScalar, kQuantizeRowKernelsScalarCount, kQuantizeRowKernelsWasmSimd,
                 kQuantizeRowKernelsWasmSimdCount,
                 [&](const QuantizeRowKernel& k) { return k.storage == storage && k.mode == mode; });
}

DequantizeRowFn find_dequantize_row_kernel(Isa isa, Storage storage) {
  return find_in(isa, kDequantizeRowKernelsScalar, kDequantizeRowKernelsScalarCount, kDequantizeRowKernelsWasmSimd,
                 kDequantizeRowKernelsWasmSimdCount, [&](const DequantizeRowKernel& k) { return k.storage == storage; });
}

}  // namespace kernels
}  // namespace qwasm
