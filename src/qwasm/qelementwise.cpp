#include "qwasm/qelementwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "qwasm/binary_iteration.h"
#include "qwasm/buffer.h"
#include "qwasm/format.h"
#include "qwasm/thread_pool.h"

namespace qwasm {
namespace {

// ---------------------------------------------------------------------------
// The two arithmetics of PyTorch's element-wise loops (aten's Vectorized
// quint8 on AVX2, and the scalar dequantize_val / quantize_val).

// Vectorized<quint8>::dequantize: fmadd(scale, q, scale * -zero_point), one
// rounding. In double, s * q is exact and so is the sum (both are multiples of
// s's last bit and below 2^10 * s: 33 bits), so rounding it to float is the
// fused result; wasm has no fma instruction (std::fma is a slow soft call).
inline float dequantize_vec(uint8_t q, float s, float premul) {
  return static_cast<float>(static_cast<double>(s) * q + static_cast<double>(premul));
}

// dequantize_val: scale * (q - zero_point), one float multiply.
inline float dequantize_scalar(uint8_t q, float s, int32_t z) { return s * static_cast<float>(int32_t{q} - z); }

// _mm256_cvtps_epi32: round half to even; NaN or out of int32 gives INT32_MIN.
inline int32_t cvtps(float t) {
  const float r = std::nearbyint(t);
  if (!(r >= -2147483648.0f && r < 2147483648.0f)) return INT32_MIN;
  return static_cast<int32_t>(r);
}

inline uint8_t saturate(int64_t v) { return static_cast<uint8_t>(std::min<int64_t>(std::max<int64_t>(v, 0), 255)); }

// QuantizeAvx2: t clipped to 2147483520, converted, the zero point added in
// int32 (which wraps: only for |x / scale| near 2^31), saturated. The clip is
// _mm256_min_ps(t, max), which gives max for a NaN t (infinite scales: torch
// 2.15 gives 255, or 0 when the zero point makes the sum wrap).
inline uint8_t quantize_vec(float x, float inv, int32_t z) {
  const float s = x * inv;
  const float t = s < 2147483520.0f ? s : 2147483520.0f;
  return saturate(static_cast<int32_t>(static_cast<uint32_t>(cvtps(t)) + static_cast<uint32_t>(z)));
}

// quantize_val (fbgemm's scalar Quantize): round half to even, the zero point
// added in float, clamped in double (no wrap).
inline uint8_t quantize_scalar(float x, float inv, int32_t z) {
  const float r = std::nearbyint(x * inv) + static_cast<float>(z);
  // NaN (inf - inf with infinite scales) stays NaN through the clamp, and
  // x86 converts it to 0 (torch 2.15 gives 0); in C++ that cast is undefined.
  if (r != r) return 0;
  const double v = std::min(std::max(static_cast<double>(r), 0.0), 255.0);
  return static_cast<uint8_t>(v);
}

// requantize_from_int: round(c * multiplier) + zero point; the vector form
// converts in int32 (INT32_MIN beyond it) and adds with wrap-around.
inline uint8_t requantize_vec(int32_t c, float m, int32_t z) {
  return saturate(
      static_cast<int32_t>(static_cast<uint32_t>(cvtps(static_cast<float>(c) * m)) + static_cast<uint32_t>(z)));
}
inline uint8_t requantize_scalar(int32_t c, float m, int32_t z) {
  const float r = std::nearbyint(static_cast<float>(c) * m);
  // lrintf: a 64-bit result, INT64_MIN beyond it (only for absurd scales).
  if (!(r >= -9223372036854775808.0f && r < 9223372036854775808.0f)) return 0;
  return saturate(static_cast<int64_t>(r) + z);
}

// ---------------------------------------------------------------------------

Status require_quint8(const QTensor& q, const char* name) {
  if (q.dtype() != DType::kQUInt8 || q.qscheme() != QScheme::kPerTensorAffine) {
    return Status::TypeError(std::string(name) + " must be a quint8 per_tensor_affine tensor, got " +
                             dtype_name(q.dtype()) + " " + qscheme_name(q.qscheme()));
  }
  return Status::Ok();
}

Status make_output(const Shape& shape, double scale, double zero_point, QTensor* out) {
  return make_qtensor(shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale, &zero_point, 1, out);
}

// Large operands of one shape: the result depends only on the two bytes and
// the arithmetic, so it is read from a table of all 65536 pairs (computed
// with the same functions), and the elements PyTorch computes with scalar
// arithmetic (each row's tail) are redone from the scalar table.
constexpr int64_t kTableMinElements = int64_t{1} << 17;
// Broadcast operands: a column of the table costs 256 evaluations, worth it once an element
// count is well above the columns a call can need.
constexpr int64_t kColumnTableMinElements = int64_t{1} << 14;

// y[i] = table[x[i] << 8 | w[i]] for i in [begin, end): 8 elements per
// step read and written as 64-bit words, byte k of a word being element
// i + k (little-endian: wasm, and the hosts of the native tests), which
// takes 1.7x less time than a byte at a time (r3d_18's add_relu, one thread).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "lookup_pairs reads bytes as little-endian words");
void lookup_pairs(const uint8_t* table, const uint8_t* x, const uint8_t* w, uint8_t* y, int64_t begin, int64_t end) {
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    uint64_t xs, ws, out = 0;
    std::memcpy(&xs, x + i, 8);
    std::memcpy(&ws, w + i, 8);
    for (int k = 0; k < 64; k += 8) {
      out |= uint64_t{table[((xs >> k) & 0xFF) << 8 | ((ws >> k) & 0xFF)]} << k;
    }
    std::memcpy(y + i, &out, 8);
  }
  for (; i < end; ++i) y[i] = table[(x[i] << 8) | w[i]];
}

template <typename Op>
Status binary_by_table(const BinaryIteration& it, const Op& op, const uint8_t* x, const uint8_t* w, uint8_t* y) {
  int64_t numel = 1;
  for (int64_t d : it.shape) numel *= d;
  const int64_t vector_end = it.vectorizable ? it.row / 64 * 64 : 0;
  Buffer<uint8_t> table;
  QWASM_RETURN_IF_ERROR(table.allocate(65536, "the element-wise table", false));
  // Threads: the table's 256 rows, then ranges of elements, then ranges of
  // rows' tails, each written by one task.
  const auto fill = [&](bool vec) {
    parallel_for(256, [&](int64_t i) {
      for (int j = 0; j < 256; ++j) table[(i << 8) | j] = op(static_cast<uint8_t>(i), static_cast<uint8_t>(j), vec);
    });
  };
  fill(vector_end > 0);
  parallel_for_ranges(numel, 65536,
                      [&](int64_t begin, int64_t end) { lookup_pairs(table.data(), x, w, y, begin, end); });
  if (vector_end == 0 || vector_end == it.row) return Status::Ok();
  fill(false);
  const Strides strides = contiguous_strides(it.shape);
  const int64_t rows = numel / it.row;
  parallel_for_ranges(rows, items_for_work(4096, it.row - vector_end), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      for (int64_t pos = r * it.row + vector_end; pos < (r + 1) * it.row; ++pos) {
        const int64_t i = storage_index(it, strides, pos);
        y[i] = table[(x[i] << 8) | w[i]];
      }
  });
  return Status::Ok();
}

