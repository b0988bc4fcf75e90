// QTensor: a quantized tensor, its integer storage and its qparams, and the
// operations that make one (quantize, or wrap integers quantized elsewhere)
// and read it back (dequantize). The arithmetic is PyTorch's (docs/numerics.md).
// Every entry point validates its arguments, computes every size in checked
// 64-bit arithmetic and reports a Status before it allocates anything.
//
// Storage and qparams are shared: a view (view_as) has its own shape over the
// same integers, like torch.Tensor.view.
//
// Storage is always in logical (row-major) order. strides() are the strides
// PyTorch's tensor would have (qwasm/memory_format.h): metadata that picks
// PyTorch's formula in ops whose rounding depends on the layout.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/dtype.h"
#include "qwasm/memory_format.h"
#include "qwasm/status.h"

namespace qwasm {

using Shape = std::vector<int64_t>;

// Scales and zero points: one entry per tensor, or one per channel.
struct QParams {
  Buffer<double> scales;       // as PyTorch keeps them (float32 values for float qparams)
  Buffer<double> zero_points;  // integers, or float32 values for float qparams
  Buffer<float> scales_f32;    // the same, rounded to float32, for the float kernels
  Buffer<float> zero_points_f32;
  // True when every scale is a float32 value (always so for scales made by
  // observers, and for float qparams): dequantizing may then multiply in float.
  bool scales_are_float32 = true;
};

class QTensor {
 public:
  DType dtype() const { return dtype_; }
  QScheme qscheme() const { return qscheme_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  // PyTorch's strides for this tensor (contiguous unless an op made it otherwise).
  const Strides& strides() const { return strides_; }
  // Ops set their outputs' strides as PyTorch's would be; one per dimension.
  void set_strides(Strides strides);

  // Per tensor only (scale as PyTorch keeps it: double; zero point integer).
  double q_scale() const { return qparams_->scales[0]; }
  int64_t q_zero_point() const { return static_cast<int64_t>(qparams_->zero_points[0]); }
  // Per channel only.
  int64_t axis() const { return axis_; }
  const Buffer<double>& scales() const { return qparams_->scales; }
  const Buffer<double>& zero_points() const { return qparams_->zero_points; }
  bool scales_are_float32() const { return qparams_->scales_are_float32; }
  const Buffer<float>& scales_f32() const { return qparams_->scales_f32; }
  const Buffer<float>& zero_points_f32() const { return qparams_->zero_points_f32; }

  // int_repr() storage: nbytes() bytes.
  const uint8_t* data() const { return storage_->data(); }
  uint8_t* mutable_data() { return storage_->data(); }
  size_t nbytes() const { return storage_->size(); }

 private:
  friend Status make_qtensor(const Shape&, DType, QScheme, int64_t, const double*, const double*, size_t, QTensor*);
  friend Status view_as(const QTensor&, const Shape&, int64_t, QTensor*);
  DType dtype_ = DType::kQUInt8;
  QScheme qscheme_ = QScheme::kPerTensorAffine;
  Shape shape_;
  Strides strides_;
  int64_t numel_ = 0;
  int64_t axis_ = -1;
  std::shared_ptr<const QParams> qparams_;
  std::shared_ptr<Buffer<uint8_t>> storage_;
};

// The strides of a new tensor of `shape` in x's suggested memory format: how
// most PyTorch ops allocate their outputs.
Strides strides_like(const QTensor& x, const Shape& shape);

// q with the strides of `format`, sharing storage and qparams:
// tensor.contiguous(memory_format=...), which returns q itself when it is
// already contiguous in that format. Channels-last needs rank 4 or 5.
Status as_memory_format(const QTensor& q, MemoryFormat format, QTensor* out);

// Validates shape, qparams and axis for the scheme, then allocates zeroed
// storage. scales / zero_points hold n entries (1 per tensor).
Status make_qtensor(const Shape& shape, DType dtype, QScheme scheme, int64_t axis, const double* scales,
                    const double* zero_points, size_t n, QTensor* out);

// A tensor sharing q's storage and qparams with another shape of the same
// element count. Per channel, `axis` names the channel dimension in the new
// shape, and the elements before and after it must group the same way, so
// that every element keeps its channel.
Status view_as(const QTensor& q, const Shape& shape, int64_t axis, QTensor* out);

// torch.quantize_per_tensor(x, scale, zero_point, dtype); x holds numel(shape) floats.
Status quantize_per_tensor(const float* x, const Shape& shape, double scale, double zero_point, DType dtype,
                           kernels::Isa isa, QTensor* out);

// torch.quantize_per_channel(x, scales, zero_points, axis, dtype). With
// float_zero_points the scheme is per_channel_affine_float_qparams and scales /
// zero points are taken as float32.
Status quantize_per_channel(const float* x, const Shape& shape, const double* scales, const double* zero_points,
                            size_t nchannels, int64_t axis, bool float_zero_points, DType dtype, kernels::Isa isa,
                            QTensor* out);

// torch._make_per_tensor_quantized_tensor / _make_per_channel_quantized_tensor:
// wraps integers quantized elsewhere (nbytes bytes laid out as int_repr()).
// The byte count is checked against the shape before anything is allocated.
Status make_per_tensor_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape, double scale,
                                 double zero_point, DType dtype, QTensor* out);
Status make_per_channel_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape, const double* scales,
                                  const double* zero_points, size_t nchannels, int64_t axis, bool float_zero_points,
                                  DType dtype, QTensor* out);

// Elements [begin, end) into y[0 .. end - begin): lets a caller stream a large
// tensor through a small cache-resident buffer. Fails only when scratch memory
// (quint4x2 unpacking) cannot be had.
Status dequantize_range(const QTensor& q, kernels::Isa isa, int64_t begin, int64_t end, float* y);
// y must hold numel floats.
Status dequantize(const QTensor& q, kernels::Isa isa, float* y);

// Rank <= kMaxRank, every dimension >= 0, numel <= kMaxNumel.
Status validate_shape(const Shape& shape, int64_t* numel);

}  // namespace qwasm
