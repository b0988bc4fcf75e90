// The float normalisations (qwasm/norm_float.h): InstanceNorm, GroupNorm,
// LayerNorm. x crosses as a heap address with its byte count; the parameters
// as one block [weight | bias | running_mean | running_var] holding only
// those that are present (the has* flags say which), each of `count` floats
// (the channels; LayerNorm's normalised elements). Every size is checked here
// against the bytes before the core allocates anything.
#include "bindings/common.h"
#include "qwasm/checked_size.h"
#include "qwasm/norm_float.h"

namespace qwasm_bind {
namespace {

using qwasm::CheckedSize;
using qwasm::torch_cpu::NormParams;

// A size argument: an integer in [0, kMaxNumel].
Status to_size(double v, const char* name, int64_t* out) { return to_int(v, name, 0, qwasm::kMaxNumel, out); }

// x's bytes hold exactly rows * inner floats.
Status check_input(double nbytes, int64_t rows, int64_t inner) {
  size_t bytes = 0;
  QWASM_RETURN_IF_ERROR(to_count(nbytes, "x.data.byteLength", &bytes));
  const CheckedSize want = CheckedSize(rows) * CheckedSize(inner) * CheckedSize(4);
  if (!want.ok() || static_cast<uint64_t>(want.value()) != bytes) {
    return Status::RangeError("the data does not hold the " + std::to_string(rows) + " x " + std::to_string(inner) +
                              " floats its shape says");
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

val finstance_norm(uintptr_t x, double nbytes, double rows_d, double channels_d, double inner_d, uintptr_t params,
                   double params_bytes, bool has_weight, bool has_bias, bool has_running, double eps) {
  QWASM_BIND_ENTER();
  int64_t rows = 0, channels = 0, inner = 0;
  Status s = to_size(rows_d, "rows", &rows);
  if (s.ok()) s = to_size(channels_d, "channels", &channels);
  if (s.ok()) s = to_size(inner_d, "inner", &inner);
  if (s.ok()) s = check_input(nbytes, rows, inner);
  NormParams p;
  if (s.ok()) s = read_params(params, params_bytes, channels, has_weight, has_bias, has_running, eps, &p);
  qwasm::Buffer<float> y;
  if (s.ok()) s = qwasm::torch_cpu::instance_norm(at<float>(x), rows, channels, inner, p, &y);
  return s.ok() ? float32_copy(y) : error_value(s);
}

val fgroup_norm(uintptr_t x, double nbytes, double batch_d, double channels_d, double spatial_d, double groups_d,
                uintptr_t params, double params_bytes, bool has_weight, bool has_bias, double eps) {
  QWASM_BIND_ENTER();
  int64_t batch = 0, channels = 0, spatial = 0, groups = 0;
  Status s = to_size(batch_d, "batch", &batch);
  if (s.ok()) s = to_size(channels_d, "channels", &channels);
  if (s.ok()) s = to_size(spatial_d, "spatial", &spatial);
  if (s.ok()) s = to_size(groups_d, "groups", &groups);
  const CheckedSize rows = CheckedSize(batch) * CheckedSize(channels);
  if (s.ok() && !rows.ok()) s = Status::RangeError("the element count overflows");
  if (s.ok()) s = check_input(nbytes, rows.value(), spatial);
  NormParams p;
  if (s.ok()) s = read_params(params, params_bytes, channels, has_weight, has_bias, false, eps, &p);
  qwasm::Buffer<float> y;
  if (s.ok()) s = qwasm::torch_cpu::group_norm(at<float>(x), batch, channels, spatial, groups, p, &y);
  return s.ok() ? float32_copy(y) : error_value(s);
}

val flayer_norm(uintptr_t x, double nbytes, double rows_d, double inner_d, uintptr_t params, double params_bytes,
                bool has_weight, bool has_bias, double eps) {
  QWASM_BIND_ENTER();
  int64_t rows = 0, inner = 0;
  Status s = to_size(rows_d, "rows", &rows);
  if (s.ok()) s = to_size(inner_d, "inner", &inner);
  if (s.ok()) s = check_input(nbytes, rows, inner);
  NormParams p;
  if (s.ok()) s = read_params(params, params_bytes, inner, has_weight, has_bias, false, eps, &p);
  qwasm::Buffer<float> y;
  if (s.ok()) s = qwasm::torch_cpu::layer_norm(at<float>(x), rows, inner, p, &y);
  return s.ok() ? float32_copy(y) : error_value(s);
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_norm_float) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_finstanceNorm", &finstance_norm);
  function("_fgroupNorm", &fgroup_norm);
  function("_flayerNorm", &flayer_norm);
}
