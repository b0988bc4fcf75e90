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
// A call transforms the weights of a pass of whole chunks at a time into
// scratch memory, as many chunks as fit in this many bytes (at least one).
// r3d_18's layer4 (512 -> 512, 3x3x3: 4 MiB per chunk) runs in 4 passes,
// each transforming its 16 tiles' input again (a few percent of the GEMMs);
// layers of up to 256 channels in 3-D run in one.
constexpr int64_t kPassBytes = int64_t{8} << 20;
// A layer of several passes keeps every tile block's transformed input for
// the call while it takes at most this many bytes (r3d_18's layer4: 1 MiB).
constexpr int64_t kVCacheBytes = int64_t{4} << 20;

// kAuto's policy (measured on one thread against the direct path,
// docs/winograd.md "When it pays"). The GEMMs save work in proportion to
// Cin * Cout per tile; the transforms cost in proportion to Cin + Cout. So a
// layer pays when h = Cin * Cout / (Cin + Cout) is large enough: from h = 8
// with two or three 3-tap dimensions (16 -> 16 channels: 1.1-1.2x; 8 -> 8:
// 0.8x), and with one on F(4, 3) (16 -> 16: 1.4x, 45 -> 64: 1.5x); from h = 40
// with one on F(2, 3), which saves at most 1.5x (64 -> 64: 0.95x, 144 -> 64:
// 1.1-1.2x): a 1-D layer whose weights F(4, 3)'s guard could never take, or a
// call that runs F(2, 3) (a short output), stays direct below it. Its
// transformed weights may take up to kAutoMaxBytes (r3d_18's largest layer:
// 32 MiB); every output size pays once the layer does (2 x 4 x 4 at 64
// channels: 1.5x), so kAutoMinTiles only keeps single-tile calls direct.
constexpr int64_t kAutoMinHarmonic = 8;
constexpr int64_t kAutoMinHarmonicF23In1d = 40;
constexpr int64_t kAutoMaxBytes = int64_t{64} << 20;
constexpr int64_t kAutoMinTiles = 2;
// A dilated layer's tiles may overhang the output by up to the dilation per
// 3-tap dimension; past this ratio of computed to stored outputs it stays direct.
constexpr double kAutoMaxDilatedWaste = 1.25;

// All the GEMM kernels of the registry share one tile: the weights are packed once.
const kernels::QGemmKernel& gemm_tile() { return *kernels::qgemm_kernels().begin(); }

int64_t input_block() {
  size_t cr = 1;
  for (const auto& k : kernels::wino_input_kernels()) cr = std::max(cr, k.cr);
  return static_cast<int64_t>(cr);
}

// The guard's limit on |acc| for the tile m (kernels/winograd_kernels.h):
// F(2, 3) divides 2^nd * acc by a shift, F(4, 3) (innermost) recovers acc
// from 3 * 2^(nd + 2) * acc mod 2^32, exact below 2^(29 - nd), and F(4, 3)
// on both dimensions from 9 * 2^6 * acc, exact below 2^25.
int64_t guard_limit(size_t m, size_t nd) {
  return int64_t{1} << (m == 2 ? 31 - nd : m == kernels::kWinogradF43Both ? 25 : 29 - nd);
}

// Whether the tile m can run a layer of nd active dimensions.
bool tile_fits(size_t m, size_t nd) { return m != kernels::kWinogradF43Both || nd == 2; }

bool guard_passes(const PackedQConv& p, int32_t input_zero_point, size_t m) {
  const int64_t amax = std::max<int64_t>(input_zero_point, 255 - input_zero_point);
  if (amax > 255) return false;  // |a - a_zp| past 255 would not fit the transforms' int16
  return p.winograd.abs_sum_max * amax < guard_limit(m, p.winograd.nd);
}

// The tiles along each dimension. A tile holds `extent` outputs (its tile
// along a 3-tap dimension, winograd_dim_tile: 2 or 4; 1 elsewhere) `step`
// apart (the dilation along a 3-tap dimension, 1 elsewhere). A dilation-d
// dimension is d interleaved undilated ones: outputs o = d * q + phi read
// only inputs of phase phi, so a tile holds outputs q to q + extent - 1 of one
// phase, o, o + d, ..., and its taps are d apart. Along a dimension, tile j
// starts at (j / step) * extent * step + j % step: the phases' tiles
// interleave, so that a block of neighbouring tiles reads and writes
// neighbouring positions as in the undilated case. Every output is in exactly
// one tile (as its i-th output when o mod (extent * d) = i * d + phi); the
// tiles are those whose first output exists.
struct TileGrid {
  int64_t extent[3], step[3], count[3];
  int64_t total() const { return count[0] * count[1] * count[2]; }
  int64_t origin(int d, int64_t j) const { return j / step[d] * extent[d] * step[d] + j % step[d]; }
};

