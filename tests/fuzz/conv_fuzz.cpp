// libFuzzer: any small convolution or linear layer the core accepts gives,
// with the scalar kernels, exactly the naive reference's integers (and
// floats); any it refuses is refused with a Status, never a crash or a trap
// (an integer division by zero is SIGFPE here, which libFuzzer reports).
// Batches and a linear layer's leading dimensions may be empty (0): the
// output is empty too, as PyTorch's. Run with scripts/fuzz.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "qwasm/conv.h"
#include "reference/conv3d_ref.h"

using namespace qwasm;

namespace {

struct Case {
  ConvGeometry g;      // as the core runs it (spatial_dims 0 for a linear layer)
  ConvGeometry ref_g;  // as the reference runs it (a linear layer: a 1x1x1 conv over rows)
  Shape shape;         // the input's shape as the core takes it
  Shape ref_shape;     // [N, C, D, H, W] for the reference
  bool linear = false;
};

// A linear layer [..., in] -> [..., out]: its rows (the leading dimensions,
// any of them 0) are the reference's batch of 1x1x1 convolutions.
bool read_linear(qwasm_fuzz::Input& in, Case* c) {
  c->linear = true;
  c->g.spatial_dims = 0;
  c->g.in_channels = in.range(1, 5);
  c->g.out_channels = in.range(1, 9);
  const int rank = static_cast<int>(in.range(1, 3));
  int64_t rows = 1;
  for (int i = 0; i < rank - 1; ++i) {
    c->shape.push_back(in.range(0, 3));
    rows *= c->shape.back();
  }
  c->shape.push_back(c->g.in_channels);
  c->ref_g = c->g;
  c->ref_g.spatial_dims = 3;
  c->ref_shape = {rows, c->g.in_channels, 1, 1, 1};
  return validate_geometry(c->g).ok();
}

bool read_conv(qwasm_fuzz::Input& in, Case* c) {
  ConvGeometry& g = c->g;
  g.groups = in.range(1, 3);
  g.in_channels = g.groups * in.range(1, 3);
  g.out_channels = g.groups * in.range(1, 4);
  if (in.flag()) g.in_channels = in.range(0, 5);  // sometimes an invalid channel count
  for (int d = 0; d < 3; ++d) {
    g.kernel[d] = in.range(1, 4);
    g.stride[d] = in.range(1, 3);
    g.dilation[d] = in.range(1, 3);
    g.pad_begin[d] = in.range(0, 2);
    g.pad_end[d] = in.range(0, 2);
  }
  // The batch may be empty (0).
  c->shape = {in.range(0, 2), g.in_channels, in.range(1, 7), in.range(1, 7), in.range(1, 7)};
  c->ref_g = g;
  c->ref_shape = c->shape;
  if (!validate_geometry(g).ok()) return false;
  Shape out_shape;
  return conv_output_shape(g, c->shape, &out_shape).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qwasm_fuzz::Input in(data, size);
  Case c;
  if (!(in.flag() ? read_linear(in, &c) : read_conv(in, &c))) return 0;
  const ConvGeometry& g = c.g;
  const Shape& shape = c.shape;
  const bool per_channel = in.flag(), has_bias = in.flag(), relu = in.flag();
  const int32_t a_zp = static_cast<int32_t>(in.byte());
  const int32_t out_zp = static_cast<int32_t>(in.byte());
  const double out_scale = 0.001 * (1 + in.byte());

  const int64_t cg = g.in_channels / g.groups;
  size_t nx = 1;
  for (int64_t d : shape) nx *= static_cast<size_t>(d);
  const size_t nw = static_cast<size_t>(g.out_channels * cg * g.kernel[0] * g.kernel[1] * g.kernel[2]);
  std::vector<uint8_t> x(nx);
  std::vector<int8_t> w(nw);
  for (auto& v : x) v = in.byte();
  for (auto& v : w) v = static_cast<int8_t>(in.byte());
  std::vector<double> scales(g.out_channels), zps(g.out_channels);
  std::vector<float> bias(g.out_channels);
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    scales[oc] = 0.001 * (1 + in.byte());
    zps[oc] = per_channel ? static_cast<int8_t>(in.byte()) / 8 : 0;
    bias[oc] = static_cast<int8_t>(in.byte()) * 0.05f;
  }
  QTensor input, weight, out;
  if (!make_per_tensor_quantized(x.data(), x.size(), shape, 0.02, a_zp, DType::kQUInt8, &input).ok()) abort();
  const Shape wshape = c.linear ? Shape{g.out_channels, g.in_channels}
                                : Shape{g.out_channels, cg, g.kernel[0], g.kernel[1], g.kernel[2]};
  const uint8_t* wb = reinterpret_cast<const uint8_t*>(w.data());
  Status s = per_channel ? make_per_channel_quantized(wb, w.size(), wshape, scales.data(), zps.data(), scales.size(), 0,
                                                      false, DType::kQInt8, &weight)
                         : make_per_tensor_quantized(wb, w.size(), wshape, scales[0], 0, DType::kQInt8, &weight);
  if (!s.ok()) abort();
  PackedQConv packed;
  if (!pack_qconv(g, weight, has_bias ? bias.data() : nullptr, g.out_channels, &packed).ok()) abort();
  s = c.linear ? qlinear(packed, input, out_scale, out_zp, relu, kernels::Isa::kScalar, &out)
               : qconv3d(packed, input, out_scale, out_zp, relu, kernels::Isa::kScalar, &out);
  if (!s.ok()) abort();

