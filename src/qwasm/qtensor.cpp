#include "qwasm/qtensor.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

#include "qwasm/format.h"

namespace qwasm {
namespace {

using kernels::DequantizeMode;
using kernels::Isa;
using kernels::QuantizeMode;
using kernels::Storage;

// Largest tensor we accept: element counts stay exact in int32 index maths and
// in JavaScript numbers.
constexpr int64_t kMaxNumel = int64_t{1} << 31;

Storage storage_of(DType dtype) {
  switch (dtype) {
    case DType::kQInt8: return Storage::kS8;
    case DType::kQInt32: return Storage::kS32;
    default: return Storage::kU8;  // quint8, and quint4x2 before packing
  }
}

// "scale" or "scale[3]": built only when there is an error to report, so that
// validating a million channels stays cheap.
std::string label(const char* name, int64_t index) {
  return index < 0 ? std::string(name) : std::string(name) + "[" + std::to_string(index) + "]";
}

Status validate_scale(double scale, int64_t index) {
  const auto what = [index] { return label("scale", index); };
  if (!(std::isfinite(scale) && scale > 0)) {
    return Status::RangeError(what() + " must be a finite number > 0, got " + format_number(scale));
  }
  // The kernels compute in float: a scale that is 0 or infinite as float32 is no scale.
  const float f = static_cast<float>(scale);
  if (!(std::isfinite(f) && f > 0)) {
    return Status::RangeError(what() + " " + format_number(scale) + " is not representable as a positive float32");
  }
  return Status::Ok();
}

Status validate_zero_point(double zp, DType dtype, bool float_zero_point, int64_t index) {
  const auto what = [index] { return label("zero_point", index); };
  if (float_zero_point) {
    if (!std::isfinite(zp)) return Status::RangeError(what() + " must be finite, got " + format_number(zp));
    // Float zero points are kept (and used) as float32.
    if (!std::isfinite(static_cast<float>(zp))) {
      return Status::RangeError(what() + " " + format_number(zp) + " is not representable as a finite float32");
    }
    return Status::Ok();
  }
  if (!std::isfinite(zp) || zp != std::floor(zp)) {
    return Status::RangeError(what() + " must be an integer, got " + format_number(zp));
  }
  const QRange r = dtype_range(dtype);
  if (zp < static_cast<double>(r.qmin)) {
    return Status::RangeError(what() + " " + format_number(zp) + " is below lower bound " +
                              std::to_string(r.qmin) + " of " + dtype_name(dtype));
  }
  if (zp > static_cast<double>(r.qmax)) {
    return Status::RangeError(what() + " " + format_number(zp) + " is above upper bound " +
                              std::to_string(r.qmax) + " of " + dtype_name(dtype));
  }
  return Status::Ok();
}

struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

ChannelLayout channel_layout(const Shape& shape, int64_t axis) {
  ChannelLayout l;
  for (int64_t d = 0; d < axis; ++d) l.outer *= shape[d];
  l.channels = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

// quint4x2 storage: element i in byte i/2, low nibble first.
void pack_nibbles(const uint8_t* values, int64_t n, uint8_t* packed) {
  for (int64_t i = 0; i + 1 < n; i += 2) packed[i / 2] = static_cast<uint8_t>(values[i] | (values[i + 1] << 4));
  if (n % 2) packed[n / 2] = values[n - 1];
}

size_t element_size(Storage s) { return s == Storage::kS32 ? 4 : 1; }

Isa usable(Isa isa) { return kernels::isa_available(isa) ? isa : Isa::kScalar; }

// Runs shorter than this use the row kernels (per-element qparams).
constexpr int64_t kShortRun = 16;

// Walks the elements [0, numel) as rows of channels * inner positions, in
// chunks of positions whose per-element qparams fill(j0, j1, a, b) writes once;
// then apply(start, n, a, b) runs over that chunk of every row.
template <typename Fill, typename Apply>
void for_each_row_chunk(const ChannelLayout& l, Fill fill, Apply apply) {
  // Large chunks: the same positions of successive rows can sit a power of two
  // apart, and small chunks would then fight over the same cache sets.
  constexpr int64_t kChunk = int64_t{1} << 16;
  const int64_t row = l.channels * l.inner;
  std::vector<float> a(static_cast<size_t>(std::min(row, kChunk))), b(a.size());
  for (int64_t j0 = 0; j0 < row; j0 += kChunk) {
    const int64_t j1 = std::min(row, j0 + kChunk);
    fill(j0, j1, a.data(), b.data());
    for (int64_t o = 0; o < l.outer; ++o) apply(o * row + j0, j1 - j0, a.data(), b.data());
  }
}

}  // namespace

Status validate_shape(const Shape& shape, int64_t* numel) {
  int64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status::RangeError("shape[" + std::to_string(d) + "] must be >= 0, got " + std::to_string(shape[d]));
    }
    if (shape[d] != 0 && n > kMaxNumel / shape[d]) {
      return Status::RangeError("tensor too large: more than 2^31 elements");
    }
    n *= shape[d];
  }
  *numel = n;
  return Status::Ok();
}

