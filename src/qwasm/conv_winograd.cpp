// The exact integer Winograd path (conv_winograd.h). Per batch item: the input
// goes once into a padded channels-last int16 buffer (as on the direct path);
// then units of work, each a block of kTiles tiles by a chunk of kChunk output
// channels, run the input transform of their block (once per task and block),
// the GEMMs of every transform point, and the output transform +
// requantization into the NCDHW output. Each output byte is computed by the
// same kernel calls whatever the thread count.
#include "qwasm/conv_winograd.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "kernels/winograd_kernels.h"
#include "kernels/winograd_separable.h"
#include "qwasm/conv_requant.h"
#include "qwasm/thread_pool.h"

namespace qwasm {
namespace conv_internal {

namespace {

// Tiles per unit of work (a multiple of the GEMM's mr) and output channels per
// chunk (a multiple of its nr): the prototype's measured best
// (docs/winograd.md): a block's transformed input stays in L2 while every
// chunk's GEMMs stream it.
constexpr int64_t kTiles = 16;
constexpr int64_t kChunk = 64;

// kAuto's policy (measured on one thread against the direct path,
// docs/winograd.md "When it pays"). The GEMMs save work in proportion to
// Cin * Cout per tile; the transforms cost in proportion to Cin + Cout. So a
// layer pays when h = Cin * Cout / (Cin + Cout) is large enough: from h = 8
// with two or three 3-tap dimensions (16 -> 16 channels: 1.1-1.2x; 8 -> 8:
// 0.8x), from h = 40 with one (F(2, 3) saves at most 1.5x: 64 -> 64: 0.95x,
// 144 -> 64: 1.1-1.2x). Its transformed weights may take up to
// kAutoMaxBytes (r3d_18's largest layer: 32 MiB); every output size pays
// once the layer does (2 x 4 x 4 at 64 channels: 1.5x), so kAutoMinTiles
// only keeps single-tile calls direct.
constexpr int64_t kAutoMinHarmonic3d = 8;
constexpr int64_t kAutoMinHarmonic1d = 40;
constexpr int64_t kAutoMaxBytes = int64_t{64} << 20;
constexpr int64_t kAutoMinTiles = 2;

const int kG2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};

size_t points_of(size_t nd) { return size_t{1} << (2 * nd); }

// All the GEMM kernels of the registry share one tile: the weights are packed once.
const kernels::QGemmKernel& gemm_tile() { return *kernels::qgemm_kernels().begin(); }

int64_t input_block() {
  size_t cr = 1;
  for (const auto& k : kernels::wino_input_kernels()) cr = std::max(cr, k.cr);
  return static_cast<int64_t>(cr);
}

int64_t guard_limit(size_t nd) { return int64_t{1} << (31 - nd); }

// The number of tiles along each dimension, and the tile's output extent (2
// along a 3-tap dimension, 1 elsewhere).
struct TileGrid {
  int64_t extent[3], count[3];
  int64_t total() const { return count[0] * count[1] * count[2]; }
};

TileGrid tile_grid(const WinogradWeights& ww, const Spatial& s) {
  TileGrid t;
  const int64_t out[3] = {s.Do, s.Ho, s.Wo};
  for (int d = 0; d < 3; ++d) t.extent[d] = 1;
  for (size_t k = 0; k < ww.nd; ++k) t.extent[ww.dims[k]] = 2;
  for (int d = 0; d < 3; ++d) t.count[d] = ceil_div(out[d], t.extent[d]);
  return t;
}

// The policy of WinogradMode::kAuto at pack time, by channels and by the
// transformed weights' size (the constants above).
bool winograd_pays_for_layer(const ConvGeometry& g, size_t nd, int64_t transformed_bytes) {
  const int64_t h = g.in_channels * g.out_channels / (g.in_channels + g.out_channels);  // bounded: the weight exists
  return h >= (nd == 1 ? kAutoMinHarmonic1d : kAutoMinHarmonic3d) && transformed_bytes <= kAutoMaxBytes;
}

}  // namespace

size_t winograd_dims(const ConvGeometry& g, int* dims) {
  if (g.spatial_dims == 0 || g.groups != 1) return 0;
  size_t nd = 0;
  for (int d = 0; d < 3; ++d) {
    if (g.stride[d] != 1 || g.dilation[d] != 1) return 0;
    if (g.kernel[d] == 3) {
      dims[nd++] = d;
    } else if (g.kernel[d] != 1) {
      return 0;
    }
  }
  return nd;
}

Status pack_winograd(const ConvGeometry& g, const int8_t* w, const int32_t* zps, WinogradMode mode,
                     WinogradWeights* out) {
  *out = WinogradWeights();
  int dims[3] = {};
  const size_t nd = mode == WinogradMode::kOff ? 0 : winograd_dims(g, dims);
  if (nd == 0) return Status::Ok();
  const kernels::QGemmKernel& k = gemm_tile();
  for (const auto& other : kernels::qgemm_kernels()) {
    if (other.nr != k.nr || other.kr != k.kr) return Status::Error("internal: the GEMM kernels' tiles differ");
  }
  const int64_t nr = static_cast<int64_t>(k.nr), kr = static_cast<int64_t>(k.kr);
  const int64_t cinp = ceil_div(g.in_channels, input_block()) * input_block();
  assert(cinp % kr == 0);
  const int64_t P = static_cast<int64_t>(points_of(nd)), blocks = ceil_div(g.out_channels, nr), kblocks = cinp / kr;
  const CheckedSize elements = CheckedSize(P) * blocks * kblocks * nr * kr;
  const CheckedSize bytes = elements * 2;
  if (!bytes.ok()) return Status::Ok();  // larger than any buffer: the direct path it is
  if (mode == WinogradMode::kAuto && !winograd_pays_for_layer(g, nd, bytes.value())) return Status::Ok();
  // The guard's bound, and whether any input could pass it: the smallest
  // max(a_zp, 255 - a_zp) is 128.
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2], per_oc = g.in_channels * taps;
  int64_t abs_sum_max = 0;
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    int64_t sum = 0;
    for (int64_t i = 0; i < per_oc; ++i) sum += std::abs(w[oc * per_oc + i] - zps[oc]);
    abs_sum_max = std::max(abs_sum_max, sum);
  }
  if (abs_sum_max * 128 >= guard_limit(nd)) return Status::Ok();
  const Status allocated = out->weights.allocate(elements, "the Winograd weights");
  // Under 'auto' the transformed weights are an optimization: without the
  // memory for them the layer is still built, on the direct path.
  if (!allocated.ok()) return mode == WinogradMode::kAuto ? Status::Ok() : allocated;
  out->nd = nd;
  std::copy(dims, dims + 3, out->dims);
  out->nr = k.nr;
  out->kr = k.kr;
  out->cin_padded = cinp;
  out->abs_sum_max = abs_sum_max;
  // The taps of one (output, input) channel pair, outermost 3-tap dimension
  // first: the kernel's own order, the 1-tap dimensions dropping out.
  int16_t* U = out->weights.data();
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    for (int64_t ic = 0; ic < g.in_channels; ++ic) {
      int32_t x[64];
      const int8_t* src = w + (oc * g.in_channels + ic) * taps;
      for (int64_t t = 0; t < taps; ++t) x[t] = src[t] - zps[oc];
      size_t ext[3] = {3, 3, 3};
      for (size_t d = 0; d < nd; ++d) kernels::winograd_internal::apply_along(kG2, nd, ext, d, x);
      for (int64_t xi = 0; xi < P; ++xi) {
        assert(std::abs(x[xi]) <= 32767);  // |U| <= 27 * 255
        U[((xi * blocks + oc / nr) * kblocks + ic / kr) * nr * kr + (oc % nr) * kr + ic % kr] =
            static_cast<int16_t>(x[xi]);
      }
    }
  }
  return Status::Ok();
}

