// Quantized pooling, as PyTorch 2.15 computes it on x86-64 CPUs: max over the
// integers; average and adaptive average with the formula of the kernel
// PyTorch picks for the shape (channels-first kernels add the zero point
// before rounding, channels-last ones after; adaptive windows use a chained
// reciprocal or, for a 1x1x1 output of a 3d pool, a true division).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/pool_kernels.h"
#include "qwasm/checked_size.h"
#include "qwasm/pool.h"
#include "qwasm/pool_layout.h"
#include "qwasm/thread_pool.h"
#include "qwasm/torch_float.h"

namespace qwasm {
namespace {

using pool_internal::avg_window;
using pool_internal::AvgWindow;
using pool_internal::Layout;

Status require_quint8(const QTensor& x, const char* op) {
  if (x.dtype() != DType::kQUInt8 || x.qscheme() != QScheme::kPerTensorAffine) {
    return Status::TypeError(std::string(op) + " takes a quint8 per_tensor_affine tensor, got " +
                             dtype_name(x.dtype()) + " " + qscheme_name(x.qscheme()));
  }
  return Status::Ok();
}

Status make_like(const QTensor& x, const Shape& shape, QTensor* out) {
  const double scale = x.q_scale();
  const double zp = static_cast<double>(x.q_zero_point());
  return make_qtensor(shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale, &zp, 1, out);
}

// The input's shape and strides as PyTorch's 2d / 3d kernel sees them: a 1d
// pool runs as a 2d pool over x.unsqueeze(-2), whose new dimension steps
// over the whole last one.
struct KernelView {
  Shape shape;
  Strides strides;
};
KernelView kernel_view(const QTensor& x, int dims) {
  KernelView v{x.shape(), x.strides()};
  if (dims == 1) {
    const size_t last = v.shape.size() - 1;
    v.strides.insert(v.strides.begin() + last, v.shape[last] * v.strides[last]);
    v.shape.insert(v.shape.begin() + last, 1);
  }
  return v;
}

// The output's strides: allocated in `format` at the kernel's rank, squeezed
// back to 1d.
Strides output_strides(const Shape& out_shape, int dims, MemoryFormat format) {
  Shape shape = out_shape;
  if (dims == 1) shape.insert(shape.end() - 1, 1);
  Strides strides = strides_for(shape, format);
  if (dims == 1) strides.erase(strides.end() - 2);
  return strides;
}

MemoryFormat suggested(const KernelView& v) { return suggest_memory_format(v.shape, v.strides); }

inline uint8_t clamp_u8(int64_t v) { return static_cast<uint8_t>(std::min<int64_t>(std::max<int64_t>(v, 0), 255)); }

// Round half to even. A value past int64 (an infinite float mean) saturates,
// as PyTorch's float clamp does; NaN (an empty adaptive window) gives 0.
inline int64_t rne(float v) {
  if (std::isnan(v)) return 0;
  const float r = std::nearbyint(std::min(std::max(v, -4.0e18f), 4.0e18f));
  return static_cast<int64_t>(r);
}

// Round half to even, then add `zp` and saturate, for a finite t (an average
// pool's: an int32 times a reciprocal of magnitude at most 1). Clipping t to
// +-2^30 first changes no result and keeps the conversion in int32.
// (Compares, not std::min / max: wasm's f32.min / max handle NaN and -0 and
// cost several instructions each in engines.)
inline uint8_t round_add_clamp(float t, int32_t zp) {
  const float c = t < -1073741824.0f ? -1073741824.0f : t > 1073741824.0f ? 1073741824.0f : t;
  return clamp_u8(int64_t{static_cast<int32_t>(std::nearbyint(c))} + zp);
}

// quantized mean over D, H, W of a channels-last 5-D tensor, as PyTorch's
// fallback computes it: dequantize (scale * (q - zero point) in float), sum
// each channel over the positions in memory order (torch_cpu::sum_outer),
// divide by the count, quantize with the same qparams.
Status float_mean(const QTensor& x, const Layout& l, QTensor* y) {
  const int64_t channels = l.channels, rows = l.in_plane(), batch = l.planes / l.channels;
  Buffer<float> values, sums;
  QWASM_RETURN_IF_ERROR(values.allocate(CheckedSize(rows) * channels, "the mean's dequantized values", false));
  QWASM_RETURN_IF_ERROR(sums.allocate(channels, "the mean's sums", false));
  const float scale = static_cast<float>(x.q_scale());
  const int32_t zp = static_cast<int32_t>(x.q_zero_point());
  const float inv_scale = 1.0f / scale;
  const float count = static_cast<float>(rows);
  for (int64_t n = 0; n < batch; ++n) {
    const uint8_t* q = x.data() + n * channels * rows;
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t r = 0; r < rows; ++r) values[r * channels + c] = scale * static_cast<float>(q[c * rows + r] - zp);
    torch_cpu::sum_outer(values.data(), rows, channels, sums.data());
    for (int64_t c = 0; c < channels; ++c) {
      const float mean = sums[c] / count;
      y->mutable_data()[n * channels + c] = clamp_u8(rne(mean * inv_scale) + zp);
    }
  }
  return Status::Ok();
}

// Pooling is separable: a window is (D taps) x (H taps) x (W taps). Each
// output row (od, oh) first combines its D x H input rows over the whole
// width with a row kernel (kernels/pool_rows.inc), then reads each output's W
// taps from that one row. Max and integer sums do not depend on the order.
class RowCombiner {
 public:
  // width: the input's W. The row table is bounded (kTableRows pointers):
  // windows with more rows are combined a table at a time, so a narrow,
  // tall input needs no more memory than a few rows.
  Status init(int64_t width, kernels::Isa isa) {
    width_ = width;
    rowmax_ = kernels::find_rowmax(isa);
    rowsum_ = kernels::find_rowsum(isa);
    QWASM_RETURN_IF_ERROR(rows_.allocate(kTableRows, "the pool's row table", false));
    QWASM_RETURN_IF_ERROR(bytes_.allocate(width, "the pool's row buffer", false));
    QWASM_RETURN_IF_ERROR(more_.allocate(width, "the pool's row buffer", false));
    QWASM_RETURN_IF_ERROR(part_.allocate(width, "the pool's row sums", false));
    return sums_.allocate(width, "the pool's row sums", false);
  }

