#include "qwasm/qtensor.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/quantize_kernels.h"
#include "qwasm/format.h"
#include "qwasm/limits.h"
#include "qwasm/thread_pool.h"

namespace qwasm {
namespace {

using kernels::DequantizeMode;
using kernels::Isa;
using kernels::QuantizeMode;
using kernels::Storage;

Storage storage_of(DType dtype) {
  switch (dtype) {
    case DType::kQInt8:
      return Storage::kS8;
    case DType::kQInt32:
      return Storage::kS32;
    default:
      return Storage::kU8;  // quint8, and quint4x2 before packing
  }
}

// "scale" per tensor, "scales[3]" per channel: the JavaScript argument names.
// Built only when there is an error to report, so validating a million
// channels stays cheap.
std::string label(bool per_channel, const char* one, const char* many, int64_t index) {
  return per_channel ? std::string(many) + "[" + std::to_string(index) + "]" : std::string(one);
}

Status validate_scale(double scale, bool per_channel, int64_t index) {
  const auto what = [&] { return label(per_channel, "scale", "scales", index); };
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

Status validate_zero_point(double zp, DType dtype, bool float_zero_point, bool per_channel, int64_t index) {
  const auto what = [&] { return label(per_channel, "zeroPoint", "zeroPoints", index); };
  if (float_zero_point) {
    if (!std::isfinite(zp)) return Status::RangeError(what() + " must be finite, got " + format_number(zp));
    // Float zero points are kept (and used) as float32.
    if (!std::isfinite(static_cast<float>(zp))) {
      return Status::RangeError(what() + " " + format_number(zp) + " is not representable as a finite float32");
    }
    return Status::Ok();
  }
  if (!std::isfinite(zp) || zp != std::floor(zp)) {
    return Status::TypeError(what() + " must be an integer, got " + format_number(zp) +
                             (per_channel ? " (pass a Float32Array for float zero points)" : ""));
  }
  const QRange r = dtype_range(dtype);
  if (zp < static_cast<double>(r.qmin)) {
    return Status::RangeError(what() + " " + format_number(zp) + " is below lower bound " + std::to_string(r.qmin) +
                              " of " + dtype_name(dtype));
  }
  if (zp > static_cast<double>(r.qmax)) {
    return Status::RangeError(what() + " " + format_number(zp) + " is above upper bound " + std::to_string(r.qmax) +
                              " of " + dtype_name(dtype));
  }
  return Status::Ok();
}

struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

// For non-empty shapes only: then every partial product is at most the
// element count. (With a zero dimension the other dimensions can multiply
// past int64, and there is nothing to walk anyway.)
ChannelLayout channel_layout(const Shape& shape, int64_t axis) {
  assert(std::all_of(shape.begin(), shape.end(), [](int64_t d) { return d > 0; }));
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

// Runs shorter than this use the row kernels (per-element qparams).
constexpr int64_t kShortRun = 16;

// Validates everything make_qtensor needs; on success *numel and *bytes hold
// the element count and the storage size.
Status validate_qtensor(const Shape& shape, DType dtype, QScheme scheme, int64_t axis, const double* scales,
                        const double* zero_points, size_t n, int64_t* numel, CheckedSize* bytes) {
  QWASM_RETURN_IF_ERROR(validate_shape(shape, numel));
  const bool per_tensor = scheme == QScheme::kPerTensorAffine;
  const bool float_zp = scheme == QScheme::kPerChannelAffineFloatQParams;
  if (!per_tensor && scheme != QScheme::kPerChannelAffine && !float_zp) {
    return Status::Error(std::string("a tensor cannot have qscheme ") + qscheme_name(scheme) +
                         " (symmetric schemes are for observers)");
  }
  if (scheme == QScheme::kPerChannelAffine && dtype == DType::kQUInt4x2) {
    return Status::TypeError(
        "quint4x2 supports per_tensor_affine and per_channel_affine_float_qparams only; "
        "pass the zero points as a Float32Array for per-channel quint4x2");
  }
  if (per_tensor) {
    if (n != 1) return Status::RangeError("per-tensor quantization takes one scale, got " + std::to_string(n));
  } else {
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (axis < 0 || axis >= rank) {
      return Status::RangeError("axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
                                std::to_string(rank) + (rank ? " (expected 0.." + std::to_string(rank - 1) + ")" : ""));
    }
    if (static_cast<int64_t>(n) != shape[axis]) {
      return Status::RangeError("expected " + std::to_string(shape[axis]) +
                                " scales and zero points (the size of axis " + std::to_string(axis) + "), got " +
                                std::to_string(n));
    }
  }
  for (size_t c = 0; c < n; ++c) {
    const int64_t index = static_cast<int64_t>(c);
    QWASM_RETURN_IF_ERROR(validate_scale(scales[c], !per_tensor, index));
    QWASM_RETURN_IF_ERROR(validate_zero_point(zero_points[c], dtype, float_zp, !per_tensor, index));
  }
  *bytes = storage_bytes(dtype, CheckedSize(*numel));
  if (!bytes->at_most(kMaxBufferBytes)) return allocation_error("the tensor's storage", *bytes, true);
  return Status::Ok();
}

// Walks the elements [0, numel) as rows of channels * inner positions, in
// chunks of positions whose per-element qparams fill(j0, j1, a, b) writes once;
// then apply(start, n, a, b) runs over that chunk of every row.
template <typename Fill, typename Apply>
Status for_each_row_chunk(const ChannelLayout& l, Fill fill, Apply apply) {
  // Large chunks: the same positions of successive rows can sit a power of two
  // apart, and small chunks would then fight over the same cache sets.
  constexpr int64_t kChunk = int64_t{1} << 16;
  const int64_t row = l.channels * l.inner;
  Buffer<float> a, b;
  QWASM_RETURN_IF_ERROR(a.allocate(std::min(row, kChunk), "per-element qparams", false));
  QWASM_RETURN_IF_ERROR(b.allocate(std::min(row, kChunk), "per-element qparams", false));
  for (int64_t j0 = 0; j0 < row; j0 += kChunk) {
    const int64_t j1 = std::min(row, j0 + kChunk);
    fill(j0, j1, a.data(), b.data());
    for (int64_t o = 0; o < l.outer; ++o) apply(o * row + j0, j1 - j0, a.data(), b.data());
  }
  return Status::Ok();
}

// Runs the quantize kernels over a validated tensor.
Status quantize_into(const float* x, Isa isa, QTensor* q) {
  if (q->numel() == 0) return Status::Ok();
  const QRange range = dtype_range(q->dtype());
  const bool float_zp = q->qscheme() == QScheme::kPerChannelAffineFloatQParams;
  const Storage storage = storage_of(q->dtype());
  const QuantizeMode mode = float_zp ? QuantizeMode::kFloatZeroPoint : QuantizeMode::kIntZeroPoint;
  const bool packed = q->dtype() == DType::kQUInt4x2;
  Buffer<uint8_t> unpacked;
  if (packed) QWASM_RETURN_IF_ERROR(unpacked.allocate(q->numel(), "quint4x2 unpacked values", false));
  uint8_t* dst = packed ? unpacked.data() : q->mutable_data();
  const size_t esize = element_size(storage);
  const ChannelLayout l = q->qscheme() == QScheme::kPerTensorAffine ? ChannelLayout{1, 1, q->numel()}
                                                                    : channel_layout(q->shape(), q->axis());
  auto params_of = [&](int64_t c) {
    return float_zp ? kernels::quantize_float_qparams_init(
                          static_cast<float>(q->scales()[c]), static_cast<float>(q->zero_points()[c]),
                          static_cast<int32_t>(range.qmin), static_cast<int32_t>(range.qmax))
                    : kernels::quantize_params_init(q->scales()[c], static_cast<int32_t>(q->zero_points()[c]),
                                                    static_cast<int32_t>(range.qmin), static_cast<int32_t>(range.qmax));
  };
  if (l.inner < kShortRun && l.channels > 1) {
    // The channel axis is (nearly) innermost: give every element its own qparams.
    const auto row_fn = kernels::find_quantize_row(isa, storage, mode)->fn;
    QWASM_RETURN_IF_ERROR(for_each_row_chunk(
        l,
        [&](int64_t j0, int64_t j1, float* a, float* b) {
          for (int64_t j = j0; j < j1;) {  // channel by channel: one reciprocal each
            const int64_t c = j / l.inner;
            const auto p = params_of(c);
            for (const int64_t stop = std::min(j1, (c + 1) * l.inner); j < stop; ++j) {
              a[j - j0] = p.inv_scale;
              b[j - j0] = p.zero_point;
            }
          }
        },
        [&](int64_t start, int64_t n, const float* a, const float* b) {
          row_fn(static_cast<size_t>(n), x + start, dst + start * esize, a, b, static_cast<int32_t>(range.qmin),
                 static_cast<int32_t>(range.qmax));
        }));
  } else {
    const auto fn = kernels::find_quantize(isa, storage, mode)->fn;
    // Threads: runs of `inner` elements (one per (outer, channel) pair), cut
    // into pieces of at most 64 K elements; tasks of at least 64 K elements.
    constexpr int64_t kPiece = 65536;
    const int64_t pieces_per_run = (l.inner + kPiece - 1) / kPiece;
    const int64_t piece_len = (l.inner + pieces_per_run - 1) / pieces_per_run;
    const int64_t pieces = l.outer * l.channels * pieces_per_run;
    parallel_for_ranges(pieces, items_for_work(kPiece, piece_len), [&](int64_t begin, int64_t end) {
      for (int64_t piece = begin; piece < end; ++piece) {
        const int64_t run = piece / pieces_per_run;  // o * channels + c
        const int64_t from = piece % pieces_per_run * piece_len;
        const int64_t start = run * l.inner + from;
        const auto p = params_of(run % l.channels);
        fn(static_cast<size_t>(std::min(piece_len, l.inner - from)), x + start, dst + start * esize, &p);
      }
    });
  }
  if (packed) pack_nibbles(unpacked.data(), q->numel(), q->mutable_data());
  return Status::Ok();
}

Status copy_storage(const uint8_t* bytes, size_t nbytes, QTensor* out) {
  if (nbytes) std::memcpy(out->mutable_data(), bytes, nbytes);
  return Status::Ok();
}

Status check_byte_count(size_t nbytes, CheckedSize want, DType dtype, int64_t numel) {
  if (static_cast<int64_t>(nbytes) == want.value()) return Status::Ok();
  return Status::RangeError(std::string("expected ") + std::to_string(want.value()) + " bytes of " + dtype_name(dtype) +
                            " data for " + std::to_string(numel) + " elements, got " + std::to_string(nbytes));
}

}  // namespace

Status validate_shape(const Shape& shape, int64_t* numel) {
  if (static_cast<int64_t>(shape.size()) > kMaxRank) {
    return Status::RangeError("a tensor has at most " + std::to_string(kMaxRank) + " dimensions, got " +
                              std::to_string(shape.size()));
  }
  bool empty = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return Status::RangeError("shape[" + std::to_string(d) + "] must be >= 0, got " + std::to_string(shape[d]));
    }
    if (shape[d] > kMaxNumel) {
      return Status::RangeError("shape[" + std::to_string(d) + "] is " + std::to_string(shape[d]) +
                                "; a dimension holds at most " + std::to_string(kMaxNumel) + " elements");
    }
    empty = empty || shape[d] == 0;
  }
  CheckedSize n = 1;
  for (int64_t d : shape) n *= empty ? 0 : d;
  if (!n.at_most(kMaxNumel)) {
    return Status::RangeError("tensor too large: " + (n.ok() ? std::to_string(n.value()) : std::string("over 2^63")) +
                              " elements (at most " + std::to_string(kMaxNumel) + ")");
  }
  *numel = n.value();
  return Status::Ok();
}

Status make_qtensor(const Shape& shape, DType dtype, QScheme scheme, int64_t axis, const double* scales,
                    const double* zero_points, size_t n, QTensor* out) {
  int64_t numel = 0;
  CheckedSize bytes;
  QWASM_RETURN_IF_ERROR(validate_qtensor(shape, dtype, scheme, axis, scales, zero_points, n, &numel, &bytes));
  const bool float_zp = scheme == QScheme::kPerChannelAffineFloatQParams;
  auto qparams = std::make_shared<QParams>();
  QWASM_RETURN_IF_ERROR(qparams->scales.assign(scales, n, "scales"));
  QWASM_RETURN_IF_ERROR(qparams->zero_points.assign(zero_points, n, "zero points"));
  QWASM_RETURN_IF_ERROR(qparams->scales_f32.allocate(static_cast<int64_t>(n), "scales", false));
  QWASM_RETURN_IF_ERROR(qparams->zero_points_f32.allocate(static_cast<int64_t>(n), "zero points", false));
  for (size_t c = 0; c < n; ++c) {
    if (float_zp) {  // float qparams are kept as float32, like PyTorch
      qparams->scales[c] = static_cast<float>(qparams->scales[c]);
      qparams->zero_points[c] = static_cast<float>(qparams->zero_points[c]);
    }
    qparams->scales_f32[c] = static_cast<float>(qparams->scales[c]);
    qparams->zero_points_f32[c] = static_cast<float>(qparams->zero_points[c]);
    qparams->scales_are_float32 =
        qparams->scales_are_float32 && static_cast<double>(qparams->scales_f32[c]) == qparams->scales[c];
  }
  auto storage = std::make_shared<Buffer<uint8_t>>();
  QWASM_RETURN_IF_ERROR(storage->allocate(bytes, "the tensor's storage"));
  out->dtype_ = dtype;
  out->qscheme_ = scheme;
  out->shape_ = shape;
  out->strides_ = contiguous_strides(shape);
  out->numel_ = numel;
  out->axis_ = scheme == QScheme::kPerTensorAffine ? -1 : axis;
  out->qparams_ = std::move(qparams);
  out->storage_ = std::move(storage);
  return Status::Ok();
}

Status view_as(const QTensor& q, const Shape& shape, int64_t axis, QTensor* out) {
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(shape, &numel));
  if (numel != q.numel()) {
    return Status::RangeError("a view must keep the element count: " + std::to_string(q.numel()) + " elements, " +
                              "the new shape holds " + std::to_string(numel));
  }
  const bool per_tensor = q.qscheme() == QScheme::kPerTensorAffine;
  if (!per_tensor) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
      return Status::RangeError("axis " + std::to_string(axis) + " is out of range for a view of rank " +
                                std::to_string(shape.size()));
    }
    // An empty tensor has no elements to move: its channel count must stay.
    const bool moved = numel == 0 ? q.shape()[q.axis()] != shape[axis] : [&] {
      const ChannelLayout a = channel_layout(q.shape(), q.axis()), b = channel_layout(shape, axis);
      return a.outer != b.outer || a.channels != b.channels || a.inner != b.inner;
    }();
    if (moved) {
      return Status::RangeError("this view would move elements to other channels of axis " + std::to_string(q.axis()));
    }
  }
  // torch.reshape: a view's strides where PyTorch can make the view, else
  // a contiguous copy's.
  Strides strides;
  if (!view_strides(q.shape(), q.strides(), shape, &strides)) strides = contiguous_strides(shape);
  *out = q;
  out->shape_ = shape;
  out->strides_ = std::move(strides);
  out->axis_ = per_tensor ? -1 : axis;
  return Status::Ok();
}