TileGrid tile_grid(const PackedQConv& pw, const Spatial& s, size_t m) {
  const WinogradWeights& ww = pw.winograd;
  TileGrid t;
  const int64_t out[3] = {s.Do, s.Ho, s.Wo};
  for (int d = 0; d < 3; ++d) t.extent[d] = t.step[d] = 1;
  for (size_t k = 0; k < ww.nd; ++k) {
    t.extent[ww.dims[k]] = static_cast<int64_t>(kernels::winograd_dim_tile(m, ww.nd, k));
    t.step[ww.dims[k]] = pw.geometry.dilation[ww.dims[k]];
  }
  for (int d = 0; d < 3; ++d) {
    const int64_t span = t.extent[d] * t.step[d];  // one tile per phase
    const int64_t whole = out[d] / span;
    t.count[d] = whole * t.step[d] + std::min(out[d] - whole * span, t.step[d]);
  }
  return t;
}

// Output slots the tiles compute over the outputs they store, as a fraction
// (>= 1): partial tiles at the far edges, up to (extent - 1) * step slots per 3-tap dimension.
double tile_waste(const TileGrid& t, const Spatial& s) {
  const double slots = static_cast<double>(t.total()) * static_cast<double>(t.extent[0] * t.extent[1] * t.extent[2]);
  return s.out_size() > 0 ? slots / static_cast<double>(s.out_size()) : 1.0;
}

// h = Cin * Cout / (Cin + Cout), kAuto's measure of what a layer's GEMMs save.
int64_t harmonic_channels(const ConvGeometry& g) {
  return g.in_channels * g.out_channels / (g.in_channels + g.out_channels);  // bounded: the weight exists
}

// The policy of WinogradMode::kAuto at pack time, by channels (f43: a layer
// with one 3-tap dimension whose weights F(4, 3)'s guard takes for some zero
// point) and by the transformed weights' size (the constants above).
bool winograd_pays_for_layer(const ConvGeometry& g, size_t nd, bool f43, int64_t transformed_bytes) {
  const int64_t least = nd == 1 && !f43 ? kAutoMinHarmonicF23In1d : kAutoMinHarmonic;
  return harmonic_channels(g) >= least && transformed_bytes <= kAutoMaxBytes;
}

}  // namespace

size_t winograd_dims(const ConvGeometry& g, int* dims) {
  if (g.spatial_dims == 0 || g.groups != 1) return 0;
  size_t nd = 0;
  for (int d = 0; d < 3; ++d) {
    // Any dilation: a dilated 3-tap dimension runs as interleaved undilated
    // ones (TileGrid), the same products in the same integer sums.
    if (g.stride[d] != 1 || g.dilation[d] < 1) return 0;
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
  // Sized by F(2, 3)'s points (F(4, 3), chosen per call, transforms a pass at a time too).
  const int64_t P = static_cast<int64_t>(kernels::winograd_points(2, nd)), blocks = ceil_div(g.out_channels, nr),
                kblocks = cinp / kr;
  // The transformed weights' size (what a call's passes transform, and
  // kAuto's cap on a layer).
  const CheckedSize bytes = CheckedSize(P) * blocks * kblocks * nr * kr * 2;
  if (!bytes.ok()) return Status::Ok();  // larger than any buffer: the direct path it is
  // The guard's bound, and whether any input could pass it: the smallest
  // max(a_zp, 255 - a_zp) is 128.
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2], per_oc = g.in_channels * taps;
  int64_t abs_sum_max = 0;
  for (int64_t oc = 0; oc < g.out_channels; ++oc) {
    int64_t sum = 0;
    for (int64_t i = 0; i < per_oc; ++i) sum += std::abs(w[oc * per_oc + i] - zps[oc]);
    abs_sum_max = std::max(abs_sum_max, sum);
  }
  if (abs_sum_max * 128 >= guard_limit(2, nd)) return Status::Ok();
  const bool f43 = nd == 1 && abs_sum_max * 128 < guard_limit(4, nd);
  if (mode == WinogradMode::kAuto && !winograd_pays_for_layer(g, nd, f43, bytes.value())) return Status::Ok();
  const CheckedSize tap_bytes = CheckedSize(blocks) * nr * taps * cinp;
  const Status allocated = out->taps.allocate(tap_bytes, "the Winograd weights", false);
  // Under 'auto' Winograd is an optimization: without the memory for its
  // weights the layer is still built, on the direct path.
  if (!allocated.ok()) return mode == WinogradMode::kAuto ? Status::Ok() : allocated;
  out->nd = nd;
  std::copy(dims, dims + 3, out->dims);
  out->nr = k.nr;
  out->kr = k.kr;
  out->cin_padded = cinp;
  out->abs_sum_max = abs_sum_max;
  // The taps of one (output, input) channel pair in the kernel's own order
  // (outermost 3-tap dimension first, the 1-tap dimensions dropping out).
  // Padding: w_zp for input channels past Cin (w - w_zp = 0), 0 with zero
  // point 0 for output channels past Cout (the transform kernel's zp row).
  int8_t* T = out->taps.data();
  for (int64_t oc = 0; oc < blocks * nr; ++oc) {
    for (int64_t ic = 0; ic < cinp; ++ic) {
      const bool real = oc < g.out_channels && ic < g.in_channels;
      assert(oc >= g.out_channels || (zps[oc] >= -128 && zps[oc] <= 127));  // a qint8 zero point
      const int8_t pad = static_cast<int8_t>(oc < g.out_channels ? zps[oc] : 0);
      for (int64_t t = 0; t < taps; ++t) {
        T[((oc / nr * kblocks + ic / kr) * taps + t) * nr * kr + (oc % nr) * kr + ic % kr] =
            real ? w[(oc * g.in_channels + ic) * taps + t] : pad;
      }
    }
  }
  return Status::Ok();
}

