#include "qwasm/histogram_observer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "qwasm/buffer.h"
#include "qwasm/format.h"
#include "qwasm/torch_float.h"

namespace qwasm {
namespace {

namespace tc = torch_cpu;

Status check_bins(int64_t bins) {
  if (bins < 1 || bins > kMaxHistogramBins) {
    return Status::RangeError("bins must be an integer in 1.." + std::to_string(kMaxHistogramBins) + ", got " +
                              std::to_string(bins));
  }
  return Status::Ok();
}

// _upscale_histogram: the old histogram (over [omin, omax]) spread into
// bins * 16 equal parts, each moved by its midpoint into the bins of
// [umin, umax]. Returns the re-binned histogram in out.
Status upscale(const float* hist, int64_t bins, float omin, float omax, float umin, float umax, float* out) {
  const int64_t fine = bins * kHistogramUpsampleRate;
  Buffer<float> mids, edges;
  QWASM_RETURN_IF_ERROR(mids.allocate(CheckedSize(fine) + 1, "the upsampled histogram's midpoints", false));
  QWASM_RETURN_IF_ERROR(edges.allocate(CheckedSize(bins) + 1, "the new histogram's bin edges", false));
  // bin_size = (orig_max - orig_min) / (bins * upsample_rate), in float.
  const float bin_size = (omax - omin) / static_cast<float>(fine);
  const float half = 0.5f * bin_size;
  tc::linspace(omin, omax, fine + 1, mids.data());
  tc::linspace(umin, umax, bins + 1, edges.data());
  std::fill(out, out + bins, 0.0f);
  const float rate = static_cast<float>(kHistogramUpsampleRate);
  // bincount(bucket_assignments, weights = repeat_interleave(hist) / rate):
  // accumulated in index order, in float.
  for (int64_t i = 0; i < fine; ++i) {
    const float mid = mids[i] + half;
    int64_t b = tc::bucket_right(edges.data(), bins + 1, mid);
    b = std::min(std::max<int64_t>(b, 0), bins - 1);
    out[b] += hist[i / kHistogramUpsampleRate] / rate;
  }
  return Status::Ok();
}

// _combine_histograms, into update (which holds the new batch's histogram over [umin, umax]).
Status combine(const float* orig, int64_t bins, float omin, float omax, float* update, float umin, float umax) {
  if (umin == omin && umax == omax) {
    for (int64_t i = 0; i < bins; ++i) update[i] = orig[i] + update[i];
    return Status::Ok();
  }
  Buffer<float> moved;
  QWASM_RETURN_IF_ERROR(moved.allocate(bins, "the re-binned histogram", false));
  if (omin == omax) {
    // The old histogram is one value: histc of that value, times the old total.
    const float total = tc::sum(orig, static_cast<size_t>(bins));
    QWASM_RETURN_IF_ERROR(tc::histc(&omin, 1, bins, umin, umax, moved.data()));
    for (int64_t i = 0; i < bins; ++i) update[i] = moved[i] * total + update[i];
    return Status::Ok();
  }
  QWASM_RETURN_IF_ERROR(upscale(orig, bins, omin, omax, umin, umax, moved.data()));
  for (int64_t i = 0; i < bins; ++i) update[i] = update[i] + moved[i];
  return Status::Ok();
}

// _get_norm: density * (end^3 - begin^3) / 3, op by op in float.
inline float l2_norm(float begin, float end, float density) {
  const float e3 = end * end * end;
  const float b3 = begin * begin * begin;
  return density * ((e3 - b3) / 3.0f);
}

// _compute_quantization_error(start, end) over the histogram; `norm` is bins floats of scratch.
double quantization_error(const float* hist, int64_t bins, float min, float max, int64_t start, int64_t end,
                          int64_t dst_nbins, float* norm) {
  // Python floats (double) here: self.max_val.item() - self.min_val.item(), ...
  const double bin_width = (static_cast<double>(max) - static_cast<double>(min)) / static_cast<double>(bins);
  const double dst_width = bin_width * static_cast<double>(end - start + 1) / static_cast<double>(dst_nbins);
  if (dst_width == 0.0) return 0.0;
  // ... and float32 wherever they meet a tensor.
  const float fw = static_cast<float>(bin_width);
  const float fdw = static_cast<float>(dst_width);
  const float half_dw = static_cast<float>(dst_width / 2);
  const float neg_half_dw = static_cast<float>(-dst_width / 2);
  const float last_dst = static_cast<float>(dst_nbins - 1);
  // _get_norm(tensor(-dw/2), tensor(dw/2), density): the cube difference is a
  // 0-dim tensor, computed once, then multiplied by each bin's density.
  const float full_e3 = half_dw * half_dw * half_dw;
  const float full_b3 = neg_half_dw * neg_half_dw * neg_half_dw;
  const float full_norm = (full_e3 - full_b3) / 3.0f;
  for (int64_t i = 0; i < bins; ++i) {
    const float begin = static_cast<float>(i - start) * fw;
    const float src_end = begin + fw;
    const float dst_begin = std::min(std::max(tc::div_floor(begin, fdw), 0.0f), last_dst);
    const float dst_begin_center = (dst_begin + 0.5f) * fdw;
    const float dst_end = std::min(std::max(tc::div_floor(src_end, fdw), 0.0f), last_dst);
    const float density = hist[i] / fw;
    float n = 0.0f + l2_norm(begin - dst_begin_center, half_dw, density);
    n = n + ((dst_end - dst_begin) - 1.0f) * (density * full_norm);
    const float dst_end_center = dst_end * fdw + half_dw;
    n = n + l2_norm(neg_half_dw, src_end - dst_end_center, density);
    norm[i] = n;
  }
  return tc::sum(norm, static_cast<size_t>(bins));
}

}  // namespace

Status histogram_observe(const float* x, size_t n, int64_t bins, float* hist, float* min, float* max) {
  QWASM_RETURN_IF_ERROR(check_bins(bins));
  // aminmax over the finite values; NaN is refused.
  float xmin = INFINITY, xmax = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (std::isnan(v)) return Status::RangeError("x[" + std::to_string(i) + "] is NaN");
    if (std::isinf(v)) continue;
    xmin = std::min(xmin, v);
    xmax = std::max(xmax, v);
  }
  if (!(xmin <= xmax)) return Status::Ok();     // empty, or only infinities: PyTorch ignores the batch
  if (*min == INFINITY || *max == -INFINITY) {  // reset_histogram
    QWASM_RETURN_IF_ERROR(tc::histc(x, n, bins, xmin, xmax, hist));
    *min = xmin;
    *max = xmax;
    return Status::Ok();
  }
  const float new_min = std::min(*min, xmin);
  const float new_max = std::max(*max, xmax);
  Buffer<float> update;
  QWASM_RETURN_IF_ERROR(update.allocate(bins, "the batch's histogram", false));
  QWASM_RETURN_IF_ERROR(tc::histc(x, n, bins, new_min, new_max, update.data()));
  if (new_min == *min && new_max == *max) {
    for (int64_t i = 0; i < bins; ++i) hist[i] = hist[i] + update[i];
    return Status::Ok();
  }
  QWASM_RETURN_IF_ERROR(combine(hist, bins, *min, *max, update.data(), new_min, new_max));
  std::copy(update.data(), update.data() + bins, hist);
  *min = new_min;
  *max = new_max;
  return Status::Ok();
}

