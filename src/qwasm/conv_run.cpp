// Running convolutions and linear layers: the drivers around the micro-kernels.
// The dispatcher picks a kernel for the ISA (kernels/registry.cpp); its tile
// (mr, nr, kr) decides the walk and the packed layout read. Each call
// validates, sizes every buffer in checked arithmetic, allocates, converts the
// input once into the padded channels-last buffer, then walks tiles.
#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/conv_kernels.h"
#include "qwasm/conv.h"
#include "qwasm/conv_layout.h"
#include "qwasm/conv_lowered.h"
#include "qwasm/conv_requant.h"
#include "qwasm/conv_winograd.h"
#include "qwasm/thread_pool.h"

namespace qwasm {

using namespace conv_internal;

namespace {

constexpr size_t kMaxMR = 8;  // the drivers' pointer arrays

// The prologue qconv3d and qlinear share: the layer is of the entry point's
// kind, the input is quint8 per tensor, the output shape (a convolution's or
// a linear layer's) exists, and the output qparams are valid.
Status check_qcall(const PackedQConv& pw, const QTensor& input, double out_scale, int64_t out_zp, bool linear,
                   Shape* out_shape) {
  const ConvGeometry& g = pw.geometry;
  if (linear && g.spatial_dims != 0) return Status::Error("internal: a convolution runs through qconv3d");
  if (!linear && g.spatial_dims == 0) return Status::Error("internal: a linear layer runs through qlinear");
  if (input.dtype() != DType::kQUInt8 || input.qscheme() != QScheme::kPerTensorAffine) {
    return Status::TypeError(std::string("input must be a quint8 per_tensor_affine tensor, got ") +
                             dtype_name(input.dtype()) + " " + qscheme_name(input.qscheme()));
  }
  QWASM_RETURN_IF_ERROR(linear ? linear_output_shape(g, input.shape(), out_shape)
                               : conv_output_shape(g, input.shape(), out_shape));
  return validate_output_qparams(out_scale, out_zp);
}

const QConvLayout* packed_for(const PackedQConv& pw, size_t nr, size_t kr, Status* s) {
  const QConvLayout* l = pw.layout(nr, kr);
  if (!l) *s = Status::Error("internal: no weights packed for the kernel's tile");
  return l;
}

// The generic path's padded input: one batch item's padded planes, int16,
// + kr - 1 slack values (the last kblock of the last segment may read past the end).
CheckedSize generic_buffer_elements(const ConvGeometry& g, const Spatial& s, const kernels::QConvKernel& k) {
  return padded_buffer_elements(s, g.in_channels / g.groups, g.groups, static_cast<int64_t>(k.kr) - 1);
}

// The depthwise kernel of a packed conv: FBGEMM's pair-saturating one for a
// conv of its depthwise fast path under its backend, the exact one otherwise.
const kernels::QDwConvKernel* depthwise_kernel(const PackedQConv& pw, kernels::Isa isa) {
  return kernels::find_qdwconv(isa, pw.sat16 ? kernels::DwConvMode::kSat16 : kernels::DwConvMode::kExact);
}

// The depthwise kernel's channels per position (padded to its tile: the
// output channels, which a channel multiplier of 2 reads as duplicated input
// channels) and taps (padded to its tap group: the extra taps read tap 0 with
// zero weights).
int64_t depthwise_channels(const ConvGeometry& g, const kernels::QDwConvKernel& k) {
  return ceil_div(g.out_channels, static_cast<int64_t>(k.cr)) * static_cast<int64_t>(k.cr);
}
int64_t depthwise_taps(const ConvGeometry& g, const kernels::QDwConvKernel& k) {
  const int64_t ntaps = g.kernel[0] * g.kernel[1] * g.kernel[2];  // bounded: the weight exists
  const int64_t group = static_cast<int64_t>(std::max<size_t>(k.kr, 1));
  return ceil_div(ntaps, group) * group;
}

// The quantized input conversion for convolutions whose channels share one
// plane (groups == 1, and depthwise): batch item x (NCDHW quint8) into the
// padded channels-last buffer through the ISA's to_channels_last kernel, the
// (d, h) rows split among the threads. Padding stays zero.
void to_padded_channels_last_q(const kernels::ToChannelsLastKernel* k, const uint8_t* x, int64_t channels,
                               int64_t slots, int32_t zero_point, const ConvGeometry& g, const Spatial& s,
                               int16_t* planes) {
  for_each_padded_row(g, s, channels, slots, [&](int64_t dh, int64_t row_offset) {
    k->fn(static_cast<size_t>(channels), static_cast<size_t>(s.W), x + dh * s.W, static_cast<size_t>(s.D * s.H * s.W),
          zero_point, planes + row_offset, static_cast<size_t>(slots));
  });
}

// The generic driver, for the quantized and the float kernels. For each batch
// item, fill(n) puts its input into the padded channels-last planes at `base`;
// then tiles of up to mr output pixels by nr output channels are handed to
// tile(mr, nc, a, c, c_stride, group, block, first_output_channel). Outputs are
// NCDHW planes, or channels-last rows for a linear layer.
//
// Threads: a unit of work is one pixel tile of one group across a run of
// channel blocks (all of them, unless the pixel tiles are too few to share:
// a linear layer over a few rows). Units are grouped into tasks of at least
// ~128 K multiply-adds; the split depends only on the shapes, and each output
// value is computed by the same kernel call whatever thread runs it.
template <typename Buf, typename Out, typename Fill, typename Tile>
void for_each_tile(const ConvGeometry& g, const Reduction& r, const Spatial& s, int64_t batch, size_t mr_max, size_t nr,
                   const Buf* base, bool channels_last, Out* y, Fill fill, Tile tile) {
  assert(mr_max >= 1 && mr_max <= kMaxMR);
  const int64_t plane = s.padded_size() * r.cg;
  const int64_t out_size = s.out_size();
  const int64_t mr64 = static_cast<int64_t>(mr_max), nr64 = static_cast<int64_t>(nr);
  const int64_t ptiles = ceil_div(out_size, mr64);
  const int64_t tiles = g.groups * ptiles;
  // An empty batch, or a linear layer over zero rows: an empty output, as
  // PyTorch gives (and no division by the zero tiles below).
  if (batch == 0 || tiles == 0 || r.blocks == 0) return;
  constexpr int64_t kShareable = 64;  // fewer pixel tiles than this: split the channel blocks as well
  const int64_t bchunks = tiles >= kShareable ? 1 : std::min<int64_t>(r.blocks, ceil_div(kShareable, tiles));
  const int64_t blocks_per_unit = ceil_div(r.blocks, bchunks);
  const int64_t unit_macs = std::max<int64_t>(1, mr64 * nr64 * blocks_per_unit * r.nseg * r.seg_len);
  // NCDHW output: a task's pixels are a multiple of 64, so that two threads
  // never write the same cache line of an output plane.
  const int64_t align = !channels_last && bchunks == 1 ? std::max<int64_t>(1, 64 / mr64) : 1;
  const int64_t min_units = ceil_div(int64_t{1} << 17, unit_macs);
  for (int64_t n = 0; n < batch; ++n) {
    fill(n);
    parallel_for_ranges(
        tiles * bchunks, min_units,
        [&](int64_t unit_begin, int64_t unit_end) {
          const Buf* a[kMaxMR];
          Out* c[kMaxMR];
          for (int64_t unit = unit_begin; unit < unit_end; ++unit) {
            const int64_t grp = unit / (ptiles * bchunks);
            const int64_t p0 = (unit / bchunks) % ptiles * mr64;
            const int64_t b_begin = unit % bchunks * blocks_per_unit;
            const int64_t b_end = std::min(r.blocks, b_begin + blocks_per_unit);
            const Buf* planes = base + grp * plane;
            const size_t mr = static_cast<size_t>(std::min(mr64, out_size - p0));
            for (size_t m = 0; m < mr; ++m) a[m] = planes + pixel_offset(g, s, p0 + static_cast<int64_t>(m), r.cg);
            for (int64_t b = b_begin; b < b_end; ++b) {
              const int64_t oc0 = grp * r.og + b * nr64;
              const size_t nc = static_cast<size_t>(std::min(nr64, r.og - b * nr64));
              for (size_t m = 0; m < mr; ++m) {
                const int64_t p = p0 + static_cast<int64_t>(m);
                c[m] = channels_last ? y + (n * out_size + p) * g.out_channels + oc0
                                     : y + (n * g.out_channels + oc0) * out_size + p;
              }
              tile(mr, nc, a, c, channels_last ? 1 : static_cast<size_t>(out_size), grp, b, oc0);
            }
          }
        },
        align);
  }
}

// Shared by qconv3d and qlinear once the shapes are known: the generic path.
Status run_qgeneric(const QCall& call, const Spatial& s, int64_t batch, bool channels_last, QTensor* out,
                    ConvRunInfo* info) {
  const ConvGeometry& g = call.pw.geometry;
  const kernels::QConvKernel* k = kernels::find_qconv(call.isa);
  // A Winograd layer keeps no direct packing: a call that runs direct packs it.
  QConvLayout for_call;
  if (call.pw.winograd.nd > 0) QWASM_RETURN_IF_ERROR(pack_direct_for_call(call.pw, k->nr, k->kr, &for_call));
  Status st;
  const QConvLayout* layout = call.pw.winograd.nd > 0 ? &for_call : packed_for(call.pw, k->nr, k->kr, &st);
  if (!layout) return st;
  const Reduction r = reduction_of(g, static_cast<int64_t>(k->nr), static_cast<int64_t>(k->kr));
  Buffer<int16_t> buffer;
  QWASM_RETURN_IF_ERROR(buffer.allocate(generic_buffer_elements(g, s, *k), "the conv's padded input"));
  Buffer<ptrdiff_t> offsets;
  QWASM_RETURN_IF_ERROR(segment_offsets(g, r, s, &offsets));
  RequantConstants rc;
  QWASM_RETURN_IF_ERROR(make_qoutput(call, k->nr, out, &rc));
  if (info) {
    info->scratch_bytes = buffer.size() * 2 + rc.bytes() + offsets.size() * sizeof(ptrdiff_t) +
                          static_cast<size_t>(direct_for_call_bytes(call.pw, k->nr, k->kr).value());
    info->kernel = k->name;
  }
  const int32_t a_zp = static_cast<int32_t>(call.input.q_zero_point());
  auto centered = [a_zp](uint8_t v) { return static_cast<int16_t>(v - a_zp); };
  const kernels::ToChannelsLastKernel* to_cl = kernels::find_to_channels_last(call.isa);
  const uint8_t* x = call.input.data();
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  const size_t block_weights = static_cast<size_t>(r.nseg * r.kblocks) * k->kr * k->nr;
  for_each_tile(
      g, r, s, batch, k->mr, k->nr, buffer.data(), channels_last, out->mutable_data(),
      [&](int64_t n) {
        if (channels_last) {  // a linear layer's rows are channels-last already: no transpose, no padding
          parallel_for_ranges(in_item, 16384, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) buffer[i] = centered(x[i]);
          });
          return;
        }
        if (n > 0) buffer.fill(0);
        if (g.groups == 1) {
          to_padded_channels_last_q(to_cl, x + n * in_item, g.in_channels, r.cg, a_zp, g, s, buffer.data());
        } else {
          to_padded_channels_last(x + n * in_item, g.in_channels, r.cg, r.cg, g, s, buffer.data(), centered);
        }
      },
      [&](size_t mr, size_t nc, const int16_t* const* a, uint8_t* const* c, size_t c_stride, int64_t grp, int64_t b,
          int64_t oc0) {
        const kernels::ConvRequantParams tile_params = requant_at(rc, oc0);
        k->fn(mr, nc, static_cast<size_t>(r.nseg), static_cast<size_t>(r.kblocks), a, offsets.data(),
              layout->weights.data() + (grp * r.blocks + b) * block_weights, c, c_stride, &tile_params);
      });
  return Status::Ok();
}

