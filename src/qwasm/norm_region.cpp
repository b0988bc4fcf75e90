#include "qwasm/norm_region.h"

#include <string>

#include "qwasm/checked_size.h"

namespace qwasm {

Status norm_region(const QTensor& x, int64_t expected_numel, kernels::Isa isa, const FloatNorm& norm, bool relu,
                   double scale, double zero_point, QTensor* out) {
  if (x.dtype() != DType::kQUInt8 || x.qscheme() != QScheme::kPerTensorAffine) {
    return Status::TypeError("x must be a quint8 per_tensor_affine QTensor");
  }
  if (x.numel() != expected_numel) {
    return Status::RangeError("x holds " + std::to_string(x.numel()) + " elements, the sizes say " +
                              std::to_string(expected_numel));
  }
  Buffer<float> floats;
  QWASM_RETURN_IF_ERROR(floats.allocate(CheckedSize(x.numel()), "the dequantized input", false));
  QWASM_RETURN_IF_ERROR(dequantize(x, isa, floats.data()));
  Buffer<float> y;
  QWASM_RETURN_IF_ERROR(norm(floats.data(), &y));
  floats = Buffer<float>();  // freed before the output is allocated
  if (relu) {
    float* v = y.data();
    for (size_t i = 0; i < y.size(); i++) v[i] = v[i] < 0 ? 0.0f : v[i];
  }
  return quantize_per_tensor(y.data(), x.shape(), scale, zero_point, DType::kQUInt8, isa, out);
}

}  // namespace qwasm
