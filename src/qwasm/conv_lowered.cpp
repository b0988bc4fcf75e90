// Winograd along D for convolutions whose H and W Winograd cannot take, by an
// im2col along H and W (conv_lowered.h).
#include "qwasm/conv_lowered.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "qwasm/conv_winograd.h"
#include "qwasm/thread_pool.h"

namespace qwasm {
namespace conv_internal {

namespace {

// The lowered layer's input channels at most: the im2col makes its input
// Cin * kH * kW / (sH * sW) times the conv's (r3d_18's stem: 147 channels,
// 12x), so wider windows stay direct.
constexpr int64_t kMaxLoweredChannels = 1024;

}  // namespace

bool hw_lowered_geometry(const ConvGeometry& g, ConvGeometry* lowered) {
  if (g.spatial_dims != 3 || g.groups != 1) return false;
  if (g.kernel[0] != 3 || g.stride[0] != 1 || g.dilation[0] != 1) return false;
  int dims[3];
  if (winograd_dims(g, dims) != 0) return false;  // the Winograd path takes it as it is
  const int64_t window = g.kernel[1] * g.kernel[2];
  if (window < 2 || g.in_channels > kMaxLoweredChannels / window) return false;
  ConvGeometry l;
  l.in_channels = g.in_channels * window;
  l.out_channels = g.out_channels;
  l.kernel = {3, 1, 1};
  l.pad_begin = {g.pad_begin[0], 0, 0};
  l.pad_end = {g.pad_end[0], 0, 0};
  l.spatial_dims = 3;
  *lowered = l;
  return true;
}

Status pack_hw_lowered(const ConvGeometry& g, const QTensor& weight, const float* bias, int64_t bias_count,
                       ConvBackend backend, WinogradMode mode, std::unique_ptr<PackedQConv>* out) {
  out->reset();
  ConvGeometry l;
  // Only when asked for (winograd: true): the im2col costs memory, about
  // Cin * kH * kW / (sH * sW) times the input as uint8 and twice that as the
  // lowered layer's int16 buffer (r3d_18's stem: 24 MB per clip), for a
  // measured 1.1-1.2x on r3d_18's stem (docs/winograd.md).
  if (mode != WinogradMode::kOn || !hw_lowered_geometry(g, &l)) return Status::Ok();
  // w'[o][(c * kH + i) * kW + j][k] = w[o][c][k][i][j]
  const int64_t cin = g.in_channels, kh = g.kernel[1], kw = g.kernel[2], window = kh * kw;
  const size_t n = static_cast<size_t>(g.out_channels * cin * 3 * window);  // bounded: the weight exists
  std::vector<uint8_t> permuted(n);
  const uint8_t* w = weight.data();
  for (int64_t o = 0; o < g.out_channels; ++o)
    for (int64_t c = 0; c < cin; ++c)
      for (int64_t k = 0; k < 3; ++k)
        for (int64_t ij = 0; ij < window; ++ij)
          permuted[static_cast<size_t>((o * cin * window + c * window + ij) * 3 + k)] =
              w[static_cast<size_t>(((o * cin + c) * 3 + k) * window + ij)];
  const Shape shape = {g.out_channels, l.in_channels, 3, 1, 1};
  QTensor lowered_weight;
  if (weight.qscheme() == QScheme::kPerChannelAffine) {
    QWASM_RETURN_IF_ERROR(make_per_channel_quantized(permuted.data(), n, shape, weight.scales().data(),
                                                     weight.zero_points().data(), weight.scales().size(), 0, false,
                                                     DType::kQInt8, &lowered_weight));
  } else {
    QWASM_RETURN_IF_ERROR(make_per_tensor_quantized(permuted.data(), n, shape, weight.scales()[0],
                                                    weight.zero_points()[0], DType::kQInt8, &lowered_weight));
  }
  auto packed = std::make_unique<PackedQConv>();
  QWASM_RETURN_IF_ERROR(pack_qconv(l, lowered_weight, bias, bias_count, packed.get(), backend, mode));
  // Only a lowering on the Winograd path is worth its im2col.
  if (packed->winograd.nd == 1) *out = std::move(packed);
  return Status::Ok();
}

Shape hw_im2col_shape(const ConvGeometry& g, const Shape& input_shape, const Shape& out_shape) {
  return {input_shape[0], g.in_channels * g.kernel[1] * g.kernel[2], input_shape[2], out_shape[3], out_shape[4]};
}

Status hw_im2col(const ConvGeometry& g, const QTensor& input, int64_t ho_count, int64_t wo_count, QTensor* cols) {
  const Shape& in = input.shape();
  const int64_t batch = in[0], cin = in[1], depth = in[2], height = in[3], width = in[4];
  const int64_t kh = g.kernel[1], kw = g.kernel[2];
  const Shape shape = {batch, cin * kh * kw, depth, ho_count, wo_count};
  const double scale = input.q_scale(), zp = static_cast<double>(input.q_zero_point());
  QWASM_RETURN_IF_ERROR(make_qtensor(shape, DType::kQUInt8, QScheme::kPerTensorAffine, -1, &scale, &zp, 1, cols));
  const uint8_t pad = static_cast<uint8_t>(input.q_zero_point());
  const uint8_t* x = input.data();
  uint8_t* y = cols->mutable_data();
  // One task per output channel (c, i, j) of a batch item: its rows are
  // copies of input rows at stride sW, the padding's columns filled apart so
  // that the copy needs no test per element.
  const int64_t channels = batch * shape[1];
  parallel_for_ranges(
      channels, items_for_work(int64_t{1} << 16, depth * ho_count * wo_count), [&](int64_t b, int64_t e) {
        for (int64_t nc = b; nc < e; ++nc) {
          const int64_t n = nc / shape[1], channel = nc % shape[1];
          const int64_t c = channel / (kh * kw), i = channel / kw % kh, j = channel % kw;
          // The columns wo whose input column w = wo * sW + j * dW - pW lies in [0, width).
          const int64_t w0 = j * g.dilation[2] - g.pad_begin[2], sw = g.stride[2];
          const int64_t lo = std::min(wo_count, w0 >= 0 ? 0 : (-w0 + sw - 1) / sw);
          const int64_t hi = std::max(lo, std::min(wo_count, width - w0 > 0 ? (width - w0 + sw - 1) / sw : 0));
          for (int64_t d = 0; d < depth; ++d) {
            const uint8_t* plane = x + (((n * cin + c) * depth + d) * height) * width;
            uint8_t* rows = y + ((nc * depth + d) * ho_count) * wo_count;
            for (int64_t ho = 0; ho < ho_count; ++ho) {
              uint8_t* row = rows + ho * wo_count;
              const int64_t h = ho * g.stride[1] + i * g.dilation[1] - g.pad_begin[1];
              if (h < 0 || h >= height) {
                std::memset(row, pad, static_cast<size_t>(wo_count));
                continue;
              }
              const uint8_t* src = plane + h * width + w0;
              std::memset(row, pad, static_cast<size_t>(lo));
              for (int64_t wo = lo; wo < hi; ++wo) row[wo] = src[wo * sw];
              std::memset(row + hi, pad, static_cast<size_t>(wo_count - hi));
            }
          }
        }
      });
  return Status::Ok();
}

}  // namespace conv_internal
}  // namespace qwasm