void unpack_winograd_taps(const PackedQConv& pw, int8_t* w) {
  const ConvGeometry& g = pw.geometry;
  const WinogradWeights& ww = pw.winograd;
  const int64_t nr = static_cast<int64_t>(ww.nr), kr = static_cast<int64_t>(ww.kr);
  const int64_t taps = g.kernel[0] * g.kernel[1] * g.kernel[2], kblocks = ww.cin_padded / kr;
  const int8_t* T = ww.taps.data();
  for (int64_t oc = 0; oc < g.out_channels; ++oc)
    for (int64_t ic = 0; ic < g.in_channels; ++ic)
      for (int64_t t = 0; t < taps; ++t)
        w[(oc * g.in_channels + ic) * taps + t] =
            T[((oc / nr * kblocks + ic / kr) * taps + t) * nr * kr + (oc % nr) * kr + ic % kr];
}

namespace {

// The tile whose guard allows the input's zero point and whose tiles take
// the fewest GEMM products: F(4, 3) along a dimension takes 6 points per 4
// outputs against F(2, 3)'s 4 per 2, 1.33x fewer, unless the output along it
// is short (2 outputs make one tile either way, and F(2, 3)'s has 4 points).
// A tie keeps the tile listed first (F(2, 3), F(4, 3) innermost, F(4, 3) on
// both dimensions): its guard is wider and its transforms cheaper; except in
// one dimension, where F(4, 3) takes ties (5 or 6 outputs), as it also pays
// at fewer channels ('auto').
size_t tile_for_call(const PackedQConv& pw, int32_t input_zero_point, const Spatial& s) {
  const size_t nd = pw.winograd.nd;
  size_t best = 2;
  int64_t fewest = tile_grid(pw, s, 2).total() * static_cast<int64_t>(kernels::winograd_points(2, nd));
  for (const size_t m : {size_t{4}, kernels::kWinogradF43Both}) {
    if (!tile_fits(m, nd) || !guard_passes(pw, input_zero_point, m)) continue;
    const int64_t points = tile_grid(pw, s, m).total() * static_cast<int64_t>(kernels::winograd_points(m, nd));
    if (points < fewest || (nd == 1 && points == fewest)) best = m, fewest = points;
  }
  return best;
}

}  // namespace

size_t winograd_tile(const PackedQConv& pw, int32_t input_zero_point, const Spatial& s) {
  if (!winograd_guard_passes(pw, input_zero_point)) return 0;
  if (pw.winograd_mode == WinogradMode::kOn) return tile_for_call(pw, input_zero_point, s);
  // kAuto's rules, on F(2, 3)'s tiles: more than one, and a dilated layer
  // whose output is not much larger than its dilation (whose tiles compute
  // many slots no output takes, at most `step` per 3-tap dimension) stays direct.
  const TileGrid grid = tile_grid(pw, s, 2);
  if (grid.total() < kAutoMinTiles) return 0;
  const bool dilated = grid.step[0] * grid.step[1] * grid.step[2] > 1;
  if (dilated && tile_waste(grid, s) > kAutoMaxDilatedWaste) return 0;
  const size_t m = tile_for_call(pw, input_zero_point, s);
  // F(2, 3) in one dimension pays only from kAutoMinHarmonicF23In1d.
  if (m == 2 && pw.winograd.nd == 1 && harmonic_channels(pw.geometry) < kAutoMinHarmonicF23In1d) return 0;
  return m;
}

