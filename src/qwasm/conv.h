// Convolutions (with optional fused ReLU) and linear layers, quantized and
// float, in PyTorch's semantics: NCDHW input, weight [Cout, Cin / groups, kD,
// kH, kW], zero padding, general stride, dilation and groups. 1-D and 2-D
// convolutions are the same operation with unit dimensions; a linear layer is
// a GEMM over rows of channels-last input ([..., in] -> [..., out]) run by the
// same micro-kernels, one row per output pixel.
//
// Quantized arithmetic is FBGEMM's requantization (docs/numerics.md); the
// kernels and their packed layouts are described in kernels/conv_kernels.h.
// Weights are packed once (PackedQConv / PackedFConv), in the layout of every
// kernel tile this build lists; each forward call converts the input once into
// the padded channels-last buffer the kernels stream.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/isa.h"
#include "qwasm/buffer.h"
#include "qwasm/conv_types.h"  // ConvGeometry, ConvBackend
#include "qwasm/qtensor.h"
#include "qwasm/status.h"

namespace qwasm {

// Checks channel counts, groups, kernel, stride, dilation and padding: each at
// least its minimum and at most kMaxGeometryValue; unit values in the
// dimensions a lower-dimensional layer does not have.
Status validate_geometry(const ConvGeometry& g);

// The weight shape a module of g's kind takes: [Cout, Cin / groups, k...] with
// g.spatial_dims kernel entries ([Cout, Cin] for a linear layer).
Shape module_weight_shape(const ConvGeometry& g);

// Output shape for a 5-D input [N, Cin, D, H, W]; errors on wrong rank,
// channel mismatch, a kernel larger than the padded input, or an output too
// large for a tensor.
Status conv_output_shape(const ConvGeometry& g, const Shape& input, Shape* output);

// Output shape of a linear layer for an input [..., in]: [..., out].
Status linear_output_shape(const ConvGeometry& g, const Shape& input, Shape* output);

// The output qparams of a quantized layer: a scale that is a finite positive
// float32, a zero point in 0..255 (quint8).
Status validate_output_qparams(double scale, int64_t zero_point);

// torch.backends.quantized.engine: the two an x86 CPU has.
enum class QEngine : uint8_t { kFbgemm, kX86 };

// The backend PyTorch packs a quantized layer's weights for (qconv_prepack.cpp
// and qlinear_prepack.cpp under the x86 engine; OnednnUtils.h,
// should_use_onednn_quant): oneDNN for a convolution (not a linear layer)
// whose weight is symmetric (every zero point 0), with groups <= 100 (and no
// output padding, which qwasm's convolutions never have), on a CPU with
// AVX-512 VNNI, which qwasm takes as given; FBGEMM otherwise.
ConvBackend conv_backend_for(QEngine engine, const ConvGeometry& g, const QTensor& weight);

// Whether a layer may run on the exact integer Winograd path
// (docs/winograd.md): stride-1, groups-1 convolutions whose kernel is 3 or 1
// in each dimension (3x3x3, 1x3x3, 3x1x1, Conv2d 3x3, Conv1d 3), of any
// dilation (interleaved undilated tiles). Its accumulators are the direct
// path's, so every output byte is the same; a per-call guard keeps any input
// that could overflow them on the direct path. kAuto packs and takes it
// where it pays (measured: BENCHMARKS.md), kOn wherever the shape and the
// guard allow, kOff never.
enum class WinogradMode : uint8_t { kOff, kAuto, kOn };

// A Winograd layer's weights, kept as the int8 integers they are: the
// transformed weights U = G'^{(x)nd} (w - w_zp) (kernels/winograd_kernels.h)
// are 64/27 times as many int16 values in 3-D (4.7x the int8 bytes), so each
// call transforms them per block of output channels into scratch memory
// (docs/winograd.md "Memory"). Such a layer keeps no direct packing either:
// a call the Winograd path does not take packs it for that call.
// taps: [block of nr output channels][tap (3^nd, the kernel's order)][kblock
// of the padded input channels][nr][kr], the raw weights w; padding input
// channels hold their output channel's zero point (so w - w_zp = 0), padding
// output channels 0 (zero point 0).
struct WinogradWeights {
  size_t nd = 0;     // 3-tap dimensions; 0: not a Winograd layer
  int dims[3] = {};  // those dimensions (0 = D, 1 = H, 2 = W), outermost first
  size_t nr = 0, kr = 0;
  int64_t cin_padded = 0;   // input channels rounded up to the input transform's block
  int64_t abs_sum_max = 0;  // max over output channels of sum |w - w_zp|: the guard's bound
  Buffer<int8_t> taps;
};

// Weights packed for one kernel tile (kernels/conv_kernels.h).
struct QConvLayout {
  size_t nr = 0, kr = 0;  // generic kernels ([segment][kblock][nr][kr]); depthwise: nr = cr, kr = 0
  Buffer<int16_t> weights;
};

// Quantized weights, packed once: int16 (w - w_zp) in the layout of every
// kernel tile this build lists, the per-channel weight scales as float, and
// the float bias.
struct PackedQConv {
  ConvGeometry geometry;
  // The depthwise kernels: groups == Cin == Cout > 1, or a conv of FBGEMM's
  // depthwise fast path (sat16) with Cout == 2 x groups, whose input
  // channels the driver duplicates (as FBGEMM's kernel does).
  bool depthwise = false;
  // FBGEMM's backend on a conv of its depthwise fast path
  // (conv_internal::fbgemm_depthwise_fast_path): the kSat16 depthwise kernels,
  // whose layouts hold the raw weights (not w - w_zp), with per output
  // channel sum(w - w_zp) and, when some zero point is not 0, the zero points.
  bool sat16 = false;
  Buffer<int32_t> weight_sums, weight_zero_points;
  QConvLayout layouts[2];  // one per distinct tile of the family's kernels (none for a Winograd layer)
  size_t nlayouts = 0;
  Buffer<float> weight_scales;  // per output channel (float, as FBGEMM keeps them)
  Buffer<float> bias;           // per output channel, 0 when there is no bias
  bool has_bias = false;
  ConvBackend backend = ConvBackend::kFbgemm;
  // The weight's shape and qparams as given (double, as the QTensor kept
  // them): with the layouts (which hold w - zero point) they rebuild the
  // weight (unpack_qconv_weight), so no int8 copy is kept beside them.
  Shape weight_shape;
  QScheme weight_scheme = QScheme::kPerTensorAffine;
  Buffer<double> weight_qscales, weight_qzero_points;  // one per tensor, or one per output channel
  WinogradMode winograd_mode = WinogradMode::kAuto;
  WinogradWeights winograd;  // packed when the mode, the shape and the policy allow
  // A conv with 3 taps along D at stride 1 whose H and W Winograd cannot take
  // (a stem: 3x7x7, stride (1, 2, 2)): its lowering by an im2col along H and W
  // to a (3, 1, 1) conv over Cin * kH * kW channels, packed for Winograd
  // (conv_lowered.h), beside this layer's own direct packing; null otherwise.
  std::unique_ptr<PackedQConv> hw_lowered;
  size_t bytes() const;
  // The layout packed for a tile, or nullptr.
  const QConvLayout* layout(size_t nr, size_t kr) const;
};

// weight: qint8, per_tensor_affine or per_channel_affine on axis 0, of
// module_weight_shape(g) (or the same lifted to 5-D). bias: bias_count (= Cout)
// finite floats, or nullptr. The oneDNN backend takes symmetric weights (every
// zero point 0), as PyTorch routes only those to it.
// `winograd` decides whether the layer is packed for Winograd (int8 taps, no
// direct packing) or for the direct path only.
// `exact_sums`: never FBGEMM's int16 pair saturation (sat16), even on its
// depthwise fast path. A PT2E graph's reference (dequantize, float conv,
// quantize) sums exactly, so a conv of such a graph that takes FBGEMM's
// requantization (more than 100 groups, or asymmetric weights) keeps exact sums.
Status pack_qconv(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count, PackedQConv* out,
                  ConvBackend backend = ConvBackend::kFbgemm, WinogradMode winograd = WinogradMode::kAuto,
                  bool exact_sums = false);

// Bytes of a layer's Winograd weights (its int8 taps, or its lowering's; 0
// when neither is on the Winograd path).
inline size_t winograd_bytes(const PackedQConv& p) {
  return p.winograd.taps.size() + (p.hw_lowered ? winograd_bytes(*p.hw_lowered) : 0);
}

// Whether a call with this input zero point keeps every accumulator within
// the Winograd path's exact range: max_oc sum |w - w_zp| * max(a_zp, 255 -
// a_zp) < 2^(31 - nd). False when no Winograd weights are packed.
bool winograd_guard_passes(const PackedQConv& p, int32_t input_zero_point);

// The weight pack_qconv was given: a new qint8 QTensor with its shape,
// qscheme, qparams and integers (read back from the packed layout).
Status unpack_qconv_weight(const PackedQConv& packed, QTensor* out);

struct ConvRunInfo {
  size_t scratch_bytes = 0;  // extra memory of the call beyond input, output and weights
  const char* kernel = "";   // the micro-kernel that ran
  bool winograd = false;     // the Winograd path ran (kernel: its GEMM)
  // Its tile (kernels/winograd_kernels.h): 2 (F(2, 3)), 4 (F(4, 3) along the
  // innermost 3-tap dimension) or kWinogradF43Both (F(4, 3) along both of two).
  size_t winograd_tile = 0;
  // Benchmarks: when set, the Winograd path adds the ms its input transforms,
  // GEMMs and output transforms (+ requantization) took, summed over threads.
  double* winograd_phase_ms = nullptr;
};

// Convolution: input quint8, per-tensor, [N, Cin, D, H, W]. Output quint8 per
// tensor with (out_scale, out_zp); relu clamps at out_zp in the same pass.
Status qconv3d(const PackedQConv& w, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info = nullptr);

// A quantized Conv1d / Conv2d runs as qconv3d over [N, C, 1, (1,) L...]; this
// is its output as PyTorch returns it: [N, C, L] with strides [C * L, 1, C],
// or [N, C, H, W] channels-last, whatever the sizes (a view of out5's storage).
Status lower_conv_output(const QTensor& out5, int spatial_dims, QTensor* out);

// Linear layer (geometry.spatial_dims == 0): input quint8 per tensor [..., in],
// output [..., out].
Status qlinear(const PackedQConv& w, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info = nullptr);

// The most memory qconv3d / qlinear allocate besides input, output and
// weights for an input of this shape, over every ISA and path and the pool's
// threads: the model loader's budget charges it (web/src/model/plan.mjs).
Status qconv_scratch_bound(const PackedQConv& w, const Shape& input_shape, int64_t* bytes);

// Float weights packed for the float kernels' tiles.
struct FConvLayout {
  size_t nr = 0;
  Buffer<float> weights;  // [group][block of nr][segment][k][nr]
};

struct PackedFConv {
  ConvGeometry geometry;
  FConvLayout layouts[2];
  size_t nlayouts = 0;
  Buffer<float> bias;  // Cout + 16 entries (0 without bias)
  const FConvLayout* layout(size_t nr) const;
};

// weight: weight_count floats laid out [Cout, Cin / groups, kD, kH, kW];
// bias: bias_count (= Cout) floats, or nullptr. All finite.
Status pack_fconv(const ConvGeometry& g, const float* weight, int64_t weight_count, const float* bias,
                  int64_t bias_count, PackedFConv* out);

// Float conv (+ ReLU): y = relu(conv3d(x, w, b)) for a 5-D input; output is
// allocated here with the output shape's element count.
Status fconv3d(const PackedFConv& w, const float* input, const Shape& input_shape, bool relu, kernels::Isa isa,
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info = nullptr);

// The same bound for fconv3d / flinear (a linear layer reads its input in place: 0).
Status fconv_scratch_bound(const PackedFConv& w, const Shape& input_shape, int64_t* bytes);

// Float linear layer (spatial_dims == 0): [..., in] -> [..., out].
Status flinear(const PackedFConv& w, const float* input, const Shape& input_shape, bool relu, kernels::Isa isa,
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info = nullptr);

}  // namespace qwasm
