// Quantized dtypes and schemes, with PyTorch's names and integer ranges.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace qwasm {

enum class DType { kQUInt8, kQInt8, kQInt32, kQUInt4x2 };

enum class QScheme {
  kPerTensorAffine,
  kPerChannelAffine,
  kPerChannelAffineFloatQParams,
  // Observers only: tensors never carry the symmetric schemes (PyTorch QTensor.cpp).
  kPerTensorSymmetric,
  kPerChannelSymmetric,
};

struct QRange {
  int64_t qmin;
  int64_t qmax;
};

QRange dtype_range(DType dtype);
const char* dtype_name(DType dtype);
const char* qscheme_name(QScheme scheme);
bool parse_dtype(const std::string& name, DType* out);
bool parse_qscheme(const std::string& name, QScheme* out);

// Bytes of int_repr() storage for numel elements (quint4x2 packs two per byte).
size_t storage_bytes(DType dtype, size_t numel);

}  // namespace qwasm