namespace {

// What run_qwinograd allocates, sized once for the run and for the planner.
struct WinogradScratch {
  Spatial sx;  // the padded input, each 3-tap dimension extended to whole tiles
  int64_t cinp = 0, P = 0, chunk = 0, v_stride = 0;
  // Chunks per pass of the weight transform, and the blocks of nr channels
  // a pass's transformed weights have room for (the point stride of U).
  int64_t pass_chunks = 0, pass_blocks = 0, u_stride = 0;
  // v_cache_elems: every tile block's V for the call (0: each task makes its own).
  CheckedSize buffer_elems, v_elems, m_elems, u_elems, v_cache_elems;
  // The per-task transformed input (int16) and GEMM results (int32).
  CheckedSize per_task_bytes() const { return v_elems * 2 + m_elems * 4; }
};

WinogradScratch winograd_scratch(const PackedQConv& pw, const Spatial& s, size_t m) {
  const WinogradWeights& ww = pw.winograd;
  WinogradScratch w;
  w.cinp = ww.cin_padded;
  w.P = static_cast<int64_t>(kernels::winograd_points(m, ww.nd));
  const int64_t nr = static_cast<int64_t>(ww.nr);
  const int64_t blocks = ceil_div(pw.geometry.out_channels, nr);
  const TileGrid grid = tile_grid(pw, s, m);
  w.sx = s;
  // Extended so that the last tile's extent + 2 taps, `step` apart, exist
  // (never below the conv's own padded extent, which the input rows fill).
  int64_t* padded[3] = {&w.sx.Dp, &w.sx.Hp, &w.sx.Wp};
  for (size_t k = 0; k < ww.nd; ++k) {
    const int d = ww.dims[k];
    const int64_t last = grid.count[d] > 0 ? grid.origin(d, grid.count[d] - 1) : 0;
    *padded[d] = std::max(*padded[d], last + (grid.extent[d] + 1) * grid.step[d] + 1);
  }
  w.buffer_elems = padded_buffer_elements(w.sx, w.cinp, 1, 0);
  w.chunk = std::min(kChunk, blocks * nr);
  w.v_stride = kTiles * w.cinp + 32;  // + 64 bytes: the points' rows do not share a few L1 sets
  w.v_elems = CheckedSize(w.P) * w.v_stride;
  w.m_elems = CheckedSize(kTiles) * w.P * w.chunk;
  const int64_t chunks = ceil_div(blocks * nr, w.chunk);
  const CheckedSize chunk_bytes = CheckedSize(w.P) * w.chunk * w.cinp * 2;
  w.pass_chunks = chunk_bytes.ok() ? std::min(chunks, std::max<int64_t>(1, kPassBytes / chunk_bytes.value())) : 1;
  w.pass_blocks = w.pass_chunks * w.chunk / nr;
  // + 64 bytes per point: the weight transform's P rows of stores do not
  // all fall in one L1 set (a pass's points are a power of two apart).
  w.u_stride = w.pass_blocks * w.cinp * nr + 32;
  w.u_elems = CheckedSize(w.P) * w.u_stride;
  // Several passes over few tile blocks (late layers: many channels, small
  // outputs): every block's transformed input is kept for the call, rather
  // than made again in each pass.
  const int64_t tile_blocks = ceil_div(grid.total(), kTiles);
  const CheckedSize all_v = w.v_elems * tile_blocks;
  const bool several_passes = ceil_div(chunks, w.pass_chunks) > 1;
  w.v_cache_elems = several_passes && all_v.at_most(kVCacheBytes / 2) ? all_v : CheckedSize(0);
  return w;
}

}  // namespace

CheckedSize winograd_scratch_bytes(const PackedQConv& pw, const Spatial& s, size_t threads) {
  if (pw.winograd.nd == 0) return CheckedSize(0);
  const int64_t constants = 3 * (ceil_div(pw.geometry.out_channels, static_cast<int64_t>(pw.winograd.nr)) + 1) *
                            static_cast<int64_t>(pw.winograd.nr) * static_cast<int64_t>(sizeof(float));
  // Either tile may run (chosen per call, by the input's zero point): the larger.
  CheckedSize most(0);
  for (const size_t m : {size_t{2}, size_t{4}, kernels::kWinogradF43Both}) {
    if (!tile_fits(m, pw.winograd.nd)) continue;
    const WinogradScratch w = winograd_scratch(pw, s, m);
    const CheckedSize bytes = w.buffer_elems * 2 + w.u_elems * 2 + w.v_cache_elems * 2 +
                              w.per_task_bytes() * static_cast<int64_t>(threads) + constants;
    if (!bytes.ok()) return bytes;
    most = bytes.value() > most.value() ? bytes : most;
  }
  return most;
}

