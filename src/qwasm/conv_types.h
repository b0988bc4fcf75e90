// A convolution's geometry and requantization backend, as plain data with no
// code behind them (conv.h validates and runs them). Kept apart so that the
// naive reference (tests/reference), which must not include the core it
// checks, takes the same geometry its callers build.
#pragma once
#include <array>
#include <cstdint>

namespace qwasm {

struct ConvGeometry {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t groups = 1;
  std::array<int64_t, 3> kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> dilation{1, 1, 1};
  std::array<int64_t, 3> pad_begin{0, 0, 0};  // 'same' may pad one more at the end
  std::array<int64_t, 3> pad_end{0, 0, 0};
  // 1, 2 or 3 spatial dimensions (the last ones of each triple; the others are
  // unit), or 0 for a linear layer. Decides the weight shape and the messages.
  int spatial_dims = 3;
};

// Which of PyTorch's quantized conv backends a layer reproduces: under the
// `fbgemm` engine (and under `x86` for what oneDNN does not take) FBGEMM's
// requantization; under `x86` on a CPU with VNNI, for symmetric weights and
// groups <= 100 (qconv_prepack.cpp, should_use_onednn_quant), oneDNN's.
// The integer accumulators are the same; the float steps after them differ
// (kernels/conv_kernels.h, ConvRequantParams).
enum class ConvBackend : uint8_t { kFbgemm, kOnednn };

}  // namespace qwasm