// make_op() builds the element function once the operands and the output's
// qparams are valid: it reads the operands' qparams (a per-channel operand
// may have none, or a zero point past int32) and converts the output's.
template <typename MakeOp>
Status binary(const QTensor& a, const QTensor& b, double scale, double zero_point, BinaryOutput output, MakeOp make_op,
              QTensor* out) {
  QWASM_RETURN_IF_ERROR(require_quint8(a, "a"));
  QWASM_RETURN_IF_ERROR(require_quint8(b, "b"));
  BinaryIteration it;
  QWASM_RETURN_IF_ERROR(plan_binary(a, b, output, &it));
  QTensor result;
  QWASM_RETURN_IF_ERROR(make_output(it.shape, scale, zero_point, &result));
  result.set_strides(it.out_strides);
  const auto op = make_op();
  const uint8_t* x = a.data();
  const uint8_t* w = b.data();
  uint8_t* y = result.mutable_data();
  if (a.shape() == it.shape && b.shape() == it.shape && result.numel() >= kTableMinElements) {
    QWASM_RETURN_IF_ERROR(binary_by_table(it, op, x, w, y));
  } else if (result.numel() >= kColumnTableMinElements &&
             std::min<int64_t>(b.numel(), 256) * 2 * 256 <= result.numel()) {
    // Broadcasting (squeeze-excitation's x * s: s holds one value per channel): the same table,
    // a column of 256 filled the first time its second operand's byte comes up, per arithmetic;
    // only where b's distinct bytes cannot cost more evaluations than the elements.
    Buffer<uint8_t> table;
    QWASM_RETURN_IF_ERROR(table.allocate(2 * 65536, "the element-wise table", false));
    bool filled[2][256] = {};
    for_each_binary(it, a.shape(), b.shape(), [&](int64_t o, int64_t i, int64_t j, bool vec) {
      uint8_t* t = table.data() + (vec ? 65536 : 0);
      const uint8_t wj = w[j];
      if (!filled[vec][wj]) {
        for (int v = 0; v < 256; ++v) t[(v << 8) | wj] = op(static_cast<uint8_t>(v), wj, vec);
        filled[vec][wj] = true;
      }
      y[o] = t[(x[i] << 8) | wj];
    });
  } else {
    for_each_binary(it, a.shape(), b.shape(),
                    [&](int64_t o, int64_t i, int64_t j, bool vec) { y[o] = op(x[i], w[j], vec); });
  }
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace

Status qadd(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu, QTensor* out) {
  return binary(
      a, b, scale, zero_point, BinaryOutput::kFirstInputShape,
      [&] {
        const float sa = static_cast<float>(a.q_scale()), sb = static_cast<float>(b.q_scale());
        const int32_t za = static_cast<int32_t>(a.q_zero_point()), zb = static_cast<int32_t>(b.q_zero_point());
        const float pa = sa * static_cast<float>(-za), pb = sb * static_cast<float>(-zb);
        const float inv = 1.0f / static_cast<float>(scale);
        const int32_t zo = static_cast<int32_t>(zero_point);
        return [=](uint8_t x, uint8_t w, bool vec) {
          float c = vec ? dequantize_vec(x, sa, pa) + dequantize_vec(w, sb, pb)
                        : dequantize_scalar(x, sa, za) + dequantize_scalar(w, sb, zb);
          if (relu) c = std::max(c, 0.0f);
          return vec ? quantize_vec(c, inv, zo) : quantize_scalar(c, inv, zo);
        };
      },
      out);
}

Status qmul(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu, QTensor* out) {
  return binary(
      a, b, scale, zero_point, BinaryOutput::kBroadcastShape,
      [&] {
        const float sa = static_cast<float>(a.q_scale()), sb = static_cast<float>(b.q_scale());
        const int32_t za = static_cast<int32_t>(a.q_zero_point()), zb = static_cast<int32_t>(b.q_zero_point());
        const float multiplier = (sa * sb) * (1.0f / static_cast<float>(scale));
        const int32_t zo = static_cast<int32_t>(zero_point);
        return [=](uint8_t x, uint8_t w, bool vec) {
          const int32_t c = (int32_t{x} - za) * (int32_t{w} - zb);
          uint8_t q = vec ? requantize_vec(c, multiplier, zo) : requantize_scalar(c, multiplier, zo);
          if (relu) q = std::max<uint8_t>(q, static_cast<uint8_t>(zo));
          return q;
        };
      },
      out);
}

Status qadd_scalar(const QTensor& x, double c, bool relu, QTensor* out) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "x"));
  if (!std::isfinite(c)) return Status::RangeError("the scalar must be finite, got " + format_number(c));
  const double s = x.q_scale();
  const int64_t z = x.q_zero_point();
  const double cq_d = std::nearbyint(c / s);
  // PyTorch's kernel takes round(c / scale) as an int32 (Scalar::to<int32_t>
  // refuses more: "value cannot be converted to type int without overflow").
  if (!(cq_d >= -2147483648.0 && cq_d <= 2147483647.0)) {
    return Status::RangeError("the scalar " + format_number(c) +
                              " is too large for the scale: round(scalar / scale) = " + format_number(cq_d) +
                              " does not fit int32");
  }
  const int64_t cq = static_cast<int64_t>(cq_d);
  const int64_t zc = z - cq;
  QTensor result;
  if (zc >= 0 && zc <= 255) {  // the integers stay; only the zero point moves
    QWASM_RETURN_IF_ERROR(make_output(x.shape(), s, static_cast<double>(zc), &result));
    for (int64_t i = 0; i < x.numel(); ++i) {
      result.mutable_data()[i] = relu ? std::max<uint8_t>(x.data()[i], static_cast<uint8_t>(zc)) : x.data()[i];
    }
  } else {
    // Outside 0..255: a wider scale, the zero point at the end that overflowed.
    const double s2 = zc < 0 ? (255.0 - static_cast<double>(zc)) / 255.0 * s : static_cast<double>(zc) / 255.0 * s;
    const int32_t z2 = zc < 0 ? 0 : 255;
    QWASM_RETURN_IF_ERROR(make_output(x.shape(), s2, z2, &result));
    const float m = static_cast<float>(s) * (1.0f / static_cast<float>(s2));
    uint8_t table[256];  // each element is a function of its byte
    for (int b = 0; b < 256; ++b) {
      // (q - zero point) + round(c / scale) in int32, wrapping as PyTorch's does near 2^31.
      const int32_t v =
          static_cast<int32_t>(static_cast<uint32_t>(b) - static_cast<uint32_t>(z) + static_cast<uint32_t>(cq));
      const uint8_t q = requantize_scalar(v, m, z2);
      table[b] = relu ? std::max<uint8_t>(q, static_cast<uint8_t>(z2)) : q;
    }
    for (int64_t i = 0; i < x.numel(); ++i) result.mutable_data()[i] = table[x.data()[i]];
  }
  result.set_strides(strides_like(x, x.shape()));
  *out = std::move(result);
  return Status::Ok();
}

