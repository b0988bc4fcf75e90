// The pooling row micro-kernel family: function types, registry entries, the
// prototypes of every kernel (generated from pool_rows.inc) and the
// dispatcher. Listed = registered = tested (tests/native/kernel_tester_pool_rows_test.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/isa.h"
#include "kernels/kernel_table.h"

namespace qwasm {
namespace kernels {

// The most rows one rowsum call may add: 255 * rows stays within int32.
constexpr size_t kRowSumMaxRows = 2147483647 / 255;

// rows >= 1 row pointers, each to n readable bytes; out holds n elements.
using RowMaxFn = void (*)(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out);
// 1 <= rows <= kRowSumMaxRows.
using RowSumFn = void (*)(size_t n, size_t rows, const uint8_t* const* in, int32_t* out);

struct RowMaxKernel {
  const char* name;
  Isa isa;
  size_t block;
  RowMaxFn fn;
};

struct RowSumKernel {
  const char* name;
  Isa isa;
  size_t block;
  RowSumFn fn;
};

#define QWASM_ROWMAX(name, isa, block) void name(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out);
#define QWASM_ROWSUM(name, isa, block) void name(size_t n, size_t rows, const uint8_t* const* in, int32_t* out);
#include "kernels/pool_rows.inc"
#undef QWASM_ROWMAX
#undef QWASM_ROWSUM

KernelTable<RowMaxKernel> rowmax_kernels();
KernelTable<RowSumKernel> rowsum_kernels();

// The first listed kernel of `isa` (or scalar, when this build lacks it).
const RowMaxKernel* find_rowmax(Isa isa);
const RowSumKernel* find_rowsum(Isa isa);

}  // namespace kernels
}  // namespace qwasm
