// Registers the geometry value objects (bindings/geometry.h) once for every
// binding file that takes them.
#include <emscripten/bind.h>

#include "bindings/geometry.h"

EMSCRIPTEN_BINDINGS(qwasm_geometry) {
  using namespace emscripten;
  using namespace qwasm_bind;
  value_array<Triple>("_Triple")
      .element(emscripten::index<0>())
      .element(emscripten::index<1>())
      .element(emscripten::index<2>());
  value_object<ConvGeometryArgs>("_ConvGeometry")
      .field("dims", &ConvGeometryArgs::dims)
      .field("inChannels", &ConvGeometryArgs::in_channels)
      .field("outChannels", &ConvGeometryArgs::out_channels)
      .field("groups", &ConvGeometryArgs::groups)
      .field("kernel", &ConvGeometryArgs::kernel)
      .field("stride", &ConvGeometryArgs::stride)
      .field("dilation", &ConvGeometryArgs::dilation)
      .field("padBegin", &ConvGeometryArgs::pad_begin)
      .field("padEnd", &ConvGeometryArgs::pad_end);
  value_object<PoolGeometryArgs>("_PoolGeometry")
      .field("dims", &PoolGeometryArgs::dims)
      .field("kernelSize", &PoolGeometryArgs::kernel_size)
      .field("stride", &PoolGeometryArgs::stride)
      .field("padding", &PoolGeometryArgs::padding)
      .field("dilation", &PoolGeometryArgs::dilation)
      .field("ceilMode", &PoolGeometryArgs::ceil_mode)
      .field("countIncludePad", &PoolGeometryArgs::count_include_pad)
      .field("hasDivisor", &PoolGeometryArgs::has_divisor)
      .field("divisorOverride", &PoolGeometryArgs::divisor_override);
}