namespace {

// The ISA's kernels of the Winograd path.
struct WinogradKernels {
  const kernels::ToChannelsLastKernel* to_channels_last;
  const kernels::WinoWeightsKernel* weights;
  const kernels::WinoInputKernel* input;
  const kernels::QGemmKernel* gemm;
  const kernels::WinoOutputKernel* output;
};

// The kernels for `isa` and the tile m; an internal error when the weights
// were packed for another GEMM tile than the ISA's GEMM takes.
Status find_winograd_kernels(kernels::Isa isa, const WinogradWeights& ww, size_t m, WinogradKernels* k) {
  k->input = kernels::find_wino_input(isa, m);
  k->gemm = kernels::find_qgemm(isa);
  k->output = kernels::find_wino_output(isa, m);
  k->to_channels_last = kernels::find_to_channels_last(isa);
  k->weights = kernels::find_wino_weights(isa, m);
  if (!k->input || !k->output || !k->weights) return Status::Error("internal: no Winograd kernels for the tile");
  if (k->gemm->nr != ww.nr || k->gemm->kr != ww.kr || ww.nr * ww.kr != kernels::kWinoWeightsPeriod) {
    return Status::Error("internal: no Winograd weights for the GEMM's tile");
  }
  return Status::Ok();
}

// Where a tile's taps and outputs lie relative to its first (the same for
// every tile): the padded channels-last input's strides along the 3-tap
// dimensions, and the offset of each of the tile's outputs in an output
// plane (NCDHW), o in the tile's mixed radix (its extent per dimension).
struct TileOffsets {
  ptrdiff_t in_strides[3] = {};
  ptrdiff_t out_offsets[16] = {};
  size_t outputs = 0;
};

TileOffsets tile_offsets(const WinogradWeights& ww, const TileGrid& grid, const Spatial& sx, const Spatial& s,
                         int64_t cinp, size_t m) {
  const int64_t in_stride[3] = {sx.Hp * sx.Wp * cinp * grid.step[0], sx.Wp * cinp * grid.step[1], cinp * grid.step[2]};
  const int64_t out_stride[3] = {s.Ho * s.Wo * grid.step[0], s.Wo * grid.step[1], grid.step[2]};
  const size_t nd = ww.nd;
  TileOffsets t;
  for (size_t k = 0; k < nd; ++k) t.in_strides[k] = static_cast<ptrdiff_t>(in_stride[ww.dims[k]]);
  t.outputs = kernels::winograd_outputs(m, nd);
  assert(t.outputs <= 16);
  for (size_t o = 0; o < t.outputs; ++o) {
    size_t rest = o;
    for (size_t k = nd; k-- > 0;) {
      const size_t mk = kernels::winograd_dim_tile(m, nd, k);
      t.out_offsets[o] += static_cast<ptrdiff_t>(rest % mk) * out_stride[ww.dims[k]];
      rest /= mk;
    }
  }
  return t;
}

// The first output position (d, h, w) of each of the nt tiles from t0 (the
// grid in row-major order).
void tile_origins(const TileGrid& grid, int64_t t0, int64_t nt, int64_t (*origin)[3]) {
  for (int64_t t = 0; t < nt; ++t) {
    const int64_t tile = t0 + t;
    origin[t][2] = grid.origin(2, tile % grid.count[2]);
    origin[t][1] = grid.origin(1, tile / grid.count[2] % grid.count[1]);
    origin[t][0] = grid.origin(0, tile / (grid.count[2] * grid.count[1]));
  }
}

// The outputs of the tile at `origin` that lie inside the output (bit o for
// output o, in the tile's mixed radix): all of them unless the tile overhangs
// the far edge of a 3-tap dimension.
uint32_t stored_outputs(const WinogradWeights& ww, const TileGrid& grid, const int64_t* origin, const int64_t* out_dims,
                        size_t outputs, size_t m) {
  const size_t nd = ww.nd;
  bool full = true;
  for (size_t k = 0; k < nd; ++k) {
    const int d = ww.dims[k];
    full = full && origin[d] + (grid.extent[d] - 1) * grid.step[d] < out_dims[d];
  }
  if (full) return (uint32_t{1} << outputs) - 1;
  uint32_t valid = 0;
  for (size_t o = 0; o < outputs; ++o) {
    bool inside = true;
    size_t rest = o;
    for (size_t k = nd; k-- > 0;) {
      const int d = ww.dims[k];
      const size_t mk = kernels::winograd_dim_tile(m, nd, k);
      inside = inside && origin[d] + static_cast<int64_t>(rest % mk) * grid.step[d] < out_dims[d];
      rest /= mk;
    }
    valid |= static_cast<uint32_t>(inside) << o;
  }
  return valid;
}

// The phases of the Winograd path a task's time is split into.
enum Phase { kInputTransform = 0, kGemms = 1, kOutputTransform = 2 };

// One task's time per phase (ConvRunInfo::winograd_phase_ms, a diagnostic),
// added to the call's when the task ends. Reads the clock only when asked to.
class PhaseTimer {
 public:
  explicit PhaseTimer(bool on) : on_(on), lap_start_(on ? Clock::now() : Clock::time_point()) {}

  // The time since the last lap goes to `phase`.
  void lap(Phase phase) {
    if (!on_) return;
    const Clock::time_point now = Clock::now();
    ms_[phase] += std::chrono::duration<double, std::milli>(now - lap_start_).count();
    lap_start_ = now;
  }

