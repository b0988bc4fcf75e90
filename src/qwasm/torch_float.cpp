#include "qwasm/torch_float.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "qwasm/format.h"
#include "qwasm/limits.h"

namespace qwasm {
namespace torch_cpu {

void linspace(double start_d, double end_d, int64_t steps, float* out) {
  const float start = static_cast<float>(start_d);
  const float end = static_cast<float>(end_d);
  if (steps == 1) {
    out[0] = start;
    return;
  }
  // (end - start) / (steps - 1): a float divided by an int64, in float.
  const float step = (end - start) / static_cast<float>(steps - 1);
  const int64_t halfway = steps / 2;
  // GCC contracts PyTorch's `start + step * idx` into a fused multiply-add.
  for (int64_t i = 0; i < steps; ++i) {
    out[i] = i < halfway ? std::fma(step, static_cast<float>(i), start)
                         : std::fma(-step, static_cast<float>(steps - i - 1), end);
  }
}

Status histc(const float* x, size_t n, int64_t bins, double lo, double hi, float* hist) {
  if (lo == hi && n > 0) {
    // aminmax of the data (its finite values: the observer leaves infinities out).
    float mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < n; ++i) {
      if (std::isinf(x[i])) continue;
      mn = std::min(mn, x[i]);
      mx = std::max(mx, x[i]);
    }
    if (mn <= mx) {
      lo = mn;
      hi = mx;
    }
  }
  if (lo == hi) {
    // bins_edges_correction for float: one float step or one unit, whichever is wider.
    lo = std::min(static_cast<double>(std::nextafter(static_cast<float>(lo), -FLT_MAX)), lo - 1.0);
    hi = std::max(static_cast<double>(std::nextafter(static_cast<float>(hi), FLT_MAX)), hi + 1.0);
  }
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi)) {
    return Status::RangeError("histogram range [" + format_number(lo) + ", " + format_number(hi) +
                              "] is not finite or empty");
  }
  // The first and last bin edges of linspace(lo, hi, bins + 1).
  const float start = static_cast<float>(lo);
  const float end = static_cast<float>(hi);
  const float step = (end - start) / static_cast<float>(bins);
  const float left = std::fma(step, 0.0f, start);
  const float right = bins + 1 > 1 ? std::fma(-step, 0.0f, end) : start;
  const float width = right - left;
  const float nbins = static_cast<float>(bins);
  std::fill(hist, hist + bins, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    const float e = x[i];
    if (!(e >= left && e <= right)) continue;  // outside, or NaN
    int64_t pos = static_cast<int64_t>((e - left) * nbins / width);
    if (pos >= bins) pos = bins - 1;  // the last bin includes its right edge
    hist[pos] += 1.0f;
  }
  return Status::Ok();
}

namespace {

// One accumulator of ATen's cascade sum: a float, or a vector of kVecLanes floats.
struct Lanes {
  float v[kVecLanes];
};

inline void add_into(float& a, float b) { a = a + b; }
inline void add_into(Lanes& a, const Lanes& b) {
  for (int i = 0; i < kVecLanes; ++i) a.v[i] = a.v[i] + b.v[i];
}
inline void zero(float& a) { a = 0.0f; }
inline void zero(Lanes& a) {
  for (float& x : a.v) x = 0.0f;
}

// ATen's utils::CeilLog2.
int64_t ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int64_t bits = 0;
  for (uint64_t v = static_cast<uint64_t>(x) - 1; v != 0; v >>= 1) ++bits;
  return bits;
}

// multi_row_sum: `nrows` interleaved running sums over `size` rows, summed in
// four cascade levels of level_step rows each (only values of similar
// magnitude are added together).
template <typename T, int kRows, typename Load>
void multi_row_sum(Load load, int64_t size, T out[kRows]) {
  constexpr int kLevels = 4;
  const int64_t level_power = std::max<int64_t>(4, ceil_log2(size) / kLevels);
  const int64_t level_step = int64_t{1} << level_power;
  const int64_t level_mask = level_step - 1;
  T acc[kLevels][kRows];
  for (auto& level : acc)
    for (T& a : level) zero(a);
  int64_t i = 0;
  while (i + level_step <= size) {
    for (int64_t j = 0; j < level_step; ++j, ++i)
      for (int k = 0; k < kRows; ++k) add_into(acc[0][k], load(i, k));
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < kRows; ++k) {
        add_into(acc[j][k], acc[j - 1][k]);
        zero(acc[j - 1][k]);
      }
      if ((i & (level_mask << (j * level_power))) != 0) break;
    }
  }
  for (; i < size; ++i)
    for (int k = 0; k < kRows; ++k) add_into(acc[0][k], load(i, k));
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < kRows; ++k) add_into(acc[0][k], acc[j][k]);
  for (int k = 0; k < kRows; ++k) out[k] = acc[0][k];
}