void QTensor::set_strides(Strides strides) {
  assert(strides.size() == shape_.size());
  strides_ = std::move(strides);
}

Strides strides_like(const QTensor& x, const Shape& shape) {
  return strides_for(shape, suggest_memory_format(x.shape(), x.strides()));
}

Status as_memory_format(const QTensor& q, MemoryFormat format, QTensor* out) {
  const size_t rank = q.shape().size();
  if (format == MemoryFormat::kChannelsLast && rank != 4 && rank != 5) {
    return Status::RangeError("channels_last needs a tensor of rank 4 (or 5 for channels_last_3d), got rank " +
                              std::to_string(rank));
  }
  *out = q;
  const bool already = format == MemoryFormat::kChannelsLast ? is_channels_last_contiguous(q.shape(), q.strides())
                                                             : is_contiguous(q.shape(), q.strides());
  if (!already) out->set_strides(strides_for(q.shape(), format));
  return Status::Ok();
}

Status quantize_per_tensor(const float* x, const Shape& shape, double scale, double zero_point, DType dtype, Isa isa,
                           QTensor* out) {
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, QScheme::kPerTensorAffine, -1, &scale, &zero_point, 1, out));
  return quantize_into(x, isa, out);
}

Status quantize_per_channel(const float* x, const Shape& shape, const double* scales, const double* zero_points,
                            size_t nchannels, int64_t axis, bool float_zero_points, DType dtype, Isa isa,
                            QTensor* out) {
  const QScheme scheme = float_zero_points ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerChannelAffine;
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, scheme, axis, scales, zero_points, nchannels, out));
  return quantize_into(x, isa, out);
}

