// libFuzzer: quantize / dequantize with any shape, dtype, scheme, axis,
// qparams and float bits (NaN, Inf, denormals) either fail with a Status or
// give exactly the naive reference's bytes and floats. Run with scripts/fuzz.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "qwasm/qtensor.h"
#include "reference/quantize_ref.h"

using namespace qwasm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qwasm_fuzz::Input in(data, size);
  const int rank = static_cast<int>(in.range(0, 4));
  Shape shape;
  for (int d = 0; d < rank; ++d) shape.push_back(in.range(0, 6));
  const DType dtype = static_cast<DType>(in.range(0, 3));
  const int scheme = static_cast<int>(in.range(0, 2));  // per tensor, per channel, float qparams
  const int64_t axis = in.range(-1, 4);
  auto raw_double = [&]() {
    uint8_t b[8];
    for (auto& v : b) v = in.byte();
    double d;
    std::memcpy(&d, b, 8);
    return d;
  };
  auto pick_scale = [&]() { return in.flag() ? raw_double() : 0.001 * (1 + in.byte()); };
  auto pick_zp = [&]() { return in.flag() ? raw_double() : static_cast<double>(static_cast<int8_t>(in.byte())) + 100; };
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  std::vector<float> x(static_cast<size_t>(numel));
  for (auto& v : x) {
    uint8_t b[4] = {in.byte(), in.byte(), in.byte(), in.byte()};
    std::memcpy(&v, b, 4);
  }
  QTensor q;
  Status s;
  const kernels::Isa isa = kernels::Isa::kScalar;
  if (scheme == 0) {
    s = quantize_per_tensor(x.data(), shape, pick_scale(), pick_zp(), dtype, isa, &q);
  } else {
    const size_t n = (axis >= 0 && axis < rank) ? static_cast<size_t>(shape[axis]) : in.range(0, 3);
    std::vector<double> scales(n), zps(n);
    for (size_t c = 0; c < n; ++c) scales[c] = pick_scale(), zps[c] = pick_zp();
    s = quantize_per_channel(x.data(), shape, scales.data(), zps.data(), n, axis, scheme == 2, dtype, isa, &q);
  }
  if (!s.ok()) {
    if (s.message.empty()) abort();  // every refusal says why
    return 0;
  }
  const ref::QParamsView qp{q.qscheme(), q.axis(), q.scales().data(), q.zero_points().data()};
  std::vector<uint8_t> expected(q.nbytes());
  ref::quantize(x.data(), shape, qp, dtype, expected.data());
  if (!expected.empty() && std::memcmp(expected.data(), q.data(), expected.size()) != 0) abort();
  std::vector<float> y(static_cast<size_t>(numel)), y_ref(static_cast<size_t>(numel));
  if (!dequantize(q, isa, y.data()).ok()) abort();
  ref::dequantize(q.data(), shape, qp, dtype, y_ref.data());
  if (!y.empty() && std::memcmp(y.data(), y_ref.data(), y.size() * sizeof(float)) != 0) abort();
  return 0;
}
