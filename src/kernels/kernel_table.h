// The registry's tables (registry.cpp): one per kernel family, every kernel
// this build lists, in list order, each entry naming its Isa. The dispatcher
// (find_*) picks the first entry of an ISA; the kernel tester and the
// benchmarks walk the whole table. A family's header declares its table with
// this type; files that need only the Isa include kernels/isa.h alone.
#pragma once
#include <cstddef>

namespace qwasm {
namespace kernels {

template <typename Entry>
struct KernelTable {
  const Entry* entries;
  size_t count;
  const Entry* begin() const { return entries; }
  const Entry* end() const { return entries + count; }
};

}  // namespace kernels
}  // namespace qwasm
