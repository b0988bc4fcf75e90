// The quantize / dequantize micro-kernels and the one table that lists them.
// Tests, benchmarks and the dispatcher all read the table, so a kernel that is
// registered is a kernel that is tested.
//
// Naming: <op>[_<variant>]_<from>_<to>__<isa>, e.g. quantize_f32_qu8__wasmsimd,
// dequantize_pc_qs8_f32__scalar. Variants: fqp = float zero points
// (per_channel_affine_float_qparams), pc = per channel with integer zero points.
// A kernel processes one run of n elements that share one set of qparams.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/params.h"

namespace qwasm {
namespace kernels {

enum class Isa { kScalar, kWasmSimd };
enum class Storage { kU8, kS8, kS32 };
enum class QuantizeMode { kIntZeroPoint, kFloatZeroPoint };
enum class DequantizeMode { kPerTensor, kPerChannel, kFloatQParams };

using QuantizeFn = void (*)(size_t n, const float* x, void* y, const QuantizeParams* params);
using DequantizeFn = void (*)(size_t n, const void* q, float* y, const DequantizeParams* params);

struct QuantizeKernel {
  const char* name;
  Isa isa;
  Storage storage;
  QuantizeMode mode;
  QuantizeFn fn;
};

struct DequantizeKernel {
  const char* name;
  Isa isa;
  Storage storage;
  DequantizeMode mode;
  DequantizeFn fn;
};

// Row kernels: element i has its own qparams (inv_scales[i] or scales[i],
// zero_points[i]). The dispatcher uses them when the channel axis is (nearly)
// the innermost one, where runs that share qparams are too short for the run
// kernels. Dequantize rows compute ((float)q - zp) * scale in float32, which is
// the float-qparams formula and, for float32-valued scales, exactly the
// per-channel one (see qtensor.cpp).
using QuantizeRowFn = void (*)(size_t n, const float* x, void* y, const float* inv_scales,
                               const float* zero_points, int32_t qmin, int32_t qmax);
using DequantizeRowFn = void (*)(size_t n, const void* q, float* y, const float* scales, const float* zero_points);

struct QuantizeRowKernel {
  const char* name;
  Isa isa;
  Storage storage;
  QuantizeMode mode;
  QuantizeRowFn fn;
};

struct DequantizeRowKernel {
  const char* name;
  Isa isa;
  Storage storage;
  DequantizeRowFn fn;
};

// Per-ISA tables; the wasmsimd tables are empty when built without -msimd128.
extern const QuantizeKernel kQuantizeKernelsScalar[];
extern const size_t kQuantizeKernelsScalarCount;
extern const DequantizeKernel kDequantizeKernelsScalar[];
extern const size_t kDequantizeKernelsScalarCount;
extern const QuantizeKernel kQuantizeKernelsWasmSimd[];
extern const size_t kQuantizeKernelsWasmSimdCount;
extern const DequantizeKernel kDequantizeKernelsWasmSimd[];
extern const size_t kDequantizeKernelsWasmSimdCount;
extern const QuantizeRowKernel kQuantizeRowKernelsScalar[];
extern const size_t kQuantizeRowKernelsScalarCount;
extern const DequantizeRowKernel kDequantizeRowKernelsScalar[];
extern const size_t kDequantizeRowKernelsScalarCount;
extern const QuantizeRowKernel kQuantizeRowKernelsWasmSimd[];
extern const size_t kQuantizeRowKernelsWasmSimdCount;
extern const DequantizeRowKernel kDequantizeRowKernelsWasmSimd[];
extern const size_t kDequantizeRowKernelsWasmSimdCount;

// The fastest ISA this build has.
Isa best_isa();
bool isa_available(Isa isa);
const char* isa_name(Isa isa);

// Returns nullptr when the ISA is not compiled in.
QuantizeFn find_quantize_kernel(Isa isa, Storage storage, QuantizeMode mode);
DequantizeFn find_dequantize_kernel(Isa isa, Storage storage, DequantizeMode mode);
QuantizeRowFn find_quantize_row_kernel(Isa isa, Storage storage, QuantizeMode mode);
DequantizeRowFn find_dequantize_row_kernel(Isa isa, Storage storage);

}  // namespace kernels
}  // namespace qwasm
