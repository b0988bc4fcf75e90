// The exact integer Winograd path of quantized convolutions (docs/winograd.md,
// kernels/winograd_kernels.h): which layers qualify, the packing of their
// transformed weights, the per-call choice, and the driver. Internal to the
// conv implementation.
#pragma once
#include <cstdint>

#include "kernels/isa.h"
#include "qwasm/checked_size.h"
#include "qwasm/conv.h"
#include "qwasm/conv_layout.h"
#include "qwasm/conv_requant.h"  // QCall

namespace qwasm {
namespace conv_internal {

// The 3-tap dimensions of a Winograd-shaped layer (stride 1, any dilation,
// groups 1, every kernel extent 3 or 1, at least one 3), outermost first, in
// dims; returns their count, or 0 when the layer does not qualify.
size_t winograd_dims(const ConvGeometry& g, int* dims);

// Packs g's weights for Winograd (their int8 taps, WinogradWeights) when
// `mode` and the policy allow (w: the qint8 weight, zps: per output channel);
// leaves out empty otherwise (the direct path's packing is then made).
Status pack_winograd(const ConvGeometry& g, const int8_t* w, const int32_t* zps, WinogradMode mode,
                     WinogradWeights* out);

// A Winograd layer's weight back in PyTorch's order [Cout][Cin][taps] (w:
// Cout * Cin * taps values), from its taps.
void unpack_winograd_taps(const PackedQConv& pw, int8_t* w);

// The direct path's packing for the tile (nr, kr) of a layer that keeps none
// (a Winograd layer, on a call the Winograd path does not take), into out.
Status pack_direct_for_call(const PackedQConv& pw, size_t nr, size_t kr, QConvLayout* out);

// Bytes pack_direct_for_call allocates for the tile (0 when the layer keeps
// its direct packing).
CheckedSize direct_for_call_bytes(const PackedQConv& pw, size_t nr, size_t kr);

// The tile this call runs on the Winograd path with (kernels/winograd_kernels.h:
// 2 for F(2, 3) throughout; 4 for F(4, 3) along the innermost 3-tap
// dimension and F(2, 3) along the others, guard 2^(29 - nd);
// kWinogradF43Both for F(4, 3) along both of two, guard 2^25: of those whose
// guard allows the input's zero point, the one whose tiles take the fewest
// products), or 0 when the call takes the direct path: no Winograd
// weights, the guard fails for the input's zero point, or (kAuto) the output is too small.
size_t winograd_tile(const PackedQConv& pw, int32_t input_zero_point, const Spatial& s);

// Bytes of wasm memory run_qwinograd allocates besides its output for an
// input of spatial extent s on `threads` threads (the planner's charge).
CheckedSize winograd_scratch_bytes(const PackedQConv& pw, const Spatial& s, size_t threads);

// The Winograd driver: same contract as the direct path's (conv_run.cpp).
Status run_qwinograd(const QCall& call, const Spatial& s, QTensor* out, ConvRunInfo* info);

}  // namespace conv_internal
}  // namespace qwasm