Status make_qtensor(const Shape& shape, DType dtype, QScheme scheme, int64_t axis,
                    std::vector<double> scales, std::vector<double> zero_points, QTensor* out) {
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  const bool per_tensor = scheme == QScheme::kPerTensorAffine;
  const bool float_zp = scheme == QScheme::kPerChannelAffineFloatQParams;
  if (!per_tensor && scheme != QScheme::kPerChannelAffine && !float_zp) {
    return Status::Error(std::string("a tensor cannot have qscheme ") + qscheme_name(scheme) +
                         " (symmetric schemes are for observers)");
  }
  if (scheme == QScheme::kPerChannelAffine && dtype == DType::kQUInt4x2) {
    return Status::Error("quint4x2 supports per_tensor_affine and per_channel_affine_float_qparams only; "
                         "pass float zero points for per-channel quint4x2");
  }
  if (scales.size() != zero_points.size()) {
    return Status::RangeError("scales and zero points must have the same length, got " +
                              std::to_string(scales.size()) + " and " + std::to_string(zero_points.size()));
  }
  if (per_tensor) {
    if (scales.size() != 1) return Status::RangeError("per-tensor quantization takes one scale");
  } else {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (axis < 0 || axis >= rank) {
      return Status::RangeError("axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                                std::to_string(rank) +
                                (rank ? " (expected 0.." + std::to_string(rank - 1) + ")" : ""));
    }
    if (static_cast<int64_t>(scales.size()) != shape[axis]) {
      return Status::RangeError("expected " + std::to_string(shape[axis]) + " scales and zero points (the size of axis " +
                                std::to_string(axis) + "), got " + std::to_string(scales.size()));
    }
  }
  for (size_t c = 0; c < scales.size(); ++c) {
    const int64_t index = per_tensor ? -1 : static_cast<int64_t>(c);
    QWASM_RETURN_IF_ERROR(validate_scale(scales[c], index));
    QWASM_RETURN_IF_ERROR(validate_zero_point(zero_points[c], dtype, float_zp, index));
    if (float_zp) {  // float qparams are kept as float32, like PyTorch
      scales[c] = static_cast<float>(scales[c]);
      zero_points[c] = static_cast<float>(zero_points[c]);
    }
  }
  out->dtype_ = dtype;
  out->qscheme_ = scheme;
  out->shape_ = shape;
  out->numel_ = numel;
  out->axis_ = per_tensor ? -1 : axis;
  out->scales_ = std::move(scales);
  out->zero_points_ = std::move(zero_points);
  out->scales_are_float32_ = true;
  out->scales_f32_.assign(out->scales_.begin(), out->scales_.end());
  out->zero_points_f32_.assign(out->zero_points_.begin(), out->zero_points_.end());
  for (size_t c = 0; c < out->scales_.size(); ++c) {
    out->scales_are_float32_ = out->scales_are_float32_ && static_cast<double>(out->scales_f32_[c]) == out->scales_[c];
  }
  out->words_.assign((storage_bytes(dtype, static_cast<size_t>(numel)) + 3) / 4, 0);
  return Status::Ok();
}

