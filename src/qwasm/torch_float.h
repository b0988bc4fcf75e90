// PyTorch's CPU float32 primitives that HistogramObserver is built from,
// computed exactly as PyTorch 2.15 computes them, so that the observer's
// qparams equal PyTorch's bit for bit. Each one names the ATen source it
// follows; docs/numerics.md has the details.
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

}  // namespace torch_cpu
}  // namespace qwasm
