// Naive whole-tensor quantize / dequantize: the oracle the kernels are tested
// against. One obvious loop over flat indices; the channel of index i is
// (i / inner) % channels; the element arithmetic written out here, separately
// from the kernels' (docs/numerics.md). No tiling, no kernels, no shortcuts.
// It includes none of the core it checks: only the plain dtype and scheme
// enums (qwasm/quant_types.h, no code behind them); the integer ranges are
// written here again.
#pragma once
#include <cstdint>
#include <vector>

#include "qwasm/quant_types.h"

namespace qwasm {
namespace ref {

struct QParamsView {
  QScheme scheme;             // per_tensor_affine, per_channel_affine or ..._float_qparams
  int64_t axis;               // ignored for per tensor
  const double* scales;       // 1 (per tensor) or shape[axis] entries
  const double* zero_points;  // integer-valued unless float qparams
};

// out holds storage_bytes(dtype, numel) bytes, laid out as int_repr().
void quantize(const float* x, const std::vector<int64_t>& shape, const QParamsView& qp, DType dtype, uint8_t* out);
void dequantize(const uint8_t* q, const std::vector<int64_t>& shape, const QParamsView& qp, DType dtype, float* y);

}  // namespace ref
}  // namespace qwasm
