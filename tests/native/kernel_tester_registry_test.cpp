// The kernel tester, the registry itself: every scalar kernel has its SIMD
// twin in the wasm build, and the dispatcher takes the first listed kernel of
// the ISA.
// Run natively (scalar kernels) and compiled to wasm (scalar and SIMD); the
// shared helpers are in kernel_tester.h. Random cases print their seed; replay
// with QWASM_SEED=<n>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernel_tester.h"
#include "kernels/conv_kernels.h"
#include "kernels/pool_kernels.h"
#include "kernels/quantize_kernels.h"
#include "kernels/winograd_kernels.h"

using namespace qwasm;
using namespace qwasm::kernels;
using namespace kernel_tester;

namespace {

// ------------------------------------------------------------- the registry

TEST(Registry, EveryScalarKernelHasItsSimdTwinInTheWasmBuild) {
  size_t scalar = 0, simd = 0;
  for (const auto& k : qconv_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : qdwconv_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : quantize_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : dequantize_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : rowmax_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : rowsum_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : wino_input_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : qgemm_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : wino_output_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
  for (const auto& k : wino_weights_kernels()) (k.isa == Isa::kScalar ? scalar : simd) += 1;
#if QWASM_HAVE_WASMSIMD
  EXPECT_EQ(simd, scalar);
  EXPECT_EQ(best_isa(), Isa::kWasmSimd);
#else
  EXPECT_EQ(simd, 0u);
  EXPECT_EQ(best_isa(), Isa::kScalar);
#endif
}

TEST(Registry, TheDispatcherPicksTheFirstListedKernelOfTheIsa) {
  EXPECT_STREQ(find_qconv(Isa::kScalar)->name, "conv3d_qu8_qs8w_4x8c2_scalar");
  EXPECT_STREQ(find_qdwconv(Isa::kScalar)->name, "dwconv3d_qu8_qs8w_4x8c2_scalar");
  EXPECT_STREQ(find_qdwconv(Isa::kScalar, DwConvMode::kSat16)->name, "dwconv3d_sat16_qu8_qs8w_4x8c2_scalar");
  EXPECT_STREQ(find_rowmax(Isa::kScalar)->name, "rowmax_qu8_scalar");
  EXPECT_STREQ(find_rowsum(Isa::kScalar)->name, "rowsum_qu8_qs32_scalar");
  EXPECT_STREQ(find_wino_input(Isa::kScalar)->name, "winograd_input_f23_scalar");
  EXPECT_STREQ(find_wino_input(Isa::kScalar, 4)->name, "winograd_input_f43_scalar");
  EXPECT_STREQ(find_wino_output(Isa::kScalar, 4)->name, "winograd_output_f43_scalar");
  EXPECT_STREQ(find_wino_weights(Isa::kScalar, 4)->name, "winograd_weights_f43_scalar");
  EXPECT_EQ(find_wino_input(Isa::kScalar, 3), nullptr);
#if QWASM_HAVE_WASMSIMD
  EXPECT_STREQ(find_wino_input(Isa::kWasmSimd, 4)->name, "winograd_input_f43_wasmsimd");
  EXPECT_STREQ(find_wino_output(Isa::kWasmSimd)->name, "winograd_output_f23_wasmsimd");
  EXPECT_STREQ(find_wino_output(Isa::kWasmSimd, 4)->name, "winograd_output_f43_wasmsimd");
  EXPECT_STREQ(find_wino_weights(Isa::kWasmSimd, 4)->name, "winograd_weights_f43_wasmsimd");
  EXPECT_STREQ(find_qdwconv(Isa::kWasmSimd)->name, "dwconv3d_qu8_qs8w_4x8c2_wasmsimd");
  EXPECT_STREQ(find_qdwconv(Isa::kWasmSimd, DwConvMode::kSat16)->name, "dwconv3d_sat16_qu8_qs8w_4x8c2_wasmsimd");
  EXPECT_STREQ(find_rowmax(Isa::kWasmSimd)->name, "rowmax_qu8_wasmsimd");
  EXPECT_STREQ(find_rowsum(Isa::kWasmSimd)->name, "rowsum_qu8_qs32_wasmsimd");
#endif
#if QWASM_HAVE_WASMSIMD
  EXPECT_STREQ(find_qconv(Isa::kWasmSimd)->name, "conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16");
#else
  EXPECT_STREQ(find_qconv(Isa::kWasmSimd)->name, "conv3d_qu8_qs8w_4x8c2_scalar");  // falls back
#endif
  EXPECT_STREQ(find_quantize(Isa::kScalar, Storage::kS8, QuantizeMode::kFloatZeroPoint)->name,
               "quantize_fqp_f32_qs8_scalar");
}

}  // namespace