bool winograd_applies(const PackedQConv& pw, int32_t input_zero_point, const Spatial& s) {
  if (!winograd_guard_passes(pw, input_zero_point)) return false;
  return pw.winograd_mode == WinogradMode::kOn || tile_grid(pw.winograd, s).total() >= kAutoMinTiles;
}

namespace {

// What run_qwinograd allocates, sized once for the run and for the planner.
struct WinogradScratch {
  Spatial sx;  // the padded input, each 3-tap dimension extended to whole tiles
  int64_t cinp = 0, P = 0, chunk = 0, v_stride = 0;
  CheckedSize buffer_elems, v_elems, m_elems;
  // The per-task transformed input (int16) and GEMM results (int32).
  CheckedSize per_task_bytes() const { return v_elems * 2 + m_elems * 4; }
};

WinogradScratch winograd_scratch(const PackedQConv& pw, const Spatial& s) {
  const WinogradWeights& ww = pw.winograd;
  WinogradScratch w;
  w.cinp = ww.cin_padded;
  w.P = static_cast<int64_t>(points_of(ww.nd));
  const int64_t nr = static_cast<int64_t>(ww.nr);
  const int64_t blocks = ceil_div(pw.geometry.out_channels, nr);
  const TileGrid grid = tile_grid(ww, s);
  w.sx = s;
  int64_t* padded[3] = {&w.sx.Dp, &w.sx.Hp, &w.sx.Wp};
  for (size_t k = 0; k < ww.nd; ++k) *padded[ww.dims[k]] = 2 * grid.count[ww.dims[k]] + 2;
  w.buffer_elems = padded_buffer_elements(w.sx, w.cinp, 1, 0);
  w.chunk = std::min(kChunk, blocks * nr);
  w.v_stride = kTiles * w.cinp + 32;  // + 64 bytes: the points' rows do not share a few L1 sets
  w.v_elems = CheckedSize(w.P) * w.v_stride;
  w.m_elems = CheckedSize(kTiles) * w.P * w.chunk;
  return w;
}

}  // namespace

