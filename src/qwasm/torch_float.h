// PyTorch's CPU float32 arithmetic, computed exactly as PyTorch 2.15 computes
// it: the primitives HistogramObserver is built from (so that the observer's
// qparams equal PyTorch's bit for bit), and the float modules' element-wise
// formulas that nn and a loaded graph share (clamp for ReLU, ReLU6 and
// Hardtanh; BatchNorm in eval mode and its folding into a conv or linear).
// Each one names the ATen source it follows; docs/numerics.md has the details.
// NaN and the infinities flow through them as through PyTorch's, and -0
// keeps its sign where PyTorch's does.
//
// Two of them depend on how PyTorch was built and run: linspace is compiled
// with floating-point contraction (its `start + step * i` is a fused
// multiply-add on x86-64 builds), and sum's reduction order depends on the
// SIMD width of the kernels ATen picks at run time. qwasm follows an AVX-512
// machine (16 float lanes) running PyTorch with one thread, which is what the
// committed goldens were generated on.
#pragma once
#include <cstddef>
#include <cstdint>

#include "qwasm/buffer.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {
namespace torch_cpu {

// Float lanes of ATen's Vectorized<float> on an AVX-512 build.
constexpr int kVecLanes = 16;

// torch.linspace(start, end, steps) in float32 (RangeFactoriesKernel.cpp):
// start and end rounded to float, step = (end - start) / (steps - 1) in
// float, element i = fma(step, i, start) below steps / 2 and
// fma(-step, steps - 1 - i, end) from there. out holds steps values.
void linspace(double start, double end, int64_t steps, float* out);

// torch.histc(x, bins, min, max) on float32 (Histogram.cpp
// histc_select_outer_bin_edges, HistogramKernel.cpp LINEAR_INTERPOLATION):
// equal bounds widen to the data's range, then to [v - 1, v + 1]; elements
// outside the bounds (and NaN) are skipped; element e goes to bin
// trunc((e - lo) * bins / (hi - lo)) in float, the last bin closed.
// hist receives bins counts. Error when the bounds are not finite.
Status histc(const float* x, size_t n, int64_t bins, double min, double max, float* hist);

// torch.sum of n contiguous floats (SumKernel.cpp cascade_sum: vectorized
// inner sum, float accumulators, four interleaved rows, cascade levels).
float sum(const float* x, size_t n);

// torch.sum over the rows of a [rows, channels] block of floats, per channel
// (out holds channels sums): SumKernel.cpp's outer reduction, which a sum
// over the spatial dimensions of a channels-last tensor is. Its kernel has no
// AVX-512 build, so it runs the AVX2 one (8 lanes): channels in whole blocks
// of 4 vectors (of 4 channels when there are fewer than 8) take one cascade
// per channel, the others the four-partial row sum.
void sum_outer(const float* x, int64_t rows, int64_t channels, float* out);

// torch.cumsum of n floats (a double accumulator, rounded per element).
void cumsum(const float* x, size_t n, float* out);

// c10::div_floor_floating(a, b): Python's floor division in float.
float div_floor(float a, float b);

// std::upper_bound over sorted edges, minus one (torch.bucketize(..., right=True) - 1).
int64_t bucket_right(const float* edges, int64_t n_edges, float v);

// torch.clamp(x, lo, hi) on n floats (TensorCompare.cpp clamp_stub:
// min(max(x, lo), hi) with NaN propagated): an element below lo becomes lo,
// then one above hi becomes hi; NaN, and -0 inside the bounds, come through.
// An infinite bound is no bound: relu is clamp(x, 0, +inf), relu6
// clamp(x, 0, 6), hardtanh(x, a, b) clamp(x, a, b); a NaN bound makes every
// element NaN. out may be x.
void clamp(const float* x, size_t n, float lo, float hi, float* out);

// A BatchNorm's running statistics and affine parameters, `channels` of each;
// weight and bias are null without affine (PyTorch then uses 1 and 0).
struct BatchNormStats {
  int64_t channels = 0;
  const float* weight = nullptr;
  const float* bias = nullptr;
  const float* mean = nullptr;
  const float* var = nullptr;
  double eps = 1e-5;
};

// BatchNorm in eval mode on x of `shape` [N, C, *] (batch_norm_kernel.cpp
// batch_norm_cpu_collect_linear_and_constant_terms and the contiguous
// kernel): per channel invstd = 1 / sqrt(var + (float)eps), alpha = invstd *
// weight, beta = bias - mean * alpha, each step rounded to float, then
// y = fma(x, alpha, beta) (PyTorch's x86 build contracts `x * alpha + beta`).
// y receives numel(shape) floats. Error when the shape is
// not [N, C, *] with C == bn.channels, or eps is not a finite number >= 0.
Status batch_norm_eval(const float* x, const Shape& shape, const BatchNormStats& bn, Buffer<float>* y);

// torch.nn.utils.fusion's fuse_conv_bn_weights / fuse_linear_bn_weights in
// float32: r = rsqrt(var + eps) (computed as 1 / sqrt); a conv's weight
// becomes W * (weight * r) per output channel and its bias
// ((b - mean) * r) * weight + bias; a linear's weight the same and its bias
// (b - mean) * (weight * r) + bias. `w` has `w_shape` [out, ...]; b (null: 0)
// has out values. A linear's BatchNorm may have one channel (broadcast), and
// must be affine (PyTorch refuses otherwise). folded_w / folded_b receive the
// new weight (numel(w_shape)) and bias (out).
Status fold_batch_norm(const float* w, const Shape& w_shape, const float* b, const BatchNormStats& bn, bool linear,
                       Buffer<float>* folded_w, Buffer<float>* folded_b);

}  // namespace torch_cpu
}  // namespace qwasm
