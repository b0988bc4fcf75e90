// Convolution modules: packed quantized and float weights owned by JS objects.
#include "bindings/common.h"
#include "bindings/geometry.h"

#include <cmath>

#include "qwasm/conv.h"
#include "qwasm/format.h"
#include "qwasm/limits.h"

namespace qwasm_bind {
namespace {

// One geometry number: any JS safe integer converts (validate_geometry then
// names the real limits); past the safe integers the message names the same
// limits rather than the conversion's.
Status to_geometry_int(double x, const char* name, int64_t min, int64_t* out) {
  constexpr int64_t kSafe = int64_t{1} << 53;
  if (std::isfinite(x) && std::fabs(x) > static_cast<double>(kSafe)) {
    return Status::RangeError(std::string(name) +
                              (x > 0 ? " must be at most " + std::to_string(qwasm::kMaxGeometryValue)
                                     : " must be >= " + std::to_string(min)) +
                              ", got " + qwasm::format_number(x));
  }
  return to_int(x, name, -kSafe, kSafe, out);
}

// The geometry the JS layer built (bindings/geometry.h), checked and validated.
Status to_geometry(const ConvGeometryArgs& a, qwasm::ConvGeometry* g) {
  int64_t dims = 0;
  QWASM_RETURN_IF_ERROR(to_int(a.dims, "spatial dims", 0, 3, &dims));
  g->spatial_dims = static_cast<int>(dims);
  const bool linear = dims == 0;
  QWASM_RETURN_IF_ERROR(to_geometry_int(a.in_channels, linear ? "inFeatures" : "inChannels", 1, &g->in_channels));
  QWASM_RETURN_IF_ERROR(to_geometry_int(a.out_channels, linear ? "outFeatures" : "outChannels", 1, &g->out_channels));
  QWASM_RETURN_IF_ERROR(to_geometry_int(a.groups, "groups", 1, &g->groups));
  struct Field {
    const char* name;
    const Triple& from;
    std::array<int64_t, 3>* to;
    int64_t min;
  };
  const Field fields[5] = {{"kernelSize", a.kernel, &g->kernel, 1},
                           {"stride", a.stride, &g->stride, 1},
                           {"dilation", a.dilation, &g->dilation, 1},
                           {"padding", a.pad_begin, &g->pad_begin, 0},
                           {"padding", a.pad_end, &g->pad_end, 0}};
  for (const Field& f : fields) {
    for (int d = 0; d < 3; ++d) QWASM_RETURN_IF_ERROR(to_geometry_int(f.from[d], f.name, f.min, &(*f.to)[d]));
  }
  return qwasm::validate_geometry(*g);
}

// Validates a geometry; returns the weight's element count (a float copy of
// it must fit one allocation) or an error.
val conv_weight_count(const ConvGeometryArgs& geometry) {
  QWASM_BIND_ENTER();
  qwasm::ConvGeometry g;
  Status s = to_geometry(geometry, &g);
  if (!s.ok()) return error_value(s);
  const qwasm::CheckedSize n =
      qwasm::CheckedSize(g.out_channels) * (g.in_channels / g.groups) * g.kernel[0] * g.kernel[1] * g.kernel[2];
  const qwasm::CheckedSize bytes = n * 4;
  if (!bytes.at_most(qwasm::kMaxBufferBytes)) {
    return error_value(Status::RangeError("the weight would need " +
                                          (bytes.ok() ? std::to_string(bytes.value()) : std::string("more than 2^63")) +
                                          " bytes as float32, more than the " + std::to_string(qwasm::kMaxBufferBytes) +
                                          " bytes one allocation can hold"));
  }
  return val(static_cast<double>(n.value()));
}

// Depth streaming (web/src/model/depth-stream.mjs) runs a Conv3d over a
// window of depth slices with the depth padding of the window's place in the
// volume: 0 inside, up to the layer's own at the volume's borders. The
// override replaces the geometry's pad_begin[0] / pad_end[0] (and, for a
// quantized conv, may set dilation[0] to 1: a window of the slices of one
// depth phase of a dilated layer, every dilation-th slice, is an undilated
// conv along depth over the same taps) for one call and puts them back on
// every return; the packed weights do not depend on padding or dilation, so
// nothing is repacked or copied. (Calls are synchronous: no other call sees
// the replaced values.)
class DepthPaddingOverride {
 public:
  explicit DepthPaddingOverride(qwasm::ConvGeometry* g)
      : g_(g), begin_(g->pad_begin[0]), end_(g->pad_end[0]), dilation_(g->dilation[0]) {}
  ~DepthPaddingOverride() {
    g_->pad_begin[0] = begin_;
    g_->pad_end[0] = end_;
    g_->dilation[0] = dilation_;
  }
  DepthPaddingOverride(const DepthPaddingOverride&) = delete;
  DepthPaddingOverride& operator=(const DepthPaddingOverride&) = delete;

