// The quantized dtypes and schemes, as plain enums with no code behind them
// (dtype.h adds their names, ranges and sizes). Kept apart so that the naive
// reference (tests/reference), which must not include the core it checks,
// can still speak the same vocabulary as its callers. The codes the JavaScript
// layer sends for them are bindings/codes.h's.
#pragma once

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

}  // namespace qwasm
