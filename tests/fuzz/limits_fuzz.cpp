// libFuzzer, built for a 32-bit target (scripts/fuzz: -m32, where size_t is 32
// bits as on wasm32): every core entry point with sizes drawn up to and past
// the wasm32 limits (huge dimensions, paddings, strides, dilations, kernels,
// channel counts, byte counts, observer ranges). Each call either succeeds or
// returns a Status with a message; ASan and UBSan watch for out-of-bounds
// writes, overflow and truncation. Allocations above 8 MiB are made to fail,
// so that large but valid requests take the out-of-memory path quickly; small
// successful convolutions are compared with the naive reference. The
// element-wise ops, pooling and the memory-format metadata (as_memory_format,
// view_as, strides) get operands in every layout PyTorch can hand them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "qwasm/checked_size.h"
#include "qwasm/conv.h"
#include "qwasm/observer.h"
#include "qwasm/pool.h"
#include "qwasm/qelementwise.h"
#include "qwasm/qtensor.h"
#include "reference/conv3d_ref.h"

using namespace qwasm;

namespace {

// Sizes from tiny to absurd: the edges of int32, uint32 and the 2^31 limits.
int64_t size_value(qwasm_fuzz::Input& in) {
  static const int64_t kEdges[] = {0,
                                   1,
                                   2,
                                   3,
                                   7,
                                   8,
                                   9,
                                   255,
                                   256,
                                   32767,
                                   32768,
                                   65535,
                                   65536,
                                   65537,
                                   (int64_t{1} << 30),
                                   (int64_t{1} << 31) - 1,
                                   int64_t{1} << 31,
                                   (int64_t{1} << 32) - 1,
                                   int64_t{1} << 32,
                                   int64_t{1} << 53,
                                   -1,
                                   INT64_MAX,
                                   INT64_MIN};
  switch (in.byte() % 4) {
    case 0:
      return in.range(0, 8);
    case 1:
      return kEdges[in.byte() % (sizeof(kEdges) / sizeof(kEdges[0]))];
    case 2:
      return in.range(0, 255) * in.range(1, 255) * in.range(1, 255);
    default:
      return in.range(1, 4);
  }
}

void check(const Status& s) {
  if (!s.ok() && s.message.empty()) abort();  // every refusal says why
}

void fuzz_tensors(qwasm_fuzz::Input& in) {
  Shape shape;
  const int rank = static_cast<int>(in.range(0, 5));
  for (int d = 0; d < rank; ++d) shape.push_back(size_value(in));
  const DType dtype = static_cast<DType>(in.range(0, 3));
  const double scale = in.flag() ? 0.5 : static_cast<double>(size_value(in));
  const double zp = static_cast<double>(in.range(0, 20));
  // Byte counts that rarely match the shape: the count check must refuse them
  // before anything is allocated or copied.
  std::vector<uint8_t> bytes(static_cast<size_t>(in.range(0, 64)) + 1);
  QTensor q;
  check(make_per_tensor_quantized(bytes.data(), bytes.size() - in.range(0, 1), shape, scale, zp, dtype, &q));
  int64_t numel = 0;
  if (validate_shape(shape, &numel).ok() && numel <= 64) {
    std::vector<float> x(static_cast<size_t>(numel), 1.5f);
    check(quantize_per_tensor(x.data(), shape, 0.25, zp, dtype, kernels::Isa::kScalar, &q));
    const int64_t axis = in.range(-1, 5);
    std::vector<double> scales(static_cast<size_t>(in.range(0, 8)), 0.5), zps(scales.size(), 1);
    check(quantize_per_channel(x.data(), shape, scales.data(), zps.data(), scales.size(), axis, in.flag(), dtype,
                               kernels::Isa::kScalar, &q));
    if (q.numel() == numel && numel > 0) {
      std::vector<float> y(static_cast<size_t>(numel));
      check(dequantize(q, kernels::Isa::kScalar, y.data()));
      Shape other;
      for (int d = 0; d < static_cast<int>(in.range(0, 4)); ++d) other.push_back(size_value(in));
      QTensor v;
      check(view_as(q, other, in.range(-1, 4), &v));
    }
  }
}

void fuzz_observers(qwasm_fuzz::Input& in) {
  ObserverRange r{};
  const DType dtype = static_cast<DType>(in.range(0, 3));
  const int64_t lo = size_value(in);
  check(observer_range(dtype, in.flag(), true, lo == INT64_MIN ? lo : -lo, size_value(in), &r));
  Shape shape;
  for (int d = 0; d < static_cast<int>(in.range(0, 4)); ++d) shape.push_back(size_value(in));
  int64_t channels = 0, numel = 0;
  const int64_t axis = in.flag() ? size_value(in) : in.range(-6, 5);
  if (observed_channels(shape, true, axis, &channels).ok() && validate_shape(shape, &numel).ok() && numel <= 256 &&
      channels <= 256) {
    std::vector<float> x(static_cast<size_t>(numel), 0.5f), mins(static_cast<size_t>(channels) + 1), maxs(mins.size());
    check(aminmax(x.data(), shape, true, axis, mins.data(), maxs.data()));
  }
}

void fuzz_conv(qwasm_fuzz::Input& in) {
  ConvGeometry g;
  g.spatial_dims = static_cast<int>(in.range(0, 3));
  g.groups = in.flag() ? 1 : size_value(in);
  g.in_channels = in.flag() ? mul_saturating(g.groups, in.range(1, 3)) : size_value(in);
  g.out_channels = in.flag() ? mul_saturating(g.groups, in.range(1, 3)) : size_value(in);
  for (int d = 0; d < 3; ++d) {
    g.kernel[d] = in.flag() ? in.range(1, 3) : size_value(in);
    g.stride[d] = in.flag() ? in.range(1, 2) : size_value(in);
    g.dilation[d] = in.flag() ? 1 : size_value(in);
    g.pad_begin[d] = in.flag() ? in.range(0, 2) : size_value(in);
    g.pad_end[d] = in.flag() ? g.pad_begin[d] : size_value(in);
  }
  const Shape x_shape = {in.range(1, 2), in.flag() ? g.in_channels : size_value(in), in.range(1, 5), in.range(1, 5),
                         in.range(1, 5)};
  if (!validate_geometry(g).ok()) return;
  if (std::getenv("QWASM_FUZZ_VERBOSE")) {
    std::fprintf(stderr, "conv dims=%d in=%lld out=%lld groups=%lld\n", g.spatial_dims, (long long)g.in_channels,
                 (long long)g.out_channels, (long long)g.groups);
    for (int d = 0; d < 3; ++d)
      std::fprintf(stderr, "  k=%lld s=%lld dil=%lld pad=%lld,%lld\n", (long long)g.kernel[d], (long long)g.stride[d],
                   (long long)g.dilation[d], (long long)g.pad_begin[d], (long long)g.pad_end[d]);
    std::fprintf(stderr, "  x=[%lld %lld %lld %lld %lld]\n", (long long)x_shape[0], (long long)x_shape[1],
                 (long long)x_shape[2], (long long)x_shape[3], (long long)x_shape[4]);
  }
  Shape out_shape;
  check(conv_output_shape(g, x_shape, &out_shape));
  // A weight the module's shape allows, when it is small; otherwise a small
  // wrong one, which packing must refuse.
  const Shape w_shape = module_weight_shape(g);
  int64_t w_numel = 0;
  const bool small_weight = validate_shape(w_shape, &w_numel).ok() && w_numel <= 4096;
  const Shape used_shape = small_weight ? w_shape : Shape{2, 2};
  int64_t used_numel = small_weight ? w_numel : 4;
  std::vector<int8_t> w(static_cast<size_t>(used_numel));
  for (auto& v : w) v = static_cast<int8_t>(in.byte());
  QTensor weight;
  if (!make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), used_shape, 0.01, 0,
                                 DType::kQInt8, &weight)
           .ok()) {
    return;
  }
  std::vector<float> bias(static_cast<size_t>(std::min<int64_t>(g.out_channels, 4096)), 0.25f);
  PackedQConv packed;
  const Status ps =
      pack_qconv(g, weight, in.flag() ? bias.data() : nullptr, static_cast<int64_t>(bias.size()), &packed);
  check(ps);
  if (!small_weight && ps.ok()) abort();  // a wrong weight shape must be refused
  if (!ps.ok()) return;
  int64_t x_numel = 0;
  if (!validate_shape(x_shape, &x_numel).ok() || x_numel > 4096) return;
  std::vector<uint8_t> x(static_cast<size_t>(x_numel));
  for (auto& v : x) v = in.byte();
  QTensor input, out;
  if (!make_per_tensor_quantized(x.data(), x.size(), x_shape, 0.02, 7, DType::kQUInt8, &input).ok()) return;
  // Large but valid convolutions take minutes under ASan: run the call when
  // its work is small, or when its memory is beyond the 8 MiB cap (then it
  // takes the out-of-memory path at once); skip the rest.
  int64_t out_numel = 0;
  validate_shape(out_shape, &out_numel);
  const double work =
      static_cast<double>(out_numel) * static_cast<double>(w_numel) / static_cast<double>(g.out_channels);
  double padded = static_cast<double>(g.in_channels) * 2;
  for (int d = 0; d < 3; ++d) padded *= static_cast<double>(x_shape[2 + d] + g.pad_begin[d] + g.pad_end[d]);
  const double cap = 8.0 * (1 << 20);
  if (work > 1e6 && out_numel < cap && padded < cap) return;
  const bool relu = in.flag();
  const Status cs = qconv3d(packed, input, 0.05, 3, relu, kernels::Isa::kScalar, &out);
  check(cs);
  if (!cs.ok()) return;
  // Small enough to check against the reference.
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2] * (g.in_channels / g.groups);
  if (out.numel() > 4096 || taps > 4096) return;
  std::vector<float> ws(static_cast<size_t>(g.out_channels), 0.01f);
  std::vector<int32_t> wz(ws.size(), 0);
  ref::QConvArgs args{x.data(), x_shape, 0.02f, 7, w.data(), ws.data(), wz.data(), nullptr, 0.05f, 3, relu};
  std::vector<uint8_t> expected(out.nbytes());
  if (packed.has_bias) args.bias = bias.data();
  args.per_tensor_weight = true;
  ref::qconv3d(g, args, expected.data());
  if (std::memcmp(expected.data(), out.data(), expected.size()) != 0) {
    std::fprintf(stderr, "conv differs from the reference\n");
    abort();
  }
}

