// Quantized dtypes and schemes (the enums: quant_types.h), with PyTorch's
// names and integer ranges.
#pragma once
#include <cstddef>
#include <cstdint>

#include "qwasm/checked_size.h"
#include "qwasm/quant_types.h"  // DType, QScheme

namespace qwasm {

struct QRange {
  int64_t qmin;
  int64_t qmax;
};

QRange dtype_range(DType dtype);
const char* dtype_name(DType dtype);
const char* qscheme_name(QScheme scheme);

// Bytes of int_repr() storage for numel elements (quint4x2 packs two per byte).
CheckedSize storage_bytes(DType dtype, CheckedSize numel);

}  // namespace qwasm
