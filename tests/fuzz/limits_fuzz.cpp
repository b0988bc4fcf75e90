// libFuzzer, built for a 32-bit target (scripts/fuzz: -m32, where size_t is 32
// bits as on wasm32): every core entry point with sizes drawn up to and past
// the wasm32 limits (huge dimensions, paddings, strides, dilations, kernels,
// channel counts, byte counts, observer ranges). Each call either succeeds or
// returns a Status with a message; ASan and UBSan watch for out-of-bounds
// writes, overflow and truncation. Allocations above 8 MiB are made to fail,
// so that large but valid requests take the out-of-memory path quickly; small
// successful convolutions are compared with the naive reference.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "kernels/ref/conv3d_ref.h"
#include "qwasm/conv.h"
#include "qwasm/observer.h"
#include "qwasm/qtensor.h"

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

int64_t mul_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
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
  g.in_channels = in.flag() ? mul_sat(g.groups, in.range(1, 3)) : size_value(in);
  g.out_channels = in.flag() ? mul_sat(g.groups, in.range(1, 3)) : size_value(in);
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
  ref::qconv3d(g, args, expected.data());
  if (std::memcmp(expected.data(), out.data(), expected.size()) != 0) {
    std::fprintf(stderr, "conv differs from the reference\n");
    abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  testing::fail_allocations_larger_than(int64_t{8} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qwasm_fuzz::Input in(data, size);
  switch (in.byte() % 3) {
    case 0:
      fuzz_tensors(in);
      break;
    case 1:
      fuzz_observers(in);
      break;
    default:
      fuzz_conv(in);
      break;
  }
  return 0;
}
