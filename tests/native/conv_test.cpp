// Convolutions and linear layers through the ops (qconv3d / qlinear / fconv3d
// / flinear: drivers, packing and the dispatched kernels of every ISA in this
// build) equal the naive reference bit for bit, over named shape cases that
// hit every remainder path: output channels below, at and above the 8-wide
// block, pixel counts that leave 1..3 rows in the last 4-pixel tile, odd
// segment lengths, kernel sizes 1..3, 5 and 7, strides, dilations, groups
// (depthwise too), asymmetric padding; each case in all eight combinations of
// per-channel / per-tensor weights, bias / none, ReLU / none; saturation at 0
// and 255 and the ReLU floor are reached. (The micro-kernels alone are tested
// in kernel_tester_qconv_test.cpp and kernel_tester_qdwconv_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

#include "kernels/isa.h"
#include "kernels/winograd_kernels.h"
#include "qwasm/conv.h"
#include "qwasm/conv_lowered.h"
#include "qwasm/conv_winograd.h"
#include "qwasm/thread_pool.h"
#include "reference/conv3d_ref.h"
#include "test_util.h"

using namespace qwasm;
using kernels::Isa;

namespace {

struct ConvCase {
  std::string name;
  int64_t n, cin, cout, groups;
  std::array<int64_t, 3> in, kernel, stride, dilation, pad_begin, pad_end;
};

std::string describe(const ConvCase& c) {
  std::ostringstream o;
  auto t = [&](const char* name, const std::array<int64_t, 3>& v) {
    o << " " << name << "=" << v[0] << "," << v[1] << "," << v[2];
  };
  o << c.name << ": N=" << c.n << " Cin=" << c.cin << " Cout=" << c.cout << " groups=" << c.groups;
  t("in", c.in);
  t("k", c.kernel);
  t("s", c.stride);
  t("d", c.dilation);
  t("pb", c.pad_begin);
  t("pe", c.pad_end);
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

// Every ISA of this build, each at every thread count of qwasm_test::thread_counts().
std::vector<std::pair<Isa, size_t>> isa_thread_runs() {
  std::vector<std::pair<Isa, size_t>> runs;
  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    for (size_t threads : qwasm_test::thread_counts()) runs.emplace_back(isa, threads);
  }
  return runs;
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
  ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, a_scale, static_cast<double>(a_zp),
                                        DType::kQUInt8, &input)
                  .ok());
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
  // The module keeps only the packed weights: they give back the weight exactly.
  QTensor unpacked;
  ASSERT_TRUE(unpack_qconv_weight(packed, &unpacked).ok());
  EXPECT_EQ(unpacked.shape(), weight.shape()) << describe(cc);
  EXPECT_EQ(unpacked.qscheme(), weight.qscheme()) << describe(cc);
  EXPECT_EQ(std::vector<uint8_t>(unpacked.data(), unpacked.data() + unpacked.nbytes()),
            std::vector<uint8_t>(weight.data(), weight.data() + weight.nbytes()))
      << describe(cc) << " per_channel=" << per_channel;
  for (size_t i = 0; i < weight.scales().size(); ++i) {
    EXPECT_EQ(unpacked.scales()[i], weight.scales()[i]);
    EXPECT_EQ(unpacked.zero_points()[i], weight.zero_points()[i]);
  }
  // An output scale that puts the typical accumulator near the middle of the range.
  const double out_scale =
      0.05 * 0.01 * std::sqrt(static_cast<double>(cg * cc.kernel[0] * cc.kernel[1] * cc.kernel[2])) * 40;
  const int64_t out_zp = 100;

  std::vector<float> ws(cc.cout);
  std::vector<int32_t> wz(cc.cout);
  for (int64_t oc = 0; oc < cc.cout; ++oc)
    ws[oc] = static_cast<float>(wscales[oc]), wz[oc] = static_cast<int32_t>(wzps[oc]);
  ref::QConvArgs args{x.data(),
                      in_shape,
                      static_cast<float>(a_scale),
                      static_cast<int32_t>(a_zp),
                      w.data(),
                      ws.data(),
                      wz.data(),
                      bias_on ? bias.data() : nullptr,
                      static_cast<float>(out_scale),
                      static_cast<int32_t>(out_zp),
                      relu};
  args.per_tensor_weight = !per_channel;
  std::vector<uint8_t> expected(
      static_cast<size_t>(out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3] * out_shape[4]));
  ref::qconv3d(geo, args, expected.data());
  for (uint8_t v : expected) {
    coverage->at_zero += v == 0;
    coverage->at_255 += v == 255;
    coverage->at_relu_floor += relu && v == out_zp;
  }

  // Runs a packing of the layer at every ISA and thread count: each output
  // must equal `expected`; `path` (unless unchecked) is the one it must take.
  enum class Path { kUnchecked, kDirect, kWinograd };
  auto expect_runs_match = [&](const PackedQConv& p, const char* label, Path path) {
    for (const auto& [isa, threads] : isa_thread_runs()) {
      ASSERT_TRUE(set_num_threads(threads).ok());
      QTensor out;
      ConvRunInfo info;
      s = qconv3d(p, input, out_scale, out_zp, relu, isa, &out, &info);
      ASSERT_TRUE(s.ok()) << s.message;
      ASSERT_EQ(out.shape(), out_shape);
      if (path != Path::kUnchecked) {
        EXPECT_EQ(info.winograd, path == Path::kWinograd) << label << " " << describe(cc);
      }
      for (size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(out.data()[i], expected[i])
            << label << (info.winograd ? " winograd " : " direct ") << kernels::isa_name(isa) << " index " << i << " "
            << describe(cc) << " per_channel=" << per_channel << " bias=" << bias_on << " relu=" << relu
            << " a_zp=" << a_zp << " out_scale=" << out_scale << " depthwise=" << p.depthwise << " threads " << threads
            << " seed " << seed;
      }
    }
  };
  expect_runs_match(packed, "fbgemm", Path::kUnchecked);
  if (::testing::Test::HasFatalFailure()) return;

  // The same layer on the exact integer Winograd path, where its shape
  // allows it (forced on): the same bytes, at every ISA and thread count.
  PackedQConv wino;
  ASSERT_TRUE(
      pack_qconv(geo, weight, bias_on ? bias.data() : nullptr, cc.cout, &wino, ConvBackend::kFbgemm, WinogradMode::kOn)
          .ok());
  int dims[3];
  ConvGeometry lowered_geo;  // a stem's lowering to Winograd along D (conv_lowered.h)
  EXPECT_EQ(winograd_bytes(wino) > 0,
            conv_internal::winograd_dims(geo, dims) > 0 || conv_internal::hw_lowered_geometry(geo, &lowered_geo))
      << describe(cc);
  PackedQConv direct;
  ASSERT_TRUE(pack_qconv(geo, weight, bias_on ? bias.data() : nullptr, cc.cout, &direct, ConvBackend::kFbgemm,
                         WinogradMode::kOff)
                  .ok());
  EXPECT_EQ(winograd_bytes(direct), 0u);
  expect_runs_match(wino, "fbgemm forced on", winograd_bytes(wino) > 0 ? Path::kWinograd : Path::kDirect);
  if (::testing::Test::HasFatalFailure()) return;
  expect_runs_match(direct, "fbgemm forced off", Path::kDirect);
  if (::testing::Test::HasFatalFailure()) return;

  // The same layer as PyTorch's x86 engine runs it: oneDNN's requantization,
  // which takes symmetric weights (zero points 0).
  std::vector<double> sym_zps(wscales.size(), 0.0);
  QTensor sym;
  s = per_channel
          ? make_per_channel_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), wshape, wscales.data(),
                                       sym_zps.data(), wscales.size(), 0, false, DType::kQInt8, &sym)
          : make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), wshape, wscales[0], 0,
                                      DType::kQInt8, &sym);
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(conv_backend_for(QEngine::kX86, geo, sym), cc.groups <= 100 ? ConvBackend::kOnednn : ConvBackend::kFbgemm);
  EXPECT_EQ(conv_backend_for(QEngine::kFbgemm, geo, sym), ConvBackend::kFbgemm);
  PackedQConv onednn;
  ASSERT_TRUE(pack_qconv(geo, sym, bias_on ? bias.data() : nullptr, cc.cout, &onednn, ConvBackend::kOnednn).ok());
  std::vector<int32_t> zero_wz(cc.cout, 0);
  ref::QConvArgs sym_args = args;
  sym_args.w_zero_points = zero_wz.data();
  sym_args.a_scale = a_scale;
  sym_args.out_scale = out_scale;
  sym_args.backend = ConvBackend::kOnednn;
  ref::qconv3d(geo, sym_args, expected.data());
  PackedQConv onednn_wino;
  ASSERT_TRUE(pack_qconv(geo, sym, bias_on ? bias.data() : nullptr, cc.cout, &onednn_wino, ConvBackend::kOnednn,
                         WinogradMode::kOn)
                  .ok());
  expect_runs_match(onednn, "onednn", Path::kUnchecked);
  if (::testing::Test::HasFatalFailure()) return;
  expect_runs_match(onednn_wino, "onednn forced on", Path::kUnchecked);
}

