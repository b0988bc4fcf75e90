#include "qwasm/memory_format.h"

#include "qwasm/checked_size.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

namespace qwasm {
namespace {

// Strides are products of sizes, computed with mul_saturating: only an empty
// tensor's strides can pass int64 (its other dimensions are
// bounded one by one, not as a product): PyTorch refuses such a tensor
// ("Stride calculation overflowed"); qwasm keeps it, and its strides, which
// no element is read through, saturate. For every other tensor the products
// stay below 2^62.

// The dimension orders of the channels-last layouts, innermost first.
const std::initializer_list<int>& channels_last_order(size_t rank) {
  static const std::initializer_list<int> k2d = {1, 3, 2, 0};
  static const std::initializer_list<int> k3d = {1, 4, 3, 2, 0};
  static const std::initializer_list<int> kNone = {};
  return rank == 4 ? k2d : rank == 5 ? k3d : kNone;
}

}  // namespace

Strides contiguous_strides(const std::vector<int64_t>& shape) {
  Strides strides(shape.size());
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = step;
    step = mul_saturating(step, std::max<int64_t>(shape[d], 1));  // as c10 computes them for empty tensors too
  }
  return strides;
}

Strides channels_last_strides(const std::vector<int64_t>& shape) {
  const auto& order = channels_last_order(shape.size());
  if (order.size() == 0) return contiguous_strides(shape);
  Strides strides(shape.size());
  int64_t step = 1;
  for (int d : order) {
    strides[d] = step;
    step = mul_saturating(step, shape[d]);
  }
  return strides;
}

Strides strides_for(const std::vector<int64_t>& shape, MemoryFormat format) {
  return format == MemoryFormat::kChannelsLast ? channels_last_strides(shape) : contiguous_strides(shape);
}

bool is_contiguous(const std::vector<int64_t>& shape, const Strides& strides) {
  for (int64_t size : shape) {
    if (size == 0) return true;  // an empty tensor is contiguous
  }
  int64_t expected = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected = mul_saturating(expected, shape[d]);
  }
  return true;
}

bool is_channels_last_contiguous(const std::vector<int64_t>& shape, const Strides& strides) {
  const auto& order = channels_last_order(shape.size());
  if (order.size() == 0) return false;
  int64_t expected = 1;
  for (int d : order) {
    if (shape[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected = mul_saturating(expected, shape[d]);
  }
  return true;
}

MemoryFormat suggest_memory_format(const std::vector<int64_t>& shape, const Strides& strides) {
  const auto& order = channels_last_order(shape.size());
  if (order.size() == 0 || strides[1] == 0) return MemoryFormat::kContiguous;
  int64_t min = 0;
  for (int d : order) {
    if (shape[d] == 0 || strides[d] < min) return MemoryFormat::kContiguous;
    // An N x 1 x 1 x 1 tensor with equal strides reads as contiguous.
    if (d == 0 && min == strides[1]) return MemoryFormat::kContiguous;
    min = strides[d];
    if (shape[d] > 1) min = mul_saturating(min, shape[d]);
  }
  return MemoryFormat::kChannelsLast;
}

bool view_strides(const std::vector<int64_t>& old_shape, const Strides& old_strides, const std::vector<int64_t>& shape,
                  Strides* out) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (old_shape.empty()) {
    out->assign(shape.size(), 1);
    return true;
  }
  // (Tested by its zero dimension: the product of the others can pass int64.)
  const bool empty = std::find(old_shape.begin(), old_shape.end(), 0) != old_shape.end();
  if (empty) {  // any strides will do; PyTorch's are these
    if (old_shape == shape) {
      *out = old_strides;
    } else {
      out->assign(shape.size(), 1);
      for (int64_t d = rank - 2; d >= 0; --d)
        (*out)[d] = mul_saturating(std::max<int64_t>(shape[d + 1], 1), (*out)[d + 1]);
    }
    return true;
  }
  // Old dimensions group into chunks that are contiguous among themselves;
  // each chunk must be covered exactly by consecutive new dimensions.
  Strides strides(shape.size());
  int64_t view_d = rank - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    const bool chunk_ends = d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
      strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return false;
    if (d > 0) {
      chunk_base_stride = old_strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return false;
  *out = std::move(strides);
  return true;
}

}  // namespace qwasm
