// The quantize / dequantize micro-kernel families: function types, registry
// entries, the prototypes of every kernel (generated from the lists
// quantize.inc, dequantize.inc, quantize_row.inc) and the dispatcher.
// Tests, benchmarks and the dispatcher all read the same tables
// (registry.cpp), so a kernel that is listed is a kernel that is tested.
//
// Naming (docs/kernels.md): <op>[_<variant>]_<from>_<to>_<isa>, e.g.
// quantize_f32_qu8_wasmsimd, dequantize_pc_qs8_f32_scalar. Variants: fqp =
// float zero points (per_channel_affine_float_qparams), pc = per channel with
// integer zero points, row = per-element qparams.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"
#include "kernels/kernel_table.h"
#include "kernels/params.h"

namespace qwasm {
namespace kernels {

enum class Storage { kU8, kS8, kS32 };
enum class QuantizeMode { kIntZeroPoint, kFloatZeroPoint };
enum class DequantizeMode { kPerTensor, kPerChannel, kFloatQParams };

// One run of n elements that share one set of qparams.
using QuantizeFn = void (*)(size_t n, const float* x, void* y, const QuantizeParams* params);
using DequantizeFn = void (*)(size_t n, const void* q, float* y, const DequantizeParams* params);

// Row kernels: element i has its own qparams (inv_scales[i] or scales[i],
// zero_points[i]). The dispatcher uses them when the channel axis is (nearly)
// the innermost one, where runs that share qparams are too short for the run
// kernels. Dequantize rows compute ((float)q - zp) * scale in float32, which
// is the float-qparams formula and, for float32-valued scales, exactly the
// per-channel one (see qtensor.cpp).
using QuantizeRowFn = void (*)(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points,
                               int32_t qmin, int32_t qmax);
using DequantizeRowFn = void (*)(size_t n, const void* q, float* y, const float* scales, const float* zero_points);

struct QuantizeKernel {
  const char* name;
  Isa isa;
  Storage storage;
  QuantizeMode mode;
  size_t block;  // elements per main-loop step
  QuantizeFn fn;
};

struct DequantizeKernel {
  const char* name;
  Isa isa;
  Storage storage;
  DequantizeMode mode;
  size_t block;
  DequantizeFn fn;
};

struct QuantizeRowKernel {
  const char* name;
  Isa isa;
  Storage storage;
  QuantizeMode mode;
  size_t block;
  QuantizeRowFn fn;
};

struct DequantizeRowKernel {
  const char* name;
  Isa isa;
  Storage storage;
  size_t block;
  DequantizeRowFn fn;
};

// Every kernel's prototype, from the lists.
#define QWASM_QUANTIZE(name, isa, storage, mode, block) \
  void name(size_t n, const float* x, void* y, const QuantizeParams* params);
#define QWASM_DEQUANTIZE(name, isa, storage, mode, block) \
  void name(size_t n, const void* q, float* y, const DequantizeParams* params);
#define QWASM_QUANTIZE_ROW(name, isa, storage, mode, block)                                                     \
  void name(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points, int32_t qmin, \
            int32_t qmax);
#define QWASM_DEQUANTIZE_ROW(name, isa, storage, block) \
  void name(size_t n, const void* q, float* y, const float* scales, const float* zero_points);
#include "kernels/dequantize.inc"
#include "kernels/quantize.inc"
#include "kernels/quantize_row.inc"
#undef QWASM_QUANTIZE
#undef QWASM_DEQUANTIZE
#undef QWASM_QUANTIZE_ROW
#undef QWASM_DEQUANTIZE_ROW

KernelTable<QuantizeKernel> quantize_kernels();
KernelTable<DequantizeKernel> dequantize_kernels();
KernelTable<QuantizeRowKernel> quantize_row_kernels();
KernelTable<DequantizeRowKernel> dequantize_row_kernels();

// The dispatcher: the first listed kernel of `isa` (or scalar, when this build
// lacks it) for the storage and mode. Every combination has a scalar kernel,
// so these never return nullptr for valid arguments.
const QuantizeKernel* find_quantize(Isa isa, Storage storage, QuantizeMode mode);
const DequantizeKernel* find_dequantize(Isa isa, Storage storage, DequantizeMode mode);
const QuantizeRowKernel* find_quantize_row(Isa isa, Storage storage, QuantizeMode mode);
const DequantizeRowKernel* find_dequantize_row(Isa isa, Storage storage);

}  // namespace kernels
}  // namespace qwasm
