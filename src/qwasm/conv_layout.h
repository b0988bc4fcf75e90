// Internal to the conv implementation (conv_pack.cpp, conv_run.cpp): how the
// generic kernels walk the reduction, where each output pixel's input starts
// in the padded channels-last buffer, and the conversion into that buffer.
// Layouts: kernels/conv_kernels.h.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "qwasm/buffer.h"
#include "qwasm/conv.h"
#include "qwasm/thread_pool.h"

namespace qwasm {
namespace conv_internal {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline bool is_depthwise(const ConvGeometry& g) {
  return g.groups == g.in_channels && g.groups == g.out_channels && g.groups > 1;
}

// The reduction of one output pixel, for a kernel tile of nr channels and kr
// values per dot. Only formed once the weight's existence bounds the geometry.
struct Reduction {
  int64_t cg, og;    // channels per group, in and out
  bool merged_rows;  // W dilation 1: a (kd, kh) row of kW taps is one segment
  int64_t nseg, seg_len, kblocks, blocks;
};

inline Reduction reduction_of(const ConvGeometry& g, int64_t nr, int64_t kr) {
  Reduction r;
  r.cg = g.in_channels / g.groups;
  r.og = g.out_channels / g.groups;
  r.merged_rows = g.dilation[2] == 1;
  r.nseg = g.kernel[0] * g.kernel[1] * (r.merged_rows ? 1 : g.kernel[2]);
  r.seg_len = r.merged_rows ? g.kernel[2] * r.cg : r.cg;
  r.kblocks = ceil_div(r.seg_len, kr);
  r.blocks = ceil_div(r.og, nr);
  return r;
}

// Maps position idx of segment s to (kd, kh, kw, c).
inline void tap_of(const ConvGeometry& g, const Reduction& r, int64_t s, int64_t idx, int64_t* kd, int64_t* kh,
                   int64_t* kw, int64_t* c) {
  if (r.merged_rows) {
    *kd = s / g.kernel[1];
    *kh = s % g.kernel[1];
    *kw = idx / r.cg;
    *c = idx % r.cg;
  } else {
    *kd = s / (g.kernel[1] * g.kernel[2]);
    *kh = (s / g.kernel[2]) % g.kernel[1];
    *kw = s % g.kernel[2];
    *c = idx;
  }
}

struct Spatial {
  int64_t D, H, W;     // input
  int64_t Dp, Hp, Wp;  // padded input
  int64_t Do, Ho, Wo;  // output
  int64_t out_size() const { return Do * Ho * Wo; }
  int64_t padded_size() const { return Dp * Hp * Wp; }
};

inline Spatial spatial_of(const ConvGeometry& g, const Shape& in, const Shape& out) {
  Spatial s;
  s.D = in[2], s.H = in[3], s.W = in[4];
  s.Dp = s.D + g.pad_begin[0] + g.pad_end[0];
  s.Hp = s.H + g.pad_begin[1] + g.pad_end[1];
  s.Wp = s.W + g.pad_begin[2] + g.pad_end[2];
  s.Do = out[2], s.Ho = out[3], s.Wo = out[4];
  return s;
}

// A linear layer's rows as a 1 x 1 x rows "image" (no padding, kernel 1).
inline Spatial linear_spatial(int64_t rows) { return {1, 1, rows, 1, 1, rows, 1, 1, rows}; }

// Offset (in elements) of output pixel p's first input value in a padded
// channels-last plane with `channels` values per position.
inline int64_t pixel_offset(const ConvGeometry& g, const Spatial& s, int64_t p, int64_t channels) {
  const int64_t od = p / (s.Ho * s.Wo), oh = (p / s.Wo) % s.Ho, ow = p % s.Wo;
  return ((od * g.stride[0] * s.Hp + oh * g.stride[1]) * s.Wp + ow * g.stride[2]) * channels;
}

// Elements of the padded channels-last input buffer: padded positions x slots
// per position x planes, + `slack` elements.
inline CheckedSize padded_buffer_elements(const Spatial& s, int64_t slots, int64_t planes, int64_t slack) {
  return CheckedSize(s.Dp) * s.Hp * s.Wp * slots * planes + slack;
}

// Where each segment starts relative to a pixel's first value. Every offset
// fits ptrdiff_t: the buffer it indexes holds fewer than 2^31 bytes.
inline Status segment_offsets(const ConvGeometry& g, const Reduction& r, const Spatial& s, Buffer<ptrdiff_t>* offsets) {
  QWASM_RETURN_IF_ERROR(offsets->allocate(r.nseg, "the conv's segment offsets", false));
  for (int64_t seg = 0; seg < r.nseg; ++seg) {
    int64_t kd, kh, kw, c;
    tap_of(g, r, seg, 0, &kd, &kh, &kw, &c);
    (*offsets)[seg] =
        static_cast<ptrdiff_t>(((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * r.cg);
  }
  return Status::Ok();
}

// Calls row(dh, offset) for every (d, h) row of an NCDHW input (dh = d * H + h),
// offset being where that row starts in a padded channels-last plane with
// `slots` values per position. The rows are split among the pool's threads,
// at least ~16 K values (`channels` per position) per task: below that a
// thread's wake-up costs more than it saves.
template <typename Row>
void for_each_padded_row(const ConvGeometry& g, const Spatial& s, int64_t channels, int64_t slots, Row row) {
  parallel_for_ranges(s.D * s.H, items_for_work(16384, s.W * channels), [&](int64_t begin, int64_t end) {
    for (int64_t dh = begin; dh < end; ++dh) {
      const int64_t d = dh / s.H, h = dh % s.H;
      row(dh, (((d + g.pad_begin[0]) * s.Hp + h + g.pad_begin[1]) * s.Wp + g.pad_begin[2]) * slots);
    }
  });
}

// Copies batch item n of an NCDHW tensor into padded channels-last planes:
// value (c, d, h, w) goes to plane c / per_plane, position (d, h, w) shifted by
// the front padding, slot c % per_plane of `slots`. Padding stays zero. Each
// thread writes its own rows.
template <typename Out, typename In, typename Convert>
void to_padded_channels_last(const In* x, int64_t channels, int64_t per_plane, int64_t slots, const ConvGeometry& g,
                             const Spatial& s, Out* planes, Convert convert) {
  const int64_t plane_size = s.padded_size() * slots;
  // Row by row, all channels: the output row (W * slots values) stays in L1
  // while every channel writes its slot.
  for_each_padded_row(g, s, channels, slots, [&](int64_t dh, int64_t row_offset) {
    for (int64_t c = 0; c < channels; ++c) {
      const In* row = x + (c * s.D * s.H + dh) * s.W;
      Out* dst = planes + (c / per_plane) * plane_size + c % per_plane + row_offset;
      for (int64_t w = 0; w < s.W; ++w) dst[w * slots] = convert(row[w]);
    }
  });
}

}  // namespace conv_internal
}  // namespace qwasm