// A dimension: mostly small, sometimes 0 or from the edges.
int64_t dim_value(qwasm_fuzz::Input& in) {
  switch (in.byte() % 8) {
    case 0:
      return 0;
    case 1:
      return size_value(in);
    case 2:
      return in.range(5, 70);
    default:
      return in.range(1, 4);
  }
}

// Scales, zero points and scalars from ordinary to absurd.
double real_value(qwasm_fuzz::Input& in) {
  static const double kEdges[] = {0.5,          0.25,          1.0,    0.0,   -1.0,     1e-45,     1e-30,
                                  3e38,         1e300,         -1e300, NAN,   INFINITY, -INFINITY, 2147483647.0,
                                  2147483648.0, -2147483649.0, 0.1,    255.0, 256.0};
  switch (in.byte() % 4) {
    case 0:
      return kEdges[in.byte() % (sizeof(kEdges) / sizeof(kEdges[0]))];
    case 1:
      return static_cast<double>(size_value(in)) * (in.flag() ? 0.25 : -0.5);
    default:
      return static_cast<double>(in.range(0, 255)) / 8.0;
  }
}

// PyTorch's layout of a dense tensor: the dimensions in some order (a
// permute), size-1 dimensions with any small stride, or a memory format.
void set_layout(qwasm_fuzz::Input& in, QTensor* q) {
  const size_t rank = q->shape().size();
  if (in.flag()) {
    QTensor r;
    const Status s = as_memory_format(*q, in.flag() ? MemoryFormat::kChannelsLast : MemoryFormat::kContiguous, &r);
    check(s);
    if (s.ok()) *q = r;
    return;
  }
  int64_t numel = 1;
  for (int64_t d : q->shape()) numel = mul_saturating(numel, d);
  if (numel == 0 || rank == 0) return;  // an empty tensor's strides are whatever its op made
  std::vector<size_t> order(rank);
  for (size_t i = 0; i < rank; ++i) order[i] = i;
  for (size_t i = rank; i-- > 1;) std::swap(order[i], order[static_cast<size_t>(in.range(0, static_cast<int64_t>(i)))]);
  Strides strides(rank);
  int64_t step = 1;
  for (size_t d : order) {
    strides[d] = q->shape()[d] == 1 && in.flag() ? in.range(0, 70) : step;
    step *= q->shape()[d];
  }
  q->set_strides(strides);
}

