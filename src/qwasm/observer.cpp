#include "qwasm/observer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "qwasm/format.h"

namespace qwasm {

Status observer_range(DType dtype, bool reduce_range, bool has_custom, int64_t quant_min, int64_t quant_max,
                      ObserverRange* out) {
  if (!has_custom) {
    switch (dtype) {
      case DType::kQInt8:
        *out = reduce_range ? ObserverRange{-64, 63, false} : ObserverRange{-128, 127, false};
        break;
      case DType::kQUInt8:
        *out = reduce_range ? ObserverRange{0, 127, false} : ObserverRange{0, 255, false};
        break;
      case DType::kQInt32:
        *out = {INT32_MIN, INT32_MAX, false};
        break;
      case DType::kQUInt4x2:
        *out = {0, 15, false};
        break;
    }
    return Status::Ok();
  }
  if (!(quant_min <= 0 && 0 <= quant_max)) {
    return Status::RangeError("quantMin..quantMax must include 0, got " + std::to_string(quant_min) + ".." +
                              std::to_string(quant_max));
  }
  if (!(quant_min < quant_max)) {
    return Status::RangeError("quantMin must be less than quantMax, got " + std::to_string(quant_min) + " and " +
                              std::to_string(quant_max));
  }
  // The span is computed in checked arithmetic: the bounds can be anywhere in int64.
  const int64_t limit = dtype == DType::kQInt32 ? (int64_t{1} << 32) : 256;
  int64_t len = 0;
  if (__builtin_sub_overflow(quant_max, quant_min, &len) || len >= limit) {
    return Status::RangeError(std::string("quantMin..quantMax (") + std::to_string(quant_min) + ".." +
                              std::to_string(quant_max) + ") spans more than the " + std::to_string(limit) +
                              " values " + dtype_name(dtype) + " allows");
  }
  // Python's floor division, as calculate_qmin_qmax does for reduce_range.
  auto floor_half = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
  *out = reduce_range ? ObserverRange{floor_half(quant_min), floor_half(quant_max), true}
                      : ObserverRange{quant_min, quant_max, true};
  // PyTorch validates before halving and then divides by zero (NaN / Inf
  // scales) when halving leaves one value; qwasm refuses that range.
  if (out->quant_min >= out->quant_max) {
    return Status::RangeError("quantMin..quantMax " + std::to_string(quant_min) + ".." + std::to_string(quant_max) +
                              " halved by reduceRange is " + std::to_string(out->quant_min) + ".." +
                              std::to_string(out->quant_max) + ": no range left to quantize into");
  }
  return Status::Ok();
}

Status validate_observer_scheme(DType dtype, QScheme qscheme, bool reduce_range, bool per_channel) {
  const bool channel_scheme = qscheme == QScheme::kPerChannelAffine || qscheme == QScheme::kPerChannelSymmetric ||
                              qscheme == QScheme::kPerChannelAffineFloatQParams;
  if (per_channel != channel_scheme) {
    return Status::RangeError(std::string(per_channel ? "a per-channel" : "a per-tensor") + " observer takes qscheme " +
                              (per_channel
                                   ? "per_channel_affine, per_channel_symmetric or per_channel_affine_float_qparams"
                                   : "per_tensor_affine or per_tensor_symmetric") +
                              ", got " + qscheme_name(qscheme));
  }
  const bool symmetric = qscheme == QScheme::kPerTensorSymmetric || qscheme == QScheme::kPerChannelSymmetric;
  if (symmetric && reduce_range && dtype == DType::kQUInt8) {
    return Status::Error("Cannot reduce range for symmetric quantization for quint8");
  }
  return Status::Ok();
}

Status observed_channels(const Shape& shape, bool per_channel, int64_t axis, int64_t* channels) {
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  if (!per_channel) {
    *channels = 1;
    return Status::Ok();
  }
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (axis < -rank || axis >= rank) {
    return Status::RangeError(
        "chAxis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank) +
        (rank ? " (expected " + std::to_string(-rank) + ".." + std::to_string(rank - 1) + ")" : ""));
  }
  *channels = shape[axis < 0 ? axis + rank : axis];
  return Status::Ok();
}

Status aminmax(const float* x, const Shape& shape, bool per_channel, int64_t axis, float* mins, float* maxs) {
  int64_t channels = 1;
  QWASM_RETURN_IF_ERROR(observed_channels(shape, per_channel, axis, &channels));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  int64_t inner = numel;
  if (per_channel && numel > 0) {  // (an empty shape's other dimensions can multiply past int64)
    const int64_t a = axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis;
    inner = 1;
    for (size_t d = a + 1; d < shape.size(); ++d) inner *= shape[d];
  }
  std::fill(mins, mins + channels, INFINITY);
  std::fill(maxs, maxs + channels, -INFINITY);
  for (int64_t i = 0; i < numel; ++i) {
    const float v = x[i];
    if (!std::isfinite(v)) {
      return Status::RangeError("observers need finite values; element " + std::to_string(i) + " is " +
                                format_number(v));
    }
    const int64_t c = (i / inner) % channels;
    mins[c] = std::min(mins[c], v);
    maxs[c] = std::max(maxs[c], v);
  }
  return Status::Ok();
}

void update_running_minmax(float* run_min, float* run_max, const float* cur_min, const float* cur_max, size_t n,
                           bool first, bool averaging, float c) {
  for (size_t i = 0; i < n; ++i) {
    if (first) {
      run_min[i] = cur_min[i];
      run_max[i] = cur_max[i];
    } else if (averaging) {
      run_min[i] = run_min[i] + c * (cur_min[i] - run_min[i]);
      run_max[i] = run_max[i] + c * (cur_max[i] - run_max[i]);
    } else {
      run_min[i] = std::min(cur_min[i], run_min[i]);
      run_max[i] = std::max(cur_max[i], run_max[i]);
    }
  }
}

Status calculate_qparams(const float* mins, const float* maxs, size_t n, QScheme qscheme, DType dtype,
                         const ObserverRange& range, float eps, float* scales, double* zero_points) {
  for (size_t c = 0; c < n; ++c) {
    const bool unobserved = mins[c] == INFINITY && maxs[c] == -INFINITY;
    if (!unobserved && !(mins[c] <= maxs[c])) {
      return Status::Error("min " + format_number(mins[c]) + " should be less than max " + format_number(maxs[c]) +
                           (n > 1 ? " (channel " + std::to_string(c) + ")" : std::string()) +
                           ": the running range is empty, which a moving average can produce");
    }
  }
  // Python computes float(quant_max - quant_min) (/ 2) in double; the tensor
  // arithmetic then uses it as a float32 scalar.
  const double span_d = static_cast<double>(range.quant_max - range.quant_min);
  const float span = static_cast<float>(span_d);
  const float half_span = static_cast<float>(span_d / 2);
  for (size_t c = 0; c < n; ++c) {
    const float mn = mins[c], mx = maxs[c];
    if (mn == INFINITY && mx == -INFINITY) {  // check_min_max_valid: nothing observed
      scales[c] = 1.0f;
      zero_points[c] = 0;
      continue;
    }
    const float min_neg = std::min(mn, 0.0f);
    const float max_pos = std::max(mx, 0.0f);
    switch (qscheme) {
      case QScheme::kPerTensorSymmetric:
      case QScheme::kPerChannelSymmetric: {
        const float m = std::max(-min_neg, max_pos);
        scales[c] = std::max(m / half_span, eps);
        double zp = 0;
        if (dtype == DType::kQUInt8) {
          zp = range.customized ? std::floor((static_cast<double>(range.quant_min) + range.quant_max) / 2) : 128;
        }
        zero_points[c] = zp;
        break;
      }
      case QScheme::kPerChannelAffineFloatQParams: {
        float s = (mx - mn) / span;
        if (!(s > eps)) s = 1.0f;
        scales[c] = s;
        zero_points[c] = (-mn) / s;
        break;
      }
      default: {
        const float s = std::max((max_pos - min_neg) / span, eps);
        scales[c] = s;
        // Integer arithmetic in PyTorch: quant_min - round(min_neg / scale).to(int).
        const double zp = static_cast<double>(range.quant_min) - std::nearbyint(min_neg / s);
        zero_points[c] =
            std::min(std::max(zp, static_cast<double>(range.quant_min)), static_cast<double>(range.quant_max));
        break;
      }
    }
  }
  return Status::Ok();
}

}  // namespace qwasm