std::vector<ConvCase> sweep() {
  std::vector<ConvCase> cases;
  const std::array<int64_t, 3> one{1, 1, 1}, zero{0, 0, 0};
  auto add = [&](std::string name, int64_t n, int64_t cin, int64_t cout, int64_t groups, std::array<int64_t, 3> in,
                 std::array<int64_t, 3> k, std::array<int64_t, 3> s, std::array<int64_t, 3> d,
                 std::array<int64_t, 3> pb, std::array<int64_t, 3> pe) {
    cases.push_back({std::move(name), n, cin, cout, groups, in, k, s, d, pb, pe});
  };
  // Output channels around the 8-wide block; odd pixel counts; odd segment lengths.
  for (int64_t cout : {1, 3, 7, 8, 9, 16, 17}) {
    for (int64_t cin : {1, 2, 3, 4, 5}) {
      add("cout" + std::to_string(cout) + "_cin" + std::to_string(cin), 1, cin, cout, 1, {3, 5, 6}, {3, 3, 3}, one, one,
          one, one);
    }
  }
  // Kernel sizes 1..3, 5 and 7 in each dimension, stride 2, dilation 2.
  for (int64_t k : {1, 2, 3, 5, 7}) {
    const std::string ks = std::to_string(k);
    add("kernel" + ks, 1, 3, 5, 1, {7, 8, 9}, {k, k, k}, one, one, zero, zero);
    add("kernel1x" + ks + "x3_batch2_stride2", 2, 4, 9, 1, {7, 8, 9}, {1, k, 3}, {2, 1, 2}, one, {0, 1, 1}, {0, 1, 1});
    add("kernel" + ks + "x1_dilation2_asymmetric_padding", 1, 2, 6, 1, {9, 9, 9}, {k, 1, k > 3 ? 3 : k}, one, {1, 2, 2},
        {1, 0, 2}, {2, 0, 1});
  }
  add("stride2_kernel3x1x1", 1, 6, 4, 1, {5, 6, 7}, {3, 1, 1}, {2, 2, 2}, one, one, one);
  // Stems on Winograd along D (conv_lowered.h: an im2col along H and W, then
  // the (3, 1, 1) path): r3d_18's 3x7x7 at stride (1, 2, 2) with 3 channels,
  // a 3x5x5 one over two 64-channel chunks and a batch of 2, 9 channels at
  // 3x3x3, a dilated and unevenly strided window with asymmetric padding, and
  // depths that make F(4, 3) tiles, F(2, 3) ones (2 outputs) and partial ones.
  add("stem3x7x7_stride1x2x2", 1, 3, 16, 1, {5, 14, 15}, {3, 7, 7}, {1, 2, 2}, one, {1, 3, 3}, {1, 3, 3});
  add("stem3x5x5_stride1x2x2_cout70_batch2", 2, 3, 70, 1, {7, 9, 11}, {3, 5, 5}, {1, 2, 2}, one, {1, 2, 2}, {1, 2, 2});
  add("lowered3x3x3_stride1x2x2_cin9", 1, 9, 12, 1, {8, 7, 9}, {3, 3, 3}, {1, 2, 2}, one, one, one);
  add("lowered3x4x2_dilated_asymmetric_padding", 1, 2, 5, 1, {7, 9, 8}, {3, 4, 2}, {1, 1, 2}, {1, 2, 1}, {0, 1, 0},
      {2, 2, 1});
  add("lowered3x5x5_depth2_unpadded", 1, 4, 6, 1, {4, 7, 7}, {3, 5, 5}, {1, 2, 2}, one, zero, zero);
  add("kernel1x3x3", 1, 6, 4, 1, {5, 6, 7}, {1, 3, 3}, one, one, {0, 1, 1}, {0, 1, 1});
  // Groups, including a channel multiplier, and depthwise with odd channel counts.
  add("groups3", 1, 6, 9, 3, {4, 5, 6}, {3, 3, 3}, one, one, one, one);
  add("groups4_multiplier2", 1, 4, 8, 4, {4, 5, 6}, {3, 3, 3}, one, one, one, one);
  for (int64_t c : {2, 5, 8, 9, 17}) {
    const std::string cs = std::to_string(c);
    add("depthwise" + cs, 1, c, c, c, {4, 5, 7}, {3, 3, 3}, one, one, one, one);
    add("depthwise" + cs + "_batch2_strided_dilated", 2, c, c, c, {5, 6, 7}, {3, 3, 3}, {2, 2, 2}, {1, 2, 1}, {1, 2, 1},
        {2, 2, 0});
  }
  // The depthwise kernels' runs along W (4 pixels per step, then 1-3 one at
  // a time): output widths 8 to 11 at stride 1 and (1, 2, 2), X3D's and
  // CSN's kernels (3x3x3, 1x3x3, 3x1x1 and 5x1x1 with temporal padding),
  // channels around the 8-channel block (X3D-XS's 54 = 6 x 8 + 6).
  for (int64_t w : {8, 9, 10, 11}) {
    const std::string ws = std::to_string(w);
    add("depthwise_runs_w" + ws, 1, 11, 11, 11, {3, 4, w}, {3, 3, 3}, one, one, one, one);
    add("depthwise_runs_w" + ws + "_stride1x2x2", 1, 54, 54, 54, {3, 5, 2 * w}, {3, 3, 3}, {1, 2, 2}, one, one, one);
  }
  add("depthwise_x3d_stem_k5x1x1", 1, 24, 24, 24, {4, 3, 13}, {5, 1, 1}, one, one, {2, 0, 0}, {2, 0, 0});
  add("depthwise_k1x3x3", 1, 16, 16, 16, {2, 4, 10}, {1, 3, 3}, one, one, {0, 1, 1}, {0, 1, 1});
  add("depthwise_k3x1x1_stride2", 1, 7, 7, 7, {6, 3, 9}, {3, 1, 1}, {2, 1, 2}, one, {1, 0, 0}, {1, 0, 0});
  add("depthwise_dilated_w13", 1, 9, 9, 9, {5, 5, 13}, {3, 3, 3}, one, {1, 2, 2}, {1, 2, 2}, {1, 2, 2});
  // The Winograd path's shapes (forced on in check_qconv): partial tiles in
  // every dimension (odd outputs), input channels around the transform's
  // 8-channel block, output channels around the GEMM's 8 and the 64-channel
  // chunk, more tiles than a 16-tile block, every 3-tap combination,
  // asymmetric and 1-tap padding, outputs of a single position.
  add("wino3x3x3_odd_sizes", 1, 8, 8, 1, {5, 7, 9}, {3, 3, 3}, one, one, one, one);
  add("wino3x3x3_cin9_cout70_two_chunks", 1, 9, 70, 1, {4, 6, 6}, {3, 3, 3}, one, one, one, one);
  add("wino3x3x3_cin17_cout9_unpadded", 1, 17, 9, 1, {6, 7, 8}, {3, 3, 3}, one, one, zero, zero);
  add("wino3x3x3_asymmetric_padding_batch2", 2, 7, 5, 1, {5, 6, 7}, {3, 3, 3}, one, one, {0, 1, 2}, {2, 1, 0});
  add("wino3x3x3_single_output", 1, 3, 4, 1, {1, 1, 1}, {3, 3, 3}, one, one, one, one);
  add("wino3x3x3_many_tiles", 1, 3, 5, 1, {9, 10, 11}, {3, 3, 3}, one, one, one, one);
  add("wino1x3x3", 1, 12, 20, 1, {3, 9, 10}, {1, 3, 3}, one, one, {0, 1, 1}, {0, 1, 1});
  add("wino1x3x3_padded_depth", 1, 6, 7, 1, {2, 5, 5}, {1, 3, 3}, one, one, one, one);
  add("wino3x1x1", 1, 12, 20, 1, {7, 4, 5}, {3, 1, 1}, one, one, {1, 0, 0}, {1, 0, 0});
  // The output transform's runs of tiles along a row (4 at a time, then the
  // rest; a block's 16 crossing rows): rows of 13 and 21 tiles, a partial
  // last depth tile, channel remainders of 3 and 6 past the 4-channel group.
  add("wino3x1x1_runs_w13", 1, 9, 7, 1, {5, 3, 13}, {3, 1, 1}, one, one, {1, 0, 0}, {1, 0, 0});
  add("wino3x1x1_runs_w21_cout70", 1, 8, 70, 1, {4, 2, 21}, {3, 1, 1}, one, one, {1, 0, 0}, {1, 0, 0});
  add("wino1x3x3_runs_w19", 1, 5, 11, 1, {2, 5, 19}, {1, 3, 3}, one, one, {0, 1, 1}, {0, 1, 1});
  add("wino1x1x3_conv1d", 1, 5, 9, 1, {1, 1, 17}, {1, 1, 3}, one, one, {0, 0, 1}, {0, 0, 1});
  add("wino3x3x1", 1, 4, 6, 1, {5, 5, 4}, {3, 3, 1}, one, one, {1, 1, 0}, {1, 1, 0});
  add("wino3x1x3", 1, 4, 6, 1, {5, 4, 5}, {3, 1, 3}, one, one, {1, 0, 1}, {1, 0, 1});
  // Dilated layers on the Winograd path (interleaved phases, conv_winograd.cpp
  // TileGrid): dilations 1 to 8, mixed per dimension; sizes that are not
  // multiples of the dilation and sizes below it (phases with one output or
  // none); padding equal to the dilation (MeshNet), below and above it,
  // asymmetric, none; channels around the transform's and the GEMM's blocks
  // (21: MeshNet's); more tiles than a block; the separable shapes.
  for (int64_t d = 2; d <= 8; ++d) {
    const std::string ds = std::to_string(d);
    const std::array<int64_t, 3> dil{d, d, d}, pad{d, d, d};
    add("wino_dilation" + ds + "_same_padding", 1, 5, 9, 1, {d + 3, 2 * d + 1, d + 2}, {3, 3, 3}, one, dil, pad, pad);
  }
  add("wino_dilation2_meshnet_channels", 1, 21, 21, 1, {6, 7, 9}, {3, 3, 3}, one, {2, 2, 2}, {2, 2, 2}, {2, 2, 2});
  add("wino_dilation_mixed_1_3_2", 1, 9, 17, 1, {5, 10, 7}, {3, 3, 3}, one, {1, 3, 2}, {1, 3, 2}, {1, 3, 2});
  add("wino_dilation_padding_not_dilation", 1, 7, 8, 1, {9, 10, 11}, {3, 3, 3}, one, {2, 3, 4}, {1, 2, 3}, {2, 4, 1});
  add("wino_dilation_unpadded", 1, 3, 5, 1, {9, 8, 10}, {3, 3, 3}, one, {2, 3, 4}, zero, zero);
  add("wino_dilation_larger_than_size", 1, 4, 6, 1, {3, 4, 5}, {3, 3, 3}, one, {8, 5, 6}, {8, 5, 6}, {8, 5, 6});
  add("wino_dilation_past_padding_batch2", 2, 8, 9, 1, {4, 6, 5}, {3, 3, 3}, one, {7, 4, 3}, {5, 0, 2}, {6, 5, 3});
  add("wino_dilation4_many_tiles", 1, 3, 70, 1, {9, 12, 17}, {3, 3, 3}, one, {4, 4, 4}, {4, 4, 4}, {4, 4, 4});
  add("wino_dilation1x3x3", 1, 12, 20, 1, {3, 9, 10}, {1, 3, 3}, one, {1, 3, 2}, {0, 3, 2}, {0, 3, 2});
  add("wino_dilation3x1x1_dilated_1tap", 1, 12, 20, 1, {11, 4, 5}, {3, 1, 1}, one, {4, 2, 3}, {4, 0, 0}, {4, 0, 0});
  add("wino_dilation_conv1d", 1, 5, 9, 1, {1, 1, 23}, {1, 1, 3}, one, {1, 1, 5}, {0, 0, 5}, {0, 0, 5});
  // FBGEMM's depthwise fast path (groups = Cin, a multiple of 8; Cout = groups
  // or 2 x groups; kernel 3, 5 or 7, the last two equal; stride 1 or 2;
  // 'same' padding): under its backend the kSat16 kernels, whose int16 pair
  // sums saturate on these random uint8 activations; a channel multiplier of
  // 2, odd and even tap counts, 147 taps, a batch of 2.
  add("fbgemm_depthwise16_k3", 1, 16, 16, 16, {4, 5, 6}, {3, 3, 3}, one, one, one, one);
  add("fbgemm_depthwise8_k5x3x3_stride2", 1, 8, 8, 8, {6, 7, 8}, {5, 3, 3}, {2, 2, 2}, one, {2, 1, 1}, {2, 1, 1});
  add("fbgemm_depthwise8_multiplier2_k3", 1, 8, 16, 8, {4, 5, 6}, {3, 3, 3}, one, one, one, one);
  add("fbgemm_depthwise24_multiplier2_k3x5x5_batch2", 2, 24, 48, 24, {3, 6, 7}, {3, 5, 5}, {1, 2, 1}, one, {1, 2, 2},
      {1, 2, 2});
  add("fbgemm_depthwise8_k3x7x7", 1, 8, 8, 8, {3, 7, 8}, {3, 7, 7}, one, one, {1, 3, 3}, {1, 3, 3});
  // Runs along W of the kSat16 kernels: widths 9 to 11, strides 1 and 2.
  for (int64_t w : {9, 10, 11}) {
    const std::string ws = std::to_string(w);
    add("fbgemm_depthwise16_runs_w" + ws, 1, 16, 16, 16, {3, 4, w}, {3, 3, 3}, one, one, one, one);
    add("fbgemm_depthwise24_runs_w" + ws + "_stride1x2x2", 1, 24, 24, 24, {3, 5, 2 * w}, {3, 3, 3}, {1, 2, 2}, one, one,
        one);
  }
  // 1x1x1 (pointwise), strided.
  add("pointwise", 1, 16, 12, 1, {3, 4, 5}, one, one, one, zero, zero);
  add("pointwise_stride2", 1, 16, 12, 1, {3, 4, 5}, one, {2, 2, 2}, one, zero, zero);
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<ConvCase>& info) { return info.param.name; }