// A quint8 per-tensor tensor (sometimes another dtype or scheme, which the
// ops must refuse) of `shape`, its first bytes from the input.
Status fuzz_tensor(qwasm_fuzz::Input& in, const Shape& shape, QTensor* q) {
  const double scale = in.flag() ? 0.5 : real_value(in);
  const double zp = in.flag() ? static_cast<double>(in.range(0, 255)) : real_value(in);
  Status s;
  switch (in.byte() % 8) {
    case 0: {
      const double scales[2] = {0.5, 0.25}, zps[2] = {1, 2};
      const int64_t axis = in.range(0, 3);
      const size_t n =
          axis < static_cast<int64_t>(shape.size()) ? static_cast<size_t>(std::min<int64_t>(shape[axis], 2)) : 1;
      s = make_qtensor(shape, DType::kQUInt8,
                       in.flag() ? QScheme::kPerChannelAffine : QScheme::kPerChannelAffineFloatQParams, axis, scales,
                       zps, n, q);
      break;
    }
    case 1:
      s = make_qtensor(shape, DType::kQInt8, QScheme::kPerTensorAffine, -1, &scale, &zp, 1, q);
      break;
    default:
      s = make_qtensor(shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale, &zp, 1, q);
      break;
  }
  check(s);
  if (!s.ok()) return s;
  const size_t fill = std::min<size_t>(q->nbytes(), in.range(0, 64));
  for (size_t i = 0; i < fill; ++i) q->mutable_data()[i] = in.byte();
  set_layout(in, q);
  return s;
}

