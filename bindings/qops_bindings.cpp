// Quantized element-wise ops: add, mul, their scalar forms, cat, and clamps.
// Tensors arrive as handles the JS layer read itself; numbers as doubles.
#include <vector>

#include "bindings/common.h"
#include "qwasm/qelementwise.h"

namespace qwasm_bind {
namespace {

val qadd(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu) {
  QWASM_BIND_ENTER();
  QTensor out;
  const Status s = qwasm::qadd(a, b, scale, zero_point, relu, &out);
  return result(s, std::move(out));
}

val qmul(const QTensor& a, const QTensor& b, double scale, double zero_point, bool relu) {
  QWASM_BIND_ENTER();
  QTensor out;
  const Status s = qwasm::qmul(a, b, scale, zero_point, relu, &out);
  return result(s, std::move(out));
}

val qadd_scalar(const QTensor& x, double c, bool relu) {
  QWASM_BIND_ENTER();
  QTensor out;
  const Status s = qwasm::qadd_scalar(x, c, relu, &out);
  return result(s, std::move(out));
}

val qmul_scalar(const QTensor& x, double c, bool relu) {
  QWASM_BIND_ENTER();
  QTensor out;
  const Status s = qwasm::qmul_scalar(x, c, relu, &out);
  return result(s, std::move(out));
}

// handles: a JS array of QTensor handles built by the JS layer.
val qcat(val handles, double dim, double scale, double zero_point) {
  QWASM_BIND_ENTER();
  const size_t n = handles["length"].as<size_t>();
  std::vector<QTensor> tensors;
  std::vector<const QTensor*> ptrs;
  tensors.reserve(n);
  for (size_t i = 0; i < n; ++i) tensors.push_back(handles[i].as<QTensor>());
  for (const QTensor& t : tensors) ptrs.push_back(&t);
  int64_t d = 0;
  Status s = to_int(dim, "dim", -qwasm::kMaxRank, qwasm::kMaxRank, &d);
  QTensor out;
  if (s.ok()) s = qwasm::qcat(ptrs, d, scale, zero_point, &out);
  return result(s, std::move(out));
}

val qclamp(const QTensor& x, bool has_lo, double lo, bool has_hi, double hi) {
  QWASM_BIND_ENTER();
  QTensor out;
  const Status s = qwasm::qclamp(x, has_lo, lo, has_hi, hi, &out);
  return result(s, std::move(out));
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_qops) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_qadd", &qadd);
  function("_qmul", &qmul);
  function("_qaddScalar", &qadd_scalar);
  function("_qmulScalar", &qmul_scalar);
  function("_qcat", &qcat);
  function("_qclamp", &qclamp);
}