Status run_qdepthwise(const QCall& call, const Spatial& s, QTensor* out, ConvRunInfo* info) {
  const ConvGeometry& g = call.pw.geometry;
  const bool sat16 = call.pw.sat16;
  const kernels::QDwConvKernel* k = depthwise_kernel(call.pw, call.isa);
  Status st;
  const QConvLayout* layout = packed_for(call.pw, k->cr, k->kr, &st);
  if (!layout) return st;
  const int64_t cpad = depthwise_channels(g, *k);
  Buffer<int16_t> buffer;
  QWASM_RETURN_IF_ERROR(buffer.allocate(padded_buffer_elements(s, cpad, 1, 0), "the conv's padded input"));
  Buffer<ptrdiff_t> taps;
  QWASM_RETURN_IF_ERROR(taps.allocate(depthwise_taps(g, *k), "the conv's tap offsets", false));
  RequantConstants rc;
  QWASM_RETURN_IF_ERROR(make_qoutput(call, k->cr, out, &rc));
  size_t t = 0;
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw)
        taps[t++] = static_cast<ptrdiff_t>(
            ((kd * g.dilation[0] * s.Hp + kh * g.dilation[1]) * s.Wp + kw * g.dilation[2]) * cpad);
  for (; t < taps.size(); ++t) taps[t] = taps[0];
  if (info) {
    info->scratch_bytes = buffer.size() * 2 + rc.bytes() + taps.size() * sizeof(ptrdiff_t);
    info->kernel = k->name;
  }
  const kernels::ConvRequantParams& params = rc.params;
  const QTensor& input = call.input;
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  const kernels::ToChannelsLastKernel* to_cl = kernels::find_to_channels_last(call.isa);
  const int64_t out_size = s.out_size();
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  // Threads: tasks of whole output pixels (all channels), ~64 K multiply-adds
  // or more, a multiple of 64 pixels: the output planes are bytes, and two
  // threads writing the same cache line of every plane would slow both.
  const int64_t ntaps = g.kernel[0] * g.kernel[1] * g.kernel[2];
  const int64_t min_pixels = ceil_div(int64_t{1} << 16, std::max<int64_t>(1, cpad * ntaps));
  // kSat16: the raw activations, padding = a_zp (FBGEMM pads with the zero
  // point), and the real tap count; kExact: x - a_zp, padding 0, whole tap groups.
  const int16_t pad_value = sat16 ? static_cast<int16_t>(a_zp) : 0;
  const size_t kernel_taps = sat16 ? static_cast<size_t>(ntaps) : taps.size();
  const ptrdiff_t pixel_step = static_cast<ptrdiff_t>(g.stride[2] * cpad);
  const bool duplicate = g.out_channels == 2 * g.in_channels;  // FBGEMM's channel multiplier 2 (sat16 only)
  assert(!duplicate || sat16);
  for (int64_t n = 0; n < input.shape()[0]; ++n) {
    if (n > 0 || pad_value != 0) buffer.fill(pad_value);
    const uint8_t* xn = input.data() + n * in_item;
    if (duplicate) {  // input channel c into slots 2c and 2c + 1, as FBGEMM duplicates each byte
      for_each_padded_row(g, s, g.in_channels, cpad, [&](int64_t dh, int64_t row_offset) {
        for (int64_t c = 0; c < g.in_channels; ++c) {
          const uint8_t* row = xn + (c * s.D * s.H + dh) * s.W;
          int16_t* dst = buffer.data() + row_offset + 2 * c;
          for (int64_t w = 0; w < s.W; ++w) dst[w * cpad] = dst[w * cpad + 1] = row[w];
        }
      });
    } else {
      to_padded_channels_last_q(to_cl, xn, g.in_channels, cpad, sat16 ? 0 : a_zp, g, s, buffer.data());
    }
    uint8_t* yn = out->mutable_data() + n * g.out_channels * out_size;
    parallel_for_ranges(
        out_size, min_pixels,
        [&](int64_t begin, int64_t end) {
          // One call per run of pixels along an output row (W): the kernel
          // steps stride_w positions per pixel.
          for (int64_t p = begin; p < end;) {
            const int64_t run = std::min(end, (p / s.Wo + 1) * s.Wo) - p;
            k->fn(static_cast<size_t>(cpad), static_cast<size_t>(g.out_channels), static_cast<size_t>(run), kernel_taps,
                  buffer.data() + pixel_offset(g, s, p, cpad), pixel_step, taps.data(), layout->weights.data(), yn + p,
                  static_cast<size_t>(out_size), &params);
            p += run;
          }
        },
        64);
  }
  return Status::Ok();
}

