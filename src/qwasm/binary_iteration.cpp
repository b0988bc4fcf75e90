#include "qwasm/binary_iteration.h"

#include "qwasm/checked_size.h"

#include <algorithm>
#include <string>
#include <utility>

namespace qwasm {
namespace {

// Products of an empty output's dimensions can pass int64 (each dimension is
// bounded, their product is not); they saturate. Nothing is walked then, and
// for every non-empty output the products stay at most its element count.

// compute_strides: an operand's strides aligned to the output's rank; a
// dimension it broadcasts (size 1 against a wider one, or missing) steps 0.
Strides iterator_strides(const Shape& shape, const Strides& strides, const Shape& out) {
  const size_t pad = out.size() - shape.size();
  Strides s(out.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    s[pad + i] = shape[i] == 1 && out[pad + i] != 1 ? 0 : strides[i];
  }
  return s;
}

// reorder_dimensions: an insertion sort of the dimensions, innermost first,
// by the first operand whose strides tell them apart (operands being resized
// take no part).
std::vector<size_t> iteration_order(const Shape& shape, const std::vector<const Strides*>& ops) {
  const size_t rank = shape.size();
  std::vector<size_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
  auto should_swap = [&](size_t d0, size_t d1) {
    for (const Strides* st : ops) {
      const int64_t s0 = (*st)[d0], s1 = (*st)[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;  // equal strides: the smaller size goes inside
    }
    return 0;
  };
  for (size_t i = 1; i < rank; ++i) {
    size_t dim1 = i;
    for (size_t dim0 = i; dim0-- > 0;) {
      const int c = should_swap(perm[dim0], perm[dim1]);
      if (c > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

}  // namespace

namespace binary_internal {
Strides storage_strides(const Shape& shape, const Shape& out) {
  return iterator_strides(shape, contiguous_strides(shape), out);
}
}  // namespace binary_internal

int64_t storage_index(const BinaryIteration& it, const Strides& strides, int64_t pos) {
  int64_t index = 0;
  for (size_t d : it.order) {  // the innermost dimension first
    index += pos % it.shape[d] * strides[d];
    pos /= it.shape[d];
  }
  return index;
}

Status broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return Status::RangeError("shapes do not broadcast: dimension " + std::to_string(i) + " is " +
                                std::to_string(da) + " in a and " + std::to_string(db) + " in b");
    }
    (*out)[i] = da == 1 ? db : da;
  }
  return Status::Ok();
}

Status plan_binary(const QTensor& a, const QTensor& b, BinaryOutput output, BinaryIteration* it) {
  QWASM_RETURN_IF_ERROR(broadcast_shapes(a.shape(), b.shape(), &it->shape));
  const Shape& shape = it->shape;
  const size_t rank = shape.size();
  const MemoryFormat format = suggest_memory_format(a.shape(), a.strides());
  const bool resized = output == BinaryOutput::kFirstInputShape && a.shape() != shape;
  const Strides sa = iterator_strides(a.shape(), a.strides(), shape);
  const Strides sb = iterator_strides(b.shape(), b.strides(), shape);
  Strides so = resized ? Strides(rank, 0) : strides_for(shape, format);
  std::vector<const Strides*> ordering = {&sa, &sb};
  if (!resized) ordering.insert(ordering.begin(), &so);
  it->order = iteration_order(shape, ordering);
  if (resized) {  // allocated contiguously in the iteration order
    int64_t step = 1;
    for (size_t d : it->order) {
      so[d] = step;
      step = mul_saturating(step, shape[d]);
    }
    // allocate_or_resize_outputs: an order that is just the dimensions
    // reversed gives a contiguous tensor (which differs from the above only
    // when a dimension is 0: [3, 0] is (1, 1), not (0, 1)).
    bool inverted = true;
    for (size_t k = 0; k < rank; ++k) inverted = inverted && it->order[k] == rank - 1 - k;
    if (inverted) so = contiguous_strides(shape);
  }
  it->out_strides = so;
  // coalesce_dimensions over the ordered dimensions: the row is the first
  // one after merging neighbours that every operand steps through as one.
  it->row = 1;
  it->vectorizable = false;
  if (rank == 0) return Status::Ok();
  const std::vector<const Strides*> ops = {&so, &sa, &sb};
  int64_t row = shape[it->order[0]];
  Strides inner(ops.size());
  for (size_t k = 0; k < ops.size(); ++k) inner[k] = (*ops[k])[it->order[0]];
  for (size_t j = 1; j < rank; ++j) {
    const size_t d = it->order[j];
    bool merge = row == 1 || shape[d] == 1;
    if (!merge) {
      merge = true;
      for (size_t k = 0; k < ops.size(); ++k) merge = merge && mul_saturating(row, inner[k]) == (*ops[k])[d];
    }
    if (!merge) break;  // the first dimension is final: later merges go to later ones
    if (row == 1) {
      for (size_t k = 0; k < ops.size(); ++k) inner[k] = (*ops[k])[d];
    }
    row = mul_saturating(row, shape[d]);
  }
  it->row = row;
  // cpu_kernel_vec: vector steps when every operand's inner stride is 1, or
  // one input's is 0 (a broadcast scalar) and the others' 1.
  const bool contiguous = inner[0] == 1 && inner[1] == 1 && inner[2] == 1;
  const bool a_scalar = inner[0] == 1 && inner[1] == 0 && inner[2] == 1;
  const bool b_scalar = inner[0] == 1 && inner[1] == 1 && inner[2] == 0;
  it->vectorizable = contiguous || a_scalar || b_scalar;
  return Status::Ok();
}

}  // namespace qwasm