  // Tasks end on several threads: `lock` guards the call's total.
  void add_to(double* total_ms, std::mutex* lock) const {
    if (!on_) return;
    const std::lock_guard<std::mutex> hold(*lock);
    for (int i = 0; i < 3; ++i) total_ms[i] += ms_[i];
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool on_;
  Clock::time_point lap_start_;
  double ms_[3] = {};
};

// One call's Winograd run: its layout and kernels, read by every unit of
// work. A unit is a block of kTiles tiles by a chunk of output channels.
struct WinogradRun {
  WinogradRun(const PackedQConv& pw, const Spatial& s, size_t m, const WinogradKernels& kernel,
              const RequantConstants& rc)
      : pw(pw),
        g(pw.geometry),
        ww(pw.winograd),
        rc(rc),
        kernel(kernel),
        s(s),
        m(m),
        ws(winograd_scratch(pw, s, m)),
        grid(tile_grid(pw, s, m)),
        offsets(tile_offsets(ww, grid, ws.sx, s, ws.cinp, m)),
        out_dims{s.Do, s.Ho, s.Wo},
        plane(s.out_size()),
        nr(static_cast<int64_t>(ww.nr)),
        kr(static_cast<int64_t>(ww.kr)),
        blocks(ceil_div(g.out_channels, nr)),
        kblocks(ws.cinp / kr),
        tiles(grid.total()),
        tile_blocks(ceil_div(tiles, kTiles)),
        chunks(ceil_div(blocks * nr, ws.chunk)) {}