class QConv : public ::testing::TestWithParam<ConvCase> {};

// What the sweep's outputs reached, summed over the QConv cases as they ran.
struct SweepCoverage {
  Coverage reached;
  size_t cases_done = 0;
};
SweepCoverage& sweep_coverage() {
  static SweepCoverage s;
  return s;
}

// Every case in the eight combinations of per-channel weights, bias and ReLU.
TEST_P(QConv, MatchesReferenceInEveryVariant) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ std::hash<std::string>{}(GetParam().name));
  SweepCoverage& s = sweep_coverage();
  for (int variant = 0; variant < 8; ++variant) {
    check_qconv(GetParam(), variant & 1, variant & 2, variant & 4, g, seed, &s.reached);
    if (HasFatalFailure()) return;
  }
  ++s.cases_done;
}

INSTANTIATE_TEST_SUITE_P(Sweep, QConv, ::testing::ValuesIn(sweep()), case_name);

// After every test: the sweep's data reached both saturation bounds and the
// ReLU floor, so its comparisons cover the clamps. Checked on the cases' own
// runs (rerunning the sweep for it doubled the suite's time under ASan), and
// only when every case ran: a --gtest_filter or shard that leaves some out
// proves nothing either way. A failure here fails the run.
class SweepCoverageCheck : public ::testing::Environment {
 public:
  void TearDown() override {
    const SweepCoverage& s = sweep_coverage();
    if (s.cases_done != sweep().size()) return;
    EXPECT_GT(s.reached.at_zero, 0) << "no output of the QConv sweep saturated at 0";
    EXPECT_GT(s.reached.at_255, 0) << "no output of the QConv sweep saturated at 255";
    EXPECT_GT(s.reached.at_relu_floor, 0) << "no output of the QConv sweep sat on the ReLU floor";
  }
};
[[maybe_unused]] ::testing::Environment* const kSweepCoverageCheck =
    ::testing::AddGlobalTestEnvironment(new SweepCoverageCheck);

// FBGEMM's depthwise fast path sums tap pairs in int16 with saturation
// (docs/numerics.md): on inputs that overflow int16 pairs, its outputs
// differ from the exact convolution's, and qwasm gives its outputs. The exact
// convolution: the same layer with pad 0 on an input padded by hand with the
// zero point (not a fast-path shape, so exact sums), which gives the same
// accumulators when nothing saturates.
TEST(QConvFbgemmDepthwise, PairSaturationChangesOutputsAndTheCoreReproducesIt) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ 0x5a7);
  struct Case {
    const char* name;
    int64_t c, multiplier;
    std::array<int64_t, 3> in, k, stride;
  };
  const Case cases[] = {{"k3x3x3", 16, 1, {4, 6, 7}, {3, 3, 3}, {1, 1, 1}},
                        {"k1x5x5 (2-D)", 8, 1, {1, 8, 9}, {1, 5, 5}, {1, 2, 2}},
                        {"k3x3x3 multiplier 2", 8, 2, {3, 5, 6}, {3, 3, 3}, {1, 1, 1}},
                        {"k1x7x7 stride 2 (2-D)", 8, 1, {1, 9, 10}, {1, 7, 7}, {1, 2, 2}}};
  for (const Case& cs : cases) {
    for (bool per_channel : {false, true}) {
      ConvGeometry geo;
      geo.in_channels = cs.c, geo.out_channels = cs.c * cs.multiplier, geo.groups = cs.c;
      geo.kernel = cs.k, geo.stride = cs.stride;
      geo.spatial_dims = cs.k[0] == 1 ? 2 : 3;
      for (int d = 0; d < 3; ++d) geo.pad_begin[d] = geo.pad_end[d] = (cs.k[d] - 1) / 2;
      ConvGeometry unpadded = geo;
      unpadded.pad_begin = unpadded.pad_end = {0, 0, 0};
      const Shape in_shape = {1, cs.c, cs.in[0], cs.in[1], cs.in[2]};
      Shape padded_shape = in_shape;
      for (int d = 0; d < 3; ++d) padded_shape[2 + d] += 2 * geo.pad_begin[d];
      std::uniform_int_distribution<int> hi(150, 255), s8(-128, 127);
      const int32_t a_zp = 200;
      std::vector<uint8_t> x(static_cast<size_t>(cs.c * cs.in[0] * cs.in[1] * cs.in[2]));
      for (auto& v : x) v = static_cast<uint8_t>(hi(g));
      std::vector<uint8_t> xp(static_cast<size_t>(cs.c * padded_shape[2] * padded_shape[3] * padded_shape[4]),
                              static_cast<uint8_t>(a_zp));
      for (int64_t c = 0; c < cs.c; ++c)
        for (int64_t d = 0; d < cs.in[0]; ++d)
          for (int64_t h = 0; h < cs.in[1]; ++h)
            for (int64_t w = 0; w < cs.in[2]; ++w)
              xp[static_cast<size_t>(
                  ((c * padded_shape[2] + d + geo.pad_begin[0]) * padded_shape[3] + h + geo.pad_begin[1]) *
                      padded_shape[4] +
                  w + geo.pad_begin[2])] = x[static_cast<size_t>(((c * cs.in[0] + d) * cs.in[1] + h) * cs.in[2] + w)];
      const int64_t taps = cs.k[0] * cs.k[1] * cs.k[2], cout = geo.out_channels;
      std::vector<int8_t> w(static_cast<size_t>(cout * taps));
      for (auto& v : w) v = static_cast<int8_t>(s8(g));
      std::vector<double> wscales(cout, 0.004), wzps(cout, 0.0);
      std::vector<float> ws(cout, 0.004f), bias(cout, 0.5f);
      std::vector<int32_t> wz(cout, 0);
      for (int64_t oc = 0; per_channel && oc < cout; ++oc)
        wzps[oc] = static_cast<double>(oc % 5 - 2), wz[oc] = oc % 5 - 2;
      QTensor input, weight, out;
      ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.05, a_zp, DType::kQUInt8, &input).ok());
      const Shape wshape = {cout, 1, cs.k[0], cs.k[1], cs.k[2]};
      const uint8_t* wb = reinterpret_cast<const uint8_t*>(w.data());
      ASSERT_TRUE((per_channel ? make_per_channel_quantized(wb, w.size(), wshape, wscales.data(), wzps.data(),
                                                            wscales.size(), 0, false, DType::kQInt8, &weight)
                               : make_per_tensor_quantized(wb, w.size(), wshape, 0.004, 0, DType::kQInt8, &weight))
                      .ok());
      PackedQConv packed;
      ASSERT_TRUE(pack_qconv(geo, weight, bias.data(), cout, &packed).ok());
      EXPECT_TRUE(packed.sat16 && packed.depthwise) << cs.name;
      const double out_scale = 0.5;
      ref::QConvArgs args{x.data(),  in_shape,    0.05,      a_zp, w.data(), ws.data(),
                          wz.data(), bias.data(), out_scale, 128,  false};
      args.per_tensor_weight = !per_channel;
      Shape out_shape;
      ASSERT_TRUE(conv_output_shape(geo, in_shape, &out_shape).ok());
      std::vector<uint8_t> want(static_cast<size_t>(cout * out_shape[2] * out_shape[3] * out_shape[4]));
      std::vector<uint8_t> exact(want.size());
      ref::qconv3d(geo, args, want.data());
      ref::QConvArgs exact_args = args;
      exact_args.x = xp.data();
      exact_args.input_shape = padded_shape;
      ref::qconv3d(unpadded, exact_args, exact.data());
      size_t differ = 0;
      for (size_t i = 0; i < want.size(); ++i) differ += want[i] != exact[i];
      // A tenth of the outputs or more: the saturation is not a corner case here.
      EXPECT_GT(differ * 10, want.size()) << cs.name << " per_channel " << per_channel << " seed " << seed;
      for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
        if (!kernels::isa_available(isa)) continue;
        ConvRunInfo info;
        ASSERT_TRUE(qconv3d(packed, input, out_scale, 128, false, isa, &out, &info).ok());
        EXPECT_NE(std::string(info.kernel).find("sat16"), std::string::npos) << info.kernel;
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(out.data()[i], want[i])
              << cs.name << " " << kernels::isa_name(isa) << " per_channel " << per_channel << " index " << i
              << " exact " << int{exact[i]} << " seed " << seed;
        }
      }
      // The oneDNN backend (the x86 engine with <= 100 groups and symmetric
      // weights) sums exactly: its packing takes the exact kernels.
      if (!per_channel) {
        PackedQConv onednn;
        ASSERT_TRUE(pack_qconv(geo, weight, bias.data(), cout, &onednn, ConvBackend::kOnednn).ok());
        EXPECT_FALSE(onednn.sat16) << cs.name;
      }
    }
  }
}