// row_sum: the row seen as (-1, 4), four partial sums, the tail into the
// first, then the partials added in order.
template <typename T, typename Load>
T row_sum(Load load, int64_t size) {
  constexpr int kIlp = 4;
  const int64_t size_ilp = size / kIlp;
  T partial[kIlp];
  multi_row_sum<T, kIlp>([&](int64_t i, int k) { return load(i * kIlp + k); }, size_ilp, partial);
  for (int64_t i = size_ilp * kIlp; i < size; ++i) add_into(partial[0], load(i));
  for (int k = 1; k < kIlp; ++k) add_into(partial[0], partial[k]);
  return partial[0];
}

}  // namespace

float sum(const float* x, size_t n) {
  const int64_t size = static_cast<int64_t>(n);
  if (size < kVecLanes) return row_sum<float>([&](int64_t i) { return x[i]; }, size);
  // vectorized_inner_sum: whole vectors through row_sum, then the scalar
  // tail, then the vector's lanes, into one float.
  const int64_t vectors = size / kVecLanes;
  const Lanes acc = row_sum<Lanes>(
      [&](int64_t v) {
        Lanes l;
        std::copy(x + v * kVecLanes, x + (v + 1) * kVecLanes, l.v);
        return l;
      },
      vectors);
  float total = 0.0f;
  for (int64_t k = vectors * kVecLanes; k < size; ++k) total += x[k];
  for (float lane : acc.v) total += lane;
  return total;
}

void sum_outer(const float* x, int64_t rows, int64_t channels, float* out) {
  constexpr int64_t kOuterLanes = 8;  // Vectorized<float> on AVX2
  const int64_t block = channels >= kOuterLanes ? 4 * kOuterLanes : 4;
  const int64_t plain = channels / block * block;
  for (int64_t c = 0; c < channels; ++c) {
    auto load = [&](int64_t r) { return x[r * channels + c]; };
    if (c < plain) {
      float sum;
      multi_row_sum<float, 1>([&](int64_t r, int) { return load(r); }, rows, &sum);
      out[c] = sum;
    } else {
      out[c] = row_sum<float>(load, rows);
    }
  }
}

void cumsum(const float* x, size_t n, float* out) {
  double acc = 0;
  for (size_t i = 0; i < n; ++i) {
    acc += x[i];
    out[i] = static_cast<float>(acc);
  }
}

float div_floor(float a, float b) {
  if (b == 0) return a / b;
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
  if (div != 0) {
    float floordiv = std::floor(div);
    if (div - floordiv > 0.5f) floordiv += 1.0f;
    return floordiv;
  }
  return std::copysign(0.0f, a / b);
}

int64_t bucket_right(const float* edges, int64_t n_edges, float v) {
  return (std::upper_bound(edges, edges + n_edges, v) - edges) - 1;
}

void clamp(const float* x, size_t n, float lo, float hi, float* out) {
  if (std::isnan(lo) || std::isnan(hi)) {
    // ATen's maximum / minimum propagate a NaN bound too.
    for (size_t i = 0; i < n; ++i) out[i] = NAN;
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    // Comparisons, not std::max / std::min: a NaN fails both and comes
    // through, and -0 against a bound of 0 is neither below nor above it.
    const float below = x[i] < lo ? lo : x[i];
    out[i] = below > hi ? hi : below;
  }
}

