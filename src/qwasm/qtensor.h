// QTensor: a quantized tensor owning its integer storage and qparams, and the
// operations that make one (quantize, or wrap integers quantized elsewhere) and
// read it back (dequantize). All arithmetic is SPEC.md's; every entry point
// validates its arguments and reports a Status instead of asserting.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/quantize_kernels.h"
#include "qwasm/dtype.h"
#include "qwasm/status.h"

namespace qwasm {

using Shape = std::vector<int64_t>;

class QTensor {
 public:
  DType dtype() const { return dtype_; }
  QScheme qscheme() const { return qscheme_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return numel_; }

  // Per tensor only (scale as PyTorch keeps it: double; zero point integer).
  double q_scale() const { return scales_[0]; }
  int64_t q_zero_point() const { return static_cast<int64_t>(zero_points_[0]); }
  // Per channel only. Scales are float32 values for float qparams; zero points
  // are integers, or float32 values for float qparams.
  int64_t axis() const { return axis_; }
  const std::vector<double>& scales() const { return scales_; }
  const std::vector<double>& zero_points() const { return zero_points_; }
  // True when every scale is a float32 value (always so for scales made by
  // observers, and for float qparams): dequantizing may then multiply in float.
  bool scales_are_float32() const { return scales_are_float32_; }
  // The scales and zero points rounded to float32, for the float kernels.
  const std::vector<float>& scales_f32() const { return scales_f32_; }
  const std::vector<float>& zero_points_f32() const { return zero_points_f32_; }

  // int_repr() storage: storage_bytes(dtype, numel) bytes.
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }
  size_t nbytes() const { return storage_bytes(dtype_, static_cast<size_t>(numel_)); }

 private:
  friend Status make_qtensor(const Shape&, DType, QScheme, int64_t, std::vector<double>,
                             std::vector<double>, QTensor*);
  DType dtype_ = DType::kQUInt8;
  QScheme qscheme_ = QScheme::kPerTensorAffine;
  Shape shape_;
  int64_t numel_ = 0;
  int64_t axis_ = -1;
  std::vector<double> scales_;
  std::vector<double> zero_points_;
  bool scales_are_float32_ = true;
  std::vector<float> scales_f32_;
  std::vector<float> zero_points_f32_;
  std::vector<int32_t> words_;  // int32 words keep int32 storage aligned
};

// Validates shape, qparams and axis for the scheme, then allocates storage.
Status make_qtensor(const Shape& shape, DType dtype, QScheme scheme, int64_t axis,
                    std::vector<double> scales, std::vector<double> zero_points, QTensor* out);

// torch.quantize_per_tensor(x, scale, zero_point, dtype)
Status quantize_per_tensor(const float* x, const Shape& shape, double scale, double zero_point,
                           DType dtype, kernels::Isa isa, QTensor* out);

// torch.quantize_per_channel(x, scales, zero_points, axis, dtype). With
// float_zero_points the scheme is per_channel_affine_float_qparams and scales /
// zero points are taken as float32.
Status quantize_per_channel(const float* x, const Shape& shape, const double* scales,
                            const double* zero_points, size_t nchannels, int64_t axis,
                            bool float_zero_points, DType dtype, kernels::Isa isa, QTensor* out);

// torch._make_per_tensor_quantized_tensor / _make_per_channel_quantized_tensor:
// wraps integers quantized elsewhere (bytes laid out as int_repr()).
Status make_per_tensor_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape,
                                 double scale, double zero_point, DType dtype, QTensor* out);
Status make_per_channel_quantized(const uint8_t* bytes, size_t nbytes, const Shape& shape,
                                  const double* scales, const double* zero_points,
                                  size_t nchannels, int64_t axis, bool float_zero_points,
                                  DType dtype, QTensor* out);

// y must hold numel floats.
void dequantize(const QTensor& q, kernels::Isa isa, float* y);
// Elements [begin, end) only, into y[0 .. end - begin): lets a caller stream a
// large tensor through a small cache-resident buffer.
void dequantize_range(const QTensor& q, kernels::Isa isa, int64_t begin, int64_t end, float* y);

// Shape checks shared by every entry point.
Status validate_shape(const Shape& shape, int64_t* numel);

}  // namespace qwasm