  // The element-wise maximum of the rows [d0, d1) x [h0, h1), dd and dh
  // apart, of a plane (0 for no rows: PyTorch's lowest quint8 value).
  const uint8_t* max(const uint8_t* plane, int64_t height, int64_t d0, int64_t d1, int64_t dd, int64_t h0, int64_t h1,
                     int64_t dh) {
    bool first = true;
    for_each_table(plane, height, d0, d1, dd, h0, h1, dh, [&](size_t count) {
      rowmax_->fn(static_cast<size_t>(width_), count, rows_.data(), first ? bytes_.data() : more_.data());
      if (!first) {
        for (int64_t i = 0; i < width_; ++i) bytes_[i] = std::max(bytes_[i], more_[i]);
      }
      first = false;
    });
    if (first) std::memset(bytes_.data(), 0, static_cast<size_t>(width_));
    return bytes_.data();
  }

  // The element-wise sum of the rows [d0, d1) x [h0, h1) of a plane.
  const int64_t* sum(const uint8_t* plane, int64_t height, int64_t d0, int64_t d1, int64_t h0, int64_t h1) {
    for (int64_t i = 0; i < width_; ++i) sums_[i] = 0;
    for_each_table(plane, height, d0, d1, 1, h0, h1, 1, [&](size_t count) {
      rowsum_->fn(static_cast<size_t>(width_), count, rows_.data(), part_.data());
      for (int64_t i = 0; i < width_; ++i) sums_[i] += part_[i];
    });
    return sums_.data();
  }

 private:
  // At most kRowSumMaxRows, so that one rowsum call stays within int32.
  static constexpr size_t kTableRows = 1024;
  static_assert(kTableRows <= kernels::kRowSumMaxRows, "a table's sum must fit int32");

