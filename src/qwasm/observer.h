// The arithmetic of PyTorch's min/max observers (torch/ao/quantization/observer.py):
// the quantization range, the per-batch min/max reduction and _calculate_qparams.
// The running state (min/max per channel, moving averages) is kept by the
// caller: it is a few floats, and keeping it out of the core means an observer
// owns no wasm memory.
#pragma once
#include <cstdint>
#include <vector>

#include "qwasm/dtype.h"
#include "qwasm/status.h"

namespace qwasm {

struct ObserverRange {
  int64_t quant_min;
  int64_t quant_max;
  bool customized;  // quant_min / quant_max were given
};

// calculate_qmin_qmax + validate_qmin_qmax. Pass has_custom = false to get the
// dtype's default range (halved by reduce_range).
Status observer_range(DType dtype, bool reduce_range, bool has_custom, int64_t quant_min,
                      int64_t quant_max, ObserverRange* out);

// Validates a (dtype, qscheme, reduce_range) triple as PyTorch's observers do.
Status validate_observer_scheme(DType dtype, QScheme qscheme, bool reduce_range, bool per_channel);

// torch.aminmax over all elements (axis < 0) or per channel of `axis`.
// mins / maxs receive 1 or shape[axis] values. Returns a RangeError naming the
// first non-finite element: observers here refuse NaN and +-Inf (PyTorch would
// carry them into a NaN or infinite scale).
Status aminmax(const float* x, const std::vector<int64_t>& shape, int64_t axis, float* mins, float* maxs);

// _calculate_qparams for n channels (n = 1 per tensor), in float32 like PyTorch.
// zero_points receive integers, or float32 values for float qparams. A channel
// with min = +Inf and max = -Inf (nothing observed) gives scale 1, zero point 0.
void calculate_qparams(const float* mins, const float* maxs, size_t n, QScheme qscheme, DType dtype,
                       const ObserverRange& range, float eps, float* scales, double* zero_points);

}  // namespace qwasm
