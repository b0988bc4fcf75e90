// The arithmetic of PyTorch's min/max observers (torch/ao/quantization/observer.py):
// the quantization range, the per-batch min/max reduction, the running update
// and _calculate_qparams, all in float32 as PyTorch computes them.
//
// The running state (one min and max per tensor or per channel) is owned by
// the caller and passed in: it is a few floats, and keeping it out of the core
// means an observer owns no wasm memory and needs no dispose(). Every float
// operation on it happens here, in one place.
#pragma once
#include <cstddef>
#include <cstdint>

#include "qwasm/dtype.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

struct ObserverRange {
  int64_t quant_min;
  int64_t quant_max;
  bool customized;  // quant_min / quant_max were given
};

// calculate_qmin_qmax + validate_qmin_qmax. Pass has_custom = false to get the
// dtype's default range (halved by reduce_range).
Status observer_range(DType dtype, bool reduce_range, bool has_custom, int64_t quant_min, int64_t quant_max,
                      ObserverRange* out);

// Validates a (dtype, qscheme, reduce_range) triple as PyTorch's observers do.
Status validate_observer_scheme(DType dtype, QScheme qscheme, bool reduce_range, bool per_channel);

// The channel count of `axis` (which may be negative, counted from the end,
// like PyTorch's ch_axis) in `shape`, or 1 per tensor (per_channel false).
Status observed_channels(const Shape& shape, bool per_channel, int64_t axis, int64_t* channels);

// torch.aminmax over all elements (per_channel false) or per channel of
// `axis`. mins / maxs receive observed_channels() values. Refuses NaN and
// +-Inf with a RangeError naming the element: PyTorch would carry them into a
// NaN or infinite scale.
Status aminmax(const float* x, const Shape& shape, bool per_channel, int64_t axis, float* mins, float* maxs);

// One observe() step on the running state of n channels (n = 1 per tensor).
// first: nothing observed yet, so the batch's values are taken as they are.
// MinMax keeps the running min / max; with averaging, each moves towards the
// batch's: min = min + c * (cur - min), in float32 (MovingAverage*Observer).
void update_running_minmax(float* run_min, float* run_max, const float* cur_min, const float* cur_max, size_t n,
                           bool first, bool averaging, float averaging_constant);

// _calculate_qparams for n channels (n = 1 per tensor), in float32 like
// PyTorch. zero_points receive integers, or float32 values for float qparams.
// A channel with min = +Inf and max = -Inf (nothing observed) gives scale 1,
// zero point 0; min > max is an Error, as PyTorch's check_min_max_valid asserts.
Status calculate_qparams(const float* mins, const float* maxs, size_t n, QScheme qscheme, DType dtype,
                         const ObserverRange& range, float eps, float* scales, double* zero_points);

}  // namespace qwasm
