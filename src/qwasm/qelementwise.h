// Element-wise ops on quint8 per-tensor QTensors, as PyTorch 2.15 computes
// them on x86-64 CPUs with one thread (docs/numerics.md, "Quantized
// element-wise ops"): quantized::add / add_relu / mul / mul_relu (with
// broadcasting), add_scalar / mul_scalar, cat, and the integer clamps
// (relu, relu6, hardtanh).
//
// PyTorch runs AVX2 kernels for these (their AVX-512 slot is empty), through
// a loop that takes 64 elements at a time with vector arithmetic and the rest
// of each row with scalar arithmetic, and the two round differently in the
// last bit (the vector dequantize is a fused multiply-add). qwasm reproduces
// which elements take which path.
#pragma once
#include <cstdint>
#include <vector>

#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

// quantized::add(a, b, scale, zero_point) (relu: add_relu), broadcasting a and b.
Status qadd(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu, QTensor* out);

// quantized::mul(a, b, scale, zero_point) (relu: mul_relu), broadcasting.
Status qmul(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu, QTensor* out);

// quantized::add_scalar(x, c): shifts the zero point (the integers stay)
// unless it would leave 0..255, then requantizes to a wider scale.
Status qadd_scalar(const QTensor& x, double c, bool relu, QTensor* out);

// quantized::mul_scalar(x, c): scales the qparams; c < 0 mirrors the integers.
Status qmul_scalar(const QTensor& x, double c, bool relu, QTensor* out);

// quantized::cat(xs, dim, scale, zero_point): dim as given (not wrapped, as
// quantized::cat tests it for its channels-last path); every input quint8 per
// tensor with the same shape but along dim.
Status qcat(const std::vector<const QTensor*>& xs, int64_t dim, double scale, double zero_point, QTensor* out);

// relu (lo = 0, no hi), relu6 (0, 6), hardtanh (lo, hi): the bounds are
// quantized with x's qparams and the integers clamped; x's qparams stay.
Status qclamp(const QTensor& x, bool has_lo, double lo, bool has_hi, double hi, QTensor* out);

}  // namespace qwasm
