// The region dequantize -> norm -> [relu] -> quantize (qwasm/norm_region.h)
// against the three steps run one by one with the same kernels (what the
// graph's dequantize, norm, relu and quantize nodes compute): the same
// integers, for each norm, with and without ReLU, with each ISA the build has;
// and its refusals, made before anything is allocated.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/isa.h"
#include "quint8_test_util.h"
#include "qwasm/norm_float.h"
#include "qwasm/norm_region.h"

using namespace qwasm;
using qwasm_test::expect_error;
using qwasm_test::ints;
using qwasm_test::q8;
namespace tc = qwasm::torch_cpu;

namespace {

// The integers of n elements from a formula that reaches 0 and 255.
std::vector<uint8_t> pattern(int64_t n) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 37 + (i / 7) * 11) % 256);
  return v;
}

// The three steps one by one.
std::vector<uint8_t> step_by_step(const QTensor& x, kernels::Isa isa, const FloatNorm& norm, bool relu, double scale,
                                  double zero_point) {
  std::vector<float> f(static_cast<size_t>(x.numel()));
  EXPECT_TRUE(dequantize(x, isa, f.data()).ok());
  Buffer<float> y;
  EXPECT_TRUE(norm(f.data(), &y).ok());
  if (relu)
    for (size_t i = 0; i < y.size(); i++) y.data()[i] = y.data()[i] < 0 ? 0.0f : y.data()[i];
  QTensor q;
  EXPECT_TRUE(quantize_per_tensor(y.data(), x.shape(), scale, zero_point, DType::kQUInt8, isa, &q).ok());
  return ints(q);
}

std::vector<kernels::Isa> isas() {
  std::vector<kernels::Isa> v{kernels::Isa::kScalar};
  if (kernels::best_isa() != kernels::Isa::kScalar) v.push_back(kernels::best_isa());
  return v;
}

TEST(NormRegion, EqualsTheStepsOneByOneForEachNormWithAndWithoutRelu) {
  // [2, 6, 5, 7]: odd sizes, so no kernel runs only whole vectors.
  const int64_t batch = 2, channels = 6, inner = 35;
  const QTensor x = q8(pattern(batch * channels * inner), {batch, channels, 5, 7}, 0.0473, 131);
  std::vector<float> weight(channels), bias(channels), ln_weight(inner), ln_bias(inner);
  for (int64_t c = 0; c < channels; c++) weight[c] = 0.5f + 0.25f * c, bias[c] = -0.3f + 0.2f * c;
  for (int64_t i = 0; i < inner; i++) ln_weight[i] = 1.5f - 0.03f * i, ln_bias[i] = 0.01f * i - 0.1f;
  tc::NormParams affine{weight.data(), bias.data(), nullptr, nullptr, 1e-5};
  tc::NormParams layer{ln_weight.data(), ln_bias.data(), nullptr, nullptr, 1e-5};
  const std::vector<std::pair<const char*, FloatNorm>> norms = {
      {"instance",
       [&](const float* v, Buffer<float>* y) {
         return tc::instance_norm(v, batch * channels, channels, inner, affine, y);
       }},
      {"group",
       [&](const float* v, Buffer<float>* y) { return tc::group_norm(v, batch, channels, inner, 3, affine, y); }},
      {"layer", [&](const float* v, Buffer<float>* y) { return tc::layer_norm(v, batch * channels, inner, layer, y); }},
  };
  for (kernels::Isa isa : isas())
    for (const auto& [name, norm] : norms)
      for (bool relu : {false, true}) {
        SCOPED_TRACE(std::string(name) + (relu ? " + relu" : "") + " isa " + std::to_string(static_cast<int>(isa)));
        QTensor out;
        const Status s = norm_region(x, x.numel(), isa, norm, relu, 0.0281, 77, &out);
        ASSERT_TRUE(s.ok()) << s.message;
        EXPECT_EQ(out.shape(), x.shape());
        EXPECT_EQ(out.q_scale(), 0.0281);
        EXPECT_EQ(out.q_zero_point(), 77);
        const std::vector<uint8_t> got = ints(out);
        EXPECT_EQ(got, step_by_step(x, isa, norm, relu, 0.0281, 77));
        // ReLU leaves nothing below the zero point's value; without it, some are (a real test of the flag).
        int64_t below = 0;
        for (uint8_t v : got) below += v < 77;
        if (relu)
          EXPECT_EQ(below, 0);
        else
          EXPECT_GT(below, 0);
      }
}

TEST(NormRegion, RefusesAnotherDtypeOrCountBeforeNormalising) {
  bool ran = false;
  const FloatNorm norm = [&](const float*, Buffer<float>*) {
    ran = true;
    return Status::Ok();
  };
  QTensor out;
  const QTensor x = q8(pattern(12), {2, 6}, 0.1, 3);
  expect_error(norm_region(x, 13, kernels::Isa::kScalar, norm, false, 0.1, 0, &out), StatusCode::kRangeError,
               "x holds 12 elements, the sizes say 13");
  QTensor s8;
  const int8_t v[2] = {1, -1};
  ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(v), 2, {2}, 1, 0, DType::kQInt8, &s8).ok());
  expect_error(norm_region(s8, 2, kernels::Isa::kScalar, norm, false, 0.1, 0, &out), StatusCode::kTypeError,
               "quint8 per_tensor_affine");
  EXPECT_FALSE(ran);
}

}  // namespace