  const PackedQConv& pw;
  const ConvGeometry& g;
  const WinogradWeights& ww;
  const RequantConstants& rc;  // made with the output, after the run's layout
  const WinogradKernels kernel;
  const Spatial s;
  const size_t m;  // the tile: 2, 4 or kWinogradF43Both (kernels/winograd_kernels.h)
  // The padded input, each 3-tap dimension extended so that the last tile's
  // extent + 2 taps exist (the extra positions are zeros, read only by outputs
  // that are not stored), and the per-task buffers.
  const WinogradScratch ws;
  const TileGrid grid;
  const TileOffsets offsets;
  const int64_t out_dims[3];
  const int64_t plane;                    // output positions per channel
  const int64_t nr, kr, blocks, kblocks;  // the transformed weights' blocking
  const int64_t tiles, tile_blocks, chunks;
};

// Batch item n of the input into the padded channels-last buffer.
void to_padded_input(const WinogradRun& run, const QTensor& input, int64_t n, int16_t* padded) {
  const Spatial& s = run.s;
  const int64_t in_item = run.g.in_channels * s.D * s.H * s.W;
  const int32_t a_zp = static_cast<int32_t>(input.q_zero_point());
  const kernels::ToChannelsLastKernel* to_cl = run.kernel.to_channels_last;
  for_each_padded_row(run.g, run.ws.sx, run.g.in_channels, run.ws.cinp, [&](int64_t dh, int64_t row_offset) {
    to_cl->fn(static_cast<size_t>(run.g.in_channels), static_cast<size_t>(s.W), input.data() + n * in_item + dh * s.W,
              static_cast<size_t>(s.D * s.H * s.W), a_zp, padded + row_offset, static_cast<size_t>(run.ws.cinp));
  });
}

// The input transform of a block's nt tiles: point xi of tile t goes to
// V[xi * v_stride + t * cinp].
void transform_input(const WinogradRun& run, const int16_t* padded, const int64_t (*origin)[3], int64_t nt,
                     int16_t* V) {
  const Spatial& sx = run.ws.sx;
  const int64_t cinp = run.ws.cinp;
  for (int64_t t = 0; t < nt; ++t) {
    const int64_t base = ((origin[t][0] * sx.Hp + origin[t][1]) * sx.Wp + origin[t][2]) * cinp;
    run.kernel.input->fn(run.ww.nd, static_cast<size_t>(cinp), padded + base, run.offsets.in_strides, V + t * cinp,
                         static_cast<size_t>(run.ws.v_stride));
  }
}

// The weight transform of the blocks [b_begin, b_end) of nr output channels
// into U (a pass's buffer, its blocks from b_begin): point xi of block b at
// U[xi * u_stride + (b - b_begin) * kblocks * nr * kr].
void transform_weights(const WinogradRun& run, int64_t b_begin, int64_t b_end, int16_t* U) {
  const int64_t nr = run.nr, kr = run.kr, len = run.kblocks * nr * kr;
  int64_t taps = 1;
  for (size_t k = 0; k < run.ww.nd; ++k) taps *= 3;
  const bool per_channel = run.pw.weight_scheme == QScheme::kPerChannelAffine;
  for (int64_t b = b_begin; b < b_end; ++b) {
    int16_t zp[kernels::kWinoWeightsPeriod];  // lane j * kr + e: output channel b * nr + j
    for (int64_t j = 0; j < nr; ++j) {
      const int64_t oc = b * nr + j;
      const double z = oc < run.g.out_channels ? run.pw.weight_qzero_points[per_channel ? oc : 0] : 0.0;
      for (int64_t e = 0; e < kr; ++e) zp[j * kr + e] = static_cast<int16_t>(z);
    }
    run.kernel.weights->fn(run.ww.nd, static_cast<size_t>(len), run.ww.taps.data() + b * taps * len, zp,
                           U + (b - b_begin) * len, static_cast<size_t>(run.ws.u_stride));
  }
}

// The GEMMs of every transform point for the cc output channels from c0 (U:
// the transformed weights of the pass that begins at output channel u0):
// M[t][xi][c] = sum over input channels of V[xi][t][.] * U[xi][.][c0 + c].
void multiply_points(const WinogradRun& run, const int16_t* V, int64_t nt, const int16_t* U, int64_t u0, int64_t c0,
                     int64_t cc, int32_t* M) {
  const int64_t nr = run.nr, kr = run.kr, P = run.ws.P, chunk = run.ws.chunk;
  for (int64_t xi = 0; xi < P; ++xi) {
    for (int64_t b = 0; b < cc / nr; ++b) {
      run.kernel.gemm->fn(static_cast<size_t>(nt), static_cast<size_t>(run.kblocks), V + xi * run.ws.v_stride,
                          static_cast<size_t>(run.ws.cinp),
                          U + xi * run.ws.u_stride + ((c0 - u0) / nr + b) * run.kblocks * nr * kr,
                          M + xi * chunk + b * nr, static_cast<size_t>(P * chunk));
    }
  }
}

// The output transform and requantization of a block's nt tiles, for the cc
// output channels from c0, into batch item yn's output (the outputs inside it).
// One kernel call per run of tiles that follow one another along W in one
// output row with the same stored outputs: the kernel stores their
// neighbouring bytes together (a 3x1x1 layer's tiles are 1 apart, a 3-tap
// W's 2, a dilated W's 1 within a phase).
void transform_output(const WinogradRun& run, const int32_t* M, const int64_t (*origin)[3], int64_t nt, int64_t c0,
                      int64_t cc, uint8_t* yn) {
  const Spatial& s = run.s;
  const int64_t nc = std::min(cc, run.g.out_channels - c0);
  const kernels::ConvRequantParams params = requant_at(run.rc, c0);
  const int64_t tile_elems = run.ws.P * run.ws.chunk;
  uint32_t valid[kTiles];
  for (int64_t t = 0; t < nt; ++t) {
    valid[t] = stored_outputs(run.ww, run.grid, origin[t], run.out_dims, run.offsets.outputs, run.m);
  }
  for (int64_t t = 0; t < nt;) {
    const auto follows = [&](int64_t u, int64_t step) {
      return origin[u][0] == origin[t][0] && origin[u][1] == origin[t][1] && origin[u][2] - origin[u - 1][2] == step &&
             valid[u] == valid[t];
    };
    const int64_t step = t + 1 < nt ? origin[t + 1][2] - origin[t][2] : 1;
    int64_t end = t + 1;
    while (end < nt && follows(end, step)) ++end;
    uint8_t* y = yn + c0 * run.plane + (origin[t][0] * s.Ho + origin[t][1]) * s.Wo + origin[t][2];
    run.kernel.output->fn(run.ww.nd, static_cast<size_t>(end - t), static_cast<size_t>(nc), M + t * tile_elems,
                          static_cast<size_t>(run.ws.chunk), static_cast<size_t>(tile_elems), y,
                          static_cast<size_t>(run.plane), static_cast<ptrdiff_t>(end - t > 1 ? step : 1),
                          run.offsets.out_offsets, valid[t], &params);
    t = end;
  }
}

// One task: units begin to end of one batch item and one pass (unit u: tile
// block u / pass_chunks, channel chunk u0 / chunk + u % pass_chunks), each
// block's input transformed once while its chunks follow one another. U: the
// pass's transformed weights, from output channel u0. phase_ms: the call's
// time split, or null.
Status run_units(const WinogradRun& run, const int16_t* padded, const int16_t* v_cache, const int16_t* U, int64_t u0,
                 int64_t pass_chunks, uint8_t* yn, int64_t begin, int64_t end, double* phase_ms,
                 std::mutex* phase_lock) {
  Buffer<int16_t> V;
  Buffer<int32_t> M;
  if (!v_cache) QWASM_RETURN_IF_ERROR(V.allocate(run.ws.v_elems, "the Winograd transformed input", false));
  QWASM_RETURN_IF_ERROR(M.allocate(run.ws.m_elems, "the Winograd products", false));
  int64_t transformed = -1;  // the tile block V holds
  PhaseTimer timer(phase_ms != nullptr);
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t tb = unit / pass_chunks, c0 = u0 + unit % pass_chunks * run.ws.chunk;
    const int64_t t0 = tb * kTiles, nt = std::min(kTiles, run.tiles - t0);
    const int64_t cc = std::min(run.ws.chunk, run.blocks * run.nr - c0);
    int64_t origin[kTiles][3];
    tile_origins(run.grid, t0, nt, origin);
    if (!v_cache && transformed != tb) {
      transform_input(run, padded, origin, nt, V.data());
      transformed = tb;
      timer.lap(kInputTransform);
    }
    const int16_t* v = v_cache ? v_cache + tb * run.ws.v_elems.value() : V.data();
    multiply_points(run, v, nt, U, u0, c0, cc, M.data());
    timer.lap(kGemms);
    transform_output(run, M.data(), origin, nt, c0, cc, yn);
    timer.lap(kOutputTransform);
  }
  timer.add_to(phase_ms, phase_lock);
  return Status::Ok();
}

}  // namespace