// The float generic path, for conv (channels_last false) and linear.
Status run_fgeneric(const PackedFConv& pw, const float* x, const Spatial& s, int64_t batch, bool channels_last,
                    bool relu, kernels::Isa isa, Buffer<float>* output, int64_t out_numel, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  const kernels::FConvKernel* k = kernels::find_fconv(isa);
  const FConvLayout* layout = pw.layout(k->nr);
  if (!layout) return Status::Error("internal: no weights packed for the kernel's tile");
  const Reduction r = reduction_of(g, static_cast<int64_t>(k->nr), 1);
  Buffer<float> buffer;
  if (!channels_last) {
    QWASM_RETURN_IF_ERROR(buffer.allocate(padded_buffer_elements(s, r.cg, g.groups, 0), "the conv's padded input"));
  }
  Buffer<ptrdiff_t> offsets;
  QWASM_RETURN_IF_ERROR(segment_offsets(g, r, s, &offsets));
  QWASM_RETURN_IF_ERROR(output->allocate(out_numel, "the conv's output"));
  if (info) {
    info->scratch_bytes = buffer.size() * 4 + offsets.size() * sizeof(ptrdiff_t);
    info->kernel = k->name;
  }
  // A linear layer reads its input where it is (channels-last rows, no padding).
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  const size_t block_weights = static_cast<size_t>(r.nseg * r.seg_len) * k->nr;
  for_each_tile(
      g, r, s, batch, k->mr, k->nr, channels_last ? x : buffer.data(), channels_last, output->data(),
      [&](int64_t n) {
        if (channels_last) return;
        if (n > 0) buffer.fill(0.0f);
        to_padded_channels_last(x + n * in_item, g.in_channels, r.cg, r.cg, g, s, buffer.data(),
                                [](float v) { return v; });
      },
      [&](size_t mr, size_t nc, const float* const* a, float* const* c, size_t c_stride, int64_t grp, int64_t b,
          int64_t oc0) {
        k->fn(mr, nc, static_cast<size_t>(r.nseg), static_cast<size_t>(r.seg_len), a, offsets.data(),
              layout->weights.data() + (grp * r.blocks + b) * block_weights, pw.bias.data() + oc0, c, c_stride, relu);
      });
  return Status::Ok();
}

