// Geometry crosses the boundary as bound value objects (registered in
// geometry_bindings.cpp): the JS layer passes the objects it built itself and
// Embind reads them field by field by name, so neither side keeps a list of
// positions in sync. Every number stays a double until the binding that takes
// it checks it (integer, range) with the message the JS API would give.
#pragma once
#include <array>

namespace qwasm_bind {

using Triple = std::array<double, 3>;  // depth, height, width

// A convolution's or linear layer's geometry, as web/src/nn/spec.mjs's
// readConvArgs builds it (JS keys in camelCase: dims, inChannels, ...).
struct ConvGeometryArgs {
  double dims = 0;  // spatial dims: 0 linear, 1..3 convolution
  double in_channels = 0;
  double out_channels = 0;
  double groups = 0;
  Triple kernel{};
  Triple stride{};
  Triple dilation{};
  Triple pad_begin{};
  Triple pad_end{};
};

// A pooling layer's geometry, as web/src/nn/pooling.mjs builds it.
struct PoolGeometryArgs {
  double dims = 0;  // 1..3
  Triple kernel_size{};
  Triple stride{};
  Triple padding{};
  Triple dilation{};
  bool ceil_mode = false;
  bool count_include_pad = false;
  bool has_divisor = false;
  double divisor_override = 0;
};

}  // namespace qwasm_bind
