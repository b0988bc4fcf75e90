// Quantized dtypes and schemes, with PyTorch's names and integer ranges. The
// enum values are the codes the JavaScript layer passes across the boundary.
#pragma once
#include <cstddef>
#include <cstdint>

#include "qwasm/checked_size.h"

namespace qwasm {

enum class DType { kQUInt8 = 0, kQInt8 = 1, kQInt32 = 2, kQUInt4x2 = 3 };

enum class QScheme {
  kPerTensorAffine = 0,
  kPerChannelAffine = 1,
  kPerChannelAffineFloatQParams = 2,
  // Observers only: tensors never carry the symmetric schemes (PyTorch QTensor.cpp).
  kPerTensorSymmetric = 3,
  kPerChannelSymmetric = 4,
};

struct QRange {
  int64_t qmin;
  int64_t qmax;
};

QRange dtype_range(DType dtype);
const char* dtype_name(DType dtype);
const char* qscheme_name(QScheme scheme);
// Codes as the JavaScript layer sends them; false for anything else.
bool dtype_from_code(double code, DType* out);
bool qscheme_from_code(double code, QScheme* out);

// Bytes of int_repr() storage for numel elements (quint4x2 packs two per byte).
CheckedSize storage_bytes(DType dtype, CheckedSize numel);

}  // namespace qwasm