// PyTorch's quantized convolutions return channels-last tensors; conv1d runs
// as a conv2d over [N, C, 1, L] and squeezes that dimension away, leaving
// strides [C * L, 1, C].
Strides conv_output_strides(const Shape& shape) {
  if (shape.size() != 3) return channels_last_strides(shape);
  return {shape[1] * shape[2], 1, shape[1]};
}

// Whether a call of a layer with a lowering runs it: its im2col is a tensor
// this build can hold (else the call runs direct), and the lowered layer takes
// the Winograd path for this input's zero point and shape.
bool lowered_applies(const PackedQConv& pw, const Shape& input_shape, const Shape& out_shape, int32_t a_zp) {
  const Shape cols = hw_im2col_shape(pw.geometry, input_shape, out_shape);
  int64_t numel = 0;
  if (!validate_shape(cols, &numel).ok()) return false;
  return winograd_tile(*pw.hw_lowered, a_zp, spatial_of(pw.hw_lowered->geometry, cols, out_shape)) != 0;
}

}  // namespace

Status qconv3d(const PackedQConv& pw, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info) {
  Shape out_shape;
  QWASM_RETURN_IF_ERROR(check_qcall(pw, input, out_scale, out_zp, /*linear=*/false, &out_shape));
  const QCall call{pw, input, std::move(out_shape), out_scale, out_zp, relu, isa};
  const Spatial s = spatial_of(pw.geometry, input.shape(), call.out_shape);
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  if (pw.depthwise) {
    QWASM_RETURN_IF_ERROR(run_qdepthwise(call, s, out, info));
  } else if (pw.hw_lowered && lowered_applies(pw, input.shape(), call.out_shape, a_zp)) {
    // A stem on Winograd along D: its im2col along H and W, run as the
    // lowered (3, 1, 1) layer (conv_lowered.h), which sets the output's strides.
    QTensor cols;
    QWASM_RETURN_IF_ERROR(hw_im2col(pw.geometry, input, call.out_shape[3], call.out_shape[4], &cols));
    QWASM_RETURN_IF_ERROR(qconv3d(*pw.hw_lowered, cols, out_scale, out_zp, relu, isa, out, info));
    if (info) info->scratch_bytes += cols.nbytes();
    return Status::Ok();
  } else if (winograd_tile(pw, a_zp, s) != 0) {
    QWASM_RETURN_IF_ERROR(run_qwinograd(call, s, out, info));
  } else {
    QWASM_RETURN_IF_ERROR(run_qgeneric(call, s, input.shape()[0], false, out, info));
  }
  out->set_strides(conv_output_strides(call.out_shape));
  return Status::Ok();
}

