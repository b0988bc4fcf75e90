// Pooling: max, average and adaptive average over 1, 2 or 3 spatial
// dimensions, on quint8 per-tensor QTensors with PyTorch 2.15's integers, and
// on float tensors (docs/numerics.md, "Quantized pooling").
//
// Inputs are PyTorch's layouts: [N, C, *spatial] or, where PyTorch accepts
// it, the unbatched [C, *spatial]. The quantized outputs keep the input's
// qparams, as PyTorch's do.
#pragma once
#include <cstdint>

#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

struct PoolParams {
  int dims = 3;  // spatial dimensions: 1, 2 or 3
  // Per spatial dimension, outermost first (D, H, W for 3d).
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  bool ceil_mode = false;
  // Average pooling only.
  bool count_include_pad = true;
  bool has_divisor = false;
  int64_t divisor = 0;
};

enum class PoolKind { kMax, kAvg };

// The output shape of pooling `input` (PyTorch's pooling_output_shape and its
// checks), or an error naming what is wrong.
Status pool_output_shape(const Shape& input, const PoolParams& p, PoolKind kind, bool quantized, Shape* out);

// nn.MaxPool{1,2,3}d on a quint8 QTensor: the integer maximum over the taps
// inside the input (padding is never compared; an all-padding window gives 0).
// isa picks the row kernels (kernels/pool_rows.inc); every ISA gives the same integers.
Status qmax_pool(const QTensor& x, const PoolParams& p, QTensor* out, kernels::Isa isa = kernels::best_isa());

// nn.AvgPool{1,2,3}d on a quint8 QTensor.
Status qavg_pool(const QTensor& x, const PoolParams& p, QTensor* out, kernels::Isa isa = kernels::best_isa());

// nn.AdaptiveAvgPool{1,2,3}d on a quint8 QTensor; output_size holds p.dims sizes.
Status qadaptive_avg_pool(const QTensor& x, int dims, const int64_t* output_size, QTensor* out,
                          kernels::Isa isa = kernels::best_isa());

// The same on float tensors (PyTorch's float semantics: padding is -Inf for
// max). y receives the output; y_shape its shape.
Status fmax_pool(const float* x, const Shape& shape, const PoolParams& p, Buffer<float>* y, Shape* y_shape);
Status favg_pool(const float* x, const Shape& shape, const PoolParams& p, Buffer<float>* y, Shape* y_shape);
Status fadaptive_pool(const float* x, const Shape& shape, int dims, const int64_t* output_size, PoolKind kind,
                      Buffer<float>* y, Shape* y_shape);

}  // namespace qwasm