Status make_per_tensor_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape, double scale,
                                 double zero_point, DType dtype, QTensor* out) {
  int64_t numel = 0;
  CheckedSize want;
  QWASM_RETURN_IF_ERROR(
      validate_qtensor(shape, dtype, QScheme::kPerTensorAffine, -1, &scale, &zero_point, 1, &numel, &want));
  QWASM_RETURN_IF_ERROR(check_byte_count(nbytes, want, dtype, numel));
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, QScheme::kPerTensorAffine, -1, &scale, &zero_point, 1, out));
  return copy_storage(bytes, nbytes, out);
}

Status make_per_channel_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape, const double* scales,
                                  const double* zero_points, size_t nchannels, int64_t axis, bool float_zero_points,
                                  DType dtype, QTensor* out) {
  const QScheme scheme = float_zero_points ? QScheme::kPerChannelAffineFloatQParams : QScheme::kPerChannelAffine;
  int64_t numel = 0;
  CheckedSize want;
  QWASM_RETURN_IF_ERROR(validate_qtensor(shape, dtype, scheme, axis, scales, zero_points, nchannels, &numel, &want));
  QWASM_RETURN_IF_ERROR(check_byte_count(nbytes, want, dtype, numel));
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, dtype, scheme, axis, scales, zero_points, nchannels, out));
  return copy_storage(bytes, nbytes, out);
}

