#include "qwasm/dtype.h"

namespace qwasm {

QRange dtype_range(DType dtype) {
  switch (dtype) {
    case DType::kQUInt8:
      return {0, 255};
    case DType::kQInt8:
      return {-128, 127};
    case DType::kQInt32:
      return {INT32_MIN, INT32_MAX};
    case DType::kQUInt4x2:
      return {0, 15};
  }
  return {0, 0};
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kQUInt8:
      return "quint8";
    case DType::kQInt8:
      return "qint8";
    case DType::kQInt32:
      return "qint32";
    case DType::kQUInt4x2:
      return "quint4x2";
  }
  return "?";
}

const char* qscheme_name(QScheme scheme) {
  switch (scheme) {
    case QScheme::kPerTensorAffine:
      return "per_tensor_affine";
    case QScheme::kPerChannelAffine:
      return "per_channel_affine";
    case QScheme::kPerChannelAffineFloatQParams:
      return "per_channel_affine_float_qparams";
    case QScheme::kPerTensorSymmetric:
      return "per_tensor_symmetric";
    case QScheme::kPerChannelSymmetric:
      return "per_channel_symmetric";
  }
  return "?";
}

CheckedSize storage_bytes(DType dtype, CheckedSize numel) {
  switch (dtype) {
    case DType::kQUInt8:
    case DType::kQInt8:
      return numel;
    case DType::kQInt32:
      return numel * 4;
    case DType::kQUInt4x2:
      return numel.ok() ? CheckedSize((numel.value() + 1) / 2) : numel;
  }
  return numel;
}

}  // namespace qwasm