  // Fills the row table with the rows' addresses and calls f(count) for each full (or last) table.
  template <typename F>
  void for_each_table(const uint8_t* plane, int64_t height, int64_t d0, int64_t d1, int64_t dd, int64_t h0, int64_t h1,
                      int64_t dh, F f) {
    size_t count = 0;
    for (int64_t id = d0; id < d1; id += dd)
      for (int64_t ih = h0; ih < h1; ih += dh) {
        rows_[count++] = plane + (id * height + ih) * width_;
        if (count == kTableRows) {
          f(count);
          count = 0;
        }
      }
    if (count > 0) f(count);
  }

  int64_t width_ = 0;
  const kernels::RowMaxKernel* rowmax_ = nullptr;
  const kernels::RowSumKernel* rowsum_ = nullptr;
  Buffer<const uint8_t*> rows_;
  Buffer<uint8_t> bytes_, more_;
  Buffer<int32_t> part_;
  Buffer<int64_t> sums_;
};

// Runs body(rows, plane) for every plane (N * C of them), the planes split
// among the pool's threads in tasks of at least ~64 K input bytes, each task
// with a RowCombiner of its own. Every plane's outputs depend on that plane
// only, so any split gives the same bytes. Returns the first failure (a
// combiner's allocation).
template <typename Body>
Status for_each_plane(const Layout& l, kernels::Isa isa, Body body) {
  return parallel_for_ranges_status(l.planes, items_for_work(65536, l.in_plane()), [&](int64_t begin, int64_t end) {
    RowCombiner rows;
    QWASM_RETURN_IF_ERROR(rows.init(l.in[2], isa));
    for (int64_t plane = begin; plane < end; ++plane) body(rows, plane);
    return Status::Ok();
  });
}

}  // namespace

Status qmax_pool(const QTensor& x, const PoolParams& p, QTensor* out, kernels::Isa isa) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "MaxPool"));
  Layout l;
  // Quantized max_pool3d takes only 5-D inputs, as in PyTorch.
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(x.shape(), p.dims, p.dims == 3, "MaxPool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::regular_output(p, PoolKind::kMax, &l));
  QTensor y;
  QWASM_RETURN_IF_ERROR(make_like(x, l.out_shape, &y));
  const PoolParams q = pool_internal::padded(p);
  // Each output's W taps inside the input, [first, end) in input columns.
  Buffer<int64_t> w_first, w_end;
  QWASM_RETURN_IF_ERROR(w_first.allocate(l.out[2], "the pool's column table", false));
  QWASM_RETURN_IF_ERROR(w_end.allocate(l.out[2], "the pool's column table", false));
  for (int64_t ow = 0; ow < l.out[2]; ++ow) {
    const int64_t w0 = ow * q.stride[2] - q.padding[2];
    int64_t kw0, kw1;
    pool_internal::taps_inside(w0, q.kernel[2], q.dilation[2], l.in[2], &kw0, &kw1);
    w_first[ow] = w0 + kw0 * q.dilation[2];
    w_end[ow] = w0 + kw1 * q.dilation[2];
  }
  const int64_t dw = q.dilation[2];
  const uint8_t* src = x.data();
  QWASM_RETURN_IF_ERROR(for_each_plane(l, isa, [&](RowCombiner& rows, int64_t plane) {
    const uint8_t* in = src + plane * l.in_plane();
    uint8_t* dst = y.mutable_data() + plane * l.out_plane();
    for (int64_t od = 0; od < l.out[0]; ++od) {
      const int64_t d0 = od * q.stride[0] - q.padding[0];
      int64_t kd0, kd1;
      pool_internal::taps_inside(d0, q.kernel[0], q.dilation[0], l.in[0], &kd0, &kd1);
      for (int64_t oh = 0; oh < l.out[1]; ++oh) {
        const int64_t h0 = oh * q.stride[1] - q.padding[1];
        int64_t kh0, kh1;
        pool_internal::taps_inside(h0, q.kernel[1], q.dilation[1], l.in[1], &kh0, &kh1);
        // No tap inside the input gives 0 (PyTorch's lowest quint8 value).
        const uint8_t* row = rows.max(in, l.in[1], d0 + kd0 * q.dilation[0], d0 + kd1 * q.dilation[0], q.dilation[0],
                                      h0 + kh0 * q.dilation[1], h0 + kh1 * q.dilation[1], q.dilation[1]);
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          uint8_t best = 0;
          for (int64_t iw = w_first[ow]; iw < w_end[ow]; iw += dw) best = std::max(best, row[iw]);
          *dst++ = best;
        }
      }
    }
  }));
  y.set_strides(output_strides(l.out_shape, p.dims, suggested(kernel_view(x, p.dims))));
  *out = std::move(y);
  return Status::Ok();
}