Status lower_conv_output(const QTensor& out5, int spatial_dims, QTensor* out) {
  assert(spatial_dims >= 1 && spatial_dims <= 3);
  const Shape& s5 = out5.shape();
  if (s5.size() != 5) return Status::Error("internal: a convolution output has rank 5");
  Shape shape = {s5[0], s5[1]};
  shape.insert(shape.end(), s5.end() - spatial_dims, s5.end());
  QWASM_RETURN_IF_ERROR(view_as(out5, shape, -1, out));
  // view_as gives a view's strides, which for size-1 dimensions are not the
  // ones PyTorch's freshly allocated (then squeezed) output has.
  out->set_strides(conv_output_strides(shape));
  return Status::Ok();
}

Status qlinear(const PackedQConv& pw, const QTensor& input, double out_scale, int64_t out_zp, bool relu,
               kernels::Isa isa, QTensor* out, ConvRunInfo* info) {
  Shape out_shape;
  QWASM_RETURN_IF_ERROR(check_qcall(pw, input, out_scale, out_zp, /*linear=*/true, &out_shape));
  const QCall call{pw, input, std::move(out_shape), out_scale, out_zp, relu, isa};
  const int64_t in_channels = pw.geometry.in_channels;
  const int64_t rows = in_channels ? input.numel() / in_channels : 0;
  return run_qgeneric(call, linear_spatial(rows), 1, true, out, info);
}