Status histogram_search(const float* hist, int64_t bins, float min, float max, int64_t dst_nbins, float* new_min,
                        float* new_max) {
  QWASM_RETURN_IF_ERROR(check_bins(bins));
  if (std::isinf(max - min)) {
    // PyTorch's search then works on infinite bin widths and returns NaN qparams.
    return Status::RangeError("the observed range [" + format_float(min) + ", " + format_float(max) +
                              "] is wider than float32 can hold (max - min overflows to Infinity), so its "
                              "histogram cannot be searched; PyTorch's qparams are NaN here");
  }
  Buffer<float> csum, norm;
  QWASM_RETURN_IF_ERROR(csum.allocate(bins, "the histogram's cumulative sum", false));
  QWASM_RETURN_IF_ERROR(norm.allocate(bins, "the quantization error's scratch", false));
  const float bin_width = (max - min) / static_cast<float>(bins);
  const double total = tc::sum(hist, static_cast<size_t>(bins));
  tc::cumsum(hist, static_cast<size_t>(bins), csum.data());

  const double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t start_bin = 0, end_bin = bins - 1;
  double norm_min = INFINITY;
  while (alpha < beta) {
    const double next_alpha = alpha + stepsize;
    const double next_beta = beta - stepsize;
    // cSum[l] < next_alpha * total: a float tensor against a Python float, compared in float.
    const float lo_mass = static_cast<float>(next_alpha * total);
    const float hi_mass = static_cast<float>(next_beta * total);
    int64_t l = start_bin, r = end_bin;
    while (l < end_bin && csum[l] < lo_mass) ++l;
    while (r > start_bin && csum[r] > hi_mass) --r;
    int64_t next_start = start_bin, next_end = end_bin;
    if ((l - start_bin) > (end_bin - r)) {
      next_start = l;
      alpha = next_alpha;
    } else {
      next_end = r;
      beta = next_beta;
    }
    if (next_start == start_bin && next_end == end_bin) continue;
    const double err = quantization_error(hist, bins, min, max, next_start, next_end, dst_nbins, norm.data());
    if (err > norm_min) break;
    norm_min = err;
    start_bin = next_start;
    end_bin = next_end;
  }
  *new_min = min + bin_width * static_cast<float>(start_bin);
  *new_max = min + bin_width * static_cast<float>(end_bin + 1);
  return Status::Ok();
}

}  // namespace qwasm
