// The order in which PyTorch's TensorIterator walks a binary element-wise op
// (one thread), and where its rows start. PyTorch's quantized add and mul run
// each row 64 elements at a time with vector arithmetic and finish it with
// scalar arithmetic, and the two round differently in the last bit: which
// element takes which path depends on the row length, and so on the operands'
// layouts (their strides, qwasm/memory_format.h) and broadcasting.
//
// Follows aten/src/ATen/TensorIterator.cpp: compute_strides, reorder_dimensions
// (operands sorted by stride, the output first unless it is resized),
// allocate_or_resize_outputs and coalesce_dimensions.
#pragma once
#include <cstdint>
#include <vector>

#include "qwasm/memory_format.h"
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

// How the op allocated its output before the iterator saw it.
enum class BinaryOutput {
  kFirstInputShape,  // quantized::add: a's shape, a's suggested format (resized when b widens it)
  kBroadcastShape,   // quantized::mul: the broadcast shape, a's suggested format
};

struct BinaryIteration {
  Shape shape;                // the broadcast output shape
  Strides out_strides;        // PyTorch's strides of the output
  std::vector<size_t> order;  // the dimensions, innermost first
  int64_t row = 1;            // elements per row of the loop
  bool vectorizable = false;  // whether rows take the 64-element vector steps
};

// The broadcast shape of a and b, or an error naming the dimension that differs.
Status broadcast_shapes(const Shape& a, const Shape& b, Shape* out);

Status plan_binary(const QTensor& a, const QTensor& b, BinaryOutput output, BinaryIteration* it);

// Calls f(out_index, a_index, b_index, vector) for every output element in
// the iterator's order; indices are into qwasm's row-major storage, and
// `vector` says whether PyTorch computed that element with vector arithmetic.
template <typename F>
void for_each_binary(const BinaryIteration& it, const Shape& a, const Shape& b, F f);

// The row-major storage index of the output element at position `pos` of the
// iteration (0 <= pos < the element count); `strides` are
// contiguous_strides(it.shape), computed once by the caller.
int64_t storage_index(const BinaryIteration& it, const Strides& strides, int64_t pos);

// ---------------------------------------------------------------------------

namespace binary_internal {
// Row-major element strides of `shape` aligned to out's rank, 0 where it broadcasts.
Strides storage_strides(const Shape& shape, const Shape& out);
}  // namespace binary_internal

template <typename F>
void for_each_binary(const BinaryIteration& it, const Shape& a, const Shape& b, F f) {
  const size_t rank = it.shape.size();
  // An empty output has nothing to walk (and its other dimensions can
  // multiply past int64): leave before the product.
  for (int64_t d : it.shape) {
    if (d == 0) return;
  }
  int64_t numel = 1;
  for (int64_t d : it.shape) numel *= d;
  const Strides so = contiguous_strides(it.shape);
  const Strides sa = binary_internal::storage_strides(a, it.shape);
  const Strides sb = binary_internal::storage_strides(b, it.shape);
  const int64_t vector_end = it.vectorizable ? it.row / 64 * 64 : 0;
  std::vector<int64_t> index(rank, 0);
  int64_t oo = 0, oa = 0, ob = 0;
  for (int64_t i = 0; i < numel; ++i) {
    f(oo, oa, ob, i % it.row < vector_end);
    for (size_t k = 0; k < rank; ++k) {  // the innermost dimension first
      const size_t d = it.order[k];
      oo += so[d];
      oa += sa[d];
      ob += sb[d];
      if (++index[d] < it.shape[d]) break;
      oo -= so[d] * it.shape[d];
      oa -= sa[d] * it.shape[d];
      ob -= sb[d] * it.shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace qwasm