TEST(FConv, MatchesReferenceOverTheSweep) {
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
      std::vector<float> expected(
          static_cast<size_t>(out_shape[0] * out_shape[1] * out_shape[2] * out_shape[3] * out_shape[4]));
      ref::fconv3d(geo, x.data(), in_shape, w.data(), bias.data(), relu, expected.data());
      for (const auto& [isa, threads] : isa_thread_runs()) {
        ASSERT_TRUE(set_num_threads(threads).ok());
        Buffer<float> got;
        Shape got_shape;
        ASSERT_TRUE(fconv3d(packed, x.data(), in_shape, relu, isa, &got, &got_shape).ok());
        ASSERT_EQ(got_shape, out_shape);
        for (size_t i = 0; i < expected.size(); ++i) {
          ASSERT_EQ(std::memcmp(&got[i], &expected[i], 4), 0)
              << kernels::isa_name(isa) << " float index " << i << " expected " << expected[i] << " got " << got[i]
              << " relu=" << relu << " " << describe(cc) << " threads " << threads << " seed " << seed;
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
  EXPECT_NE(conv_output_shape(g, {1, 4, 2, 5, 5}, &out).message.find("larger than the padded input depth 2"),
            std::string::npos);
  EXPECT_NE(conv_output_shape(g, {1, 3, 5, 5, 5}, &out).message.find("expected 4 input channels"), std::string::npos);
  EXPECT_NE(conv_output_shape(g, {1, 4, 5, 5}, &out).message.find("5-D"), std::string::npos);
  ASSERT_TRUE(conv_output_shape(g, {2, 4, 5, 6, 7}, &out).ok());
  EXPECT_EQ(out, (Shape{2, 6, 3, 4, 5}));
}

// A linear layer is a GEMM over channels-last rows: the same integers as a
// 1x1x1 convolution of [rows, in, 1, 1, 1], for every row count around the
// kernel's mr, feature counts around nr and kr, leading batch dimensions,
// per-channel weights, bias and ReLU.
TEST(QLinear, MatchesTheReferenceAsA1x1x1Convolution) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ 0x11);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  for (int64_t rows : {0, 1, 2, 3, 4, 5, 9, 33}) {  // 0: no rows ([0, in] and [0, 3, in]), an empty output
    for (int64_t in : {1, 2, 3, 7, 16, 33}) {
      for (int64_t out_f : {1, 7, 8, 9, 17}) {
        for (int variant = 0; variant < 8; ++variant) {
          const bool per_channel = variant & 1, bias_on = variant & 2, relu = variant & 4;
          ConvGeometry geo;
          geo.in_channels = in;
          geo.out_channels = out_f;
          geo.spatial_dims = 0;
          std::vector<uint8_t> x(static_cast<size_t>(rows * in));
          for (auto& v : x) v = static_cast<uint8_t>(u8(g));
          std::vector<int8_t> w(static_cast<size_t>(out_f * in));
          for (auto& v : w) v = static_cast<int8_t>(s8(g));
          std::vector<double> ws(out_f), wz(out_f);
          for (int64_t o = 0; o < out_f; ++o)
            ws[o] = per_channel ? 0.001 * (o + 3) : 0.004, wz[o] = per_channel ? o % 5 - 2 : 0;
          std::vector<float> bias(out_f);
          for (auto& b : bias) b = static_cast<float>(s8(g)) * 0.01f;
          // Leading dimensions [rows] or [rows / 3, 3] when they divide.
          const Shape in_shape = rows % 3 == 0 ? Shape{rows / 3, 3, in} : Shape{rows, in};
          QTensor input, weight, out;
          ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.05, 120, DType::kQUInt8, &input).ok());
          const uint8_t* wb = reinterpret_cast<const uint8_t*>(w.data());
          ASSERT_TRUE((per_channel
                           ? make_per_channel_quantized(wb, w.size(), {out_f, in}, ws.data(), wz.data(), ws.size(), 0,
                                                        false, DType::kQInt8, &weight)
                           : make_per_tensor_quantized(wb, w.size(), {out_f, in}, ws[0], 0, DType::kQInt8, &weight))
                          .ok());
          PackedQConv packed;
          ASSERT_TRUE(pack_qconv(geo, weight, bias_on ? bias.data() : nullptr, out_f, &packed).ok());
          const double out_scale = 0.05 * 0.004 * std::sqrt(static_cast<double>(in)) * 40;
          std::vector<float> wsf(ws.begin(), ws.end());
          std::vector<int32_t> wzi(wz.begin(), wz.end());
          ref::QConvArgs args{x.data(),
                              {rows, in, 1, 1, 1},
                              0.05f,
                              120,
                              w.data(),
                              wsf.data(),
                              wzi.data(),
                              bias_on ? bias.data() : nullptr,
                              static_cast<float>(out_scale),
                              90,
                              relu};
          args.per_tensor_weight = !per_channel;
          std::vector<uint8_t> expected(static_cast<size_t>(rows * out_f));
          ConvGeometry as_conv = geo;
          as_conv.spatial_dims = 3;
          ref::qconv3d(as_conv, args, expected.data());
          for (const auto& [isa, threads] : isa_thread_runs()) {
            ASSERT_TRUE(set_num_threads(threads).ok());
            const Status s = qlinear(packed, input, out_scale, 90, relu, isa, &out);
            ASSERT_TRUE(s.ok()) << s.message;
            Shape want_shape = in_shape;
            want_shape.back() = out_f;
            ASSERT_EQ(out.shape(), want_shape);
            for (size_t i = 0; i < expected.size(); ++i) {
              ASSERT_EQ(out.data()[i], expected[i])
                  << kernels::isa_name(isa) << " rows " << rows << " in " << in << " out " << out_f << " variant "
                  << variant << " index " << i << " threads " << threads << " seed " << seed;
            }
          }
        }
      }
    }
  }
}

TEST(FLinear, MatchesTheReferenceAsA1x1x1Convolution) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 g(seed ^ 0x12);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (int64_t rows : {0, 1, 3, 4, 5, 9}) {
    for (int64_t in : {1, 3, 8, 17}) {
      for (int64_t out_f : {1, 8, 9}) {
        ConvGeometry geo;
        geo.in_channels = in;
        geo.out_channels = out_f;
        geo.spatial_dims = 0;
        std::vector<float> x(static_cast<size_t>(rows * in)), w(static_cast<size_t>(out_f * in)), bias(out_f);
        for (auto& v : x) v = nd(g);
        for (auto& v : w) v = nd(g);
        for (auto& v : bias) v = nd(g);
        PackedFConv packed;
        ASSERT_TRUE(pack_fconv(geo, w.data(), out_f * in, bias.data(), out_f, &packed).ok());
        ConvGeometry as_conv = geo;
        as_conv.spatial_dims = 3;
        for (bool relu : {false, true}) {
          std::vector<float> expected(static_cast<size_t>(rows * out_f));
          ref::fconv3d(as_conv, x.data(), {rows, in, 1, 1, 1}, w.data(), bias.data(), relu, expected.data());
          for (const auto& [isa, threads] : isa_thread_runs()) {
            ASSERT_TRUE(set_num_threads(threads).ok());
            Buffer<float> got;
            Shape got_shape;
            ASSERT_TRUE(flinear(packed, x.data(), {rows, in}, relu, isa, &got, &got_shape).ok());
            ASSERT_EQ(got_shape, (Shape{rows, out_f}));
            for (size_t i = 0; i < expected.size(); ++i) {
              ASSERT_EQ(std::memcmp(&got[i], &expected[i], 4), 0)
                  << kernels::isa_name(isa) << " index " << i << " threads " << threads << " seed " << seed;
            }
          }
        }
      }
    }
  }
}

