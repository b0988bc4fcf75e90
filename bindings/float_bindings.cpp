// PyTorch's float32 formulas for nn's float modules and a loaded graph
// (qwasm/torch_float.h): clamp (ReLU, ReLU6, Hardtanh), BatchNorm in eval mode
// and its folding into a conv or linear. Float arrays cross as heap addresses
// with their byte counts; a BatchNorm's parameters as one block
// [weight | bias | mean | var] (weight and bias ignored without affine).
#include "bindings/common.h"
#include "qwasm/torch_float.h"

namespace qwasm_bind {
namespace {

// A byte count of a block of float32s: its element count.
Status to_float_count(double nbytes, const char* name, size_t* out) {
  size_t bytes = 0;
  QWASM_RETURN_IF_ERROR(to_count(nbytes, name, &bytes));
  if (bytes % 4 != 0) return Status::RangeError(std::string(name) + " is not a whole number of float32s");
  *out = bytes / 4;
  return Status::Ok();
}

// The BatchNorm parameters block at `address`: 4 x channels floats.
Status read_stats(uintptr_t address, double nbytes, bool affine, double eps, qwasm::torch_cpu::BatchNormStats* bn) {
  size_t n = 0;
  QWASM_RETURN_IF_ERROR(to_float_count(nbytes, "the BatchNorm parameters", &n));
  if (n == 0 || n % 4 != 0) return Status::RangeError("the BatchNorm parameters must hold 4 x numFeatures floats");
  if (!std::isfinite(eps)) return Status::RangeError("eps must be a finite number, got " + qwasm::format_number(eps));
  const auto channels = static_cast<int64_t>(n / 4);
  const float* p = at<float>(address);
  bn->channels = channels;
  bn->weight = affine ? p : nullptr;
  bn->bias = affine ? p + channels : nullptr;
  bn->mean = p + 2 * channels;
  bn->var = p + 3 * channels;
  bn->eps = eps;
  return Status::Ok();
}

// Checks that nbytes holds exactly the floats of `shape`.
Status read_tensor(double nbytes, const val& shape, qwasm::Shape* dims) {
  size_t n = 0;
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(to_shape(shape, dims));
  QWASM_RETURN_IF_ERROR(to_float_count(nbytes, "x.data.byteLength", &n));
  QWASM_RETURN_IF_ERROR(qwasm::validate_shape(*dims, &numel));
  if (static_cast<int64_t>(n) != numel) return Status::RangeError("the data does not match the shape");
  return Status::Ok();
}

// clamp(x, lo, hi) of nbytes / 4 floats; an infinite bound is no bound.
val fclamp(uintptr_t x, double nbytes, double lo, double hi) {
  QWASM_BIND_ENTER();
  size_t n = 0;
  Status s = to_float_count(nbytes, "x.data.byteLength", &n);
  qwasm::Buffer<float> y;
  if (s.ok()) s = y.allocate(qwasm::CheckedSize(static_cast<int64_t>(n)), "the output", false);
  if (!s.ok()) return error_value(s);
  qwasm::torch_cpu::clamp(at<float>(x), n, static_cast<float>(lo), static_cast<float>(hi), y.data());
  return float32_copy(y);
}

val fbatch_norm(uintptr_t x, double nbytes, val shape, uintptr_t stats, double stats_bytes, bool affine, double eps) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims;
  qwasm::torch_cpu::BatchNormStats bn;
  Status s = read_tensor(nbytes, shape, &dims);
  if (s.ok()) s = read_stats(stats, stats_bytes, affine, eps, &bn);
  qwasm::Buffer<float> y;
  if (s.ok()) s = qwasm::torch_cpu::batch_norm_eval(at<float>(x), dims, bn, &y);
  return s.ok() ? float32_copy(y) : error_value(s);
}

// weight: the conv's or linear's weight of w_shape followed by its bias
// (w_shape[0] floats; zeros when it has none, as fusion.py uses).
val ffold_batch_norm(uintptr_t weight, double nbytes, val w_shape, uintptr_t stats, double stats_bytes, double eps,
                     bool linear) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims;
  qwasm::torch_cpu::BatchNormStats bn;
  size_t n = 0;
  int64_t numel = 0;
  Status s = to_shape(w_shape, &dims);
  if (s.ok()) s = to_float_count(nbytes, "the weight and bias", &n);
  if (s.ok()) s = qwasm::validate_shape(dims, &numel);
  if (s.ok() && (dims.empty() || static_cast<int64_t>(n) != numel + dims[0])) {
    s = Status::RangeError("the weight and bias do not match the weight's shape");
  }
  if (s.ok()) s = read_stats(stats, stats_bytes, true, eps, &bn);
  qwasm::Buffer<float> w, b;
  const float* p = at<float>(weight);
  if (s.ok()) s = qwasm::torch_cpu::fold_batch_norm(p, dims, p + numel, bn, linear, &w, &b);
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("weight", float32_copy(w));
  o.set("bias", float32_copy(b));
  return o;
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_float) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_fclamp", &fclamp);
  function("_fbatchNorm", &fbatch_norm);
  function("_ffoldBatchNorm", &ffold_batch_norm);
}
