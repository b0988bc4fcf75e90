// The generic linear interpolation kernel (interpolate_float.h). PyTorch
// recomputes the inner axes' interpolations for every output; each is the
// same float32 value wherever it is computed, so one pass per axis, the last
// axis first, gives the same bits: pass a interpolates axis a of
// [out_0 .. out_(a-1) at their input sizes, in_a, out_(a+1) ..].
#include "qwasm/interpolate_float.h"

#include <string>

#include "kernels/fma_f32.h"
#include "qwasm/checked_size.h"

namespace qwasm {
namespace torch_cpu {
namespace {

CheckedSize product(const std::vector<int64_t>& v, size_t from, size_t to) {
  CheckedSize p(1);
  for (size_t i = from; i < to; ++i) p *= CheckedSize(v[i]);
  return p;
}

}  // namespace

Status linear_generic(const float* x, int64_t planes, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      const LinearAxis* axes, Buffer<float>* y) {
  const size_t dims = in.size();
  if (dims < 1 || dims > 3 || out.size() != dims) {
    return Status::RangeError("linear interpolation takes 1 to 3 spatial dimensions, the same in and out");
  }
  if (planes < 0) return Status::RangeError("linear interpolation: a negative number of planes");
  for (size_t a = 0; a < dims; ++a) {
    if (in[a] < 1 || out[a] < 1) return Status::RangeError("linear interpolation: a spatial size below 1");
    for (int64_t o = 0; o < out[a]; ++o) {
      const int32_t i0 = axes[a].i0[o], i1 = axes[a].i1[o];
      if (i0 < 0 || i0 >= in[a] || i1 < 0 || i1 >= in[a]) {
        return Status::RangeError("linear interpolation: axis " + std::to_string(a) + "'s source index of output " +
                                  std::to_string(o) + " is outside 0.." + std::to_string(in[a] - 1));
      }
    }
  }
  const CheckedSize in_plane = product(in, 0, dims);
  const CheckedSize out_plane = product(out, 0, dims);
  const CheckedSize total = CheckedSize(planes) * out_plane;
  if (!in_plane.ok() || !total.ok() || !(CheckedSize(planes) * in_plane).ok()) {
    return Status::RangeError("linear interpolation: the element count overflows");
  }
  // Pass a (a >= 1) writes prod(in[0..a)) * out[a] * prod(out[a+1..]) floats into scratch slot a % 2.
  CheckedSize need[2] = {CheckedSize(0), CheckedSize(0)};
  for (size_t a = 1; a < dims; ++a) {
    const CheckedSize n = product(in, 0, a) * product(out, a, dims);
    if (!n.ok()) return Status::RangeError("linear interpolation: the element count overflows");
    if (n.value() > need[a % 2].value()) need[a % 2] = n;
  }
  Buffer<float> scratch[2];
  for (int s = 0; s < 2; ++s) {
    if (need[s].value() > 0) QWASM_RETURN_IF_ERROR(scratch[s].allocate(need[s], "the interpolation scratch", false));
  }
  QWASM_RETURN_IF_ERROR(y->allocate(total, "the interpolation output", false));
  std::vector<int64_t> sizes = in;
  for (int64_t p = 0; p < planes; ++p) {
    const float* from = x + p * in_plane.value();
    for (size_t a = dims; a-- > 0;) {
      const int64_t outer = product(sizes, 0, a).value();
      const int64_t inner = product(sizes, a + 1, dims).value();
      float* to = a == 0 ? y->data() + p * out_plane.value() : scratch[a % 2].data();
      const LinearAxis& ax = axes[a];
      for (int64_t u = 0; u < outer; ++u) {
        const int64_t base = u * sizes[a] * inner;
        for (int64_t o = 0; o < out[a]; ++o) {
          const float* t0 = from + base + ax.i0[o] * inner;
          const float* t1 = from + base + ax.i1[o] * inner;
          const float w0 = ax.l0[o], w1 = ax.l1[o];
          float* dst = to + (u * out[a] + o) * inner;
          for (int64_t v = 0; v < inner; ++v) dst[v] = kernels::fma_f32_fast(t0[v], w0, t1[v] * w1);
        }
      }
      sizes[a] = out[a];
      from = to;
    }
    sizes = in;
  }
  return Status::Ok();
}

}  // namespace torch_cpu
}  // namespace qwasm