// The model budget charges qconv_scratch_bound: every call's scratch must be
// within it (generic, depthwise, Winograd, pointwise, linear; both ISAs; every thread count).
TEST(QConvScratchBound, CoversWhatEveryPathAllocates) {
  struct Case {
    int64_t cin, cout, k, groups;
    Shape in;
    int64_t dilation = 1;  // padding dilation * (k / 2): MeshNet's layers
  };
  const Case cases[] = {{3, 8, 3, 1, {1, 3, 6, 10, 12}},      {2, 2, 3, 2, {2, 2, 5, 9, 11}},
                        {16, 16, 3, 1, {1, 16, 7, 9, 13}},    {4, 4, 1, 1, {2, 4, 3, 5, 7}},
                        {9, 9, 3, 9, {1, 9, 4, 4, 4}},        {1, 1, 3, 1, {1, 1, 3, 3, 3}},
                        {21, 21, 3, 1, {1, 21, 7, 9, 11}, 4}, {8, 8, 3, 1, {2, 8, 5, 3, 6}, 8}};
  for (const Case& c : cases) {
    for (WinogradMode mode : {WinogradMode::kOff, WinogradMode::kOn}) {
      ConvGeometry geo;
      geo.in_channels = c.cin;
      geo.out_channels = c.cout;
      geo.groups = c.groups;
      geo.kernel = {c.k, c.k, c.k};
      const int64_t pad = c.dilation * (c.k / 2);
      geo.pad_begin = geo.pad_end = {pad, pad, pad};
      geo.dilation = {c.dilation, c.dilation, c.dilation};
      const int64_t nw = c.cout * (c.cin / c.groups) * c.k * c.k * c.k;
      std::vector<int8_t> w(static_cast<size_t>(nw));
      for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>(i % 7) - 3);
      QTensor weight, input, out;
      ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(),
                                            {c.cout, c.cin / c.groups, c.k, c.k, c.k}, 0.01, 0, DType::kQInt8, &weight)
                      .ok());
      PackedQConv packed;
      ASSERT_TRUE(pack_qconv(geo, weight, nullptr, c.cout, &packed, ConvBackend::kFbgemm, mode).ok());
      int64_t numel = 1;
      for (int64_t d : c.in) numel *= d;
      std::vector<uint8_t> x(static_cast<size_t>(numel), 7);
      ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), c.in, 0.05, 3, DType::kQUInt8, &input).ok());
      int64_t bound = 0;
      ASSERT_TRUE(qconv_scratch_bound(packed, c.in, &bound).ok());
      for (const auto& [isa, threads] : isa_thread_runs()) {
        ASSERT_TRUE(set_num_threads(threads).ok());
        ConvRunInfo info;
        ASSERT_TRUE(qconv3d(packed, input, 0.1, 5, false, isa, &out, &info).ok());
        EXPECT_GT(info.scratch_bytes, 0u);
        EXPECT_LE(static_cast<int64_t>(info.scratch_bytes), bound)
            << "cin " << c.cin << " cout " << c.cout << " k " << c.k << " groups " << c.groups << " winograd "
            << info.winograd << " " << kernels::isa_name(isa) << " threads " << threads;
      }
    }
  }
}

TEST(QLinear, ShapeErrorsNameTheFeatures) {
  ConvGeometry geo;
  geo.in_channels = 3;
  geo.out_channels = 2;
  geo.spatial_dims = 0;
  Shape out;
  EXPECT_NE(
      linear_output_shape(geo, {4, 2}, &out).message.find("expected 3 input features (the last dimension), got 2"),
      std::string::npos);
  EXPECT_NE(linear_output_shape(geo, {}, &out).message.find("0-dimensional"), std::string::npos);
  ASSERT_TRUE(linear_output_shape(geo, {5, 6, 3}, &out).ok());
  EXPECT_EQ(out, (Shape{5, 6, 2}));
  geo.kernel = {1, 1, 3};  // a linear layer has no kernel
  EXPECT_EQ(validate_geometry(geo).code, StatusCode::kRangeError);
}

}  // namespace

TEST(ConvBackend, OnednnTakesSymmetricWeightsOnly) {
  ConvGeometry g;
  g.in_channels = 2;
  g.out_channels = 2;
  g.kernel = {1, 1, 1};
  std::vector<int8_t> w = {1, -2, 3, -4};
  std::vector<double> scales = {0.1, 0.2}, zps = {0, 3};
  QTensor weight;
  ASSERT_TRUE(make_per_channel_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), {2, 2, 1, 1, 1},
                                         scales.data(), zps.data(), 2, 0, false, DType::kQInt8, &weight)
                  .ok());
  // PyTorch's x86 engine sends an asymmetric weight to FBGEMM, and oneDNN's path refuses it.
  EXPECT_EQ(conv_backend_for(QEngine::kX86, g, weight), ConvBackend::kFbgemm);
  PackedQConv packed;
  const Status s = pack_qconv(g, weight, nullptr, 0, &packed, ConvBackend::kOnednn);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message.find("zero point 3 for channel 1"), std::string::npos) << s.message;
  // A symmetric weight goes to oneDNN, unless groups are above 100 or the layer is linear.
  std::vector<double> zeros = {0, 0};
  QTensor sym;
  ASSERT_TRUE(make_per_channel_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), {2, 2, 1, 1, 1},
                                         scales.data(), zeros.data(), 2, 0, false, DType::kQInt8, &sym)
                  .ok());
  EXPECT_EQ(conv_backend_for(QEngine::kX86, g, sym), ConvBackend::kOnednn);
  ConvGeometry many = g;
  many.groups = 101;
  EXPECT_EQ(conv_backend_for(QEngine::kX86, many, sym), ConvBackend::kFbgemm);
  many.groups = 100;
  EXPECT_EQ(conv_backend_for(QEngine::kX86, many, sym), ConvBackend::kOnednn);
  ConvGeometry linear = g;
  linear.spatial_dims = 0;
  EXPECT_EQ(conv_backend_for(QEngine::kX86, linear, sym), ConvBackend::kFbgemm);
}

namespace {

// A 3x3x3 layer whose weights are all at the extreme (w = 127, zero point
// -128: every |w - w_zp| = 255) with Cin input channels, on an input of all
// `value` with zero point a_zp. Returns the output; sets *winograd when that
// path ran. The reference runs beside it. With `dilation` d (padding d), the
// input is 5 x 5 x 5: at d = 2 its centre still sees all 27 taps.
// With `depth_only`, the layer is 3x1x1 instead (padding 1 along D) on an
// input of depth 8 (F(4, 3)'s tiles when its guard allows), and *tile says
// which Winograd tile ran (0: direct).
void run_extreme_layer(int64_t cin, uint8_t value, int32_t a_zp, Isa isa, bool* winograd, std::vector<uint8_t>* got,
                       std::vector<uint8_t>* want, int64_t* max_abs_acc, int64_t dilation = 1, bool depth_only = false,
                       size_t* tile = nullptr, int64_t width = 5, bool hw_only = false) {
  ConvGeometry geo;
  geo.in_channels = cin;
  geo.out_channels = 8;
  geo.kernel = depth_only ? std::array<int64_t, 3>{3, 1, 1}
               : hw_only  ? std::array<int64_t, 3>{1, 3, 3}
                          : std::array<int64_t, 3>{3, 3, 3};
  const int64_t taps = geo.kernel[0] * geo.kernel[1] * geo.kernel[2];
  geo.pad_begin = geo.pad_end = depth_only ? std::array<int64_t, 3>{dilation, 0, 0}
                                : hw_only  ? std::array<int64_t, 3>{0, dilation, dilation}
                                           : std::array<int64_t, 3>{dilation, dilation, dilation};
  geo.dilation = {dilation, dilation, dilation};
  const Shape in_shape = depth_only      ? Shape{1, cin, 8, 2, 3}
                         : hw_only       ? Shape{1, cin, 2, 4, width}
                         : dilation == 1 ? Shape{1, cin, 3, 4, width}
                                         : Shape{1, cin, 5, 5, 5};
  std::vector<uint8_t> x(static_cast<size_t>(cin * in_shape[2] * in_shape[3] * in_shape[4]), value);
  std::vector<int8_t> w(static_cast<size_t>(8 * cin * taps), 127);
  QTensor input, weight;
  ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 1.0, a_zp, DType::kQUInt8, &input).ok());
  ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(),
                                        {8, cin, geo.kernel[0], geo.kernel[1], geo.kernel[2]}, 1.0, -128, DType::kQInt8,
                                        &weight)
                  .ok());
  PackedQConv packed;
  ASSERT_TRUE(pack_qconv(geo, weight, nullptr, 8, &packed, ConvBackend::kFbgemm, WinogradMode::kOn).ok());
  ASSERT_GT(winograd_bytes(packed), 0u) << "the layer must be packed for Winograd: its guard is per call";
  // The accumulators: |a - a_zp| * 255 * (taps inside the input) per channel;
  // an output scale that keeps them apart after requantization.
  *max_abs_acc = static_cast<int64_t>(std::abs(value - a_zp)) * 255 * taps * cin;
  const double out_scale = static_cast<double>(*max_abs_acc) / 200.0;
  QTensor out;
  ConvRunInfo info;
  const Status s = qconv3d(packed, input, out_scale, 20, false, isa, &out, &info);
  ASSERT_TRUE(s.ok()) << s.message;
  *winograd = info.winograd;
  if (tile) *tile = info.winograd_tile;
  got->assign(out.data(), out.data() + out.nbytes());
  std::vector<float> ws(8, 1.0f);
  std::vector<int32_t> wz(8, -128);
  ref::QConvArgs args{x.data(), in_shape, 1.0, a_zp, w.data(), ws.data(), wz.data(), nullptr, out_scale, 20, false};
  want->assign(got->size(), 0);
  ref::qconv3d(geo, args, want->data());
}

}  // namespace

// The guard: |acc| may reach max_oc sum |w - w_zp| * max(a_zp, 255 - a_zp);
// past 2^28 (3x3x3) the Winograd path's 8 * acc would wrap int32, so such a
// call must take the direct path, and its bytes stay exact. 200 input
// channels at the extremes: 200 * 27 * 255 * 255 = 351,135,000 > 2^28 with
// a_zp = 0 (the accumulators really get there: every input 255); with a_zp =
// 128 the bound is 176 M and the Winograd path runs.
TEST(QConvWinograd, TheGuardSendsAnOverflowingCallToTheDirectPathExactly) {
  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    bool winograd = true;
    std::vector<uint8_t> got, want;
    int64_t max_acc = 0;
    run_extreme_layer(200, 255, 0, isa, &winograd, &got, &want, &max_acc);
    if (HasFatalFailure()) return;
    EXPECT_GT(max_acc, int64_t{1} << 28);
    EXPECT_FALSE(winograd) << kernels::isa_name(isa);
    EXPECT_EQ(got, want) << kernels::isa_name(isa) << ": the call past the bound must be exact";
    // Not all outputs alike: the border positions see fewer taps.
    EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));

    run_extreme_layer(200, 255, 128, isa, &winograd, &got, &want, &max_acc);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(winograd) << kernels::isa_name(isa) << ": within the bound the fast path runs";
    EXPECT_EQ(got, want) << kernels::isa_name(isa);
  }
}