// A successful op's output is consistent with itself.
void check_output(const Status& s, const QTensor& y) {
  check(s);
  if (!s.ok()) return;
  if (y.strides().size() != y.shape().size()) abort();
  int64_t numel = 0;
  if (!validate_shape(y.shape(), &numel).ok() || numel != y.numel()) abort();
}

Shape fuzz_shape(qwasm_fuzz::Input& in, int max_rank) {
  Shape shape;
  const int rank = static_cast<int>(in.range(0, max_rank));
  for (int d = 0; d < rank; ++d) shape.push_back(dim_value(in));
  return shape;
}

// b's shape for a broadcast with a: a's with dimensions set to 1 or dropped
// in front, or unrelated.
Shape broadcast_partner(qwasm_fuzz::Input& in, const Shape& a) {
  if (in.byte() % 4 == 0) return fuzz_shape(in, 5);
  Shape b(a.begin() + std::min<int64_t>(in.range(0, 2), static_cast<int64_t>(a.size())), a.end());
  for (int64_t& d : b) {
    if (in.byte() % 3 == 0) d = 1;
  }
  if (in.byte() % 4 == 0) b.insert(b.begin(), 1);
  return b;
}

void fuzz_qops(qwasm_fuzz::Input& in) {
  const Shape sa = fuzz_shape(in, 5);
  QTensor a, b, y;
  if (!fuzz_tensor(in, sa, &a).ok()) return;
  // Views of a in other shapes: a merged or split shape, or anything.
  if (in.flag()) {
    Shape other;
    if (in.flag() && sa.size() >= 2) {
      other = sa;
      const size_t d = static_cast<size_t>(in.range(0, static_cast<int64_t>(sa.size()) - 2));
      other[d] = mul_saturating(other[d], other[d + 1]);
      other.erase(other.begin() + static_cast<std::ptrdiff_t>(d) + 1);
    } else {
      other = fuzz_shape(in, 6);
    }
    QTensor v;
    const Status s = view_as(a, other, in.range(-1, 3), &v);
    check_output(s, v);
    if (s.ok() && in.flag()) a = v;
  }
  const bool relu = in.flag();
  switch (in.byte() % 6) {
    case 0:
    case 1: {
      if (!fuzz_tensor(in, broadcast_partner(in, a.shape()), &b).ok()) return;
      const double scale = in.flag() ? 0.25 : real_value(in);
      const double zp = in.flag() ? static_cast<double>(in.range(0, 255)) : real_value(in);
      check_output(in.flag() ? qadd(a, b, scale, zp, relu, &y) : qmul(a, b, scale, zp, relu, &y), y);
      break;
    }
    case 2:
      check_output(qadd_scalar(a, real_value(in), relu, &y), y);
      break;
    case 3:
      check_output(qmul_scalar(a, real_value(in), relu, &y), y);
      break;
    case 4: {
      const bool has_lo = in.flag(), has_hi = in.flag();
      const double lo = real_value(in), hi = real_value(in);
      check_output(qclamp(a, has_lo, lo, has_hi, hi, &y), y);
      break;
    }
    default: {
      // Tensors like a but along one dimension, sometimes of another rank or size.
      const int64_t dim = in.flag() ? in.range(-6, 5) : size_value(in);
      std::vector<QTensor> parts(static_cast<size_t>(in.range(0, 4)));
      std::vector<const QTensor*> xs;
      for (QTensor& part : parts) {
        Shape s = a.shape();
        if (!s.empty() && in.flag())
          s[static_cast<size_t>(in.range(0, static_cast<int64_t>(s.size()) - 1))] = dim_value(in);
        if (in.byte() % 8 == 0) s = fuzz_shape(in, 5);
        if (!fuzz_tensor(in, s, &part).ok()) return;
        xs.push_back(&part);
      }
      if (in.flag()) xs.insert(xs.begin(), &a);
      const double scale = in.flag() ? 0.5 : real_value(in);
      const double zp = in.flag() ? static_cast<double>(in.range(0, 255)) : real_value(in);
      check_output(qcat(xs, dim, scale, zp, &y), y);
      break;
    }
  }
}

