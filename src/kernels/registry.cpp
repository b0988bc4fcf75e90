// The registry: one table per kernel family, generated from the lists (*.inc),
// and the dispatcher that picks from them. Nothing here is written by hand
// per kernel: listing a kernel registers it for the dispatcher, the kernel
// tester (tests/native/kernel_tester_*_test.cpp) and the benchmarks.
#include "kernels/conv_kernels.h"
#include "kernels/pool_kernels.h"
#include "kernels/quantize_kernels.h"
#include "kernels/winograd_kernels.h"

namespace qwasm {
namespace kernels {
namespace {

#define QWASM_QUANTIZE(name, isa, storage, mode, block) \
  {#name, Isa::isa, Storage::storage, QuantizeMode::mode, block, &name},
const QuantizeKernel kQuantize[] = {
#include "kernels/quantize.inc"
};
#undef QWASM_QUANTIZE

#define QWASM_DEQUANTIZE(name, isa, storage, mode, block) \
  {#name, Isa::isa, Storage::storage, DequantizeMode::mode, block, &name},
const DequantizeKernel kDequantize[] = {
#include "kernels/dequantize.inc"
};
#undef QWASM_DEQUANTIZE

#define QWASM_QUANTIZE_ROW(name, isa, storage, mode, block) \
  {#name, Isa::isa, Storage::storage, QuantizeMode::mode, block, &name},
#define QWASM_DEQUANTIZE_ROW(name, isa, storage, block)
const QuantizeRowKernel kQuantizeRow[] = {
#include "kernels/quantize_row.inc"
};
#undef QWASM_QUANTIZE_ROW
#undef QWASM_DEQUANTIZE_ROW

#define QWASM_QUANTIZE_ROW(name, isa, storage, mode, block)
#define QWASM_DEQUANTIZE_ROW(name, isa, storage, block) {#name, Isa::isa, Storage::storage, block, &name},
const DequantizeRowKernel kDequantizeRow[] = {
#include "kernels/quantize_row.inc"
};
#undef QWASM_QUANTIZE_ROW
#undef QWASM_DEQUANTIZE_ROW

#define QWASM_QCONV(name, isa, mr, nr, kr) {#name, Isa::isa, mr, nr, kr, &name},
const QConvKernel kQConv[] = {
#include "kernels/qconv.inc"
};
#undef QWASM_QCONV

#define QWASM_QDWCONV(name, isa, mr, cr, kr, mode) {#name, Isa::isa, mr, cr, kr, DwConvMode::mode, &name},
const QDwConvKernel kQDwConv[] = {
#include "kernels/qdwconv.inc"
};
#undef QWASM_QDWCONV

#define QWASM_TO_CHANNELS_LAST(name, isa) {#name, Isa::isa, &name},
const ToChannelsLastKernel kToChannelsLast[] = {
#include "kernels/to_channels_last.inc"
};
#undef QWASM_TO_CHANNELS_LAST

#define QWASM_FCONV(name, isa, mr, nr) {#name, Isa::isa, mr, nr, &name},
const FConvKernel kFConv[] = {
#include "kernels/fconv.inc"
};
#undef QWASM_FCONV

#define QWASM_WINO_INPUT(name, isa, cr, tile_m) {#name, Isa::isa, cr, tile_m, &name},
#define QWASM_QGEMM(name, isa, mr, nr, kr)
#define QWASM_WINO_OUTPUT(name, isa, cr, tile_m)
const WinoInputKernel kWinoInput[] = {
#include "kernels/winograd.inc"
};
#undef QWASM_WINO_INPUT
#undef QWASM_QGEMM
#undef QWASM_WINO_OUTPUT

#define QWASM_WINO_INPUT(name, isa, cr, tile_m)
#define QWASM_QGEMM(name, isa, mr, nr, kr) {#name, Isa::isa, mr, nr, kr, &name},
#define QWASM_WINO_OUTPUT(name, isa, cr, tile_m)
const QGemmKernel kQGemm[] = {
#include "kernels/winograd.inc"
};
#undef QWASM_WINO_INPUT
#undef QWASM_QGEMM
#undef QWASM_WINO_OUTPUT

#define QWASM_WINO_INPUT(name, isa, cr, tile_m)
#define QWASM_QGEMM(name, isa, mr, nr, kr)
#define QWASM_WINO_OUTPUT(name, isa, cr, tile_m) {#name, Isa::isa, cr, tile_m, &name},
const WinoOutputKernel kWinoOutput[] = {
#include "kernels/winograd.inc"
};
#undef QWASM_WINO_INPUT
#undef QWASM_QGEMM
#undef QWASM_WINO_OUTPUT

#define QWASM_WINO_WEIGHTS(name, isa, tile_m) {#name, Isa::isa, tile_m, &name},
const WinoWeightsKernel kWinoWeights[] = {
#include "kernels/winograd_weights.inc"
};
#undef QWASM_WINO_WEIGHTS

#define QWASM_ROWMAX(name, isa, block) {#name, Isa::isa, block, &name},
#define QWASM_ROWSUM(name, isa, block)
const RowMaxKernel kRowMax[] = {
#include "kernels/pool_rows.inc"
};
#undef QWASM_ROWMAX
#undef QWASM_ROWSUM

#define QWASM_ROWMAX(name, isa, block)
#define QWASM_ROWSUM(name, isa, block) {#name, Isa::isa, block, &name},
const RowSumKernel kRowSum[] = {
#include "kernels/pool_rows.inc"
};
#undef QWASM_ROWMAX
#undef QWASM_ROWSUM

template <typename Entry, size_t N>
constexpr KernelTable<Entry> table(const Entry (&entries)[N]) {
  return {entries, N};
}

// The first entry of `isa` (or of scalar, when this build lacks it) that matches.
template <typename Entry, size_t N, typename Match>
const Entry* first(const Entry (&entries)[N], Isa isa, Match matches) {
  const Isa want = usable_isa(isa);
  for (const Entry& e : entries) {
    if (e.isa == want && matches(e)) return &e;
  }
  return nullptr;
}

}  // namespace

KernelTable<QuantizeKernel> quantize_kernels() { return table(kQuantize); }
KernelTable<DequantizeKernel> dequantize_kernels() { return table(kDequantize); }
KernelTable<QuantizeRowKernel> quantize_row_kernels() { return table(kQuantizeRow); }
KernelTable<DequantizeRowKernel> dequantize_row_kernels() { return table(kDequantizeRow); }
KernelTable<QConvKernel> qconv_kernels() { return table(kQConv); }
KernelTable<QDwConvKernel> qdwconv_kernels() { return table(kQDwConv); }
KernelTable<ToChannelsLastKernel> to_channels_last_kernels() { return table(kToChannelsLast); }
KernelTable<FConvKernel> fconv_kernels() { return table(kFConv); }
KernelTable<WinoInputKernel> wino_input_kernels() { return table(kWinoInput); }
KernelTable<QGemmKernel> qgemm_kernels() { return table(kQGemm); }
KernelTable<WinoOutputKernel> wino_output_kernels() { return table(kWinoOutput); }
KernelTable<WinoWeightsKernel> wino_weights_kernels() { return table(kWinoWeights); }
KernelTable<RowMaxKernel> rowmax_kernels() { return table(kRowMax); }
KernelTable<RowSumKernel> rowsum_kernels() { return table(kRowSum); }

const QuantizeKernel* find_quantize(Isa isa, Storage storage, QuantizeMode mode) {
  return first(kQuantize, isa, [&](const QuantizeKernel& k) { return k.storage == storage && k.mode == mode; });
}
const DequantizeKernel* find_dequantize(Isa isa, Storage storage, DequantizeMode mode) {
  return first(kDequantize, isa, [&](const DequantizeKernel& k) { return k.storage == storage && k.mode == mode; });
}
const QuantizeRowKernel* find_quantize_row(Isa isa, Storage storage, QuantizeMode mode) {
  return first(kQuantizeRow, isa, [&](const QuantizeRowKernel& k) { return k.storage == storage && k.mode == mode; });
}
const DequantizeRowKernel* find_dequantize_row(Isa isa, Storage storage) {
  return first(kDequantizeRow, isa, [&](const DequantizeRowKernel& k) { return k.storage == storage; });
}
const QConvKernel* find_qconv(Isa isa) {
  return first(kQConv, isa, [](const QConvKernel&) { return true; });
}
const QDwConvKernel* find_qdwconv(Isa isa, DwConvMode mode) {
  return first(kQDwConv, isa, [&](const QDwConvKernel& k) { return k.mode == mode; });
}
const ToChannelsLastKernel* find_to_channels_last(Isa isa) {
  return first(kToChannelsLast, isa, [](const ToChannelsLastKernel&) { return true; });
}
const FConvKernel* find_fconv(Isa isa) {
  return first(kFConv, isa, [](const FConvKernel&) { return true; });
}

const WinoInputKernel* find_wino_input(Isa isa, size_t m) {
  return first(kWinoInput, isa, [m](const WinoInputKernel& k) { return k.m == m; });
}
const QGemmKernel* find_qgemm(Isa isa) {
  return first(kQGemm, isa, [](const QGemmKernel&) { return true; });
}
const WinoOutputKernel* find_wino_output(Isa isa, size_t m) {
  return first(kWinoOutput, isa, [m](const WinoOutputKernel& k) { return k.m == m; });
}

const WinoWeightsKernel* find_wino_weights(Isa isa, size_t m) {
  return first(kWinoWeights, isa, [m](const WinoWeightsKernel& k) { return k.m == m; });
}

const RowMaxKernel* find_rowmax(Isa isa) {
  return first(kRowMax, isa, [](const RowMaxKernel&) { return true; });
}
const RowSumKernel* find_rowsum(Isa isa) {
  return first(kRowSum, isa, [](const RowSumKernel&) { return true; });
}

}  // namespace kernels
}  // namespace qwasm