Status run_qwinograd(const QCall& call, const Spatial& s, QTensor* out, ConvRunInfo* info) {
  const PackedQConv& pw = call.pw;
  assert(pw.winograd.nd >= 1);
  const size_t m = winograd_tile(pw, static_cast<int32_t>(call.input.q_zero_point()), s);
  if (m == 0) return Status::Error("internal: the Winograd path does not apply to this call");
  WinogradKernels kernel;
  QWASM_RETURN_IF_ERROR(find_winograd_kernels(call.isa, pw.winograd, m, &kernel));
  RequantConstants rc;
  const WinogradRun run(pw, s, m, kernel, rc);
  Buffer<int16_t> padded, U, v_cache;
  QWASM_RETURN_IF_ERROR(padded.allocate(run.ws.buffer_elems, "the conv's padded input"));
  QWASM_RETURN_IF_ERROR(U.allocate(run.ws.u_elems, "the Winograd transformed weights", false));
  const bool cached = run.ws.v_cache_elems.value() > 0;
  if (cached) QWASM_RETURN_IF_ERROR(v_cache.allocate(run.ws.v_cache_elems, "the Winograd transformed input", false));
  QWASM_RETURN_IF_ERROR(make_qoutput(call, pw.winograd.nr, out, &rc));
  if (info) {
    const int64_t per_task = run.ws.per_task_bytes().value();
    info->scratch_bytes =
        (padded.size() + U.size() + v_cache.size()) * 2 + rc.bytes() + static_cast<size_t>(per_task) * num_threads();
    info->kernel = kernel.gemm->name;
    info->winograd = true;
    info->winograd_tile = m;
  }
  // With many tile blocks, tasks of whole blocks covering at least 64 output
  // positions along W (a cache line of every output plane's row): threads
  // writing neighbouring bytes of the same lines would slow each other down.
  // With few, tasks may split a block's channel chunks (other planes).
  const int64_t unit_macs = kTiles * run.ws.P * run.ws.cinp * run.ws.chunk;
  const int64_t passes = ceil_div(run.chunks, run.ws.pass_chunks);
  const int64_t len = run.kblocks * run.nr * run.kr;
  double* phase_ms = info ? info->winograd_phase_ms : nullptr;
  std::mutex phase_lock;
  for (int64_t n = 0; n < call.input.shape()[0]; ++n) {
    if (n > 0) padded.fill(0);
    to_padded_input(run, call.input, n, padded.data());
    uint8_t* yn = out->mutable_data() + n * pw.geometry.out_channels * run.plane;
    if (cached) {  // every tile block's transformed input, once for the passes
      parallel_for_ranges(run.tile_blocks, 1, [&](int64_t begin, int64_t end) {
        PhaseTimer timer(phase_ms != nullptr);
        for (int64_t tb = begin; tb < end; ++tb) {
          const int64_t t0 = tb * kTiles, nt = std::min(kTiles, run.tiles - t0);
          int64_t origin[kTiles][3];
          tile_origins(run.grid, t0, nt, origin);
          transform_input(run, padded.data(), origin, nt, v_cache.data() + tb * run.ws.v_elems.value());
        }
        timer.lap(kInputTransform);
        timer.add_to(phase_ms, &phase_lock);
      });
    }
    for (int64_t pass = 0; pass < passes; ++pass) {
      const int64_t first_chunk = pass * run.ws.pass_chunks;
      const int64_t pass_chunks = std::min(run.ws.pass_chunks, run.chunks - first_chunk);
      const int64_t u0 = first_chunk * run.ws.chunk;
      const int64_t b_begin = u0 / run.nr, b_end = std::min(run.blocks, b_begin + run.ws.pass_blocks);
      // One pass's weights, transformed once per batch item (the whole
      // layer's, when it fits one pass, once per call).
      if (n == 0 || passes > 1) {
        parallel_for_ranges(b_end - b_begin, items_for_work(int64_t{1} << 16, len * run.ws.P),
                            [&](int64_t begin, int64_t end) {
                              transform_weights(run, b_begin + begin, b_begin + end, U.data() + begin * len);
                            });
      }
      const int64_t align = run.tile_blocks >= 16 ? ceil_div(64, kTiles * run.grid.extent[2]) * pass_chunks : 1;
      QWASM_RETURN_IF_ERROR(parallel_for_ranges_status(
          run.tile_blocks * pass_chunks, items_for_work(int64_t{1} << 22, unit_macs),
          [&](int64_t begin, int64_t end) {
            return run_units(run, padded.data(), cached ? v_cache.data() : nullptr, U.data(), u0, pass_chunks, yn,
                             begin, end, phase_ms, &phase_lock);
          },
          align));
    }
  }
  return Status::Ok();
}

}  // namespace conv_internal

bool winograd_guard_passes(const PackedQConv& p, int32_t input_zero_point) {
  return p.winograd.nd != 0 && conv_internal::guard_passes(p, input_zero_point, 2);
}

}  // namespace qwasm