namespace {

// Runs the quantize kernel over each (outer, channel) run of a validated tensor.
void quantize_into(const float* x, Isa isa, QTensor* q) {
  const QRange range = dtype_range(q->dtype());
  const bool float_zp = q->qscheme() == QScheme::kPerChannelAffineFloatQParams;
  const Storage storage = storage_of(q->dtype());
  const QuantizeMode mode = float_zp ? QuantizeMode::kFloatZeroPoint : QuantizeMode::kIntZeroPoint;
  const bool packed = q->dtype() == DType::kQUInt4x2;
  std::vector<uint8_t> unpacked(packed ? static_cast<size_t>(q->numel()) : 0);
  uint8_t* dst = packed ? unpacked.data() : q->data();
  const size_t esize = element_size(storage);
  const ChannelLayout l = q->qscheme() == QScheme::kPerTensorAffine
                              ? ChannelLayout{1, 1, q->numel()}
                              : channel_layout(q->shape(), q->axis());
  auto params_of = [&](int64_t c) {
    return float_zp ? kernels::quantize_float_qparams_init(static_cast<float>(q->scales()[c]),
                                                           static_cast<float>(q->zero_points()[c]), range.qmin,
                                                           range.qmax)
                    : kernels::quantize_params_init(q->scales()[c], static_cast<int32_t>(q->zero_points()[c]),
                                                    range.qmin, range.qmax);
  };
  if (l.inner < kShortRun && l.channels > 1) {
    // The channel axis is (nearly) innermost: give every element its own qparams.
    const auto row_fn = kernels::find_quantize_row_kernel(usable(isa), storage, mode);
    for_each_row_chunk(l, [&](int64_t j0, int64_t j1, float* a, float* b) {
      for (int64_t j = j0; j < j1;) {  // channel by channel: one reciprocal each
        const int64_t c = j / l.inner;
        const auto p = params_of(c);
        for (const int64_t stop = std::min(j1, (c + 1) * l.inner); j < stop; ++j) {
          a[j - j0] = p.inv_scale;
          b[j - j0] = p.zero_point;
        }
      }
    }, [&](int64_t start, int64_t n, const float* a, const float* b) {
      row_fn(static_cast<size_t>(n), x + start, dst + start * esize, a, b, range.qmin, range.qmax);
    });
  } else {
    const auto fn = kernels::find_quantize_kernel(usable(isa), storage, mode);
    for (int64_t c = 0; c < l.channels; ++c) {
      const auto p = params_of(c);
      for (int64_t o = 0; o < l.outer; ++o) {
        const int64_t start = (o * l.channels + c) * l.inner;
        fn(static_cast<size_t>(l.inner), x + start, dst + start * esize, &p);
      }
    }
  }
  if (packed) pack_nibbles(unpacked.data(), q->numel(), q->data());
}

}  // namespace

Status quantize_per_tensor(const float* x, const Shape& shape, double scale, double zero_point,
                           DType dtype, Isa isa, QTensor* out) {
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, QScheme::kPerTensorAffine, -1, {scale}, {zero_point}, out));
  quantize_into(x, isa, out);
  return Status::Ok();
}

Status quantize_per_channel(const float* x, const Shape& shape, const double* scales,
                            const double* zero_points, size_t nchannels, int64_t axis,
                            bool float_zero_points, DType dtype, Isa isa, QTensor* out) {
  QWASM_RETURN_IF_ERROR(make_qtensor(
      shape, dtype, float_zero_points ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerChannelAffine,
      axis, std::vector<double>(scales, scales + nchannels),
      std::vector<double>(zero_points, zero_points + nchannels), out));
  quantize_into(x, isa, out);
  return Status::Ok();
}

namespace {

Status copy_storage(const uint8_t* bytes, size_t nbytes, QTensor* out) {
  if (nbytes != out->nbytes()) {
    return Status::RangeError(std::string("expected ") + std::to_string(out->nbytes()) + " bytes of " +
                              dtype_name(out->dtype()) + " data for " + std::to_string(out->numel()) +
                              " elements, got " + std::to_string(nbytes));
  }
  if (nbytes) std::memcpy(out->data(), bytes, nbytes);
  return Status::Ok();
}

}  // namespace

Status make_per_tensor_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape,
                                 double scale, double zero_point, DType dtype, QTensor* out) {
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, QScheme::kPerTensorAffine, -1, {scale}, {zero_point}, out));
  return copy_storage(bytes, nbytes, out);
}

Status make_per_channel_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape,
                                  const double* scales, const double* zero_points,
                                  size_t nchannels, int64_t axis, bool float_zero_points,
                                  DType dtype, QTensor* out) {
  QWASM_RETURN_IF_ERROR(make_qtensor(
      shape, dtype, float_zero_points ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerChannelAffine,
      axis, std::vector<double>(scales, scales + nchannels),
      std::vector<double>(zero_points, zero_points + nchannels), out));
  return copy_storage(bytes, nbytes, out);
}

