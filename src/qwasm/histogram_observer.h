// PyTorch's HistogramObserver (torch/ao/quantization/observer.py), its
// default activation observer: a running histogram of everything observed,
// re-binned as the range grows, and an L2-minimising search for the range to
// quantize. Every step uses PyTorch's float32 arithmetic in PyTorch's order
// (torch_float.h), so the qparams equal PyTorch's bit for bit.
//
// As for the min/max observers, the running state (the histogram and its
// min / max) belongs to the caller: the observer owns no wasm memory.
#pragma once
#include <cstddef>
#include <cstdint>

#include "qwasm/status.h"

namespace qwasm {

// Largest bins accepted (PyTorch has no limit; 2^24 bins are 64 MiB of
// histogram and 1 GiB of upsampled scratch).
constexpr int64_t kMaxHistogramBins = int64_t{1} << 24;

// HistogramObserver.upsample_rate: fixed at 16 in PyTorch 2.15.
constexpr int64_t kHistogramUpsampleRate = 16;

// forward(x): x's finite values (infinities are left out, as PyTorch's
// forward does; NaN is a RangeError, as in the other observers) go into the
// running histogram `hist` (bins floats) over [*min, *max]. *min = +Inf or
// *max = -Inf means nothing was observed yet. An empty x, or one with only
// infinities, changes nothing.
Status histogram_observe(const float* x, size_t n, int64_t bins, float* hist, float* min, float* max);

// _non_linear_param_search: the range [*new_min, *new_max] that minimises the
// L2 quantization error of the histogram into dst_nbins (2^bits of the dtype).
Status histogram_search(const float* hist, int64_t bins, float min, float max, int64_t dst_nbins, float* new_min,
                        float* new_max);

}  // namespace qwasm
