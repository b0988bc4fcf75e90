// The float region `dequantize -> norm -> [relu] -> quantize` of a PT2E graph
// (MONAI's SegResNet, UNet, DynUNet: a norm and its activation between two
// int8 convs) computed in one call: the same three steps as the graph's
// nodes, with the same kernels, so the integers are those of the three nodes
// run one by one (docs/numerics.md, "Normalisation"), without the float
// tensors leaving wasm memory or ReLU allocating a third.
#pragma once
#include <functional>

#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

// A float normalisation of x (as many floats as the region's input holds) into y.
using FloatNorm = std::function<Status(const float* x, Buffer<float>* y)>;

// x: a per-tensor quint8 QTensor of `expected_numel` elements, in contiguous
// order. Dequantizes it (the graph's dequantize), runs `norm`, applies ReLU
// when asked (torch.relu: x < 0 ? 0 : x, so -0 and NaN come through) and
// quantizes to (scale, zero_point) as quint8 (the graph's quantize), with the
// kernels of `isa`. Errors: x of another dtype or scheme, a count other than
// expected_numel, and whatever the norm or the allocations return; out is
// untouched then.
Status norm_region(const QTensor& x, int64_t expected_numel, kernels::Isa isa, const FloatNorm& norm, bool relu,
                   double scale, double zero_point, QTensor* out);

}  // namespace qwasm