Status qmul_scalar(const QTensor& x, double c, bool relu, QTensor* out) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "x"));
  if (!std::isfinite(c)) return Status::RangeError("the scalar must be finite, got " + format_number(c));
  const double s = x.q_scale();
  const int64_t z = x.q_zero_point();
  QTensor result;
  if (c == 0) {  // PyTorch's special case: all zeros, scale 1, zero point 0
    QWASM_RETURN_IF_ERROR(make_output(x.shape(), 1.0, 0.0, &result));
  } else if (c > 0) {
    QWASM_RETURN_IF_ERROR(make_output(x.shape(), c * s, static_cast<double>(z), &result));
    for (int64_t i = 0; i < x.numel(); ++i) {
      result.mutable_data()[i] = relu ? std::max<uint8_t>(x.data()[i], static_cast<uint8_t>(z)) : x.data()[i];
    }
  } else {  // negative: the integers mirror (255 - q), and so does the zero point
    const int64_t z2 = 255 - z;
    QWASM_RETURN_IF_ERROR(make_output(x.shape(), std::fabs(c) * s, static_cast<double>(z2), &result));
    for (int64_t i = 0; i < x.numel(); ++i) {
      const uint8_t q = static_cast<uint8_t>(255 - x.data()[i]);
      result.mutable_data()[i] = relu ? std::max<uint8_t>(q, static_cast<uint8_t>(z2)) : q;
    }
  }
  result.set_strides(strides_like(x, x.shape()));
  *out = std::move(result);
  return Status::Ok();
}