void dequantize(const QTensor& q, Isa isa, float* y) { dequantize_range(q, isa, 0, q.numel(), y); }

void dequantize_range(const QTensor& q, Isa isa, int64_t begin, int64_t end, float* y) {
  assert(0 <= begin && begin <= end && end <= q.numel());
  const Storage storage = storage_of(q.dtype());
  const DequantizeMode mode = q.qscheme() == QScheme::kPerTensorAffine ? DequantizeMode::kPerTensor
                              : q.qscheme() == QScheme::kPerChannelAffine ? DequantizeMode::kPerChannel
                                                                           : DequantizeMode::kFloatQParams;
  const auto fn = kernels::find_dequantize_kernel(usable(isa), storage, mode);
  // Per channel, PyTorch multiplies in double: (float)((double)((float)q - zp) * scale).
  // When the scale is a float32 value (as every observer-made scale is), the
  // product of two floats is exact in double, so rounding it once to float
  // equals the float32 multiply of the float-qparams kernel, which is faster.
  const auto fast_fn = mode == DequantizeMode::kPerChannel
                           ? kernels::find_dequantize_kernel(usable(isa), storage, DequantizeMode::kFloatQParams)
                           : fn;
  // quint4x2: unpack the range first; src is then indexed from `begin`.
  std::vector<uint8_t> unpacked;
  const uint8_t* src = q.data();
  int64_t src_origin = 0;
  if (q.dtype() == DType::kQUInt4x2) {
    unpacked.resize(static_cast<size_t>(end - begin));
    for (int64_t i = begin; i < end; ++i) unpacked[i - begin] = (q.data()[i / 2] >> (4 * (i % 2))) & 0xF;
    src = unpacked.data();
    src_origin = begin;
  }
  const size_t esize = element_size(storage);
  const ChannelLayout l = mode == DequantizeMode::kPerTensor ? ChannelLayout{1, 1, q.numel()}
                                                             : channel_layout(q.shape(), q.axis());
  if (l.inner == 0) return;
  // The row kernels multiply in float: exact for float qparams, and for per
  // channel when every scale is a float32 value (see fast_fn above).
  if (mode != DequantizeMode::kPerTensor && l.inner < kShortRun && l.channels > 1 &&
      (q.scales_are_float32() || mode == DequantizeMode::kFloatQParams)) {
    // The channel axis is (nearly) innermost: per-element qparams, in pieces.
    const auto row_fn = kernels::find_dequantize_row_kernel(usable(isa), storage);
    if (l.inner == 1) {  // per-element qparams are the float copies of the channels' own
      const float* scales_f = q.scales_f32().data();
      const float* zps_f = q.zero_points_f32().data();
      for (int64_t s = begin; s < end;) {
        const int64_t c = s % l.channels;
        const int64_t n = std::min(end - s, l.channels - c);
        row_fn(static_cast<size_t>(n), src + (s - src_origin) * esize, y + (s - begin), scales_f + c, zps_f + c);
        s += n;
      }
      return;
    }
    constexpr int64_t kPiece = 1024;
    float scales[kPiece], zps[kPiece];
    int64_t c = (begin / l.inner) % l.channels, k = begin % l.inner;
    for (int64_t s = begin; s < end; s += kPiece) {
      const int64_t n = std::min(kPiece, end - s);
      for (int64_t i = 0; i < n; ++i) {
        scales[i] = static_cast<float>(q.scales()[c]);
        zps[i] = static_cast<float>(q.zero_points()[c]);
        if (++k == l.inner) k = 0, c = c + 1 == l.channels ? 0 : c + 1;
      }
      row_fn(static_cast<size_t>(n), src + (s - src_origin) * esize, y + (s - begin), scales, zps);
    }
    return;
  }
  // Walk the runs (one per (outer, channel) pair) that overlap [begin, end).
  for (int64_t run = begin / l.inner; run * l.inner < end; ++run) {
    const int64_t c = run % l.channels;
    const int64_t s = std::max(begin, run * l.inner);
    const int64_t e = std::min(end, (run + 1) * l.inner);
    const double scale = q.scales()[c];
    const auto p = kernels::dequantize_params_init(scale, q.zero_points()[c]);
    const auto run_fn = static_cast<double>(static_cast<float>(scale)) == scale ? fast_fn : fn;
    run_fn(static_cast<size_t>(e - s), src + (s - src_origin) * esize, y + (s - begin), &p);
  }
}

}  // namespace qwasm
