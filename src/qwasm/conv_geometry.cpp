#include "qwasm/conv.h"

#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "qwasm/format.h"
#include "qwasm/limits.h"

namespace qwasm {
namespace {

const char* kDimName[3] = {"depth", "height", "width"};

// A geometry triple as the caller gave it: the last `dims` entries.
std::string dims_of(const std::array<int64_t, 3>& v, int dims) {
  if (dims <= 1) return std::to_string(v[2]);
  std::string s = "[";
  for (int d = 3 - dims; d < 3; ++d) s += (d > 3 - dims ? ", " : "") + std::to_string(v[d]);
  return s + "]";
}

}  // namespace

Status validate_geometry(const ConvGeometry& g) {
  const bool linear = g.spatial_dims == 0;
  const char* in_name = linear ? "inFeatures" : "inChannels";
  const char* out_name = linear ? "outFeatures" : "outChannels";
  for (const auto& [name, v] :
       {std::pair<const char*, int64_t>{in_name, g.in_channels}, {out_name, g.out_channels}, {"groups", g.groups}}) {
    if (v < 1) return Status::RangeError(std::string(name) + " must be >= 1, got " + std::to_string(v));
    if (v > kMaxGeometryValue) {
      return Status::RangeError(std::string(name) + " must be at most " + std::to_string(kMaxGeometryValue) + ", got " +
                                std::to_string(v));
    }
  }
  if (g.in_channels % g.groups != 0) {
    return Status::RangeError("inChannels (" + std::to_string(g.in_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  if (g.out_channels % g.groups != 0) {
    return Status::RangeError("outChannels (" + std::to_string(g.out_channels) + ") must be divisible by groups (" +
                              std::to_string(g.groups) + ")");
  }
  const int dims = g.spatial_dims;
  if (dims < 0 || dims > 3) return Status::RangeError("spatial_dims must be 0..3, got " + std::to_string(dims));
  // The dimensions a Conv1d / Conv2d / Linear does not have are unit ones:
  // the module's weight shape leaves them out.
  for (int d = 0; d < 3 - dims; ++d) {
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.dilation[d] != 1 || g.pad_begin[d] != 0 || g.pad_end[d] != 0) {
      return Status::RangeError("a " + std::to_string(dims) +
                                "-d geometry must have kernel, stride and dilation 1 "
                                "and no padding in its first " +
                                std::to_string(3 - dims) + " dimension(s)");
    }
  }
  if (dims == 0 && g.groups != 1)
    return Status::RangeError("a linear layer has groups 1, got " + std::to_string(g.groups));
  for (const auto& [name, t, lo] :
       {std::tuple<const char*, const std::array<int64_t, 3>*, int64_t>{"kernelSize", &g.kernel, 1},
        {"stride", &g.stride, 1},
        {"dilation", &g.dilation, 1},
        {"padding", &g.pad_begin, 0},
        {"padding", &g.pad_end, 0}}) {
    for (int d = 0; d < 3; ++d) {
      if ((*t)[d] < lo) {
        return Status::RangeError(std::string(name) + " must be >= " + std::to_string(lo) + ", got " +
                                  dims_of(*t, dims));
      }
      if ((*t)[d] > kMaxGeometryValue) {
        return Status::RangeError(std::string(name) + " must be at most " + std::to_string(kMaxGeometryValue) +
                                  ", got " + dims_of(*t, dims));
      }
    }
  }
  return Status::Ok();
}

Status conv_output_shape(const ConvGeometry& g, const Shape& in, Shape* out) {
  if (in.size() != 5) {
    return Status::RangeError("expected a 5-D input [N, C, D, H, W], got rank " + std::to_string(in.size()));
  }
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(in, &numel));
  if (in[1] != g.in_channels) {
    return Status::RangeError(g.spatial_dims == 0
                                  ? "expected " + std::to_string(g.in_channels) + " input features (the last " +
                                        "dimension), got " + std::to_string(in[1])
                                  : "expected " + std::to_string(g.in_channels) + " input channels (shape[1]), got " +
                                        std::to_string(in[1]));
  }
  *out = {in[0], g.out_channels, 0, 0, 0};
  for (int d = 0; d < 3; ++d) {
    // Every term is at most 2^31 - 1 (validated), so none of this overflows int64.
    const int64_t padded = in[2 + d] + g.pad_begin[d] + g.pad_end[d];
    const int64_t extent = g.dilation[d] * (g.kernel[d] - 1) + 1;
    if (padded < extent) {
      return Status::RangeError(std::string("kernel extent ") + std::to_string(extent) +
                                " is larger than the padded input " + kDimName[d] + " " + std::to_string(padded));
    }
    (*out)[2 + d] = (padded - extent) / g.stride[d] + 1;
  }
  int64_t out_numel = 0;
  const Status s = validate_shape(*out, &out_numel);
  if (!s.ok()) return Status::RangeError("the output would be too large: " + s.message);
  return Status::Ok();
}

Status linear_output_shape(const ConvGeometry& g, const Shape& in, Shape* out) {
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(in, &numel));
  if (in.empty()) return Status::RangeError("expected an input [..., inFeatures], got a 0-dimensional tensor");
  if (in.back() != g.in_channels) {
    return Status::RangeError("expected " + std::to_string(g.in_channels) +
                              " input features (the last dimension), got " + std::to_string(in.back()));
  }
  *out = in;
  out->back() = g.out_channels;
  int64_t out_numel = 0;
  const Status s = validate_shape(*out, &out_numel);
  if (!s.ok()) return Status::RangeError("the output would be too large: " + s.message);
  return Status::Ok();
}

Status validate_output_qparams(double scale, int64_t zero_point) {
  if (!(std::isfinite(scale) && scale > 0 && std::isfinite(static_cast<float>(scale)) &&
        static_cast<float>(scale) > 0)) {
    return Status::RangeError("scale (the output scale) must be a finite number > 0 as float32, got " +
                              format_number(scale));
  }
  if (zero_point < 0 || zero_point > 255) {
    return Status::RangeError("zeroPoint (the output zero point) must be in 0..255 (quint8), got " +
                              std::to_string(zero_point));
  }
  return Status::Ok();
}

Shape module_weight_shape(const ConvGeometry& g) {
  if (g.spatial_dims == 0) return {g.out_channels, g.in_channels};
  Shape s = {g.out_channels, g.in_channels / g.groups};
  for (int d = 3 - g.spatial_dims; d < 3; ++d) s.push_back(g.kernel[d]);
  return s;
}

}  // namespace qwasm
