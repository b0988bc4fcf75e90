// The float normalisations (qwasm/norm_float.h): InstanceNorm, GroupNorm,
// LayerNorm, on floats and as a PT2E graph's quantized region
// (qwasm/norm_region.h: a quint8 QTensor in and out). x crosses as a heap address with its byte count; the parameters
// as one block [weight | bias | running_mean | running_var] holding only
// those that are present (the has* flags say which), each of `count` floats
// (the channels; LayerNorm's normalised elements). Every size is checked here
// against the bytes before the core allocates anything.
#include "bindings/common.h"
#include "qwasm/checked_size.h"
#include "qwasm/norm_float.h"
#include "qwasm/norm_region.h"

namespace qwasm_bind {
namespace {

using qwasm::CheckedSize;
using qwasm::FloatNorm;
using qwasm::torch_cpu::NormParams;

// A size argument: an integer in [0, kMaxNumel].
Status to_size(double v, const char* name, int64_t* out) { return to_int(v, name, 0, qwasm::kMaxNumel, out); }

// rows * inner elements, within kMaxNumel.
Status count_of(int64_t rows, int64_t inner, int64_t* numel) {
  const CheckedSize n = CheckedSize(rows) * CheckedSize(inner);
  if (!n.at_most(qwasm::kMaxNumel)) {
    return Status::RangeError(std::to_string(rows) + " x " + std::to_string(inner) + " elements is too many");
  }
  *numel = n.value();
  return Status::Ok();
}

// x's bytes hold exactly `numel` floats.
Status check_input(double nbytes, int64_t numel) {
  size_t bytes = 0;
  QWASM_RETURN_IF_ERROR(to_count(nbytes, "x.data.byteLength", &bytes));
  const CheckedSize want = CheckedSize(numel) * CheckedSize(4);
  if (!want.ok() || static_cast<uint64_t>(want.value()) != bytes) {
    return Status::RangeError("the data does not hold the " + std::to_string(numel) + " floats its shape says");
  }
  return Status::Ok();
}

// Points p's present members into the block at `address` (`count` floats each, in order).
Status read_params(uintptr_t address, double nbytes, int64_t count, bool has_weight, bool has_bias, bool has_running,
                   double eps, NormParams* p) {
  size_t bytes = 0;
  QWASM_RETURN_IF_ERROR(to_count(nbytes, "the parameters' byteLength", &bytes));
  const int64_t present = (has_weight ? 1 : 0) + (has_bias ? 1 : 0) + (has_running ? 2 : 0);
  const CheckedSize want = CheckedSize(present) * CheckedSize(count) * CheckedSize(4);
  if (!want.ok() || static_cast<uint64_t>(want.value()) != bytes) {
    return Status::RangeError("the parameters must hold " + std::to_string(present) + " x " + std::to_string(count) +
                              " floats");
  }
  const float* next = at<float>(address);
  auto take = [&](bool has) {
    const float* q = has ? next : nullptr;
    if (has) next += count;
    return q;
  };
  p->weight = take(has_weight);
  p->bias = take(has_bias);
  p->running_mean = take(has_running);
  p->running_var = take(has_running);
  p->eps = eps;
  return Status::Ok();
}

// Each norm's sizes and parameters, read and checked into a FloatNorm of
// `numel` floats: what both forms below run.

Status instance_norm_of(double rows_d, double channels_d, double inner_d, uintptr_t params, double params_bytes,
                        bool has_weight, bool has_bias, bool has_running, double eps, double isa, int64_t* numel,
                        FloatNorm* norm) {
  int64_t rows = 0, channels = 0, inner = 0;
  QWASM_RETURN_IF_ERROR(to_size(rows_d, "rows", &rows));
  QWASM_RETURN_IF_ERROR(to_size(channels_d, "channels", &channels));
  QWASM_RETURN_IF_ERROR(to_size(inner_d, "inner", &inner));
  QWASM_RETURN_IF_ERROR(count_of(rows, inner, numel));
  NormParams p;
  QWASM_RETURN_IF_ERROR(read_params(params, params_bytes, channels, has_weight, has_bias, has_running, eps, &p));
  QWASM_RETURN_IF_ERROR(to_isa(isa, &p.isa));
  *norm = [=](const float* x, qwasm::Buffer<float>* y) {
    return qwasm::torch_cpu::instance_norm(x, rows, channels, inner, p, y);
  };
  return Status::Ok();
}

Status group_norm_of(double batch_d, double channels_d, double spatial_d, double groups_d, uintptr_t params,
                     double params_bytes, bool has_weight, bool has_bias, double eps, double isa, int64_t* numel,
                     FloatNorm* norm) {
  int64_t batch = 0, channels = 0, spatial = 0, groups = 0;
  QWASM_RETURN_IF_ERROR(to_size(batch_d, "batch", &batch));
  QWASM_RETURN_IF_ERROR(to_size(channels_d, "channels", &channels));
  QWASM_RETURN_IF_ERROR(to_size(spatial_d, "spatial", &spatial));
  QWASM_RETURN_IF_ERROR(to_size(groups_d, "groups", &groups));
  const CheckedSize rows = CheckedSize(batch) * CheckedSize(channels);
  if (!rows.ok()) return Status::RangeError("the element count overflows");
  QWASM_RETURN_IF_ERROR(count_of(rows.value(), spatial, numel));
  NormParams p;
  QWASM_RETURN_IF_ERROR(read_params(params, params_bytes, channels, has_weight, has_bias, false, eps, &p));
  QWASM_RETURN_IF_ERROR(to_isa(isa, &p.isa));
  *norm = [=](const float* x, qwasm::Buffer<float>* y) {
    return qwasm::torch_cpu::group_norm(x, batch, channels, spatial, groups, p, y);
  };
  return Status::Ok();
}

Status layer_norm_of(double rows_d, double inner_d, uintptr_t params, double params_bytes, bool has_weight,
                     bool has_bias, double eps, double isa, int64_t* numel, FloatNorm* norm) {
  int64_t rows = 0, inner = 0;
  QWASM_RETURN_IF_ERROR(to_size(rows_d, "rows", &rows));
  QWASM_RETURN_IF_ERROR(to_size(inner_d, "inner", &inner));
  QWASM_RETURN_IF_ERROR(count_of(rows, inner, numel));
  NormParams p;
  QWASM_RETURN_IF_ERROR(read_params(params, params_bytes, inner, has_weight, has_bias, false, eps, &p));
  QWASM_RETURN_IF_ERROR(to_isa(isa, &p.isa));
  *norm = [=](const float* x, qwasm::Buffer<float>* y) { return qwasm::torch_cpu::layer_norm(x, rows, inner, p, y); };
  return Status::Ok();
}

// The float form: x's float32s at an address in, a Float32Array out.
val on_floats(Status s, uintptr_t x, double nbytes, int64_t numel, const FloatNorm& norm) {
  if (s.ok()) s = check_input(nbytes, numel);
  qwasm::Buffer<float> y;
  if (s.ok()) s = norm(at<float>(x), &y);
  return s.ok() ? float32_copy(y) : error_value(s);
}

// The region form (qwasm/norm_region.h): a quint8 QTensor in, a quint8 QTensor out.
val on_region(Status s, const QTensor& x, int64_t numel, const FloatNorm& norm, bool relu, double scale,
              double zero_point, double isa_code) {
  qwasm::kernels::Isa isa;
  if (s.ok()) s = to_isa(isa_code, &isa);
  QTensor out;
  if (s.ok()) s = qwasm::norm_region(x, numel, isa, norm, relu, scale, zero_point, &out);
  return result(s, std::move(out));
}

val finstance_norm(uintptr_t x, double nbytes, double rows, double channels, double inner, uintptr_t params,
                   double params_bytes, bool has_weight, bool has_bias, bool has_running, double eps, double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = instance_norm_of(rows, channels, inner, params, params_bytes, has_weight, has_bias, has_running, eps,
                                    isa, &numel, &norm);
  return on_floats(s, x, nbytes, numel, norm);
}

val fgroup_norm(uintptr_t x, double nbytes, double batch, double channels, double spatial, double groups,
                uintptr_t params, double params_bytes, bool has_weight, bool has_bias, double eps, double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = group_norm_of(batch, channels, spatial, groups, params, params_bytes, has_weight, has_bias, eps, isa,
                                 &numel, &norm);
  return on_floats(s, x, nbytes, numel, norm);
}

val flayer_norm(uintptr_t x, double nbytes, double rows, double inner, uintptr_t params, double params_bytes,
                bool has_weight, bool has_bias, double eps, double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = layer_norm_of(rows, inner, params, params_bytes, has_weight, has_bias, eps, isa, &numel, &norm);
  return on_floats(s, x, nbytes, numel, norm);
}

val qinstance_norm_region(const QTensor& x, double rows, double channels, double inner, uintptr_t params,
                          double params_bytes, bool has_weight, bool has_bias, bool has_running, double eps, bool relu,
                          double scale, double zero_point, double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = instance_norm_of(rows, channels, inner, params, params_bytes, has_weight, has_bias, has_running, eps,
                                    isa, &numel, &norm);
  return on_region(s, x, numel, norm, relu, scale, zero_point, isa);
}

val qgroup_norm_region(const QTensor& x, double batch, double channels, double spatial, double groups, uintptr_t params,
                       double params_bytes, bool has_weight, bool has_bias, double eps, bool relu, double scale,
                       double zero_point, double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = group_norm_of(batch, channels, spatial, groups, params, params_bytes, has_weight, has_bias, eps, isa,
                                 &numel, &norm);
  return on_region(s, x, numel, norm, relu, scale, zero_point, isa);
}

val qlayer_norm_region(const QTensor& x, double rows, double inner, uintptr_t params, double params_bytes,
                       bool has_weight, bool has_bias, double eps, bool relu, double scale, double zero_point,
                       double isa) {
  QWASM_BIND_ENTER();
  int64_t numel = 0;
  FloatNorm norm;
  const Status s = layer_norm_of(rows, inner, params, params_bytes, has_weight, has_bias, eps, isa, &numel, &norm);
  return on_region(s, x, numel, norm, relu, scale, zero_point, isa);
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_norm_float) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_finstanceNorm", &finstance_norm);
  function("_fgroupNorm", &fgroup_norm);
  function("_flayerNorm", &flayer_norm);
  function("_qinstanceNormRegion", &qinstance_norm_region);
  function("_qgroupNormRegion", &qgroup_norm_region);
  function("_qlayerNormRegion", &qlayer_norm_region);
}