namespace {

// The checks both BatchNorm functions make before they allocate.
Status check_stats(const BatchNormStats& bn) {
  if (bn.channels < 1 || bn.channels > kMaxNumel) {
    return Status::RangeError("a BatchNorm has 1.." + std::to_string(kMaxNumel) + " channels, got " +
                              std::to_string(bn.channels));
  }
  if (bn.mean == nullptr || bn.var == nullptr) return Status::TypeError("a BatchNorm needs its running statistics");
  if ((bn.weight == nullptr) != (bn.bias == nullptr)) {
    return Status::TypeError("a BatchNorm's weight and bias are both given or both absent");
  }
  if (!(std::isfinite(bn.eps) && bn.eps >= 0)) {
    return Status::RangeError("eps must be a finite number >= 0, got " + format_number(bn.eps));
  }
  return Status::Ok();
}

// 1 / sqrt(var + eps) in float, eps rounded to float first (ATen's
// static_cast<opmath_t>(eps); fusion.py's rsqrt, which ATen computes so).
float inverse_std(float var, double eps) { return 1.0f / std::sqrt(var + static_cast<float>(eps)); }

}  // namespace

Status batch_norm_eval(const float* x, const Shape& shape, const BatchNormStats& bn, Buffer<float>* y) {
  QWASM_RETURN_IF_ERROR(check_stats(bn));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  if (shape.size() < 2 || shape[1] != bn.channels) {
    return Status::RangeError("BatchNorm expects an input of shape [N, " + std::to_string(bn.channels) + ", *]");
  }
  QWASM_RETURN_IF_ERROR(y->allocate(CheckedSize(numel), "the BatchNorm output", false));
  if (numel == 0) return Status::Ok();  // the other dimensions' product may not fit int64
  const int64_t channels = bn.channels;
  int64_t inner = 1;
  for (size_t d = 2; d < shape.size(); ++d) inner *= shape[d];
  for (int64_t c = 0; c < channels; ++c) {
    const float invstd = inverse_std(bn.var[c], bn.eps);
    const float alpha = invstd * (bn.weight == nullptr ? 1.0f : bn.weight[c]);
    const float beta = (bn.bias == nullptr ? 0.0f : bn.bias[c]) - bn.mean[c] * alpha;
    for (int64_t n = 0; n < shape[0]; ++n) {
      const int64_t base = (n * channels + c) * inner;
      // GCC contracts ATen's `x * alpha + beta` (on Vectorized<float> too) into a fused multiply-add.
      for (int64_t i = base; i < base + inner; ++i) (*y)[static_cast<size_t>(i)] = std::fma(x[i], alpha, beta);
    }
  }
  return Status::Ok();
}

Status fold_batch_norm(const float* w, const Shape& w_shape, const float* b, const BatchNormStats& bn, bool linear,
                       Buffer<float>* folded_w, Buffer<float>* folded_b) {
  QWASM_RETURN_IF_ERROR(check_stats(bn));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(w_shape, &numel));
  if (w_shape.size() < 2 || w_shape[0] < 1) {
    return Status::RangeError("the weight to fold into must have shape [out, ...] with out >= 1");
  }
  const int64_t out = w_shape[0];
  if (bn.channels != out && !(linear && bn.channels == 1)) {
    return Status::RangeError("the weight has " + std::to_string(out) + " output channels but the BatchNorm " +
                              std::to_string(bn.channels));
  }
  if (linear && bn.weight == nullptr) {
    return Status::TypeError("a BatchNorm without affine parameters cannot be folded into a linear layer");
  }
  QWASM_RETURN_IF_ERROR(folded_w->allocate(CheckedSize(numel), "the folded weight", false));
  QWASM_RETURN_IF_ERROR(folded_b->allocate(CheckedSize(out), "the folded bias", false));
  const int64_t per_channel = numel / out;  // 0 for an empty weight: the bias is still folded
  for (int64_t c = 0; c < out; ++c) {
    const int64_t k = bn.channels == 1 ? 0 : c;
    const float r = inverse_std(bn.var[k], bn.eps);
    const float g = bn.weight == nullptr ? 1.0f : bn.weight[k];
    const float beta = bn.bias == nullptr ? 0.0f : bn.bias[k];
    const float scale = g * r;
    for (int64_t i = c * per_channel; i < (c + 1) * per_channel; ++i)
      (*folded_w)[static_cast<size_t>(i)] = w[i] * scale;
    const float centered = (b == nullptr ? 0.0f : b[c]) - bn.mean[k];
    (*folded_b)[static_cast<size_t>(c)] = linear ? centered * scale + beta : centered * r * g + beta;
  }
  return Status::Ok();
}

}  // namespace torch_cpu
}  // namespace qwasm