Status fconv3d(const PackedFConv& pw, const float* x, const Shape& input_shape, bool relu, kernels::Isa isa,
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  if (g.spatial_dims == 0) return Status::Error("internal: a linear layer runs through flinear");
  QWASM_RETURN_IF_ERROR(conv_output_shape(g, input_shape, output_shape));
  int64_t numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(*output_shape, &numel));
  return run_fgeneric(pw, x, spatial_of(g, input_shape, *output_shape), input_shape[0], false, relu, isa, output, numel,
                      info);
}

Status flinear(const PackedFConv& pw, const float* x, const Shape& input_shape, bool relu, kernels::Isa isa,
               Buffer<float>* output, Shape* output_shape, ConvRunInfo* info) {
  const ConvGeometry& g = pw.geometry;
  if (g.spatial_dims != 0) return Status::Error("internal: a convolution runs through fconv3d");
  QWASM_RETURN_IF_ERROR(linear_output_shape(g, input_shape, output_shape));
  int64_t in_numel = 0, numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(input_shape, &in_numel));
  QWASM_RETURN_IF_ERROR(validate_shape(*output_shape, &numel));
  const int64_t rows = in_numel / g.in_channels;
  return run_fgeneric(pw, x, linear_spatial(rows), 1, true, relu, isa, output, numel, info);
}