// True when a quantized max or average pool would be valid, small enough to
// allocate, and slow: each output combines the taps of its window inside the
// input, so a window as tall as the input makes the work quadratic (this
// fuzzer found a 2^30-row kernel over a (4, 32767, 1) input: 4e9 row reads,
// minutes under ASan). As for the convolution, such a call is skipped unless
// its memory is beyond the 8 MiB cap (then it takes the out-of-memory path at
// once); the sizes are still checked by pool_output_shape above.
bool quantized_pool_too_slow(const Shape& shape, const PoolParams& p) {
  const double cap = 8.0 * (1 << 20);
  int64_t in_numel = 0;
  if (!validate_shape(shape, &in_numel).ok() || static_cast<int>(shape.size()) < p.dims) return false;
  double work = 0;
  for (PoolKind kind : {PoolKind::kMax, PoolKind::kAvg}) {
    Shape out;
    int64_t out_numel = 0;
    if (!pool_output_shape(shape, p, kind, true, &out).ok() || !validate_shape(out, &out_numel).ok()) continue;
    if (static_cast<double>(out_numel) >= cap) continue;
    double taps = 1;
    for (int d = 0; d < p.dims; ++d) {
      const int64_t extent = shape[shape.size() - static_cast<size_t>(p.dims) + static_cast<size_t>(d)];
      taps *= static_cast<double>(std::max<int64_t>(1, std::min(p.kernel[d], extent)));
    }
    work = std::max(work, static_cast<double>(out_numel) * taps);
  }
  return work > 1e6 && static_cast<double>(in_numel) < cap;
}

// The same for an adaptive average pool: its output size is asked for, not
// derived, so a small input can ask for millions of outputs, each averaging
// up to ceil(extent / out) + 1 inputs per dimension (this fuzzer found output
// sizes of 1670998 over a (1, 9, 4) input: 12 s, past libFuzzer's timeout).
bool quantized_adaptive_pool_too_slow(const Shape& shape, int dims, const int64_t* output_size) {
  const double cap = 8.0 * (1 << 20);
  int64_t in_numel = 0;
  // (dims outside 1..3, as a rank below dims, is refused by the call itself: output_size has 3 entries.)
  if (!validate_shape(shape, &in_numel).ok() || dims < 1 || dims > 3 || static_cast<int>(shape.size()) < dims) {
    return false;
  }
  double outputs = 1;
  double taps = 1;
  for (size_t i = 0; i + static_cast<size_t>(dims) < shape.size(); ++i) outputs *= static_cast<double>(shape[i]);
  for (int d = 0; d < dims; ++d) {
    const int64_t extent = shape[shape.size() - static_cast<size_t>(dims) + static_cast<size_t>(d)];
    const int64_t out = output_size[d];
    if (out < 1 || extent < 1) return false;  // refused by the call itself
    outputs *= static_cast<double>(out);
    taps *= std::ceil(static_cast<double>(extent) / static_cast<double>(out)) + 1;  // in double: out can be 2^63 - 1
  }
  return outputs < cap && outputs * taps > 1e6 && static_cast<double>(in_numel) < cap;
}