  // Sets the call's depth padding, validated as the layer's own would be;
  // undilated: the depth dilation becomes 1 (a layer of groups 1 only: the
  // depthwise fast path's choice reads the dilation).
  Status set(double begin, double end, bool undilated = false) {
    if (g_->spatial_dims != 3) return Status::Error("a depth padding override is for a Conv3d");
    if (undilated && g_->groups != 1) return Status::Error("a depth dilation override is for a conv of groups 1");
    int64_t b = 0, e = 0;
    QWASM_RETURN_IF_ERROR(to_int(begin, "depth padding (begin)", 0, qwasm::kMaxGeometryValue, &b));
    QWASM_RETURN_IF_ERROR(to_int(end, "depth padding (end)", 0, qwasm::kMaxGeometryValue, &e));
    g_->pad_begin[0] = b;
    g_->pad_end[0] = e;
    if (undilated) g_->dilation[0] = 1;
    return qwasm::validate_geometry(*g_);
  }

 private:
  qwasm::ConvGeometry* g_;
  int64_t begin_, end_, dilation_;
};

// A quantized conv module's packed weights, owned by the JS module object.
struct QConvModule {
  qwasm::PackedQConv packed;
  double scratch_bytes = 0;              // of the last forward call
  const char* last_kernel = "";          // a registry name (static storage)
  ConvPath last_path = ConvPath::kNone;  // of the last call
  bool time_phases = false;              // benchmarks: time the Winograd path's phases
  double phase_ms[3] = {};               // of the last call: input transform, GEMMs, output transform
};

// engine: torch.backends.quantized.engine when PyTorch would have packed
// these weights (the core picks the backend as PyTorch does); winograd: the
// option's mode. Both are codes (codes.h). exact_sums: a PT2E graph's conv
// (pack_qconv: no int16 pair saturation).
val make_qconv(const ConvGeometryArgs& geometry, const QTensor& weight, uintptr_t bias, double bias_count,
               bool has_bias, double engine, double winograd, bool exact_sums) {
  QWASM_BIND_ENTER();
  QConvModule m;
  qwasm::ConvGeometry g;
  size_t nb = 0;
  qwasm::QEngine e{};
  qwasm::WinogradMode mode{};
  Status s = to_geometry(geometry, &g);
  if (s.ok()) s = to_count(bias_count, "bias.length", &nb);
  if (s.ok()) s = read_code(kEngineCodes, engine, "engine", &e);
  if (s.ok()) s = read_code(kWinogradCodes, winograd, "winograd", &mode);
  if (s.ok()) {
    s = qwasm::pack_qconv(g, weight, has_bias ? at<float>(bias) : nullptr, static_cast<int64_t>(nb), &m.packed,
                          qwasm::conv_backend_for(e, g, weight), mode, exact_sums);
  }
  return s.ok() ? val(std::move(m)) : error_value(s);
}

// The module's weight, rebuilt from the packed layout (a new QTensor).
val qconv_weight(const QConvModule& m) {
  QWASM_BIND_ENTER();
  QTensor q;
  Status s = qwasm::unpack_qconv_weight(m.packed, &q);
  return result(s, std::move(q));
}

val qconv_forward(QConvModule& m, const QTensor& input, double out_scale, double out_zp, bool relu, double isa) {
  QWASM_BIND_ENTER();
  Isa i;
  int64_t zp = 0;
  Status s = to_isa(isa, &i);
  if (s.ok()) s = to_int(out_zp, "zeroPoint", INT32_MIN, INT32_MAX, &zp);
  QTensor out;
  qwasm::ConvRunInfo info;
  double phase_ms[3] = {};
  if (m.time_phases) info.winograd_phase_ms = phase_ms;
  if (s.ok()) {
    s = m.packed.geometry.spatial_dims == 0 ? qwasm::qlinear(m.packed, input, out_scale, zp, relu, i, &out, &info)
                                            : qwasm::qconv3d(m.packed, input, out_scale, zp, relu, i, &out, &info);
  }
  const int dims = m.packed.geometry.spatial_dims;
  if (s.ok() && dims > 0 && dims < 3) {
    QTensor lowered;
    s = qwasm::lower_conv_output(out, dims, &lowered);
    out = std::move(lowered);
  }
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  m.last_kernel = info.kernel;
  if (s.ok()) m.last_path = info.winograd ? ConvPath::kWinograd : ConvPath::kDirect;
  for (int i = 0; i < 3; ++i) m.phase_ms[i] = phase_ms[i];
  return result(s, std::move(out));
}

// The output qparams a quantized module's scale / zeroPoint setters accept.
val check_output_qparams(double scale, double zero_point) {
  QWASM_BIND_ENTER();
  int64_t zp = 0;
  Status s = to_int(zero_point, "zeroPoint", INT32_MIN, INT32_MAX, &zp);
  if (s.ok()) s = qwasm::validate_output_qparams(scale, zp);
  return s.ok() ? val::undefined() : error_value(s);
}

// The most scratch memory a forward on an input of `shape` allocates (qwasm::qconv_scratch_bound).
val qconv_scratch_bound(const QConvModule& m, val shape) {
  QWASM_BIND_ENTER();
  qwasm::Shape in_shape;
  int64_t bytes = 0;
  Status s = to_shape(shape, &in_shape);
  if (s.ok()) s = qwasm::qconv_scratch_bound(m.packed, in_shape, &bytes);
  return s.ok() ? val(static_cast<double>(bytes)) : error_value(s);
}

// forward() with the call's depth padding (and, undilated, depth dilation) replaced (DepthPaddingOverride).
val qconv_forward_depth_padded(QConvModule& m, const QTensor& input, double out_scale, double out_zp, bool relu,
                               double isa, double pad_begin, double pad_end, bool undilated) {
  QWASM_BIND_ENTER();
  DepthPaddingOverride padding(&m.packed.geometry);
  const Status s = padding.set(pad_begin, pad_end, undilated);
  return s.ok() ? qconv_forward(m, input, out_scale, out_zp, relu, isa) : error_value(s);
}

// scratchBound(shape) under the same override.
val qconv_scratch_bound_depth_padded(QConvModule& m, val shape, double pad_begin, double pad_end, bool undilated) {
  QWASM_BIND_ENTER();
  DepthPaddingOverride padding(&m.packed.geometry);
  const Status s = padding.set(pad_begin, pad_end, undilated);
  return s.ok() ? qconv_scratch_bound(m, shape) : error_value(s);
}

double qconv_packed_bytes(const QConvModule& m) { return static_cast<double>(m.packed.bytes()); }
int qconv_backend(const QConvModule& m) { return code_of(kBackendCodes, m.packed.backend); }
double qconv_scratch_bytes(const QConvModule& m) { return m.scratch_bytes; }
double qconv_winograd_bytes(const QConvModule& m) { return static_cast<double>(qwasm::winograd_bytes(m.packed)); }
int qconv_last_path(const QConvModule& m) { return code_of(kConvPathCodes, m.last_path); }
// Benchmarks (bench/winograd.bench.mjs): the Winograd path's time split.
void qconv_time_phases(QConvModule& m, bool on) { m.time_phases = on; }
val qconv_last_phase_ms(const QConvModule& m) {
  val a = val::array();
  for (int i = 0; i < 3; ++i) a.call<void>("push", m.phase_ms[i]);
  return a;
}
val qconv_last_kernel(const QConvModule& m) { return js_string(m.last_kernel); }

// A float conv module's packed weights plus its last output (copied out by JS, then released).
struct FConvModule {
  qwasm::PackedFConv packed;
  qwasm::Buffer<float> output;
  double scratch_bytes = 0;
  const char* last_kernel = "";
};

val make_fconv(const ConvGeometryArgs& geometry, uintptr_t weight, double weight_count, uintptr_t bias,
               double bias_count, bool has_bias) {
  QWASM_BIND_ENTER();
  FConvModule m;
  qwasm::ConvGeometry g;
  size_t nw = 0, nb = 0;
  Status s = to_geometry(geometry, &g);
  if (s.ok()) s = to_count(weight_count, "weight.data.length", &nw);
  if (s.ok()) s = to_count(bias_count, "bias.data.length", &nb);
  if (s.ok()) {
    s = qwasm::pack_fconv(g, at<float>(weight), static_cast<int64_t>(nw), has_bias ? at<float>(bias) : nullptr,
                          static_cast<int64_t>(nb), &m.packed);
  }
  return s.ok() ? val(std::move(m)) : error_value(s);
}

// Returns {shape, view} (view into m.output: copy it, then call releaseOutput()).
val fconv_forward(FConvModule& m, uintptr_t x, double nbytes, val shape, bool relu, double isa) {
  QWASM_BIND_ENTER();
  Isa i;
  qwasm::Shape in_shape, out_shape;
  qwasm::ConvRunInfo info;
  size_t n = 0;
  int64_t numel = 0;
  Status s = to_isa(isa, &i);
  if (s.ok()) s = to_shape(shape, &in_shape);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = qwasm::validate_shape(in_shape, &numel);
  if (s.ok() && static_cast<int64_t>(n) != numel * 4) {
    s = Status::RangeError("shape holds " + std::to_string(numel) + " elements but data has " + std::to_string(n / 4));
  }
  if (s.ok()) {
    s = m.packed.geometry.spatial_dims == 0
            ? qwasm::flinear(m.packed, at<float>(x), in_shape, relu, i, &m.output, &out_shape, &info)
            : qwasm::fconv3d(m.packed, at<float>(x), in_shape, relu, i, &m.output, &out_shape, &info);
  }
  if (!s.ok()) return error_value(s);
  m.scratch_bytes = static_cast<double>(info.scratch_bytes);
  m.last_kernel = info.kernel;
  val o = val::object();
  o.set("shape", to_js_shape(out_shape));
  o.set("view", val(emscripten::typed_memory_view(m.output.size(), m.output.data())));
  return o;
}

val fconv_scratch_bound(const FConvModule& m, val shape) {
  QWASM_BIND_ENTER();
  qwasm::Shape in_shape;
  int64_t bytes = 0;
  Status s = to_shape(shape, &in_shape);
  if (s.ok()) s = qwasm::fconv_scratch_bound(m.packed, in_shape, &bytes);
  return s.ok() ? val(static_cast<double>(bytes)) : error_value(s);
}

val fconv_forward_depth_padded(FConvModule& m, uintptr_t x, double nbytes, val shape, bool relu, double isa,
                               double pad_begin, double pad_end) {
  QWASM_BIND_ENTER();
  DepthPaddingOverride padding(&m.packed.geometry);
  const Status s = padding.set(pad_begin, pad_end);
  return s.ok() ? fconv_forward(m, x, nbytes, shape, relu, isa) : error_value(s);
}

val fconv_scratch_bound_depth_padded(FConvModule& m, val shape, double pad_begin, double pad_end) {
  QWASM_BIND_ENTER();
  DepthPaddingOverride padding(&m.packed.geometry);
  const Status s = padding.set(pad_begin, pad_end);
  return s.ok() ? fconv_scratch_bound(m, shape) : error_value(s);
}

void fconv_release_output(FConvModule& m) { m.output = qwasm::Buffer<float>(); }
double fconv_scratch_bytes(const FConvModule& m) { return m.scratch_bytes; }
val fconv_last_kernel(const FConvModule& m) { return js_string(m.last_kernel); }

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_conv) {
  using namespace emscripten;
  using namespace qwasm_bind;
  class_<QConvModule>("_QConvModule")
      .function("forward", &qconv_forward)
      .function("forwardDepthPadded", &qconv_forward_depth_padded)
      .function("scratchBoundDepthPadded", &qconv_scratch_bound_depth_padded)
      .function("weight", &qconv_weight)
      .function("packedBytes", &qconv_packed_bytes)
      .function("backend", &qconv_backend)
      .function("scratchBytes", &qconv_scratch_bytes)
      .function("scratchBound", &qconv_scratch_bound)
      .function("winogradBytes", &qconv_winograd_bytes)
      .function("lastPath", &qconv_last_path)
      .function("_timePhases", &qconv_time_phases)
      .function("_lastPhaseMs", &qconv_last_phase_ms)
      .function("lastKernel", &qconv_last_kernel);
  class_<FConvModule>("_FConvModule")
      .function("forward", &fconv_forward)
      .function("forwardDepthPadded", &fconv_forward_depth_padded)
      .function("scratchBoundDepthPadded", &fconv_scratch_bound_depth_padded)
      .function("releaseOutput", &fconv_release_output)
      .function("scratchBytes", &fconv_scratch_bytes)
      .function("scratchBound", &fconv_scratch_bound)
      .function("lastKernel", &fconv_last_kernel);
  function("_convWeightCount", &conv_weight_count);
  function("_checkOutputQParams", &check_output_qparams);
  function("_makeQConv", &make_qconv);
  function("_makeFConv", &make_fconv);
}
