// Convolution: every conv kernel of every ISA in this build equals the naive
// reference bit for bit, over shape sweeps that hit every remainder path:
// output channels below, at and above the 8-wide block, pixel counts that leave
// 1..3 rows in the last 4-pixel tile, odd segment lengths, kernel sizes 1..3,
// 5 and 7, strides, dilations, groups (depthwise too), asymmetric padding,
// saturation at 0 and 255 and the ReLU boundary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "kernels/conv_kernels.h"
#include "kernels/ref/conv3d_ref.h"
#include "qwasm/conv.h"
#include "test_util.h"

using namespace qwasm;
using kernels::Isa;

namespace {

struct ConvCase {
  int64_t n, cin, cout, groups;
  std::array<int64_t, 3> in, kernel, stride, dilation, pad_begin, pad_end;
};

std::string describe(const ConvCase& c) {
  std::ostringstream o;
  auto t = [&](const char* name, const std::array<int64_t, 3>& v) { o << " " << name << "=" << v[0] << "," << v[1] << "," << v[2]; };
  o << "N=" << c.n << " Cin=" << c.cin << " Cout=" << c.cout << " groups=" << c.groups;
  t("in", c.in); t("k", c.kernel); t("s", c.stride); t("d", c.dilation); t("pb", c.pad_begin); t("pe", c.pad_end);
  return o.str();
}

ConvGeometry geometry(const ConvCase& c) {
  ConvGeometry g;
  g.in_channels = c.cin;
  g.out_channels = c.cout;
  g.groups = c.groups;
  g.kernel = c.kernel;
  g.stride = c.stride;
  g.dilation = c.dilation;
  g.pad_begin = c.pad_begin;
  g.pad_end = c.pad_end;
  return g;
}

struct Coverage {
  int64_t at_zero = 0, at_255 = 0, at_relu_floor = 0;
};

// Runs one case through every ISA and compares with the reference; the data
// are drawn so that some outputs saturate at 0 and 255 and some sit on the
// ReLU boundary.
void check_qconv(const ConvCase& cc, bool per_channel, bool bias_on, bool relu, std::mt19937_64& g, uint64_t seed,
                 Coverage* coverage) {
  const ConvGeometry geo = geometry(cc);
  ASSERT_TRUE(validate_geometry(geo).ok()) << describe(cc);
  const Shape in_shape = {cc.n, cc.cin, cc.in[0], cc.in[1], cc.in[2]};
  Shape out_shape;
  ASSERT_TRUE(conv_output_shape(geo, in_shape, &out_shape).ok()) << describe(cc);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127), zp(90, 160);
  const int64_t in_numel = cc.n * cc.cin * cc.in[0] * cc.in[1] * cc.in[2];
  std::vector<uint8_t> x(static_cast<size_t>(in_numel));
  for (auto& v : x) v = static_cast<uint8_t>(u8(g));
  const int64_t cg = cc.cin / cc.groups;
  const int64_t wn = cc.cout * cg * cc.kernel[0] * cc.kernel[1] * cc.kernel[2];
  std::vector<int8_t> w(static_cast<size_t>(wn));
  for (auto& v : w) v = static_cast<int8_t>(s8(g));
  std::vector<double> wscales(cc.cout), wzps(cc.cout);
  std::uniform_real_distribution<double> scale(0.002, 0.02);
  for (int64_t oc = 0; oc < cc.cout; ++oc) {
    wscales[oc] = per_channel ? scale(g) : 0.01;
    wzps[oc] = per_channel ? s8(g) / 16 : 0;
  }
  std::vector<float> bias(cc.cout);
  std::uniform_real_distribution<float> bdist(-3.f, 3.f);
  for (auto& b : bias) b = bdist(g);
  const double a_scale = 0.05;
  const int64_t a_zp = zp(g);
  QTensor input, weight;
  ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, a_scale, static_cast<double>(a_zp), DType::kQUInt8, &input).ok());
  const Shape wshape = {cc.cout, cg, cc.kernel[0], cc.kernel[1], cc.kernel[2]};
  Status s = per_channel ? make_per_channel_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), wshape,
                                                      wscales.data(), wzps.data(), wscales.size(), 0, false,
                                                      DType::kQInt8, &weight)
                         : make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), wshape,
                                                     wscales[0], 0, DType::kQInt8, &weight);
  ASSERT_TRUE(s.ok()) << s.message;
  PackedQConv packed;
  s = pack_qconv(geo, weight, bias_on ? bias.data() : nullptr, cc.cout, &packed);
  ASSERT_TRUE(s.ok()) << s.message;
  // An output scale that puts the typical accumulator near the middle of the range.
  const double out_scale = 0.05 * 0.01 * std::sqrt(static_cast<double>(cg * cc.kernel[0] * cc.kernel[1] * cc.kernel[2])) * 40;
  const int64_t out_zp = 100;

  std::vector<float> ws(cc.cout);
  std::vector<int32_t> wz(cc.cout);
  for (int64_t oc = 0; oc < cc.cout; ++oc) ws[oc] = static_cast<float>(wscales[oc]), wz[oc] = static_cast<int32_t>(wzps[oc]);
  ref::QConvArgs args{x.data(), in_shape, static_cast<float>(a_scale), static_cast<int32_t>(a_zp), w.data(), ws.data(),
                      wz.data(), bias_on ? bias.data() : nullptr, static_cast<float>(out_scale),
                      static_cast<int32_t>(out_zp), relu};
  std::vector<uint8_t> expected(static_cast<size_t>(out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3] * out_shape[4]));
  ref::qconv3d(geo, args, expected.data());
  for (uint8_t v : expected) {
    coverage->at_zero += v == 0;
    coverage->at_255 += v == 255;
    coverage->at_relu_floor += relu && v == out_zp;
  }

  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    QTensor out;
    s = qconv3d(packed, input, out_scale, out_zp, relu, isa, &out);
    ASSERT_TRUE(s.ok()) << s.message;
    ASSERT_EQ(out.shape(), out_shape);
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(out.data()[i], expected[i])
          << kernels::isa_name(isa) << " index " << i << " " << describe(cc) << " per_channel=" << per_channel
          << " bias=" << bias_on << " relu=" << relu << " a_zp=" << a_zp << " out_scale=" << out_scale
          << " depthwise=" << packed.depthwise << " seed " << seed;
    }
  }
}

