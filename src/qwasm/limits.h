// The limits every entry point enforces before it allocates. They are the same
// in native and wasm builds, so that the native tests and fuzzers meet the same
// edges as the browser does.
#pragma once
#include <cstdint>

namespace qwasm {

// PyTorch refuses tensors of more than 64 dimensions.
constexpr int64_t kMaxRank = 64;

// One allocation holds at most 2^31 - 1 bytes: every byte offset into it then
// fits the signed 32-bit ptrdiff_t of wasm32, and every element index fits int32.
constexpr int64_t kMaxBufferBytes = (int64_t{1} << 31) - 1;

// Element counts of tensors (and so every index) stay below 2^31.
constexpr int64_t kMaxNumel = (int64_t{1} << 31) - 1;

// Integer arguments that describe geometry (kernel, stride, padding, dilation,
// channels, groups) are at most 2^31 - 1; their products are then computed in
// checked 64-bit arithmetic.
constexpr int64_t kMaxGeometryValue = (int64_t{1} << 31) - 1;

}  // namespace qwasm