CheckedSize winograd_scratch_bytes(const PackedQConv& pw, const Spatial& s, size_t threads) {
  if (pw.winograd.nd == 0) return CheckedSize(0);
  const WinogradScratch w = winograd_scratch(pw, s);
  const int64_t constants = 3 * (ceil_div(pw.geometry.out_channels, static_cast<int64_t>(pw.winograd.nr)) + 1) *
                            static_cast<int64_t>(pw.winograd.nr) * static_cast<int64_t>(sizeof(float));
  return w.buffer_elems * 2 + w.per_task_bytes() * static_cast<int64_t>(threads) + constants;
}

Status run_qwinograd(const QCall& call, const Spatial& s, QTensor* out, ConvRunInfo* info) {
  const PackedQConv& pw = call.pw;
  const QTensor& input = call.input;
  const kernels::Isa isa = call.isa;
  const ConvGeometry& g = pw.geometry;
  const WinogradWeights& ww = pw.winograd;
  const size_t nd = ww.nd;
  assert(nd >= 1);
  const kernels::WinoInputKernel* kin = kernels::find_wino_input(isa);
  const kernels::QGemmKernel* kgemm = kernels::find_qgemm(isa);
  const kernels::WinoOutputKernel* kout = kernels::find_wino_output(isa);
  const kernels::ToChannelsLastKernel* to_cl = kernels::find_to_channels_last(isa);
  if (kgemm->nr != ww.nr || kgemm->kr != ww.kr)
    return Status::Error("internal: no Winograd weights for the GEMM's tile");
  const int64_t nr = static_cast<int64_t>(ww.nr), kr = static_cast<int64_t>(ww.kr);
  const int64_t blocks = ceil_div(g.out_channels, nr);
  const TileGrid grid = tile_grid(ww, s);
  // The padded input, each 3-tap dimension extended so that the last tile's
  // four taps exist (the extra positions are zeros, read only by outputs that
  // are not stored).
  const WinogradScratch ws = winograd_scratch(pw, s);
  const Spatial& sx = ws.sx;
  const int64_t cinp = ws.cinp, P = ws.P, kblocks = cinp / kr;
  Buffer<int16_t> buffer;
  QWASM_RETURN_IF_ERROR(buffer.allocate(ws.buffer_elems, "the conv's padded input"));
  RequantConstants rc;
  QWASM_RETURN_IF_ERROR(make_qoutput(call, ww.nr, out, &rc));

  const int64_t tiles = grid.total();
  const int64_t tblocks = ceil_div(tiles, kTiles);
  const int64_t chunk = ws.chunk, chunks = ceil_div(blocks * nr, chunk);
  const int64_t v_stride = ws.v_stride;
  const CheckedSize v_elems = ws.v_elems, m_elems = ws.m_elems;
  if (info) {
    const int64_t per_task = ws.per_task_bytes().value();
    info->scratch_bytes = buffer.size() * 2 + rc.bytes() + static_cast<size_t>(per_task) * num_threads();
    info->kernel = kgemm->name;
    info->winograd = true;
  }
  // The input tile's strides along the 3-tap dimensions, and where each
  // output of a tile lands relative to its first (both the same for every tile).
  const int64_t in_stride[3] = {sx.Hp * sx.Wp * cinp, sx.Wp * cinp, cinp};
  const int64_t out_stride[3] = {s.Ho * s.Wo, s.Wo, 1};
  const int64_t out_dims[3] = {s.Do, s.Ho, s.Wo};
  ptrdiff_t strides[3] = {}, out_offsets[8] = {};
  for (size_t k = 0; k < nd; ++k) strides[k] = static_cast<ptrdiff_t>(in_stride[ww.dims[k]]);
  const size_t outputs = size_t{1} << nd;
  for (size_t o = 0; o < outputs; ++o) {
    for (size_t k = 0; k < nd; ++k) {
      out_offsets[o] += static_cast<ptrdiff_t>((o >> (nd - 1 - k)) & 1) * out_stride[ww.dims[k]];
    }
  }
  const int64_t plane = s.out_size();
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  const int64_t in_item = g.in_channels * s.D * s.H * s.W;
  const int64_t unit_macs = kTiles * P * cinp * chunk;
  // With many tile blocks, tasks of whole blocks covering at least 64 output
  // positions along W (a cache line of every output plane's row): threads
  // writing neighbouring bytes of the same lines would slow each other down.
  // With few, tasks may split a block's channel chunks (other planes).
  const int64_t align = tblocks >= 16 ? ceil_div(64, kTiles * grid.extent[2]) * chunks : 1;
  const int16_t* U = ww.weights.data();
  double* phase_ms = info ? info->winograd_phase_ms : nullptr;
  std::mutex phase_lock;
  for (int64_t n = 0; n < input.shape()[0]; ++n) {
    if (n > 0) buffer.fill(0);
    for_each_padded_row(g, sx, g.in_channels, cinp, [&](int64_t dh, int64_t row_offset) {
      to_cl->fn(static_cast<size_t>(g.in_channels), static_cast<size_t>(s.W), input.data() + n * in_item + dh * s.W,
                static_cast<size_t>(s.D * s.H * s.W), a_zp, buffer.data() + row_offset, static_cast<size_t>(cinp));
    });
    uint8_t* yn = out->mutable_data() + n * g.out_channels * plane;
    QWASM_RETURN_IF_ERROR(parallel_for_ranges_status(
        tblocks * chunks, items_for_work(int64_t{1} << 22, unit_macs),
        [&](int64_t begin, int64_t end) -> Status {
          Buffer<int16_t> V;
          Buffer<int32_t> M;
          QWASM_RETURN_IF_ERROR(V.allocate(v_elems, "the Winograd transformed input", false));
          QWASM_RETURN_IF_ERROR(M.allocate(m_elems, "the Winograd products", false));
          int64_t transformed = -1;  // the tile block V holds
          double ms[3] = {};
          using Clock = std::chrono::steady_clock;
          Clock::time_point t_begin = phase_ms ? Clock::now() : Clock::time_point();
          auto lap = [&](int phase) {  // benchmarks only: time since the last lap to phase
            if (!phase_ms) return;
            const Clock::time_point now = Clock::now();
            ms[phase] += std::chrono::duration<double, std::milli>(now - t_begin).count();
            t_begin = now;
          };
          for (int64_t unit = begin; unit < end; ++unit) {
            const int64_t tb = unit / chunks, c0 = unit % chunks * chunk;
            const int64_t t0 = tb * kTiles, nt = std::min(kTiles, tiles - t0);
            const int64_t cc = std::min(chunk, blocks * nr - c0);
            int64_t origin[kTiles][3];
            for (int64_t t = 0; t < nt; ++t) {
              const int64_t tile = t0 + t;
              origin[t][2] = tile % grid.count[2] * grid.extent[2];
              origin[t][1] = tile / grid.count[2] % grid.count[1] * grid.extent[1];
              origin[t][0] = tile / (grid.count[2] * grid.count[1]) * grid.extent[0];
            }
            if (transformed != tb) {
              for (int64_t t = 0; t < nt; ++t) {
                const int64_t base = ((origin[t][0] * sx.Hp + origin[t][1]) * sx.Wp + origin[t][2]) * cinp;
                kin->fn(nd, static_cast<size_t>(cinp), buffer.data() + base, strides, V.data() + t * cinp,
                        static_cast<size_t>(v_stride));
              }
              transformed = tb;
              lap(0);
            }
            // M[t][xi][c] = sum over input channels of V[xi][t][.] * U[xi][.][c0 + c].
            for (int64_t xi = 0; xi < P; ++xi) {
              for (int64_t b = 0; b < cc / nr; ++b) {
                kgemm->fn(static_cast<size_t>(nt), static_cast<size_t>(kblocks), V.data() + xi * v_stride,
                          static_cast<size_t>(cinp), U + ((xi * blocks + c0 / nr + b) * kblocks) * nr * kr,
                          M.data() + xi * chunk + b * nr, static_cast<size_t>(P * chunk));
              }
            }
            lap(1);
            const int64_t nc = std::min(cc, g.out_channels - c0);
            const kernels::ConvRequantParams params = requant_at(rc, c0);
            for (int64_t t = 0; t < nt; ++t) {
              uint32_t valid = 0;
              bool full = true;
              for (size_t k = 0; k < nd; ++k) full = full && origin[t][ww.dims[k]] + 1 < out_dims[ww.dims[k]];
              for (size_t o = 0; o < (full ? 0 : outputs); ++o) {
                bool inside = true;
                for (size_t k = 0; k < nd; ++k) {
                  const int d = ww.dims[k];
                  inside = inside && origin[t][d] + static_cast<int64_t>((o >> (nd - 1 - k)) & 1) < out_dims[d];
                }
                valid |= static_cast<uint32_t>(inside) << o;
              }
              if (full) valid = (uint32_t{1} << outputs) - 1;
              uint8_t* y = yn + c0 * plane + (origin[t][0] * s.Ho + origin[t][1]) * s.Wo + origin[t][2];
              kout->fn(nd, static_cast<size_t>(nc), M.data() + t * P * chunk, static_cast<size_t>(chunk), y,
                       static_cast<size_t>(plane), out_offsets, valid, &params);
            }
            lap(2);
          }
          if (phase_ms) {
            const std::lock_guard<std::mutex> hold(phase_lock);
            for (int i = 0; i < 3; ++i) phase_ms[i] += ms[i];
          }
          return Status::Ok();
        },
        align));
  }
  return Status::Ok();
}

}  // namespace conv_internal

bool winograd_guard_passes(const PackedQConv& p, int32_t input_zero_point) {
  const size_t nd = p.winograd.nd;
  if (nd == 0) return false;
  const int64_t amax = std::max<int64_t>(input_zero_point, 255 - input_zero_point);
  if (amax > 255) return false;  // |a - a_zp| past 255 would not fit the transforms' int16
  return p.winograd.abs_sum_max * amax < conv_internal::guard_limit(nd);
}

}  // namespace qwasm
