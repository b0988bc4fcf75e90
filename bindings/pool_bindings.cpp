// Pooling on QTensors and on float tensors. Geometry arrives as the bound
// value object the JS layer built (bindings/geometry.h).
#include "bindings/common.h"
#include "bindings/geometry.h"
#include "qwasm/pool.h"

namespace qwasm_bind {
namespace {

constexpr int64_t kMaxGeometry = 2147483647;

Status read_params(const PoolGeometryArgs& g, qwasm::PoolParams* p) {
  int64_t dims = 0;
  QWASM_RETURN_IF_ERROR(to_int(g.dims, "dims", 1, 3, &dims));
  p->dims = static_cast<int>(dims);
  for (int d = 0; d < 3; ++d) {
    QWASM_RETURN_IF_ERROR(to_int(g.kernel_size[d], "kernelSize", 1, kMaxGeometry, &p->kernel[d]));
    QWASM_RETURN_IF_ERROR(to_int(g.stride[d], "stride", 1, kMaxGeometry, &p->stride[d]));
    QWASM_RETURN_IF_ERROR(to_int(g.padding[d], "padding", 0, kMaxGeometry, &p->padding[d]));
    QWASM_RETURN_IF_ERROR(to_int(g.dilation[d], "dilation", 1, kMaxGeometry, &p->dilation[d]));
  }
  p->ceil_mode = g.ceil_mode;
  p->count_include_pad = g.count_include_pad;
  p->has_divisor = g.has_divisor;
  return to_int(g.divisor_override, "divisorOverride", -kMaxGeometry, kMaxGeometry, &p->divisor);
}

Status read_sizes(const val& sizes, int dims, int64_t* out) {
  if (sizes["length"].as<int>() != dims) return Status::TypeError("outputSize must have one entry per dimension");
  for (int d = 0; d < dims; ++d) {
    const val v = sizes[d];
    if (!v.isNumber()) return Status::TypeError("outputSize entries must be numbers");
    QWASM_RETURN_IF_ERROR(to_int(v.as<double>(), "outputSize", 1, qwasm::kMaxNumel, &out[d]));
  }
  return Status::Ok();
}

val float_result(const Status& s, const qwasm::Buffer<float>& y, const qwasm::Shape& shape) {
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("data", float32_copy(y));
  o.set("shape", to_js_shape(shape));
  return o;
}

Status to_pool_kind(double code, qwasm::PoolKind* out) { return read_code(kPoolKindCodes, code, "pool kind", out); }

val qpool(const QTensor& x, double kind, const PoolGeometryArgs& geometry, double isa) {
  QWASM_BIND_ENTER();
  qwasm::PoolParams p;
  qwasm::PoolKind k{};
  Isa i;
  Status s = to_pool_kind(kind, &k);
  if (s.ok()) s = read_params(geometry, &p);
  if (s.ok()) s = to_isa(isa, &i);
  QTensor out;
  if (s.ok()) s = k == qwasm::PoolKind::kMax ? qwasm::qmax_pool(x, p, &out, i) : qwasm::qavg_pool(x, p, &out, i);
  return result(s, std::move(out));
}

val qadaptive_avg_pool(const QTensor& x, double dims, val sizes, double isa) {
  QWASM_BIND_ENTER();
  int64_t d = 0, out_size[3] = {1, 1, 1};
  Isa i;
  Status s = to_int(dims, "dims", 1, 3, &d);
  if (s.ok()) s = read_sizes(sizes, static_cast<int>(d), out_size);
  if (s.ok()) s = to_isa(isa, &i);
  QTensor out;
  if (s.ok()) s = qwasm::qadaptive_avg_pool(x, static_cast<int>(d), out_size, &out, i);
  return result(s, std::move(out));
}

val fpool(uintptr_t x, double nbytes, val shape, double kind, const PoolGeometryArgs& geometry) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims;
  size_t n = 0;
  qwasm::PoolParams p;
  qwasm::PoolKind k{};
  Status s = to_pool_kind(kind, &k);
  if (s.ok()) s = to_shape(shape, &dims);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = read_params(geometry, &p);
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(dims, &numel);
  if (s.ok() && static_cast<int64_t>(n) != numel * 4) s = Status::RangeError("the data does not match the shape");
  qwasm::Buffer<float> y;
  qwasm::Shape y_shape;
  if (s.ok()) {
    s = k == qwasm::PoolKind::kMax ? qwasm::fmax_pool(at<float>(x), dims, p, &y, &y_shape)
                                   : qwasm::favg_pool(at<float>(x), dims, p, &y, &y_shape);
  }
  return float_result(s, y, y_shape);
}

val fadaptive_pool(uintptr_t x, double nbytes, val shape, double kind, double dims, val sizes) {
  QWASM_BIND_ENTER();
  qwasm::Shape in_shape;
  size_t n = 0;
  int64_t d = 0, out_size[3] = {1, 1, 1};
  qwasm::PoolKind k{};
  Status s = to_pool_kind(kind, &k);
  if (s.ok()) s = to_shape(shape, &in_shape);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  if (s.ok()) s = to_int(dims, "dims", 1, 3, &d);
  if (s.ok()) s = read_sizes(sizes, static_cast<int>(d), out_size);
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(in_shape, &numel);
  if (s.ok() && static_cast<int64_t>(n) != numel * 4) s = Status::RangeError("the data does not match the shape");
  qwasm::Buffer<float> y;
  qwasm::Shape y_shape;
  if (s.ok()) {
    s = qwasm::fadaptive_pool(at<float>(x), in_shape, static_cast<int>(d), out_size, k, &y, &y_shape);
  }
  return float_result(s, y, y_shape);
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_pool) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_qpool", &qpool);
  function("_qadaptiveAvgPool", &qadaptive_avg_pool);
  function("_fpool", &fpool);
  function("_fadaptivePool", &fadaptive_pool);
}