Status qcat(const std::vector<const QTensor*>& xs, int64_t dim, double scale, double zero_point, QTensor* out) {
  if (xs.empty()) return Status::RangeError("cat needs at least one tensor");
  for (size_t i = 0; i < xs.size(); ++i) {
    QWASM_RETURN_IF_ERROR(require_quint8(*xs[i], ("tensors[" + std::to_string(i) + "]").c_str()));
  }
  const Shape& first = xs[0]->shape();
  const int64_t rank = static_cast<int64_t>(first.size());
  if (rank == 0) return Status::RangeError("cat needs tensors of rank >= 1");
  if (dim < -rank || dim >= rank) {
    return Status::RangeError("dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  }
  const int64_t d = dim < 0 ? dim + rank : dim;
  Shape shape = first;
  shape[d] = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const Shape& s = xs[i]->shape();
    if (static_cast<int64_t>(s.size()) != rank) {
      return Status::RangeError("tensors[" + std::to_string(i) + "] has rank " + std::to_string(s.size()) +
                                ", tensors[0] has " + std::to_string(rank));
    }
    for (int64_t k = 0; k < rank; ++k) {
      if (k != d && s[k] != first[k]) {
        return Status::RangeError("tensors[" + std::to_string(i) + "] has size " + std::to_string(s[k]) +
                                  " in dimension " + std::to_string(k) + ", tensors[0] has " +
                                  std::to_string(first[k]));
      }
    }
    shape[d] += s[d];  // each at most kMaxNumel: no overflow over a bounded list
    if (shape[d] > kMaxNumel) return Status::RangeError("the concatenated dimension is too large");
  }
  QTensor result;
  QWASM_RETURN_IF_ERROR(make_output(shape, scale, zero_point, &result));
  uint8_t* y = result.mutable_data();
  const float inv = 1.0f / static_cast<float>(scale);
  const int32_t zo = static_cast<int32_t>(zero_point);
  // The channels-last kernel: dim given as 1 and 4-D inputs all channels-last
  // contiguous (as strides, or as shapes: C == 1 or H * W == 1). Its output
  // is channels-last; the other path's output keeps the inputs' suggested
  // format when they agree on one.
  bool nhwc = dim == 1 && rank == 4;
  bool same_format = true;
  const MemoryFormat format = suggest_memory_format(first, xs[0]->strides());
  for (const QTensor* x : xs) {
    nhwc = nhwc && is_channels_last_contiguous(x->shape(), x->strides());
    same_format = same_format && suggest_memory_format(x->shape(), x->strides()) == format;
  }
  result.set_strides(strides_for(shape, nhwc          ? MemoryFormat::kChannelsLast
                                        : same_format ? format
                                                      : MemoryFormat::kContiguous));
  if (result.numel() == 0) {
    *out = std::move(result);
    return Status::Ok();
  }
  // Not empty: every partial product is at most the element count (an empty
  // output's can pass int64).
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= shape[k];
  for (int64_t k = d + 1; k < rank; ++k) inner *= shape[k];
  int64_t offset = 0;  // along dim
  for (const QTensor* x : xs) {
    const int64_t len = x->shape()[d];
    const float s = static_cast<float>(x->q_scale());
    const int32_t z = static_cast<int32_t>(x->q_zero_point());
    const float premul = s * static_cast<float>(-z);
    // Each element is a function of its byte and of the arithmetic: tables of
    // 256. Channels-last: per (n, h, w), whole vectors of channels take the
    // vector arithmetic (with a double reciprocal of the scale), the rest
    // scalar; same qparams copy. Otherwise: dequantize, concatenate in float,
    // quantize_per_tensor.
    const bool copy = nhwc && x->q_scale() == scale && x->q_zero_point() == zero_point;
    const int64_t n32 = len / 32 * 32;
    const int64_t vec_channels = n32 + (len - n32) / 8 * 8;
    const float inv_vec = static_cast<float>(1.0 / scale);
    uint8_t vec_table[256], scalar_table[256];
    for (int q = 0; q < 256; ++q) {
      const uint8_t b = static_cast<uint8_t>(q);
      vec_table[q] = nhwc ? quantize_vec(dequantize_vec(b, s, premul), inv_vec, zo)
                          : quantize_vec(dequantize_scalar(b, s, z), inv, zo);
      scalar_table[q] = quantize_scalar(dequantize_scalar(b, s, z), inv, zo);
    }
    // Threads: the (outer, c) slices of `inner` elements, in tasks of at least ~64 K.
    parallel_for_ranges(outer * len, items_for_work(65536, inner), [&](int64_t begin, int64_t end) {
      for (int64_t slice = begin; slice < end; ++slice) {
        const int64_t o = slice / len, c = slice % len;
        const uint8_t* src = x->data() + (o * len + c) * inner;
        uint8_t* dst = y + (o * shape[d] + offset + c) * inner;
        if (copy) {
          std::memcpy(dst, src, static_cast<size_t>(inner));
          continue;
        }
        const uint8_t* table = !nhwc || c < vec_channels ? vec_table : scalar_table;
        for (int64_t i = 0; i < inner; ++i) dst[i] = table[src[i]];
      }
    });
    offset += len;
  }
  *out = std::move(result);
  return Status::Ok();
}

Status qclamp(const QTensor& x, bool has_lo, double lo, bool has_hi, double hi, QTensor* out) {
  QWASM_RETURN_IF_ERROR(require_quint8(x, "x"));
  if ((has_lo && std::isnan(lo)) || (has_hi && std::isnan(hi)))
    return Status::RangeError("clamp bounds must not be NaN");
  const float inv = 1.0f / static_cast<float>(x.q_scale());
  const int32_t z = static_cast<int32_t>(x.q_zero_point());
  // The bounds are Scalars converted to float32, then quantized with x's qparams.
  const uint8_t lo_q = has_lo ? quantize_scalar(static_cast<float>(lo), inv, z) : 0;
  const uint8_t hi_q = has_hi ? quantize_scalar(static_cast<float>(hi), inv, z) : 255;
  QTensor result;
  QWASM_RETURN_IF_ERROR(make_output(x.shape(), x.q_scale(), static_cast<double>(z), &result));
  for (int64_t i = 0; i < x.numel(); ++i) result.mutable_data()[i] = std::min(std::max(x.data()[i], lo_q), hi_q);
  result.set_strides(strides_like(x, x.shape()));
  *out = std::move(result);
  return Status::Ok();
}

}  // namespace qwasm