std::vector<ConvCase> sweep() {
  std::vector<ConvCase> cases;
  const std::array<int64_t, 3> one{1, 1, 1}, zero{0, 0, 0};
  // Output channels around the 8-wide block; odd pixel counts; odd segment lengths.
  for (int64_t cout : {1, 3, 7, 8, 9, 16, 17}) {
    for (int64_t cin : {1, 2, 3, 4, 5}) cases.push_back({1, cin, cout, 1, {3, 5, 6}, {3, 3, 3}, one, one, one, one});
  }
  // Kernel sizes 1..3, 5 and 7 in each dimension, stride 2, dilation 2.
  for (int64_t k : {1, 2, 3, 5, 7}) {
    cases.push_back({1, 3, 5, 1, {7, 8, 9}, {k, k, k}, one, one, zero, zero});
    cases.push_back({2, 4, 9, 1, {7, 8, 9}, {1, k, 3}, {2, 1, 2}, one, {0, 1, 1}, {0, 1, 1}});
    cases.push_back({1, 2, 6, 1, {9, 9, 9}, {k, 1, k > 3 ? 3 : k}, one, {1, 2, 2}, {1, 0, 2}, {2, 0, 1}});
  }
  cases.push_back({1, 6, 4, 1, {5, 6, 7}, {3, 1, 1}, {2, 2, 2}, one, one, one});
  cases.push_back({1, 6, 4, 1, {5, 6, 7}, {1, 3, 3}, one, one, {0, 1, 1}, {0, 1, 1}});
  // Groups, including a channel multiplier, and depthwise with odd channel counts.
  cases.push_back({1, 6, 9, 3, {4, 5, 6}, {3, 3, 3}, one, one, one, one});
  cases.push_back({1, 4, 8, 4, {4, 5, 6}, {3, 3, 3}, one, one, one, one});
  for (int64_t c : {2, 5, 8, 9, 17}) {
    cases.push_back({1, c, c, c, {4, 5, 7}, {3, 3, 3}, one, one, one, one});
    cases.push_back({2, c, c, c, {5, 6, 7}, {3, 3, 3}, {2, 2, 2}, {1, 2, 1}, {1, 2, 1}, {2, 2, 0}});
  }
  // 1x1x1 (pointwise), strided.
  cases.push_back({1, 16, 12, 1, {3, 4, 5}, one, one, one, zero, zero});
  cases.push_back({1, 16, 12, 1, {3, 4, 5}, one, {2, 2, 2}, one, zero, zero});
  return cases;
}

}  // namespace

