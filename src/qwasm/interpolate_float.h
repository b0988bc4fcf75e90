// linear / bilinear / trilinear interpolation of float32 planes by PyTorch
// 2.15's generic kernel (aten/src/ATen/native/cpu/UpSampleKernel.cpp
// upsample_generic_Nd_kernel_impl, Interpolate<n, ..., 2>): along each
// spatial axis t0 * w0 + t1 * w1, which GCC contracts to fma(t0, w0, t1 * w1),
// innermost the last axis. The source indices and weights of each axis come
// from the caller (web/src/nn/interpolate.mjs linearAxis, which follows
// UpSample.h's compute_source_index_and_lambda); docs/numerics.md,
// "Resampling".
#pragma once
#include <cstdint>
#include <vector>

#include "qwasm/buffer.h"
#include "qwasm/status.h"

namespace qwasm {
namespace torch_cpu {

// One axis's table, one entry per output position: the two source indices
// and their weights.
struct LinearAxis {
  const int32_t* i0 = nullptr;
  const int32_t* i1 = nullptr;
  const float* l0 = nullptr;
  const float* l1 = nullptr;
};

// Interpolates `planes` contiguous planes of spatial sizes `in` (1 to 3 axes)
// to sizes `out`, axis a by axes[a] (out[a] entries, indices in [0, in[a])).
// y receives planes * prod(out) floats. Error (before allocating) when the
// ranks differ or are not 1 to 3, a size is below 1, planes is negative, an
// index is out of range, or a count overflows.
Status linear_generic(const float* x, int64_t planes, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      const LinearAxis* axes, Buffer<float>* y);

}  // namespace torch_cpu
}  // namespace qwasm