Status qavg_pool(const QTensor& x, const PoolParams& p, QTensor* out, kernels::Isa isa) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "AvgPool"));
  Layout l;
  // Quantized avg_pool3d converts to channels-last 3d, which needs a 5-D input.
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(x.shape(), p.dims, p.dims == 3, "AvgPool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::regular_output(p, PoolKind::kAvg, &l));
  QTensor y;
  QWASM_RETURN_IF_ERROR(make_like(x, l.out_shape, &y));
  const PoolParams q = pool_internal::padded(p);
  // The channels-last kernel (zero point added after rounding) runs for every
  // 3d pool (PyTorch converts the input to channels-last 3d) and for 1d / 2d
  // inputs that are channels-last contiguous already (by their strides, or
  // by shape: one channel, or one spatial position); the channels-first one
  // otherwise. The 3d output is channels-last unless that conversion kept
  // the input as it was.
  const KernelView view = kernel_view(x, p.dims);
  const bool input_channels_last = is_channels_last_contiguous(view.shape, view.strides);
  const bool channels_last = p.dims == 3 || input_channels_last;
  y.set_strides(output_strides(l.out_shape, p.dims,
                               p.dims == 3 && !input_channels_last ? MemoryFormat::kChannelsLast : suggested(view)));
  const int32_t zp = static_cast<int32_t>(x.q_zero_point());
  Buffer<AvgWindow> w_windows;
  QWASM_RETURN_IF_ERROR(w_windows.allocate(l.out[2], "the pool's column table", false));
  for (int64_t ow = 0; ow < l.out[2]; ++ow) {
    w_windows[ow] = avg_window(ow, l.in[2], q.kernel[2], q.stride[2], q.padding[2]);
  }
  const bool has_divisor = p.has_divisor, count_include_pad = p.count_include_pad;
  const uint8_t* src = x.data();
  QWASM_RETURN_IF_ERROR(for_each_plane(l, isa, [&](RowCombiner& rows, int64_t plane) {
    const uint8_t* in = src + plane * l.in_plane();
    uint8_t* dst = y.mutable_data() + plane * l.out_plane();
    // Divisors repeat (every interior window has the same): the reciprocal is
    // recomputed only when the divisor changes.
    int64_t last_divisor = 0;
    float reciprocal = 0.0f;
    for (int64_t od = 0; od < l.out[0]; ++od) {
      const AvgWindow wd = avg_window(od, l.in[0], q.kernel[0], q.stride[0], q.padding[0]);
      for (int64_t oh = 0; oh < l.out[1]; ++oh) {
        const AvgWindow wh = avg_window(oh, l.in[1], q.kernel[1], q.stride[1], q.padding[1]);
        const int64_t* row = rows.sum(in, l.in[1], wd.start, wd.end, wh.start, wh.end);
        const int64_t dh_size = (wd.end - wd.start) * (wh.end - wh.start), dh_pool = wd.pool * wh.pool;
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          const AvgWindow& ww = w_windows[ow];
          int64_t sum = 0;
          for (int64_t iw = ww.start; iw < ww.end; ++iw) sum += row[iw];
          const int64_t size = dh_size * (ww.end - ww.start);
          const int64_t divisor = has_divisor ? p.divisor : count_include_pad ? dh_pool * ww.pool : size;
          if (divisor != last_divisor) {
            // Channels-last: a float reciprocal; channels-first: the
            // reciprocal in double, rounded once.
            reciprocal = channels_last ? 1.0f / static_cast<float>(divisor)
                                       : static_cast<float>(1.0 / static_cast<double>(divisor));
            last_divisor = divisor;
          }
          const float t = static_cast<float>(static_cast<int32_t>(sum - size * zp)) * reciprocal;
          // The channels-last kernel adds the zero point after rounding, the other in float before.
          *dst++ = channels_last ? round_add_clamp(t, zp) : round_add_clamp(t + static_cast<float>(zp), 0);
        }
      }
    }
  }));
  *out = std::move(y);
  return Status::Ok();
}

