// The naive reference of the pool_rows.inc family: the kernel tester's oracle.
#pragma once
#include <cstddef>
#include <cstdint>

namespace qwasm {
namespace ref {

// out[i] = max over r < rows of in[r][i] (0 when rows == 0).
void rowmax_qu8(size_t n, size_t rows, const uint8_t* const* in, uint8_t* out);
// out[i] = sum over r < rows of in[r][i], in int64.
void rowsum_qu8(size_t n, size_t rows, const uint8_t* const* in, int64_t* out);

}  // namespace ref
}  // namespace qwasm