void fuzz_pools(qwasm_fuzz::Input& in) {
  PoolParams p;
  p.dims = static_cast<int>(in.byte() % 8 == 0 ? in.range(0, 4) : in.range(1, 3));
  for (int d = 0; d < 3; ++d) {
    p.kernel[d] = in.flag() ? in.range(1, 4) : size_value(in);
    p.stride[d] = in.flag() ? in.range(1, 3) : size_value(in);
    p.padding[d] = in.flag() ? in.range(0, 2) : in.flag() ? p.kernel[d] / 2 : size_value(in);
    p.dilation[d] = in.flag() ? in.range(1, 2) : size_value(in);
  }
  p.ceil_mode = in.flag();
  p.count_include_pad = in.flag();
  p.has_divisor = in.byte() % 4 == 0;
  p.divisor = in.flag() ? in.range(-3, 3) : size_value(in);
  int64_t output_size[3];
  for (int64_t& o : output_size) o = in.flag() ? in.range(1, 5) : size_value(in);
  const int rank = static_cast<int>(in.byte() % 8 == 0 ? in.range(0, 6) : in.range(p.dims + 1, p.dims + 2));
  Shape shape;
  for (int d = 0; d < rank; ++d) shape.push_back(in.byte() % 8 == 0 ? dim_value(in) : in.range(1, 9));
  if (std::getenv("QWASM_FUZZ_VERBOSE")) {
    std::fprintf(stderr, "pool dims=%d rank=%d ceil=%d\n", p.dims, rank, p.ceil_mode);
    for (int d = 0; d < 3; ++d)
      std::fprintf(stderr, "  k=%lld s=%lld pad=%lld dil=%lld out=%lld\n", (long long)p.kernel[d],
                   (long long)p.stride[d], (long long)p.padding[d], (long long)p.dilation[d],
                   (long long)output_size[d]);
  }
  Shape out_shape;
  check(pool_output_shape(shape, p, in.flag() ? PoolKind::kMax : PoolKind::kAvg, in.flag(), &out_shape));
  if (in.flag()) {
    QTensor x, y;
    if (!fuzz_tensor(in, shape, &x).ok()) return;
    if (quantized_pool_too_slow(shape, p)) return;
    switch (in.byte() % 3) {
      case 0:
        check_output(qmax_pool(x, p, &y), y);
        break;
      case 1:
        check_output(qavg_pool(x, p, &y), y);
        break;
      default:
        if (quantized_adaptive_pool_too_slow(shape, p.dims, output_size)) return;
        check_output(qadaptive_avg_pool(x, p.dims, output_size, &y), y);
        break;
    }
    return;
  }
  // Float data when the shape is small; a shape that is invalid or empty is
  // refused before anything is read.
  int64_t numel = 0;
  const bool valid = validate_shape(shape, &numel).ok();
  if (valid && numel > 4096) return;
  std::vector<float> x(static_cast<size_t>(valid ? numel : 0) + 1);
  for (size_t i = 0; i < x.size() && i < 64; ++i) x[i] = static_cast<float>(static_cast<int8_t>(in.byte())) / 4.0f;
  if (in.byte() % 16 == 0) x[0] = in.flag() ? NAN : INFINITY;
  Buffer<float> y;
  Shape y_shape;
  Status s;
  switch (in.byte() % 3) {
    case 0:
      s = fmax_pool(x.data(), shape, p, &y, &y_shape);
      break;
    case 1:
      s = favg_pool(x.data(), shape, p, &y, &y_shape);
      break;
    default:
      s = fadaptive_pool(x.data(), shape, p.dims, output_size, in.flag() ? PoolKind::kMax : PoolKind::kAvg, &y,
                         &y_shape);
      break;
  }
  check(s);
  if (s.ok()) {
    int64_t n = 0;
    if (!validate_shape(y_shape, &n).ok() || static_cast<size_t>(n) != y.size()) abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  testing::fail_allocations_larger_than(int64_t{8} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qwasm_fuzz::Input in(data, size);
  // The first byte picks the entry point; below 0xC0 as before the element-wise
  // ops and pooling were added, so that most committed seeds keep their meaning.
  const uint8_t op = in.byte();
  switch (op < 0xC0 ? op % 3 : 3 + op % 2) {
    case 0:
      fuzz_tensors(in);
      break;
    case 1:
      fuzz_observers(in);
      break;
    case 2:
      fuzz_conv(in);
      break;
    case 3:
      fuzz_qops(in);
      break;
    default:
      fuzz_pools(in);
      break;
  }
  return 0;
}