Status qadaptive_avg_pool(const QTensor& x, int dims, const int64_t* output_size, QTensor* out, kernels::Isa isa) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "AdaptiveAvgPool"));
  Layout l;
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(x.shape(), dims, false, "AdaptiveAvgPool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::adaptive_output(dims, output_size, &l));
  QTensor y;
  QWASM_RETURN_IF_ERROR(make_like(x, l.out_shape, &y));
  const int32_t zp = static_cast<int32_t>(x.q_zero_point());
  const KernelView view = kernel_view(x, dims);
  // PyTorch's 3d op turns a 1x1x1 output into a quantized mean: a true
  // division of the integer sum for a contiguous input, or a float mean of
  // the dequantized values for a channels-last one.
  const bool mean = dims == 3 && l.out_plane() == 1;
  const bool contiguous = is_contiguous(x.shape(), x.strides());
  if (l.rank == 4 && dims == 3 && !contiguous) {
    // A channels-last [C, H, W] image taken as [C, D, H, W]: PyTorch's
    // kernels read it with mismatched strides; there is no answer to match.
    return Status::RangeError(
        "AdaptiveAvgPool3d on a 4-D channels-last tensor is not supported: pass a 5-D input, or "
        "x.contiguous() for an unbatched [C, D, H, W] one");
  }
  if (mean && !contiguous) {
    QWASM_RETURN_IF_ERROR(float_mean(x, l, &y));
    y.set_strides(strides_like(x, l.out_shape));
    *out = std::move(y);
    return Status::Ok();
  }
  // The channels-last kernel runs when the input is channels-last contiguous
  // (by its strides, or by shape: one channel, or one spatial position; a
  // 4-D input to the 3d op is tested as if it were [N, C, H, W]).
  const bool channels_last = !mean && is_channels_last_contiguous(view.shape, view.strides);
  y.set_strides(mean ? contiguous_strides(l.out_shape) : output_strides(l.out_shape, dims, suggested(view)));
  const uint8_t* src = x.data();
  QWASM_RETURN_IF_ERROR(for_each_plane(l, isa, [&](RowCombiner& rows, int64_t plane) {
    const uint8_t* in = src + plane * l.in_plane();
    uint8_t* dst = y.mutable_data() + plane * l.out_plane();
    for (int64_t od = 0; od < l.out[0]; ++od) {
      int64_t d0, d1;
      pool_internal::adaptive_window(od, l.in[0], l.out[0], &d0, &d1);
      for (int64_t oh = 0; oh < l.out[1]; ++oh) {
        int64_t h0, h1;
        pool_internal::adaptive_window(oh, l.in[1], l.out[1], &h0, &h1);
        const int64_t* row = rows.sum(in, l.in[1], d0, d1, h0, h1);
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          int64_t w0, w1;
          pool_internal::adaptive_window(ow, l.in[2], l.out[2], &w0, &w1);
          int64_t sum = 0;
          for (int64_t iw = w0; iw < w1; ++iw) sum += row[iw];
          const int64_t kd = d1 - d0, kh = h1 - h0, kw = w1 - w0, k = kd * kh * kw;
          if (mean) {
            *dst++ = clamp_u8(rne(static_cast<float>(sum) / static_cast<float>(k)));
          } else if (channels_last) {
            const int32_t acc = static_cast<int32_t>(sum - int64_t{zp} * k);
            *dst++ = clamp_u8(rne(static_cast<float>(acc) * (1.0f / static_cast<float>(k))) + zp);
          } else {
            // The reciprocal is chained: ((1 / kD) / kH) / kW, rounded to float at each step.
            const float r =
                (static_cast<float>(1.0 / static_cast<double>(kd)) / static_cast<float>(kh)) / static_cast<float>(kw);
            *dst++ = clamp_u8(rne(static_cast<float>(sum) * r));
          }
        }
      }
    }
  }));
  *out = std::move(y);
  return Status::Ok();
}

}  // namespace qwasm
