// The conv kernel table shared by the dispatcher, tests and benchmarks.
#include "kernels/conv_kernels.h"

namespace qwasm {
namespace kernels {

void conv3d_qu8_qs8w_4x8c2__scalar(size_t, size_t, size_t, size_t, const int16_t* const*, const ptrdiff_t*,
                                   const int16_t*, uint8_t* const*, size_t, const ConvRequantParams*);
void dwconv3d_qu8_qs8w_8c__scalar(size_t, size_t, size_t, const int16_t*, const ptrdiff_t*, const int16_t*,
                                  uint8_t*, size_t, const ConvRequantParams*);
void conv3d_f32_4x8__scalar(size_t, size_t, size_t, size_t, const float* const*, const ptrdiff_t*, const float*,
                            const float*, float* const*, size_t, bool);

const ConvKernels kConvKernelsScalar = {
    "conv3d_qu8_qs8w_4x8c2__scalar", &conv3d_qu8_qs8w_4x8c2__scalar,
    "dwconv3d_qu8_qs8w_8c__scalar", &dwconv3d_qu8_qs8w_8c__scalar,
    "conv3d_f32_4x8__scalar", &conv3d_f32_4x8__scalar,
};

#if defined(QWASM_HAVE_WASMSIMD)
void conv3d_qu8_qs8w_4x8c2__wasmsimd_dot16(size_t, size_t, size_t, size_t, const int16_t* const*,
                                           const ptrdiff_t*, const int16_t*, uint8_t* const*, size_t,
                                           const ConvRequantParams*);
void dwconv3d_qu8_qs8w_8c__wasmsimd(size_t, size_t, size_t, const int16_t*, const ptrdiff_t*, const int16_t*,
                                    uint8_t*, size_t, const ConvRequantParams*);
void conv3d_f32_4x8__wasmsimd(size_t, size_t, size_t, size_t, const float* const*, const ptrdiff_t*, const float*,
                              const float*, float* const*, size_t, bool);

const ConvKernels kConvKernelsWasmSimd = {
    "conv3d_qu8_qs8w_4x8c2__wasmsimd_dot16", &conv3d_qu8_qs8w_4x8c2__wasmsimd_dot16,
    "dwconv3d_qu8_qs8w_8c__wasmsimd", &dwconv3d_qu8_qs8w_8c__wasmsimd,
    "conv3d_f32_4x8__wasmsimd", &conv3d_f32_4x8__wasmsimd,
};
#endif

const ConvKernels* conv_kernels(Isa isa) {
  if (isa == Isa::kScalar) return &kConvKernelsScalar;
#if defined(QWASM_HAVE_WASMSIMD)
  return &kConvKernelsWasmSimd;
#else
  return nullptr;
#endif
}

}  // namespace kernels
}  // namespace qwasm
