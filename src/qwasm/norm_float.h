// InstanceNorm, GroupNorm and LayerNorm on float32, with PyTorch 2.15's CPU
// arithmetic step for step (docs/numerics.md, "Normalisation"), so that every
// element equals PyTorch's bit for bit:
// - InstanceNorm is batch_norm on x viewed as [1, N*C, *] with batch
//   statistics (Normalization.cpp instance_norm; batch_norm_kernel.cpp
//   batch_norm_cpu_collect_stats_contiguous_impl: sums in double), or with
//   the running statistics (eval mode with track_running_stats);
// - GroupNorm and LayerNorm take each row's mean and variance from
//   RowwiseMoments (moments_utils.h: Welford over 8-lane vectors, chunks of 16
//   merged as a cascade), then group_norm_kernel.cpp's / layer_norm_kernel.cpp's
//   affine step.
// Where PyTorch's x86 build (GCC, -mfma) contracts a * b + c into one fused
// multiply-add, this calls kernels::fma_f32 (one rounding, exact without an
// fma instruction); every other step rounds to float32 once, as ATen's does
// (the build has -ffp-contract=off, so nothing else is fused).
// Every function validates its sizes in checked 64-bit arithmetic before it
// allocates its output.
#pragma once
#include <cstdint>

#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/status.h"

namespace qwasm {
namespace torch_cpu {

// RowwiseMoments(x[0 .. count)) in float32 (count >= 1): mean and biased variance.
void rowwise_moments(const float* x, int64_t count, float* mean, float* variance,
                     kernels::Isa isa = kernels::Isa::kScalar);

// Per-channel (InstanceNorm, GroupNorm) or per-element (LayerNorm) affine
// parameters and running statistics; each null when absent (weight 1, bias 0;
// InstanceNorm without running statistics uses the input's own).
struct NormParams {
  const float* weight = nullptr;
  const float* bias = nullptr;
  const float* running_mean = nullptr;  // InstanceNorm only; with running_var
  const float* running_var = nullptr;
  double eps = 1e-5;
  // The element loops' kernels (kernels/norm_rows.h): the same bits either way.
  kernels::Isa isa = kernels::Isa::kScalar;
};

// InstanceNorm of x: `rows` rows (N * C, or C unbatched) of `inner` floats,
// row r of channel r % channels; parameters of `channels` floats. Error when
// channels < 1, rows is not a multiple of channels, inner < 1 with rows > 0,
// eps is not a finite number >= 0, or rows * inner overflows.
Status instance_norm(const float* x, int64_t rows, int64_t channels, int64_t inner, const NormParams& p,
                     Buffer<float>* y);

// GroupNorm of x [batch, channels, spatial] in `groups` groups; parameters
// of `channels` floats. Error when channels or groups < 1, channels % groups
// != 0, spatial < 1 with batch > 0, eps is not a finite number >= 0, or the
// element count overflows.
Status group_norm(const float* x, int64_t batch, int64_t channels, int64_t spatial, int64_t groups, const NormParams& p,
                  Buffer<float>* y);

// LayerNorm of x: `rows` rows of `inner` floats each normalised; parameters
// of `inner` floats. Error when inner < 1, eps is not a finite number >= 0,
// or rows * inner overflows.
Status layer_norm(const float* x, int64_t rows, int64_t inner, const NormParams& p, Buffer<float>* y);

}  // namespace torch_cpu
}  // namespace qwasm
