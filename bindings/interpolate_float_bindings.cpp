// linear / bilinear / trilinear interpolation by PyTorch's generic kernel
// (qwasm/interpolate_float.h). x crosses as a heap address with its byte
// count and its shape [N, C, *in]; the output sizes as an array; the axes'
// tables as one block holding, axis after axis, out[a] int32 i0, out[a]
// int32 i1, out[a] float l0, out[a] float l1. Every size is checked against
// the bytes here, and every index by the core, before anything is allocated.
#include "bindings/common.h"
#include "qwasm/checked_size.h"
#include "qwasm/interpolate_float.h"

namespace qwasm_bind {
namespace {

using qwasm::CheckedSize;
using qwasm::torch_cpu::LinearAxis;

val flinear_interpolate(uintptr_t x, double nbytes, val shape, val out_size, uintptr_t axes_address,
                        double axes_bytes) {
  QWASM_BIND_ENTER();
  qwasm::Shape dims, out;
  size_t bytes = 0, table_bytes = 0;
  Status s = to_shape(shape, &dims);
  if (s.ok()) s = to_shape(out_size, &out);
  if (s.ok()) s = to_count(nbytes, "x.data.byteLength", &bytes);
  if (s.ok()) s = to_count(axes_bytes, "the axes' byteLength", &table_bytes);
  if (s.ok() && (dims.size() < 3 || dims.size() > 5 || out.size() != dims.size() - 2)) {
    s = Status::RangeError(
        "linear interpolation takes an input [N, C, *] of 1 to 3 spatial dimensions and as many sizes");
  }
  int64_t numel = 0;
  if (s.ok()) s = qwasm::validate_shape(dims, &numel);
  if (s.ok() && static_cast<uint64_t>(numel) * 4 != bytes) s = Status::RangeError("the data does not match the shape");
  CheckedSize entries(0);
  for (size_t a = 0; s.ok() && a < out.size(); ++a) entries += CheckedSize(out[a]);
  if (s.ok() && !(entries * CheckedSize(16)).ok()) s = Status::RangeError("the output sizes overflow");
  if (s.ok() && static_cast<uint64_t>((entries * CheckedSize(16)).value()) != table_bytes) {
    s = Status::RangeError("the axes' tables must hold 16 bytes per output position");
  }
  qwasm::Buffer<float> y;
  if (s.ok()) {
    const qwasm::Shape in(dims.begin() + 2, dims.end());
    LinearAxis axes[3];
    const uint8_t* p = at<uint8_t>(axes_address);
    for (size_t a = 0; a < out.size(); ++a) {
      const size_t n = static_cast<size_t>(out[a]);
      axes[a].i0 = reinterpret_cast<const int32_t*>(p);
      axes[a].i1 = reinterpret_cast<const int32_t*>(p + 4 * n);
      axes[a].l0 = reinterpret_cast<const float*>(p + 8 * n);
      axes[a].l1 = reinterpret_cast<const float*>(p + 12 * n);
      p += 16 * n;
    }
    const int64_t planes = dims[0] * dims[1];  // <= numel, or 0
    s = qwasm::torch_cpu::linear_generic(at<float>(x), planes, in, out, axes, &y);
  }
  return s.ok() ? float32_copy(y) : error_value(s);
}

}  // namespace
}  // namespace qwasm_bind

EMSCRIPTEN_BINDINGS(qwasm_interpolate_float) {
  using namespace emscripten;
  using namespace qwasm_bind;
  function("_flinearInterpolate", &flinear_interpolate);
}