Status dequantize(const QTensor& q, Isa isa, float* y) {
  // Threads: element ranges of at least 64 K (dequantize_range starts anywhere).
  return parallel_for_ranges_status(
      q.numel(), 65536, [&](int64_t begin, int64_t end) { return dequantize_range(q, isa, begin, end, y + begin); });
}

Status dequantize_range(const QTensor& q, Isa isa, int64_t begin, int64_t end, float* y) {
  assert(0 <= begin && begin <= end && end <= q.numel());
  if (begin == end) return Status::Ok();
  const Storage storage = storage_of(q.dtype());
  const DequantizeMode mode = q.qscheme() == QScheme::kPerTensorAffine    ? DequantizeMode::kPerTensor
                              : q.qscheme() == QScheme::kPerChannelAffine ? DequantizeMode::kPerChannel
                                                                          : DequantizeMode::kFloatQParams;
  const auto fn = kernels::find_dequantize(isa, storage, mode)->fn;
  // Per channel, PyTorch multiplies in double: (float)((double)((float)q - zp) * scale).
  // When the scale is a float32 value (as every observer-made scale is), the
  // product of two floats is exact in double, so rounding it once to float
  // equals the float32 multiply of the float-qparams kernel, which is faster.
  const auto fast_fn = mode == DequantizeMode::kPerChannel
                           ? kernels::find_dequantize(isa, storage, DequantizeMode::kFloatQParams)->fn
                           : fn;
  // quint4x2: unpack the range first; src is then indexed from `begin`.
  Buffer<uint8_t> unpacked;
  const uint8_t* src = q.data();
  int64_t src_origin = 0;
  if (q.dtype() == DType::kQUInt4x2) {
    QWASM_RETURN_IF_ERROR(unpacked.allocate(end - begin, "quint4x2 unpacked values", false));
    for (int64_t i = begin; i < end; ++i) unpacked[i - begin] = (q.data()[i / 2] >> (4 * (i % 2))) & 0xF;
    src = unpacked.data();
    src_origin = begin;
  }
  const size_t esize = element_size(storage);
  const ChannelLayout l =
      mode == DequantizeMode::kPerTensor ? ChannelLayout{1, 1, q.numel()} : channel_layout(q.shape(), q.axis());
  // The row kernels multiply in float: exact for float qparams, and for per
  // channel when every scale is a float32 value (see fast_fn above).
  if (mode != DequantizeMode::kPerTensor && l.inner < kShortRun && l.channels > 1 &&
      (q.scales_are_float32() || mode == DequantizeMode::kFloatQParams)) {
    // The channel axis is (nearly) innermost: per-element qparams, in pieces.
    const auto row_fn = kernels::find_dequantize_row(isa, storage)->fn;
    if (l.inner == 1) {  // per-element qparams are the float copies of the channels' own
      const float* scales_f = q.scales_f32().data();
      const float* zps_f = q.zero_points_f32().data();
      for (int64_t s = begin; s < end;) {
        const int64_t c = s % l.channels;
        const int64_t n = std::min(end - s, l.channels - c);
        row_fn(static_cast<size_t>(n), src + (s - src_origin) * esize, y + (s - begin), scales_f + c, zps_f + c);
        s += n;
      }
      return Status::Ok();
    }
    constexpr int64_t kPiece = 1024;
    float scales[kPiece], zps[kPiece];
    int64_t c = (begin / l.inner) % l.channels, k = begin % l.inner;
    for (int64_t s = begin; s < end; s += kPiece) {
      const int64_t n = std::min(kPiece, end - s);
      for (int64_t i = 0; i < n; ++i) {
        scales[i] = q.scales_f32()[c];
        zps[i] = q.zero_points_f32()[c];
        if (++k == l.inner) k = 0, c = c + 1 == l.channels ? 0 : c + 1;
      }
      row_fn(static_cast<size_t>(n), src + (s - src_origin) * esize, y + (s - begin), scales, zps);
    }
    return Status::Ok();
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
  return Status::Ok();
}

}  // namespace qwasm