  std::vector<float> ws(g.out_channels);
  std::vector<int32_t> wz(g.out_channels);
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    ws[oc] = static_cast<float>(per_channel ? scales[oc] : scales[0]);
    wz[oc] = static_cast<int32_t>(zps[oc]);
  }
  ref::QConvArgs args{x.data(),
                      c.ref_shape,
                      0.02f,
                      a_zp,
                      w.data(),
                      ws.data(),
                      wz.data(),
                      has_bias ? bias.data() : nullptr,
                      static_cast<float>(out_scale),
                      out_zp,
                      relu};
  args.per_tensor_weight = !per_channel;
  std::vector<uint8_t> expected(out.nbytes());
  ref::qconv3d(c.ref_g, args, expected.data());
  if (!expected.empty() &&
      std::memcmp(expected.data(), out.data(), expected.size()) != 0) {  // empty: no pointers to compare
    std::fprintf(stderr, "quantized %s differs from the reference\n", c.linear ? "linear" : "conv");
    abort();
  }

  // Float path on the same shape.
  std::vector<float> xf(nx), wf(nw);
  for (size_t i = 0; i < nx; ++i) xf[i] = (x[i] - 128) / 64.0f;
  for (size_t i = 0; i < nw; ++i) wf[i] = w[i] / 64.0f;
  PackedFConv fpacked;
  if (!pack_fconv(g, wf.data(), static_cast<int64_t>(nw), has_bias ? bias.data() : nullptr, g.out_channels, &fpacked)
           .ok())
    abort();
  Buffer<float> y;
  Shape y_shape;
  s = c.linear ? flinear(fpacked, xf.data(), shape, relu, kernels::Isa::kScalar, &y, &y_shape)
               : fconv3d(fpacked, xf.data(), shape, relu, kernels::Isa::kScalar, &y, &y_shape);
  if (!s.ok()) abort();
  std::vector<float> y_ref(y.size());
  ref::fconv3d(c.ref_g, xf.data(), c.ref_shape, wf.data(), has_bias ? bias.data() : nullptr, relu, y_ref.data());
  if (!y_ref.empty() && std::memcmp(y.data(), y_ref.data(), y.size() * sizeof(float)) != 0) {
    std::fprintf(stderr, "float %s differs from the reference\n", c.linear ? "linear" : "conv");
    abort();
  }
  return 0;
}