// The most memory a call allocates besides its input, output and weights,
// over both ISAs and both paths (Winograd's choice depends on the input's
// zero point), with Winograd's per-task buffers for every thread the pool
// may use: what io.loadModel's budget charges a conv node.
Status qconv_scratch_bound(const PackedQConv& pw, const Shape& input_shape, int64_t* bytes) {
  const ConvGeometry& g = pw.geometry;
  Shape out_shape;
  QWASM_RETURN_IF_ERROR(g.spatial_dims == 0 ? linear_output_shape(g, input_shape, &out_shape)
                                            : conv_output_shape(g, input_shape, &out_shape));
  int64_t in_numel = 0;
  QWASM_RETURN_IF_ERROR(validate_shape(input_shape, &in_numel));
  const Spatial s =
      g.spatial_dims == 0 ? linear_spatial(in_numel / g.in_channels) : spatial_of(g, input_shape, out_shape);
  CheckedSize most = 0;
  for (kernels::Isa isa : {kernels::Isa::kScalar, kernels::Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    CheckedSize b = 0;
    if (pw.depthwise) {
      const kernels::QDwConvKernel& k = *depthwise_kernel(pw, isa);
      b = padded_buffer_elements(s, depthwise_channels(g, k), 1, 0) * 2 +
          depthwise_taps(g, k) * static_cast<int64_t>(sizeof(ptrdiff_t)) + requant_constant_bytes(pw, k.cr);
    } else {
      const kernels::QConvKernel& k = *kernels::find_qconv(isa);
      const Reduction r = reduction_of(g, static_cast<int64_t>(k.nr), static_cast<int64_t>(k.kr));
      b = generic_buffer_elements(g, s, k) * 2 + r.nseg * static_cast<int64_t>(sizeof(ptrdiff_t)) +
          requant_constant_bytes(pw, k.nr) + direct_for_call_bytes(pw, k.nr, k.kr);
    }
    if (!b.ok()) return Status::RangeError("the conv's scratch memory would exceed 2^63 bytes");
    most = std::max(most.value(), b.value());
  }
  if (!pw.depthwise && g.spatial_dims != 0) {
    const CheckedSize w = winograd_scratch_bytes(pw, s, max_threads());
    if (!w.ok()) return Status::RangeError("the conv's scratch memory would exceed 2^63 bytes");
    most = std::max(most.value(), w.value());
  }
  const Shape cols = pw.hw_lowered ? hw_im2col_shape(g, input_shape, out_shape) : Shape();
  int64_t cols_numel = 0;
  // The im2col, and what the lowered layer allocates over it (a call whose
  // im2col this build cannot hold runs direct: lowered_applies).
  if (pw.hw_lowered && validate_shape(cols, &cols_numel).ok()) {
    int64_t lowered = 0;
    QWASM_RETURN_IF_ERROR(qconv_scratch_bound(*pw.hw_lowered, cols, &lowered));
    const CheckedSize b = CheckedSize(cols_numel) + lowered;
    if (!b.ok()) return Status::RangeError("the conv's scratch memory would exceed 2^63 bytes");
    most = std::max(most.value(), b.value());
  }
  *bytes = most.value();
  return Status::Ok();
}

Status fconv_scratch_bound(const PackedFConv& pw, const Shape& input_shape, int64_t* bytes) {
  const ConvGeometry& g = pw.geometry;
  *bytes = 0;
  Shape out_shape;
  if (g.spatial_dims == 0) return linear_output_shape(g, input_shape, &out_shape);  // reads its input in place
  QWASM_RETURN_IF_ERROR(conv_output_shape(g, input_shape, &out_shape));
  const Spatial s = spatial_of(g, input_shape, out_shape);
  CheckedSize most = 0;
  for (kernels::Isa isa : {kernels::Isa::kScalar, kernels::Isa::kWasmSimd}) {
    if (!kernels::isa_available(isa)) continue;
    const kernels::FConvKernel& k = *kernels::find_fconv(isa);
    const Reduction r = reduction_of(g, static_cast<int64_t>(k.nr), 1);
    const CheckedSize b = padded_buffer_elements(s, r.cg, g.groups, 0) * static_cast<int64_t>(sizeof(float)) +
                          r.nseg * static_cast<int64_t>(sizeof(ptrdiff_t));
    if (!b.ok()) return Status::RangeError("the conv's scratch memory would exceed 2^63 bytes");
    most = std::max(most.value(), b.value());
  }
  *bytes = most.value();
  return Status::Ok();
}

}  // namespace qwasm
