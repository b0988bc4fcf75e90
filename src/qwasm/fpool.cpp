// Float pooling with PyTorch's semantics: max over the taps inside the input
// (padding acts as -Inf), the average with PyTorch's divisor rule, adaptive
// windows as in the quantized file, the adaptive average as sum / kD / kH / kW.
// Sums run in window order in float, as PyTorch's CPU kernels do.
#include <algorithm>
#include <cmath>
#include <limits>

#include "qwasm/pool.h"
#include "qwasm/pool_layout.h"

namespace qwasm {
namespace {

using pool_internal::Layout;

Status allocate_output(const Layout& l, Buffer<float>* y, Shape* y_shape) {
  CheckedSize n = CheckedSize(l.planes) * l.out_plane();
  QWASM_RETURN_IF_ERROR(y->allocate(n, "the pooled output", false));
  *y_shape = l.out_shape;
  return Status::Ok();
}

}  // namespace

Status fmax_pool(const float* x, const Shape& shape, const PoolParams& p, Buffer<float>* y, Shape* y_shape) {
  Layout l;
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(shape, p.dims, false, "MaxPool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::regular_output(p, PoolKind::kMax, &l));
  QWASM_RETURN_IF_ERROR(allocate_output(l, y, y_shape));
  const PoolParams q = pool_internal::padded(p);
  float* dst = y->data();
  for (int64_t plane = 0; plane < l.planes; ++plane) {
    const float* in = x + plane * l.in_plane();
    for (int64_t od = 0; od < l.out[0]; ++od)
      for (int64_t oh = 0; oh < l.out[1]; ++oh)
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          float best = -std::numeric_limits<float>::infinity();
          const int64_t d0 = od * q.stride[0] - q.padding[0], h0 = oh * q.stride[1] - q.padding[1],
                        w0 = ow * q.stride[2] - q.padding[2];
          int64_t kd0, kd1, kh0, kh1, kw0, kw1;
          pool_internal::taps_inside(d0, q.kernel[0], q.dilation[0], l.in[0], &kd0, &kd1);
          pool_internal::taps_inside(h0, q.kernel[1], q.dilation[1], l.in[1], &kh0, &kh1);
          pool_internal::taps_inside(w0, q.kernel[2], q.dilation[2], l.in[2], &kw0, &kw1);
          for (int64_t kd = kd0; kd < kd1; ++kd) {
            const int64_t id = d0 + kd * q.dilation[0];
            for (int64_t kh = kh0; kh < kh1; ++kh) {
              const int64_t ih = h0 + kh * q.dilation[1];
              for (int64_t kw = kw0; kw < kw1; ++kw) {
                const int64_t iw = w0 + kw * q.dilation[2];
                const float v = in[(id * l.in[1] + ih) * l.in[2] + iw];
                if (v > best || std::isnan(v)) best = v;  // NaN propagates, as in PyTorch
              }
            }
          }
          *dst++ = best;
        }
  }
  return Status::Ok();
}

Status favg_pool(const float* x, const Shape& shape, const PoolParams& p, Buffer<float>* y, Shape* y_shape) {
  Layout l;
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(shape, p.dims, false, "AvgPool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::regular_output(p, PoolKind::kAvg, &l));
  QWASM_RETURN_IF_ERROR(allocate_output(l, y, y_shape));
  const PoolParams q = pool_internal::padded(p);
  float* dst = y->data();
  for (int64_t plane = 0; plane < l.planes; ++plane) {
    const float* in = x + plane * l.in_plane();
    for (int64_t od = 0; od < l.out[0]; ++od)
      for (int64_t oh = 0; oh < l.out[1]; ++oh)
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          const int64_t o[3] = {od, oh, ow};
          pool_internal::AvgWindow win[3];
          int64_t pool = 1, size = 1;
          for (int d = 0; d < 3; ++d) {
            win[d] = pool_internal::avg_window(o[d], l.in[d], q.kernel[d], q.stride[d], q.padding[d]);
            pool *= win[d].pool;
            size *= win[d].end - win[d].start;
          }
          float sum = 0.0f;
          for (int64_t id = win[0].start; id < win[0].end; ++id)
            for (int64_t ih = win[1].start; ih < win[1].end; ++ih)
              for (int64_t iw = win[2].start; iw < win[2].end; ++iw) sum += in[(id * l.in[1] + ih) * l.in[2] + iw];
          const int64_t divisor = p.has_divisor ? p.divisor : p.count_include_pad ? pool : size;
          *dst++ = sum / static_cast<float>(divisor);
        }
  }
  return Status::Ok();
}

Status fadaptive_pool(const float* x, const Shape& shape, int dims, const int64_t* output_size, PoolKind kind,
                      Buffer<float>* y, Shape* y_shape) {
  Layout l;
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(shape, dims, false, "AdaptivePool", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::adaptive_output(dims, output_size, &l));
  QWASM_RETURN_IF_ERROR(allocate_output(l, y, y_shape));
  float* dst = y->data();
  for (int64_t plane = 0; plane < l.planes; ++plane) {
    const float* in = x + plane * l.in_plane();
    for (int64_t od = 0; od < l.out[0]; ++od) {
      int64_t d0, d1;
      pool_internal::adaptive_window(od, l.in[0], l.out[0], &d0, &d1);
      for (int64_t oh = 0; oh < l.out[1]; ++oh) {
        int64_t h0, h1;
        pool_internal::adaptive_window(oh, l.in[1], l.out[1], &h0, &h1);
        for (int64_t ow = 0; ow < l.out[2]; ++ow) {
          int64_t w0, w1;
          pool_internal::adaptive_window(ow, l.in[2], l.out[2], &w0, &w1);
          float acc = kind == PoolKind::kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
          for (int64_t id = d0; id < d1; ++id)
            for (int64_t ih = h0; ih < h1; ++ih)
              for (int64_t iw = w0; iw < w1; ++iw) {
                const float v = in[(id * l.in[1] + ih) * l.in[2] + iw];
                if (kind == PoolKind::kMax) {
                  if (v > acc || std::isnan(v)) acc = v;
                } else {
                  acc += v;
                }
              }
          if (kind == PoolKind::kAvg) {
            acc = acc / static_cast<float>(d1 - d0) / static_cast<float>(h1 - h0) / static_cast<float>(w1 - w0);
          }
          *dst++ = acc;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace qwasm
