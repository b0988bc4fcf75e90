// The float normalisations (norm_float.h). Each step is written as ATen's
// (moments_utils.h, batch_norm_kernel.cpp, group_norm_kernel.cpp,
// layer_norm_kernel.cpp) with its rounding made explicit: a float operation
// rounds once to float, a double one (ATen's opmath or acc_type double) is
// rounded where ATen converts back.
#include "qwasm/norm_float.h"

#include <cmath>
#include <cstring>
#include <string>

#include "kernels/fma_f32.h"
#include "kernels/norm_rows.h"
#include "qwasm/checked_size.h"
#include "qwasm/format.h"

namespace qwasm {
namespace torch_cpu {
namespace {

// Every fused multiply-add here: exact, with the shortcut for the common case.
inline float fma_f32(float a, float b, float c) { return kernels::fma_f32_fast(a, b, c); }

// Vectorized<float>'s lanes in the kernels that call RowwiseMoments (measured
// on torch 2.15: its AVX2 kernels, 8 floats, whatever the CPU capability).
constexpr int kLanes = 8;
constexpr int64_t kChunk = 16;  // moments_utils.h kChunkSize
// A cascade over at most 2^31 / (8 * 16) chunks is at most 24 levels deep.
constexpr int kMaxDepth = 32;

// One level of the cascade: m0 elements per lane, each lane's mean and M2.
struct Moments {
  int64_t m0 = 0;
  float m1[kLanes] = {};
  float m2[kLanes] = {};
};

// utils::CeilLog2 (ATen/native/cpu/utils.h): 1 for x <= 2.
int ceil_log2(int64_t x) {
  if (x <= 2) return 1;
  int bits = 0;
  for (uint64_t v = static_cast<uint64_t>(x - 1); v != 0; v >>= 1) ++bits;
  return bits;
}

// AddMomentsVec: merges (m0_add, m1_add, m2_add) into s, lane by lane.
void add_moments_vec(int64_t m0_add, const float* m1_add, const float* m2_add, Moments* s) {
  const int64_t n = s->m0 + m0_add;
  const float c = n == 0 ? 0.0f : static_cast<float>(m0_add) / static_cast<float>(n);
  const float m0 = static_cast<float>(s->m0);
  for (int l = 0; l < kLanes; ++l) {
    const float delta = m1_add[l] - s->m1[l];
    const float m2_sum = s->m2[l] + m2_add[l];
    const float c_delta = c * delta;
    const float m0_delta = delta * m0;
    s->m1[l] = s->m1[l] + c_delta;
    s->m2[l] = fma_f32(m0_delta, c_delta, m2_sum);
  }
  s->m0 = n;
}

const float* reciprocals() {
  static const float* table = [] {
    static float t[kChunk];
    for (int64_t i = 0; i < kChunk; ++i) t[i] = 1.0f / static_cast<float>(i + 1);  // c_vecs: T(1) / T(i + 1)
    return t;
  }();
  return table;
}

Status check_eps(double eps, const char* what) {
  if (!(std::isfinite(eps) && eps >= 0)) {
    return Status::RangeError(std::string(what) + " eps must be a finite number >= 0, got " + format_number(eps));
  }
  return Status::Ok();
}

// The output of `rows` x `inner` floats, allocated once both are known to fit.
Status allocate_output(int64_t rows, int64_t inner, const char* what, Buffer<float>* y) {
  if (rows < 0 || inner < 0) return Status::RangeError(std::string(what) + ": a size is negative");
  const CheckedSize n = CheckedSize(rows) * CheckedSize(inner);
  if (!n.ok()) return Status::RangeError(std::string(what) + ": the element count overflows");
  return y->allocate(n, what, false);
}

}  // namespace

void rowwise_moments(const float* x, int64_t count, float* mean, float* variance, kernels::Isa isa) {
  const float* r = reciprocals();
  const int64_t n = count / kLanes;  // whole vectors
  const int64_t m = (n + kChunk - 1) / kChunk;
  const int depth = ceil_log2(m);
  Moments stack[kMaxDepth];
  for (int64_t i = 0; i < m; ++i) {
    const float* base = x + i * kChunk * kLanes;
    const int64_t vectors = n - i * kChunk < kChunk ? n - i * kChunk : kChunk;
    alignas(16) float m1v[kLanes] = {};
    alignas(16) float m2v[kLanes] = {};
    kernels::welford8(isa, base, vectors, r, m1v, m2v);
    add_moments_vec(vectors, m1v, m2v, &stack[0]);
    int64_t mask = i + 1;
    for (int j = 1; j < depth && (mask & 1) == 0; ++j) {
      add_moments_vec(stack[j - 1].m0, stack[j - 1].m1, stack[j - 1].m2, &stack[j]);
      stack[j - 1] = Moments();
      mask >>= 1;
    }
  }
  for (int i = 1; i < depth; ++i) add_moments_vec(stack[i].m0, stack[i].m1, stack[i].m2, &stack[0]);
  // The tail (count % 8 elements) by scalar Welford, then each lane merged in (AddMoments).
  int64_t m0 = 0;
  float m1 = 0.0f;
  float m2 = 0.0f;
  for (int64_t i = n * kLanes; i < count; ++i) {
    const float v = x[i];
    const float delta = v - m1;
    m0 += 1;
    m1 = m1 + delta / static_cast<float>(m0);
    m2 = fma_f32(delta, v - m1, m2);
  }
  const Moments& top = stack[0];
  for (int l = 0; l < kLanes; ++l) {
    const int64_t total = m0 + n;
    const float c = total == 0 ? 0.0f : static_cast<float>(n) / static_cast<float>(total);
    const float delta = top.m1[l] - m1;
    m1 = fma_f32(c, delta, m1);
    m2 = m2 + fma_f32((delta * delta) * c, static_cast<float>(m0), top.m2[l]);
    m0 = total;
  }
  *mean = m1;
  *variance = m2 / static_cast<float>(count);
}

Status instance_norm(const float* x, int64_t rows, int64_t channels, int64_t inner, const NormParams& p,
                     Buffer<float>* y) {
  const char* what = "InstanceNorm";
  QWASM_RETURN_IF_ERROR(check_eps(p.eps, what));
  if (channels < 1 || rows < 0 || rows % channels != 0) {
    return Status::RangeError("InstanceNorm: " + std::to_string(rows) + " rows are not a whole number of " +
                              std::to_string(channels) + " channels");
  }
  if (rows > 0 && inner < 1) return Status::RangeError("InstanceNorm: the spatial size is 0: nothing to normalise");
  if ((p.running_mean == nullptr) != (p.running_var == nullptr)) {
    return Status::RangeError("InstanceNorm: running_mean and running_var must both be given or both be absent");
  }
  QWASM_RETURN_IF_ERROR(allocate_output(rows, inner, "the InstanceNorm output", y));
  const float eps32 = static_cast<float>(p.eps);
  const double inner_d = static_cast<double>(inner);
  const float inner_f = static_cast<float>(inner);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t c = row % channels;
    const float* xr = x + row * inner;
    float* yr = y->data() + row * inner;
    float mean = 0.0f;
    float invstd = 0.0f;
    if (p.running_mean == nullptr) {
      // batch_norm_cpu_collect_stats_contiguous_impl: double sums (acc_type<float> on CPU).
      double sum = 0.0;
      for (int64_t i = 0; i < inner; ++i) sum += xr[i];
      mean = static_cast<float>(sum / inner_d);
      double var_sum = 0.0;
      for (int64_t i = 0; i < inner; ++i) {
        const float d = xr[i] - mean;
        var_sum += d * d;  // a float product, then added in double
      }
      // InvStd<double>(var_sum / n, eps): the float quotient, then 1 / sqrt in double.
      const float variance = static_cast<float>(var_sum) / inner_f;
      invstd = variance == 0.0f && p.eps == 0.0
                   ? 0.0f
                   : static_cast<float>(1.0 / std::sqrt(static_cast<double>(variance) + p.eps));
    } else {
      // Eval mode: batch_norm_cpu_collect_linear_and_constant_terms in float.
      mean = p.running_mean[c];
      invstd = 1.0f / std::sqrt(p.running_var[c] + eps32);
    }
    const float alpha = invstd * (p.weight == nullptr ? 1.0f : p.weight[c]);
    const float beta = fma_f32(-mean, alpha, p.bias == nullptr ? 0.0f : p.bias[c]);
    kernels::affine_row(p.isa, xr, inner, alpha, beta, yr);  // fma(x, alpha, beta): the product commutes
  }
  return Status::Ok();
}

Status group_norm(const float* x, int64_t batch, int64_t channels, int64_t spatial, int64_t groups, const NormParams& p,
                  Buffer<float>* y) {
  QWASM_RETURN_IF_ERROR(check_eps(p.eps, "GroupNorm"));
  if (groups < 1 || channels < 1 || channels % groups != 0) {
    return Status::RangeError("GroupNorm: " + std::to_string(channels) + " channels cannot be split into " +
                              std::to_string(groups) + " groups");
  }
  if (batch < 0 || spatial < 0) return Status::RangeError("GroupNorm: a size is negative");
  if (batch > 0 && spatial < 1) return Status::RangeError("GroupNorm: the spatial size is 0: nothing to normalise");
  const CheckedSize rows = CheckedSize(batch) * CheckedSize(channels);
  if (!rows.ok()) return Status::RangeError("GroupNorm: the element count overflows");
  QWASM_RETURN_IF_ERROR(allocate_output(rows.value(), spatial, "the GroupNorm output", y));
  if (batch == 0) return Status::Ok();
  const int64_t per_group = channels / groups;
  const int64_t row = per_group * spatial;  // fits: y holds batch * channels * spatial floats
  const bool affine = p.weight != nullptr || p.bias != nullptr;
  for (int64_t i = 0; i < batch * groups; ++i) {
    const float* xg = x + i * row;
    float* yg = y->data() + i * row;
    float mean = 0.0f;
    float variance = 0.0f;
    rowwise_moments(xg, row, &mean, &variance, p.isa);
    // eps stays a double here: opmath_t(1) / std::sqrt(max(var, 0) + eps); std::max keeps a -0 variance.
    const float clamped = variance < 0.0f ? 0.0f : variance;
    const float rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(clamped) + p.eps));
    if (!affine) {
      for (int64_t k = 0; k < row; ++k) yg[k] = (xg[k] - mean) * rstd;
      continue;
    }
    const int64_t g = i % groups;
    for (int64_t j = 0; j < per_group; ++j) {
      const int64_t c = g * per_group + j;
      const float scale = rstd * (p.weight == nullptr ? 1.0f : p.weight[c]);
      const float bias = fma_f32(-scale, mean, p.bias == nullptr ? 0.0f : p.bias[c]);
      const float* xc = xg + j * spatial;
      float* yc = yg + j * spatial;
      kernels::affine_row(p.isa, xc, spatial, scale, bias, yc);
    }
  }
  return Status::Ok();
}

Status layer_norm(const float* x, int64_t rows, int64_t inner, const NormParams& p, Buffer<float>* y) {
  QWASM_RETURN_IF_ERROR(check_eps(p.eps, "LayerNorm"));
  if (inner < 1) return Status::RangeError("LayerNorm: a row of 0 elements has no mean");
  QWASM_RETURN_IF_ERROR(allocate_output(rows, inner, "the LayerNorm output", y));
  const float eps32 = static_cast<float>(p.eps);  // layer_norm_kernel.cpp takes eps as the float opmath type
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * inner;
    float* yr = y->data() + r * inner;
    float mean = 0.0f;
    float variance = 0.0f;
    rowwise_moments(xr, inner, &mean, &variance, p.isa);
    const float rstd = 1.0f / std::sqrt(variance + eps32);
    kernels::layer_affine_row(p.isa, xr, inner, -mean, rstd, p.weight, p.bias, yr);
  }
  return Status::Ok();
}

}  // namespace torch_cpu
}  // namespace qwasm
