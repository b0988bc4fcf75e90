// Ceilings for the conv benchmark's "% of peak" (bench/conv.bench.mjs): the
// registered kernels themselves, taken from the registry as the drivers take
// them, on operands small enough to stay in L1. So the peak is always the
// instruction mix of the kernel the convolutions run, requantization and
// stores included. Testing support (tests/support/), built into the testing
// and benchmark wasm only (_peakDot16, _peakDwconv in
// bindings/testing_bindings.cpp), never into the package; it lives here, not
// under bench/, because nothing under bindings/ or src/ includes bench/
// (tests/js/build.test.mjs). Each returns a checksum of its outputs.
#pragma once
#include <cstddef>
#include <cstdint>

namespace qwasm {
namespace testing_support {

// The generic quantized conv kernel of the best ISA (find_qconv: in the wasm
// build conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16) on one full mr x nr tile whose
// reduction is one segment of `kblocks` blocks of kr values, `reps` times:
// reps * kblocks * mr * nr * kr multiply-adds (64 per kblock for 4x8c2).
int32_t peak_qconv(size_t reps, size_t kblocks);

// The depthwise kernel of the best ISA (find_qdwconv, kExact or kSat16) on a
// run of kDwPeakPixels output pixels along W of 64 channels and 3x3x3 taps
// (+ padding to its tap group), `reps` times: reps * kDwPeakPixels * 64 * 27
// multiply-adds counted.
constexpr size_t kDwPeakPixels = 16;
int32_t peak_qdwconv(size_t reps, bool sat16);

}  // namespace testing_support
}  // namespace qwasm
