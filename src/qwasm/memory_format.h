// The strides PyTorch would give a tensor, kept beside qwasm's storage.
//
// qwasm always stores elements in logical (row-major) order. PyTorch does
// not: a quantized convolution returns a channels-last tensor, and several of
// PyTorch's kernels pick their formula from the layout they are handed (an
// average pool adds the zero point before or after rounding, a mean divides
// integers or sums dequantized floats, an element-wise loop splits its rows
// into vector and scalar parts differently). To give PyTorch's integers,
// every QTensor carries the strides PyTorch's tensor would have, and each op
// decides with c10's own tests on them (c10/core/Contiguity.h,
// c10/core/MemoryFormat.h, TensorBase::suggest_memory_format).
#pragma once
#include <cstdint>
#include <vector>

namespace qwasm {

using Strides = std::vector<int64_t>;

enum class MemoryFormat : uint8_t {
  kContiguous,
  kChannelsLast,  // torch.channels_last for rank 4, torch.channels_last_3d for rank 5
};

// Row-major strides (torch.contiguous_format).
Strides contiguous_strides(const std::vector<int64_t>& shape);

// c10's get_channels_last_strides_2d (rank 4) / _3d (rank 5); contiguous
// strides for other ranks.
Strides channels_last_strides(const std::vector<int64_t>& shape);

// The strides of a freshly allocated tensor of this format.
Strides strides_for(const std::vector<int64_t>& shape, MemoryFormat format);

// tensor.is_contiguous(): sizes of 1 place no constraint.
bool is_contiguous(const std::vector<int64_t>& shape, const Strides& strides);

// tensor.is_contiguous(channels_last) for rank 4, (channels_last_3d) for rank 5.
bool is_channels_last_contiguous(const std::vector<int64_t>& shape, const Strides& strides);

// tensor.suggest_memory_format(): c10's heuristic, which reads the strides of
// size-1 dimensions too.
MemoryFormat suggest_memory_format(const std::vector<int64_t>& shape, const Strides& strides);

// The strides of old.view(shape) (ATen's computeStride), or false when
// PyTorch could not make that view (its reshape then copies into a
// contiguous tensor).
bool view_strides(const std::vector<int64_t>& old_shape, const Strides& old_strides, const std::vector<int64_t>& shape,
                  Strides* out);

}  // namespace qwasm
