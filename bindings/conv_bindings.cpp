// Convolution modules: packed quantized and float weights owned by JS objects.
#include "bindings/common.h"

#include "qwasm/conv.h"

namespace qwasm_bind {
namespace {

qwasm::ConvGeometry to_geometry(const val& o) {
  qwasm::ConvGeometry g;
  g.in_channels = static_cast<int64_t>(o["inChannels"].as<double>());
  g.out_channels = static_cast<int64_t>(o["outChannels"].as<double>());
  g.groups = static_cast<int64_t>(o["groups"].as<double>());
  auto fill = [&](const char* name, std::array<int64_t, 3>* t) {
    const std::vector<double> v = emscripten::convertJSArrayToNumberVector<double>(o[name]);
    for (size_t i = 0; i < 3 && i < v.size(); ++i) (*t)[i] = static_cast<int64_t>(v[i]);
  };
  fill("kernel", &g.kernel);
  fill("stride", &g.stride);
  fill("dilation", &g.dilation);
  fill("padBegin", &g.pad_begin);
  fill("padEnd", &g.pad_end);
  return g;
}

// A quantized conv module's packed weights, owned by the JS module object.
struct QConvModule {
  qwasm::PackedQConv packed;
  double scratch_bytes = 0;  // of the last forward call
};

val make_qconv(val geometry, const QTensor& weight, uintptr_t bias, bool has_bias) {
  QConvModule m;
  const Status s = qwasm::pack_qconv(to_geometry(geometry), weight, has_bias ? at<float>(bias) : nullptr, &m.packed);
  return s.ok() ? val(std::move(m)) : error_value(s);
}

val qconv_forward(QConvModule& m, const QTensor& input, double out_scale, double out_zp, bool relu, int isa) {
  Isa i;
  Status s = parse_isa(isa, &i);
  QTensor out;
  qwasm::ConvRunInfo info;
  if (s.ok()) s = qwasm::qconv3d(m.packed, input, out_scale, static_cast<int64_t>(out_zp), relu, i, &out, &info);
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  return result(s, std::move(out));
}

double qconv_packed_bytes(const QConvModule& m) { return static_cast<double>(m.packed.bytes()); }
double qconv_scratch_bytes(const QConvModule& m) { return m.scratch_bytes; }

// A float conv module's packed weights plus its last output (copied out by JS, then released).
struct FConvModule {
  qwasm::PackedFConv packed;
  std::vector<float> output;
  double scratch_bytes = 0;
};

val make_fconv(val geometry, uintptr_t weight, uintptr_t bias, bool has_bias) {
  FConvModule m;
  const Status s = qwasm::pack_fconv(to_geometry(geometry), at<float>(weight), has_bias ? at<float>(bias) : nullptr,
                                     &m.packed);
  return s.ok() ? val(std::move(m)) : error_value(s);
}

// Returns {shape, view} (view into m.output: copy it, then call releaseOutput()).
val fconv_forward(FConvModule& m, uintptr_t x, val shape, bool relu, int isa) {
  Isa i;
  Status s = parse_isa(isa, &i);
  qwasm::Shape out_shape;
  qwasm::ConvRunInfo info;
  const qwasm::Shape in_shape = to_shape(shape);
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(in_shape, &numel);
  if (s.ok()) s = qwasm::fconv3d(m.packed, at<float>(x), in_shape, relu, i, &m.output, &out_shape, &info);
  if (!s.ok()) return error_value(s);
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  val o = val::object();
  o.set("shape", to_js_shape(out_shape));
  o.set("view", val(emscripten::typed_memory_view(m.output.size(), m.output.data())));
  return o;
}

void fconv_release_output(FConvModule& m) { std::vector<float>().swap(m.output); }
double fconv_scratch_bytes(const FConvModule& m) { return m.scratch_bytes; }


}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_conv) {
  using namespace emscripten;
  using namespace qwasm_bind;
  class_<QConvModule>("_QConvModule")
      .function("forward", &qconv_forward)
      .function("packedBytes", &qconv_packed_bytes)
      .function("scratchBytes", &qconv_scratch_bytes);
  class_<FConvModule>("_FConvModule")
      .function("forward", &fconv_forward)
      .function("releaseOutput", &fconv_release_output)
      .function("scratchBytes", &fconv_scratch_bytes);
  function("_makeQConv", &make_qconv);
  function("_makeFConv", &make_fconv);
}
