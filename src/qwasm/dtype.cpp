#include "qwasm/dtype.h"

namespace qwasm {

QRange dtype_range(DType dtype) {
  switch (dtype) {
    case DType::kQUInt8: return {0, 255};
    case DType::kQInt8: return {-128, 127};
    case DType::kQInt32: return {INT32_MIN, INT32_MAX};
    case DType::kQUInt4x2: return {0, 15};
  }
  return {0, 0};
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kQUInt8: return "quint8";
    case DType::kQInt8: return "qint8";
    case DType::kQInt32: return "qint32";
    case DType::kQUInt4x2: return "quint4x2";
  }
  return "?";
}

const char* qscheme_name(QScheme scheme) {
  switch (scheme) {
    case QScheme::kPerTensorAffine: return "per_tensor_affine";
    case QScheme::kPerChannelAffine: return "per_channel_affine";
    case QScheme::kPerChannelAffineFloatQParams: return "per_channel_affine_float_qparams";
    case QScheme::kPerTensorSymmetric: return "per_tensor_symmetric";
    case QScheme::kPerChannelSymmetric: return "per_channel_symmetric";
  }
  return "?";
}

bool parse_dtype(const std::string& name, DType* out) {
  for (DType d : {DType::kQUInt8, DType::kQInt8, DType::kQInt32, DType::kQUInt4x2}) {
    if (name == dtype_name(d)) {
      *out = d;
      return true;
    }
  }
  return false;
}

bool parse_qscheme(const std::string& name, QScheme* out) {
  for (QScheme s : {QScheme::kPerTensorAffine, QScheme::kPerChannelAffine,
                    QScheme::kPerChannelAffineFloatQParams, QScheme::kPerTensorSymmetric,
                    QScheme::kPerChannelSymmetric}) {
    if (name == qscheme_name(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

size_t storage_bytes(DType dtype, size_t numel) {
  switch (dtype) {
    case DType::kQUInt8:
    case DType::kQInt8: return numel;
    case DType::kQInt32: return numel * 4;
    case DType::kQUInt4x2: return (numel + 1) / 2;
  }
  return 0;
}

}  // namespace qwasm