// The same guard for a dilated layer: the same taps, so the same bound.
TEST(QConvWinograd, TheGuardHoldsForDilatedLayers) {
  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    bool winograd = true;
    std::vector<uint8_t> got, want;
    int64_t max_acc = 0;
    run_extreme_layer(200, 255, 0, isa, &winograd, &got, &want, &max_acc, 2);
    if (HasFatalFailure()) return;
    EXPECT_FALSE(winograd) << kernels::isa_name(isa);
    EXPECT_EQ(got, want) << kernels::isa_name(isa) << ": the call past the bound must be exact";
    EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));
    run_extreme_layer(200, 255, 128, isa, &winograd, &got, &want, &max_acc, 2);
    if (HasFatalFailure()) return;
    EXPECT_TRUE(winograd) << kernels::isa_name(isa);
    EXPECT_EQ(got, want) << kernels::isa_name(isa);
  }
}

namespace {

// A guard between two tiles: an extreme layer (run_extreme_layer: cin input
// channels, every input 255, every weight at the far end of its zero point)
// whose accumulators pass `limit` with a_zp = 0 (and stay below 4 * limit,
// the looser tile's own guard) runs tile `past`, exactly; with a_zp = 128 its
// bound is below `limit` and tile `within` runs, exactly too. The
// accumulators really reach the bound, so `within` past it would give other bytes.
struct GuardCase {
  int64_t cin, width;
  bool depth_only, hw_only;
  int64_t limit;
  size_t past, within;
};
void expect_guard_between_tiles(const GuardCase& c) {
  for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    bool winograd = false;
    size_t tile = 0;
    std::vector<uint8_t> got, want;
    int64_t max_acc = 0;
    run_extreme_layer(c.cin, 255, 0, isa, &winograd, &got, &want, &max_acc, 1, c.depth_only, &tile, c.width, c.hw_only);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GT(max_acc, c.limit);
    EXPECT_LT(max_acc, 4 * c.limit);
    EXPECT_EQ(tile, c.past) << kernels::isa_name(isa) << ": past the guard";
    EXPECT_EQ(got, want) << kernels::isa_name(isa);
    EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));

    run_extreme_layer(c.cin, 255, 128, isa, &winograd, &got, &want, &max_acc, 1, c.depth_only, &tile, c.width,
                      c.hw_only);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(tile, c.within) << kernels::isa_name(isa) << ": within the guard";
    EXPECT_EQ(got, want) << kernels::isa_name(isa);
  }
}

}  // namespace

// F(4, 3)'s guard: it recovers acc from 24 * acc mod 2^32 only below 2^28,
// where F(2, 3) in one dimension divides 2 * acc by a shift below 2^30. A
// 3x1x1 layer of 1500 input channels at the extremes reaches 1500 * 3 * 255 *
// 255 = 292,612,500 > 2^28 with a_zp = 0: that call runs F(2, 3); with
// a_zp = 128 the bound is 147 M and F(4, 3) runs.
TEST(QConvWinograd, TheGuardSendsAPast2To28CallOnOneDimensionToF23Exactly) {
  expect_guard_between_tiles({1500, 5, true, false, int64_t{1} << 28, 2, 4});
}

// The same in three dimensions, where F(4, 3) along W recovers acc from
// 96 * acc mod 2^32 only below 2^26 (F(2, 3) throughout: 8 * acc, below
// 2^28). 60 input channels on an output 4 wide (one F(4, 3) tile along W, 6
// points, against two of F(2, 3)'s, 8): 60 * 27 * 255 * 255 = 105,340,500 >
// 2^26 with a_zp = 0, and that call runs F(2, 3); with a_zp = 128 the bound
// is 53 M and F(4, 3) runs.
TEST(QConvWinograd, TheGuardSendsAPast2To26CallInThreeDimensionsToF23Exactly) {
  expect_guard_between_tiles({60, 4, false, false, int64_t{1} << 26, 2, 4});
}

// And for F(4, 3) along both dimensions of a 1x3x3 layer, which recovers acc
// from 576 * acc mod 2^32 only below 2^25 (F(4, 3) along W alone: 48 * acc,
// below 2^27). 100 input channels on a 4x4 output (one tile of 36 points,
// against 48 and 64): 100 * 9 * 255 * 255 = 58,522,500 > 2^25 with
// a_zp = 0, and that call runs F(4, 3) along W only; with a_zp = 128 the
// bound is 29 M and F(4, 3) runs along both.
TEST(QConvWinograd, TheGuardSendsAPast2To25CallInTwoDimensionsToF43InnermostExactly) {
  expect_guard_between_tiles({100, 4, false, true, int64_t{1} << 25, 4, kernels::kWinogradF43Both});
}

namespace {

// Random qint8 per-channel weights of `shape` for the Winograd tests: every
// w in [-127, 127], then per output channel a scale of unit * (1 to 5) and a
// zero point in [-zp_range, zp_range] (drawn in that order), kept as the
// reference takes them beside the QTensor.
struct RandomWeight {
  std::vector<int8_t> w;
  std::vector<float> scales;
  std::vector<int32_t> zero_points;
  QTensor tensor;
};
void random_per_channel_weight(const Shape& shape, float unit, int zp_range, std::mt19937_64& rng, RandomWeight* out) {
  const int64_t cout = shape[0];
  int64_t count = 1;
  for (int64_t e : shape) count *= e;
  out->w.resize(static_cast<size_t>(count));
  for (auto& v : out->w) v = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
  std::vector<double> scales(static_cast<size_t>(cout)), zps(static_cast<size_t>(cout));
  out->scales.resize(static_cast<size_t>(cout));
  out->zero_points.resize(static_cast<size_t>(cout));
  for (size_t oc = 0; oc < scales.size(); ++oc) {
    scales[oc] = out->scales[oc] = unit * static_cast<float>(1 + rng() % 5);
    out->zero_points[oc] = static_cast<int32_t>(rng() % static_cast<uint64_t>(2 * zp_range + 1)) - zp_range;
    zps[oc] = out->zero_points[oc];
  }
  ASSERT_TRUE(make_per_channel_quantized(reinterpret_cast<const uint8_t*>(out->w.data()), out->w.size(), shape,
                                         scales.data(), zps.data(), scales.size(), 0, false, DType::kQInt8,
                                         &out->tensor)
                  .ok());
}

// A stride-1 ConvReLU layer for the Winograd tile tests: 'same' padding
// along its 3-tap dimensions, random per-channel weights (unit 0.0005, zero
// points within +-4) then a random quint8 input of in_shape (scale 0.02,
// zero point a_zp), drawn in that order, and the direct reference's bytes
// for the output qparams (out_scale, out_zp).
struct TileCase {
  ConvGeometry geo;
  RandomWeight wt;
  QTensor input;
  std::vector<uint8_t> want;
};
void make_tile_case(int64_t cout, const std::array<int64_t, 3>& kernel, const std::array<int64_t, 3>& dilation,
                    const Shape& in_shape, int32_t a_zp, double out_scale, int32_t out_zp, std::mt19937_64& rng,
                    TileCase* c) {
  const int64_t cin = in_shape[1];
  c->geo.in_channels = cin;
  c->geo.out_channels = cout;
  c->geo.kernel = kernel;
  c->geo.dilation = dilation;
  for (int d = 0; d < 3; ++d) c->geo.pad_begin[d] = c->geo.pad_end[d] = kernel[d] == 3 ? dilation[d] : 0;
  random_per_channel_weight({cout, cin, kernel[0], kernel[1], kernel[2]}, 0.0005f, 4, rng, &c->wt);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<uint8_t> x(static_cast<size_t>(cin * in_shape[2] * in_shape[3] * in_shape[4]));
  for (auto& v : x) v = static_cast<uint8_t>(rng() % 256);
  ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.02, a_zp, DType::kQUInt8, &c->input).ok());
  Shape out_shape;
  ASSERT_TRUE(conv_output_shape(c->geo, in_shape, &out_shape).ok());
  c->want.assign(static_cast<size_t>(cout * out_shape[2] * out_shape[3] * out_shape[4]), 0);
  ref::QConvArgs args{x.data(), in_shape,  0.02,   a_zp, c->wt.w.data(), c->wt.scales.data(), c->wt.zero_points.data(),
                      nullptr,  out_scale, out_zp, true};
  ref::qconv3d(c->geo, args, c->want.data());
}

}  // namespace

// Which tile a layer with one 3-tap dimension runs: F(4, 3) where its tiles
// take no more GEMM products than F(2, 3)'s (6 points per 4 outputs, 4 per 2),
// by the output's extent along that dimension and its dilation; every call
// bit for bit the direct path's, 'auto' and forced on, at both ISAs.
TEST(QConvWinograd, OneDimensionLayersTakeF43WhereItsTilesCostLess) {
  struct Case {
    std::array<int64_t, 3> kernel, dilation;
    int64_t extent;  // the input's (and, 'same' padding, output's) extent along the 3-tap dimension
    size_t tile;
  };
  const Case cases[] = {
      {{3, 1, 1}, {1, 1, 1}, 2, 2},  // one tile either way: F(2, 3)'s has 4 points, F(4, 3)'s 6
      {{3, 1, 1}, {1, 1, 1}, 4, 4},  // 6 against 2 x 4
      {{3, 1, 1}, {1, 1, 1}, 5, 4},  // 2 x 6 against 3 x 4: a tie takes F(4, 3)
      {{3, 1, 1}, {1, 1, 1}, 7, 4},  // a partial last tile (3 of 4 outputs)
      {{3, 1, 1}, {1, 1, 1}, 16, 4}, {{3, 1, 1}, {2, 1, 1}, 16, 4},  // dilated: the phases' tiles interleave
      {{1, 1, 3}, {1, 1, 1}, 13, 4},                                 // W: a tile's 4 outputs are adjacent bytes
      {{1, 1, 3}, {1, 1, 3}, 14, 4},
  };
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  for (const Case& c : cases) {
    Shape in_shape = {1, 40, 3, 2, 5};
    in_shape[2 + (c.kernel[0] == 3 ? 0 : 2)] = c.extent;
    // 44 outputs: h = 20.9 < 40, 'auto' packs no 1-D layer this small, so it is forced on.
    TileCase tc;
    make_tile_case(44, c.kernel, c.dilation, in_shape, 131, 0.05, 9, rng, &tc);
    if (HasFatalFailure()) return;
    const std::vector<uint8_t>& want = tc.want;
    const QTensor& input = tc.input;
    PackedQConv packed;
    ASSERT_TRUE(pack_qconv(tc.geo, tc.wt.tensor, nullptr, 44, &packed, ConvBackend::kFbgemm, WinogradMode::kOn).ok());
    ASSERT_EQ(packed.winograd.nd, 1u);
    for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
      if (!kernels::isa_available(isa)) continue;
      QTensor out;
      ConvRunInfo info;
      ASSERT_TRUE(qconv3d(packed, input, 0.05, 9, true, isa, &out, &info).ok());
      EXPECT_TRUE(info.winograd);
      EXPECT_EQ(info.winograd_tile, c.tile) << "kernel " << c.kernel[0] << "x" << c.kernel[1] << "x" << c.kernel[2]
                                            << " extent " << c.extent << " dilation " << c.dilation[0];
      EXPECT_EQ(std::vector<uint8_t>(out.data(), out.data() + out.nbytes()), want)
          << kernels::isa_name(isa) << " extent " << c.extent << " seed " << seed;
      EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));
    }
  }
}

