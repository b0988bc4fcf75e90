#include "qwasm/pool_layout.h"

#include <string>

#include "qwasm/checked_size.h"
#include "qwasm/limits.h"

namespace qwasm {
namespace pool_internal {
namespace {

std::string dim_name(int d, int dims) {
  static const char* kNames[3] = {"depth", "height", "width"};
  return kNames[3 - dims + d];
}

// "[a, b, c]": a parameter's values over the pooled dimensions, as the conv
// geometry's messages show them.
std::string values_of(const int64_t* v, int dims) {
  std::string s = "[";
  for (int d = 0; d < dims; ++d) s += (d > 0 ? ", " : "") + std::to_string(v[d]);
  return s + "]";
}

// Each geometry parameter in its range: "stride must be >= 1, got [0, 2, 2]".
Status check_geometry_ranges(const PoolParams& p, PoolKind kind) {
  struct Param {
    const char* name;
    const int64_t* values;
    int64_t lo;
  };
  const Param params[] = {{"kernelSize", p.kernel, 1},
                          {"stride", p.stride, 1},
                          {"padding", p.padding, 0},
                          {"dilation", kind == PoolKind::kMax ? p.dilation : nullptr, 1}};
  for (const Param& param : params) {
    if (param.values == nullptr) continue;  // average pooling has no dilation
    for (int d = 0; d < p.dims; ++d) {
      if (param.values[d] < param.lo) {
        return Status::RangeError(std::string(param.name) + " must be >= " + std::to_string(param.lo) + ", got " +
                                  values_of(param.values, p.dims));
      }
      if (param.values[d] > kMaxGeometryValue) {
        return Status::RangeError(std::string(param.name) + " must be at most " + std::to_string(kMaxGeometryValue) +
                                  ", got " + values_of(param.values, p.dims));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status input_layout(const Shape& shape, int dims, bool rank5_only, const char* op, Layout* l) {
  if (dims < 1 || dims > 3) return Status::RangeError("pooling has 1, 2 or 3 spatial dimensions");
  const int rank = static_cast<int>(shape.size());
  const bool ok = rank5_only ? rank == 5 : (rank == dims + 1 || rank == dims + 2);
  if (!ok) {
    return Status::RangeError(
        std::string(op) + " expects a " +
        (rank5_only ? std::string("5-D [N, C, D, H, W]")
                    : std::to_string(dims + 2) + "-D [N, C, ...] or " + std::to_string(dims + 1) + "-D [C, ...]") +
        " input, got rank " + std::to_string(rank));
  }
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  // A batched input may have an empty batch (PyTorch's "optional 0 dim batch
  // size": the output is empty too); every other dimension must be >= 1.
  const bool batched = rank == dims + 2;
  for (int i = batched ? 1 : 0; i < rank; ++i) {
    if (shape[i] < 1) {
      return Status::RangeError(std::string(op) + ": input dimension " + std::to_string(i) + " is " +
                                std::to_string(shape[i]) + "; every dimension but a batch's must be >= 1");
    }
  }
  l->rank = rank;
  l->batched = batched;
  l->channels = shape[rank - dims - 1];
  l->planes = l->batched ? shape[0] * l->channels : l->channels;
  for (int d = 0; d < 3; ++d) l->in[d] = 1;
  for (int d = 0; d < dims; ++d) l->in[3 - dims + d] = shape[rank - dims + d];
  return Status::Ok();
}

PoolParams padded(const PoolParams& p) {
  PoolParams q = p;
  for (int d = 0; d < 3; ++d) {
    const int src = d - (3 - p.dims);
    q.kernel[d] = src < 0 ? 1 : p.kernel[src];
    q.stride[d] = src < 0 ? 1 : p.stride[src];
    q.padding[d] = src < 0 ? 0 : p.padding[src];
    q.dilation[d] = src < 0 ? 1 : p.dilation[src];
  }
  q.dims = 3;
  return q;
}

Status regular_output(const PoolParams& p, PoolKind kind, Layout* l) {
  const int dims = p.dims;
  QWASM_RETURN_IF_ERROR(check_geometry_ranges(p, kind));
  for (int d = 0; d < dims; ++d) {
    const int64_t k = p.kernel[d], s = p.stride[d], pad = p.padding[d];
    const int64_t dil = kind == PoolKind::kMax ? p.dilation[d] : 1;
    const int64_t in = l->in[3 - dims + d];
    const std::string where = " (" + dim_name(d, dims) + ")";
    // Both of PyTorch's checks: half the kernel, and half the dilated kernel.
    if (pad > k / 2) {
      return Status::RangeError("padding should be at most half of kernelSize, got padding " + std::to_string(pad) +
                                " and kernelSize " + std::to_string(k) + where);
    }
    const CheckedSize effective = CheckedSize(dil) * (k - 1) + 1;
    if (!effective.ok() || pad > effective.value() / 2) {
      // (effective.ok(): dil and k are at most 2^31 - 1 here, so their product fits.)
      return Status::RangeError(
          "padding should be at most half of the effective kernel size dilation * (kernelSize - 1) + 1, got padding " +
          std::to_string(pad) + " and effective kernel size " + std::to_string(effective.value()) + where);
    }
    // floor((in + 2 pad - dil (k - 1) - 1 + (ceil ? s - 1 : 0)) / s) + 1, in int64 (all terms < 2^33).
    const int64_t span = in + 2 * pad - effective.value() + (p.ceil_mode ? s - 1 : 0);
    int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
    // With ceil_mode the last window must start inside the input or its left padding.
    if (p.ceil_mode && (out - 1) * s >= in + pad) --out;
    if (out < 1) {
      return Status::RangeError("the output would be empty: input size " + std::to_string(in) + ", kernelSize " +
                                std::to_string(k) + ", padding " + std::to_string(pad) + where);
    }
    l->out[3 - dims + d] = out;
  }
  if (kind == PoolKind::kAvg && p.has_divisor && p.divisor == 0) {
    return Status::RangeError("divisorOverride must not be zero");
  }
  // The divisor is a window's size, at most the kernel's: its product must fit
  // int64 (PyTorch's overflows there).
  if (kind == PoolKind::kAvg) {
    CheckedSize taps = 1;
    for (int d = 0; d < dims; ++d) taps *= p.kernel[d];
    if (!taps.ok()) return Status::RangeError("kernelSize spans more than 2^63 positions");
  }
  l->out_shape.clear();
  if (l->batched) l->out_shape.push_back(l->planes / l->channels);
  l->out_shape.push_back(l->channels);
  for (int d = 0; d < dims; ++d) l->out_shape.push_back(l->out[3 - dims + d]);
  int64_t numel = 0;
  return validate_shape(l->out_shape, &numel);
}

Status adaptive_output(int dims, const int64_t* output_size, Layout* l) {
  for (int d = 0; d < dims; ++d) {
    if (output_size[d] < 1 || output_size[d] > kMaxNumel) {
      return Status::RangeError("outputSize[" + std::to_string(d) + "] must be in 1.." + std::to_string(kMaxNumel) +
                                ", got " + std::to_string(output_size[d]));
    }
    l->out[3 - dims + d] = output_size[d];
  }
  l->out_shape.clear();
  if (l->batched) l->out_shape.push_back(l->planes / l->channels);
  l->out_shape.push_back(l->channels);
  for (int d = 0; d < dims; ++d) l->out_shape.push_back(output_size[d]);
  int64_t numel = 0;
  return validate_shape(l->out_shape, &numel);
}

}  // namespace pool_internal

Status pool_output_shape(const Shape& input, const PoolParams& p, PoolKind kind, bool quantized, Shape* out) {
  pool_internal::Layout l;
  const bool rank5 = quantized && p.dims == 3;
  QWASM_RETURN_IF_ERROR(pool_internal::input_layout(input, p.dims, rank5, "pooling", &l));
  QWASM_RETURN_IF_ERROR(pool_internal::regular_output(p, kind, &l));
  *out = l.out_shape;
  return Status::Ok();
}

}  // namespace qwasm