TEST(ConvKernels, QuantizedMatchReferenceOverSweep) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed);
  Coverage coverage;
  for (const ConvCase& c : sweep()) {
    for (int variant = 0; variant < 4; ++variant) {
      check_qconv(c, variant & 1, variant & 2, variant % 3 == 0, g, seed, &coverage);
      if (HasFatalFailure()) return;
    }
  }
  // The sweep reaches both saturation bounds and the ReLU floor.
  EXPECT_GT(coverage.at_zero, 0);
  EXPECT_GT(coverage.at_255, 0);
  EXPECT_GT(coverage.at_relu_floor, 0);
}

TEST(ConvKernels, SimdIsCompiledIntoTheWasmBuild) {
#if defined(__EMSCRIPTEN__)
  EXPECT_TRUE(kernels::isa_available(Isa::kWasmSimd));
  EXPECT_NE(kernels::conv_kernels(Isa::kWasmSimd), kernels::conv_kernels(Isa::kScalar));
#else
  EXPECT_FALSE(kernels::isa_available(Isa::kWasmSimd));
#endif
}

TEST(ConvKernels, FloatMatchReferenceOverSweep) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed + 1);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (const ConvCase& cc : sweep()) {
    const ConvGeometry geo = geometry(cc);
    const Shape in_shape = {cc.n, cc.cin, cc.in[0], cc.in[1], cc.in[2]};
    std::vector<float> x(static_cast<size_t>(cc.n * cc.cin * cc.in[0] * cc.in[1] * cc.in[2]));
    for (auto& v : x) v = nd(g);
    const int64_t wn = cc.cout * (cc.cin / cc.groups) * cc.kernel[0] * cc.kernel[1] * cc.kernel[2];
    std::vector<float> w(static_cast<size_t>(wn)), bias(cc.cout);
    for (auto& v : w) v = nd(g);
    for (auto& v : bias) v = nd(g);
    PackedFConv packed;
    ASSERT_TRUE(pack_fconv(geo, w.data(), wn, bias.data(), cc.cout, &packed).ok());
    for (bool relu : {false, true}) {
      Shape out_shape;
      ASSERT_TRUE(conv_output_shape(geo, in_shape, &out_shape).ok());
      std::vector<float> expected(static_cast<size_t>(out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3] * out_shape[4]));
      ref::fconv3d(geo, x.data(), in_shape, w.data(), bias.data(), relu, expected.data());
      for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
        if (!kernels::isa_available(isa)) continue;
        Buffer<float> got;
        Shape got_shape;
        ASSERT_TRUE(fconv3d(packed, x.data(), in_shape, relu, isa, &got, &got_shape).ok());
        ASSERT_EQ(got_shape, out_shape);
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_EQ(std::memcmp(&got[i], &expected[i], 4), 0)
              << kernels::isa_name(isa) << " float index " << i << " expected " << expected[i] << " got " << got[i]
              << " relu=" << relu << " " << describe(cc) << " seed " << seed;
        }
      }
    }
  }
}

TEST(ConvGeometry, Errors) {
  ConvGeometry g;
  g.in_channels = 4;
  g.out_channels = 6;
  g.groups = 4;
  EXPECT_EQ(validate_geometry(g).code, StatusCode::kRangeError);  // 6 % 4
  g.groups = 2;
  EXPECT_TRUE(validate_geometry(g).ok());
  g.stride = {1, 0, 1};
  EXPECT_NE(validate_geometry(g).message.find("stride must be >= 1"), std::string::npos);
  g.stride = {1, 1, 1};
  g.kernel = {3, 3, 3};
  Shape out;
  EXPECT_NE(conv_output_shape(g, {1, 4, 2, 5, 5}, &out).message.find("larger than the padded input depth 2"), std::string::npos);
  EXPECT_NE(conv_output_shape(g, {1, 3, 5, 5, 5}, &out).message.find("expected 4 input channels"), std::string::npos);
  EXPECT_NE(conv_output_shape(g, {1, 4, 5, 5}, &out).message.find("5-D"), std::string::npos);
  ASSERT_TRUE(conv_output_shape(g, {2, 4, 5, 6, 7}, &out).ok());
  EXPECT_EQ(out, (Shape{2, 6, 3, 4, 5}));
}