// Layers with two or three 3-tap dimensions: of F(2, 3) throughout, F(4, 3)
// along the innermost and F(2, 3) along the others, and (two dimensions)
// F(4, 3) along both, the tile whose tiles take the fewest GEMM products (a
// tie keeps the one listed first), by the output's extents and dilation;
// partial tiles at the far edges; every call bit for bit the direct path's,
// 'auto' and forced on, at both ISAs.
TEST(QConvWinograd, LayersOfSeveralDimensionsTakeF43AlongTheInnermost) {
  struct Case {
    std::array<int64_t, 3> kernel, dilation;
    int64_t extent;  // the input's (and output's) extent along the innermost 3-tap dimension
    size_t tile;
    bool in_auto = true;  // whether 'auto' takes it too (a dilated layer on a small output stays direct)
    int64_t outer = 5;    // the extent along H (1x3x3) or D (3x3x1), the other 3-tap dimension of two
  };
  const size_t both = kernels::kWinogradF43Both;
  const Case cases[] = {
      {{3, 3, 3}, {1, 1, 1}, 2, 2},          // one tile either way: 6 x 16 points against 4 x 16
      {{3, 3, 3}, {1, 1, 1}, 4, 4},          // 6 against 2 x 4 (x 16)
      {{3, 3, 3}, {1, 1, 1}, 5, 2},          // 2 x 6 against 3 x 4: a tie keeps F(2, 3)
      {{3, 3, 3}, {1, 1, 1}, 7, 4},          // a partial last tile (3 of 4 outputs): 12 against 16
      {{3, 3, 3}, {1, 1, 1}, 16, 4},         // whole tiles along W, partial ones along D and H (3 and 5)
      {{3, 3, 3}, {2, 2, 2}, 16, 4, false},  // dilated: the phases' tiles interleave
      {{1, 3, 3}, {1, 1, 1}, 9, 4},  // H 5: 3 x 3 x 24 against 3 x 5 x 16, a tie with F(4, 3) on both (2 x 3 x 36)
      {{1, 3, 3}, {1, 1, 1}, 6, 2},  // a tie of all three
      {{1, 3, 3}, {1, 1, 1}, 8, both, true, 8},    // 2 x 2 x 36 against 4 x 2 x 24 and 4 x 4 x 16
      {{1, 3, 3}, {1, 1, 1}, 13, both, true, 7},   // partial tiles along both
      {{1, 3, 3}, {1, 2, 2}, 16, both, true, 16},  // dilated
      {{3, 3, 1}, {1, 1, 1}, 8, both, true, 3},    // H innermost: its 4 outputs a row apart; D 3
  };
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  for (const Case& c : cases) {
    Shape in_shape = {1, 24, 3, 5, 4};
    in_shape[c.kernel[2] == 3 ? 4 : 3] = c.extent;
    if (c.kernel[0] == 1) in_shape[3] = c.outer;  // 1x3x3: H
    if (c.kernel[2] == 1) in_shape[2] = c.outer;  // 3x3x1: D
    TileCase tc;
    make_tile_case(20, c.kernel, c.dilation, in_shape, 125, 0.03, 7, rng, &tc);
    if (HasFatalFailure()) return;
    const std::vector<uint8_t>& want = tc.want;
    EXPECT_NE(*std::min_element(want.begin(), want.end()), *std::max_element(want.begin(), want.end()));
    for (const WinogradMode mode : {WinogradMode::kAuto, WinogradMode::kOn}) {
      PackedQConv packed;
      ASSERT_TRUE(pack_qconv(tc.geo, tc.wt.tensor, nullptr, 20, &packed, ConvBackend::kFbgemm, mode).ok());
      ASSERT_EQ(packed.winograd.nd, c.kernel[0] == 1 || c.kernel[2] == 1 ? 2u : 3u);
      for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
        if (!kernels::isa_available(isa)) continue;
        QTensor out;
        ConvRunInfo info;
        ASSERT_TRUE(qconv3d(packed, tc.input, 0.03, 7, true, isa, &out, &info).ok());
        const std::string what = "kernel " + std::to_string(c.kernel[0]) + "x" + std::to_string(c.kernel[1]) + "x" +
                                 std::to_string(c.kernel[2]) + " extent " + std::to_string(c.extent) + " dilation " +
                                 std::to_string(c.dilation[0]) + (mode == WinogradMode::kOn ? " on " : " auto ") +
                                 kernels::isa_name(isa) + " seed " + std::to_string(seed);
        ASSERT_EQ(info.winograd, mode == WinogradMode::kOn || c.in_auto) << what;
        if (info.winograd) EXPECT_EQ(info.winograd_tile, c.tile) << what;
        EXPECT_EQ(std::vector<uint8_t>(out.data(), out.data() + out.nbytes()), want) << what;
      }
    }
  }
}

// A stem (3x7x7 at stride (1, 2, 2), 3 input channels, r3d_18's) on
// Winograd along D (conv_lowered.h): only under winograd: true, where its
// im2col's memory was asked for; its calls run F(4, 3) over the lowered 147
// channels with the direct reference's bytes, the scratch bound covers the
// im2col, and weight() gives the integers back. 'auto' keeps it direct.
TEST(QConvWinograd, StemsRunWinogradAlongDOnlyWhenAskedFor) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  ConvGeometry geo;
  geo.in_channels = 3;
  geo.out_channels = 24;
  geo.kernel = {3, 7, 7};
  geo.stride = {1, 2, 2};
  geo.pad_begin = geo.pad_end = {1, 3, 3};
  RandomWeight wt;
  random_per_channel_weight({24, 3, 3, 7, 7}, 0.001f, 3, rng, &wt);
  if (HasFatalFailure()) return;
  const std::vector<int8_t>& w = wt.w;
  const QTensor& weight = wt.tensor;
  const Shape in_shape = {1, 3, 8, 20, 22};
  std::vector<uint8_t> x(static_cast<size_t>(3 * 8 * 20 * 22));
  for (auto& v : x) v = static_cast<uint8_t>(rng() % 256);
  QTensor input;
  ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.03, 117, DType::kQUInt8, &input).ok());
  Shape out_shape;
  ASSERT_TRUE(conv_output_shape(geo, in_shape, &out_shape).ok());
  std::vector<uint8_t> want(static_cast<size_t>(24 * out_shape[2] * out_shape[3] * out_shape[4]));
  ref::QConvArgs args{x.data(), in_shape, 0.03, 117, w.data(), wt.scales.data(), wt.zero_points.data(),
                      nullptr,  0.4,      5,    true};
  ref::qconv3d(geo, args, want.data());
  for (const WinogradMode mode : {WinogradMode::kAuto, WinogradMode::kOn}) {
    const bool on = mode == WinogradMode::kOn;
    PackedQConv packed;
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, 24, &packed, ConvBackend::kFbgemm, mode).ok());
    EXPECT_EQ(packed.hw_lowered != nullptr, on);
    // The permuted int8 taps, 147 input channels padded to the transform's block of 8.
    EXPECT_EQ(winograd_bytes(packed), on ? size_t{24 * 152 * 3} : 0u);
    int64_t bound = 0;
    ASSERT_TRUE(qconv_scratch_bound(packed, in_shape, &bound).ok());
    if (on) {
      EXPECT_GE(bound, 147 * 8 * 10 * 11) << "the bound covers the im2col";
    }
    QTensor back;
    ASSERT_TRUE(unpack_qconv_weight(packed, &back).ok());
    EXPECT_EQ(std::memcmp(back.data(), w.data(), w.size()), 0);
    for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
      if (!kernels::isa_available(isa)) continue;
      QTensor out;
      ConvRunInfo info;
      ASSERT_TRUE(qconv3d(packed, input, 0.4, 5, true, isa, &out, &info).ok());
      EXPECT_EQ(info.winograd, on);
      EXPECT_EQ(info.winograd_tile, on ? 4u : 0u);
      EXPECT_LE(static_cast<int64_t>(info.scratch_bytes), bound);
      EXPECT_EQ(std::vector<uint8_t>(out.data(), out.data() + out.nbytes()), want)
          << kernels::isa_name(isa) << (on ? " on" : " auto") << " seed " << seed;
    }
  }
}

// 'auto' in one dimension: F(4, 3) pays from h = 8 (16 -> 16), F(2, 3) only
// from h = 40. So a 16 -> 16 3x1x1 layer is packed, a call of depth 8 runs
// F(4, 3), one of depth 2 (one tile: F(2, 3)'s) stays direct; 14 -> 14 (h = 7)
// is not packed. Every call's bytes are kOff's.
TEST(QConvWinograd, AutoTakesOneDimensionLayersFromH8OnF43Only) {
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  for (const int64_t channels : {16, 14}) {
    ConvGeometry geo;
    geo.in_channels = geo.out_channels = channels;
    geo.kernel = {3, 1, 1};
    geo.pad_begin = geo.pad_end = {1, 0, 0};
    std::vector<int8_t> w(static_cast<size_t>(channels * channels * 3));
    for (auto& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 41) - 20);
    QTensor weight;
    ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(),
                                          {channels, channels, 3, 1, 1}, 0.01, 0, DType::kQInt8, &weight)
                    .ok());
    PackedQConv automatic, direct;
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, channels, &automatic).ok());
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, channels, &direct, ConvBackend::kFbgemm, WinogradMode::kOff).ok());
    EXPECT_EQ(winograd_bytes(automatic) > 0, channels == 16) << channels << " channels";
    for (const int64_t depth : {8, 2}) {
      const Shape in_shape = {1, channels, depth, 3, 5};
      std::vector<uint8_t> x(static_cast<size_t>(channels * depth * 15));
      for (auto& v : x) v = static_cast<uint8_t>(rng() % 256);
      QTensor input;
      ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.05, 120, DType::kQUInt8, &input).ok());
      for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
        if (!kernels::isa_available(isa)) continue;
        QTensor a, b;
        ConvRunInfo ia;
        ASSERT_TRUE(qconv3d(automatic, input, 0.1, 128, true, isa, &a, &ia).ok());
        ASSERT_TRUE(qconv3d(direct, input, 0.1, 128, true, isa, &b).ok());
        const size_t want_tile = channels == 16 && depth == 8 ? 4 : 0;
        EXPECT_EQ(ia.winograd ? ia.winograd_tile : 0, want_tile) << channels << " channels, depth " << depth;
        EXPECT_EQ(std::vector<uint8_t>(a.data(), a.data() + a.nbytes()),
                  std::vector<uint8_t>(b.data(), b.data() + b.nbytes()))
            << channels << " channels, depth " << depth << " seed " << seed;
      }
    }
  }
}

