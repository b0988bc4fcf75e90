// HistogramObserver: one observe() step and the qparams. The running state
// lives in JS as one Float32Array block, [min, max, histogram...]; the core
// does every float operation on it.
#include <cmath>
#include <cstring>

#include "bindings/common.h"
#include "qwasm/buffer.h"
#include "qwasm/histogram_observer.h"
#include "qwasm/observer.h"

namespace qwasm_bind {
namespace {

Status read_bins(double bins, int64_t* out) { return to_int(bins, "bins", 1, qwasm::kMaxHistogramBins, out); }

// state: bins + 2 floats. Returns the new block (a Float32Array), or an error.
val histogram_observe(uintptr_t x, double nbytes, double bins, uintptr_t state) {
  QWASM_BIND_ENTER();
  int64_t b = 0;
  size_t n = 0;
  Status s = read_bins(bins, &b);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &n);
  qwasm::Buffer<float> block;
  if (s.ok()) s = block.allocate(qwasm::CheckedSize(b) + 2, "the histogram", false);
  if (!s.ok()) return error_value(s);
  std::memcpy(block.data(), at<float>(state), block.size() * 4);
  s = qwasm::histogram_observe(at<float>(x), n / 4, b, block.data() + 2, &block[0], &block[1]);
  if (!s.ok()) return error_value(s);
  return float32_copy(block);
}

// The qparams of a non-empty state block: the L2 search, then _calculate_qparams.
val histogram_qparams(uintptr_t state, double bins, double dtype, double qscheme, double quant_min, double quant_max,
                      bool customized, double eps) {
  QWASM_BIND_ENTER();
  int64_t b = 0;
  DType d;
  QScheme q;
  Status s = read_bins(bins, &b);
  if (s.ok()) s = to_dtype(dtype, &d);
  if (s.ok()) s = to_qscheme(qscheme, &q);
  if (!s.ok()) return error_value(s);
  // dst_nbins = 2 ** torch.iinfo(dtype).bits: the dtype's, whatever quantMin / quantMax.
  const int64_t dst_nbins = d == DType::kQInt32 ? (int64_t{1} << 32) : 256;
  const float* block = at<float>(state);
  float lo = 0, hi = 0;
  s = qwasm::histogram_search(block + 2, b, block[0], block[1], dst_nbins, &lo, &hi);
  float scale = 0;
  double zero_point = 0;
  const qwasm::ObserverRange r{static_cast<int64_t>(quant_min), static_cast<int64_t>(quant_max), customized};
  if (s.ok()) s = qwasm::calculate_qparams(&lo, &hi, 1, q, d, r, static_cast<float>(eps), &scale, &zero_point);
  if (!s.ok()) return error_value(s);
  val o = val::object();
  o.set("scale", static_cast<double>(scale));
  o.set("zeroPoint", zero_point);
  o.set("min", static_cast<double>(lo));
  o.set("max", static_cast<double>(hi));
  return o;
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_histogram) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_histogramObserve", &histogram_observe);
  function("_histogramQParams", &histogram_qparams);
}
