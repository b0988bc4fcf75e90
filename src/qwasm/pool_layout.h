// Internal to the pooling files: an input seen as planes (N * C of them) of up
// to three spatial dimensions, padded to three (leading dimensions of size 1
// for 1d and 2d), and the window each output position reads.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "qwasm/pool.h"

namespace qwasm {
namespace pool_internal {

struct Layout {
  int64_t planes = 1;          // N * C (C for unbatched inputs)
  int64_t channels = 1;        // C
  int64_t in[3] = {1, 1, 1};   // input spatial sizes, 3d-padded
  int64_t out[3] = {1, 1, 1};  // output spatial sizes, 3d-padded
  int rank = 0;                // the input's rank
  bool batched = true;
  Shape out_shape;  // PyTorch's output shape
  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

// The spatial sizes of `shape` for `dims` spatial dimensions (ranks dims + 1 or
// dims + 2 unless rank5_only), every dimension >= 1.
Status input_layout(const Shape& shape, int dims, bool rank5_only, const char* op, Layout* l);

// PoolParams padded to three dimensions (kernel 1, stride 1 in front).
PoolParams padded(const PoolParams& p);

// Regular pooling: fills l->out and l->out_shape from p (PyTorch's checks).
Status regular_output(const PoolParams& p, PoolKind kind, Layout* l);

// Adaptive pooling: fills l->out and l->out_shape from the requested sizes.
Status adaptive_output(int dims, const int64_t* output_size, Layout* l);

// [start, end) of output o's adaptive window over `in` elements producing
// `out` (computed in float as PyTorch does). Float rounding can put the end
// past the input (in 3, out 2^24 + 1: the last window is [3, 4)), where
// PyTorch reads past its buffer: the window is clipped to the input, and can
// then be empty.
inline void adaptive_window(int64_t o, int64_t in, int64_t out, int64_t* start, int64_t* end) {
  *start = static_cast<int64_t>(std::floor(static_cast<float>(o * in) / static_cast<float>(out)));
  *end = static_cast<int64_t>(std::ceil(static_cast<float>((o + 1) * in) / static_cast<float>(out)));
  *end = std::min(*end, in);
  *start = std::min(*start, *end);
}

// One dimension's average window: real [start, end) and the extent counted
// with count_include_pad (clipped to the padded input).
struct AvgWindow {
  int64_t start, end, pool;
};
inline AvgWindow avg_window(int64_t o, int64_t in, int64_t k, int64_t s, int64_t pad) {
  int64_t start = o * s - pad;
  int64_t end = std::min(start + k, in + pad);
  const int64_t pool = end - start;
  start = std::max<int64_t>(start, 0);
  end = std::min(end, in);
  return {start, end, pool};
}

// The taps [*k0, *k1) of a window starting at `start` (kernel taps,
// `dilation` apart) that fall inside [0, in): the loops visit only those, so
// a huge kernel over a small input costs nothing.
inline void taps_inside(int64_t start, int64_t kernel, int64_t dilation, int64_t in, int64_t* k0, int64_t* k1) {
  *k0 = start < 0 ? (-start + dilation - 1) / dilation : 0;
  *k1 = start < in ? std::min(kernel, (in - start + dilation - 1) / dilation) : 0;
  *k1 = std::max(*k1, *k0);
}

}  // namespace pool_internal
}  // namespace qwasm