// 'auto' takes a dilated layer whose channels pay (16 -> 16: h = 8) when its
// tiles fit the output (dilation 2 on 8^3: every slot an output), and keeps
// it direct when most tile slots would lie outside it (dilation 8 on 5^3:
// each phase has one output, 8 slots per output). Bytes equal kOff's.
TEST(QConvWinograd, AutoTakesDilatedLayersWhoseTilesFitTheOutput) {
  struct Case {
    int64_t dilation, size;
    bool winograd;
  };
  for (const Case& c : {Case{2, 8, true}, Case{4, 16, true}, Case{8, 5, false}}) {
    ConvGeometry geo;
    geo.in_channels = geo.out_channels = 16;
    geo.kernel = {3, 3, 3};
    geo.dilation = {c.dilation, c.dilation, c.dilation};
    geo.pad_begin = geo.pad_end = geo.dilation;
    std::mt19937_64 g(qwasm_test::test_seed());
    std::uniform_int_distribution<int> s8(-20, 20), u8(0, 255);
    std::vector<int8_t> w(16 * 16 * 27);
    for (auto& v : w) v = static_cast<int8_t>(s8(g));
    const Shape in_shape = {1, 16, c.size, c.size, c.size};
    std::vector<uint8_t> x(static_cast<size_t>(16 * c.size * c.size * c.size));
    for (auto& v : x) v = static_cast<uint8_t>(u8(g));
    QTensor weight, input;
    ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(), {16, 16, 3, 3, 3}, 0.01,
                                          0, DType::kQInt8, &weight)
                    .ok());
    ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), in_shape, 0.05, 120, DType::kQUInt8, &input).ok());
    PackedQConv automatic, direct;
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, 16, &automatic).ok());
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, 16, &direct, ConvBackend::kFbgemm, WinogradMode::kOff).ok());
    EXPECT_GT(winograd_bytes(automatic), 0u) << "dilation " << c.dilation;
    for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
      if (!kernels::isa_available(isa)) continue;
      QTensor a, b;
      ConvRunInfo ia, ib;
      ASSERT_TRUE(qconv3d(automatic, input, 0.2, 128, true, isa, &a, &ia).ok());
      ASSERT_TRUE(qconv3d(direct, input, 0.2, 128, true, isa, &b, &ib).ok());
      EXPECT_EQ(ia.winograd, c.winograd) << "dilation " << c.dilation << " size " << c.size;
      EXPECT_FALSE(ib.winograd);
      EXPECT_EQ(std::vector<uint8_t>(a.data(), a.data() + a.nbytes()),
                std::vector<uint8_t>(b.data(), b.data() + b.nbytes()))
          << "dilation " << c.dilation << " seed " << qwasm_test::test_seed();
    }
  }
}

TEST(QConvWinograd, GuardBoundsPerDimensionCount) {
  // The bound is 2^(31 - nd): 1 tap dimension 2^30, 2: 2^29, 3: 2^28.
  for (int nd = 1; nd <= 3; ++nd) {
    ConvGeometry geo;
    geo.in_channels = 1;
    geo.out_channels = 1;
    for (int d = 0; d < nd; ++d) geo.kernel[2 - d] = 3;
    const int64_t taps = geo.kernel[0] * geo.kernel[1] * geo.kernel[2];
    std::vector<int8_t> w(static_cast<size_t>(taps), 127);
    QTensor weight;
    ASSERT_TRUE(make_per_tensor_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(),
                                          {1, 1, geo.kernel[0], geo.kernel[1], geo.kernel[2]}, 1.0, -128, DType::kQInt8,
                                          &weight)
                    .ok());
    PackedQConv p;
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, 1, &p, ConvBackend::kFbgemm, WinogradMode::kOn).ok());
    ASSERT_EQ(p.winograd.nd, static_cast<size_t>(nd));
    EXPECT_EQ(p.winograd.abs_sum_max, taps * 255);
    EXPECT_TRUE(winograd_guard_passes(p, 0));
    EXPECT_TRUE(winograd_guard_passes(p, 255));
  }
  PackedQConv none;
  EXPECT_FALSE(winograd_guard_passes(none, 128));
}

// A layer whose transformed weights take more than one pass of the driver's
// scratch (docs/winograd.md, "The driver", step 0): 1x3x3, 1024 -> 328
// channels (16 x 64 x 1024 x 2 bytes = 2 MiB per 64-channel chunk: 6 chunks,
// the last of 8 channels, in passes of 4), and a 3x3x3 one of 600 -> 136
// (2 passes). Their few tiles make the driver keep every block's transformed
// input for the passes. Per-channel weights with non-zero zero points; the
// bytes must be the direct reference's at both ISAs and 1 and 3 threads, and
// weight() must give the integers back.
TEST(QConvWinograd, LayersOfSeveralPassesAreExact) {
  struct Case {
    int64_t cin, cout;
    std::array<int64_t, 3> kernel, pad;
    Shape in_shape;
  };
  const Case cases[] = {
      {1024, 328, {1, 3, 3}, {0, 1, 1}, {1, 1024, 1, 5, 6}},
      {600, 136, {3, 3, 3}, {1, 1, 1}, {1, 600, 3, 3, 4}},
  };
  const uint64_t seed = qwasm_test::test_seed();
  std::mt19937_64 rng(seed);
  for (const Case& c : cases) {
    ConvGeometry geo;
    geo.in_channels = c.cin;
    geo.out_channels = c.cout;
    geo.kernel = c.kernel;
    geo.pad_begin = geo.pad_end = c.pad;
    const int64_t taps = c.kernel[0] * c.kernel[1] * c.kernel[2];
    std::vector<int8_t> w(static_cast<size_t>(c.cout * c.cin * taps));
    for (auto& v : w) v = static_cast<int8_t>(static_cast<int>(rng() % 21) - 10);
    std::vector<double> scales(static_cast<size_t>(c.cout)), zps(static_cast<size_t>(c.cout));
    std::vector<float> ws(scales.size());
    std::vector<int32_t> wz(scales.size());
    for (size_t oc = 0; oc < scales.size(); ++oc) {
      scales[oc] = ws[oc] = 0.001f * static_cast<float>(1 + rng() % 7);
      wz[oc] = static_cast<int32_t>(rng() % 7) - 3;
      zps[oc] = wz[oc];
    }
    std::vector<uint8_t> x(static_cast<size_t>(c.in_shape[1] * c.in_shape[2] * c.in_shape[3] * c.in_shape[4]));
    for (auto& v : x) v = static_cast<uint8_t>(rng() % 256);
    QTensor input, weight;
    ASSERT_TRUE(make_per_tensor_quantized(x.data(), x.size(), c.in_shape, 0.02, 120, DType::kQUInt8, &input).ok());
    ASSERT_TRUE(make_per_channel_quantized(reinterpret_cast<const uint8_t*>(w.data()), w.size(),
                                           {c.cout, c.cin, c.kernel[0], c.kernel[1], c.kernel[2]}, scales.data(),
                                           zps.data(), scales.size(), 0, false, DType::kQInt8, &weight)
                    .ok());
    PackedQConv packed;
    ASSERT_TRUE(pack_qconv(geo, weight, nullptr, c.cout, &packed, ConvBackend::kFbgemm, WinogradMode::kOn).ok());
    ASSERT_GT(winograd_bytes(packed), 0u);
    EXPECT_EQ(packed.nlayouts, 0u) << "a Winograd layer keeps no direct packing";
    QTensor back;
    ASSERT_TRUE(unpack_qconv_weight(packed, &back).ok());
    ASSERT_EQ(std::memcmp(back.data(), w.data(), w.size()), 0) << "weight() must give the int8 integers back";
    const double out_scale = 2.0;
    Shape out_shape;
    ASSERT_TRUE(conv_output_shape(geo, c.in_shape, &out_shape).ok());
    std::vector<uint8_t> want(static_cast<size_t>(out_shape[1] * out_shape[2] * out_shape[3] * out_shape[4]));
    ref::QConvArgs args{x.data(), c.in_shape, 0.02, 120, w.data(), ws.data(), wz.data(), nullptr, out_scale, 7, false};
    ref::qconv3d(geo, args, want.data());
    int64_t bound = 0;
    ASSERT_TRUE(qconv_scratch_bound(packed, c.in_shape, &bound).ok());
    for (Isa isa : {Isa::kScalar, Isa::kWasmSimd}) {
      if (!kernels::isa_available(isa)) continue;
      for (size_t threads : {size_t{1}, size_t{3}}) {
        ASSERT_TRUE(set_num_threads(std::min(threads, max_threads())).ok());
        QTensor out;
        ConvRunInfo info;
        ASSERT_TRUE(qconv3d(packed, input, out_scale, 7, false, isa, &out, &info).ok());
        EXPECT_TRUE(info.winograd);
        EXPECT_LE(static_cast<int64_t>(info.scratch_bytes), bound);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), out.data()))
            << c.cin << " -> " << c.cout << " " << kernels::isa_name(isa) << " threads " << threads << " seed " << seed;
      }
    }
    ASSERT_TRUE(set_num_threads(max_threads()).ok());
  }
}
