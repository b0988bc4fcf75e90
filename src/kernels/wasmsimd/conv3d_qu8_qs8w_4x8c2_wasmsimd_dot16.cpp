// 4 output pixels x 8 output channels per call; the reduction is the shared
// dot16 loop (wasmsimd/dot16_4x8c2.h), then the requantization and the stores.
// Layout and contract: kernels/conv_kernels.h.
#include <wasm_simd128.h>

#include <cassert>

#include "kernels/conv_kernels.h"
#include "kernels/wasmsimd/conv_store.h"
#include "kernels/wasmsimd/dot16_4x8c2.h"

namespace qwasm {
namespace kernels {

void conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16(size_t mr, size_t nc, size_t nseg, size_t kblocks, const int16_t* const* a,
                                          const ptrdiff_t* seg_offsets, const int16_t* w, uint8_t* const* c,
                                          size_t c_stride, const ConvRequantParams* params) {
  assert(mr >= 1 && mr <= 4);
  assert(nc >= 1 && nc <= 8);
  // Rows past mr repeat the last valid pixel: computed, never stored.
  const int16_t* a0 = a[0];
  const int16_t* a1 = mr > 1 ? a[1] : a0;
  const int16_t* a2 = mr > 2 ? a[2] : a1;
  const int16_t* a3 = mr > 3 ? a[3] : a2;
  Acc4x8 acc;
  dot16_4x8c2(a0, a1, a2, a3, nseg, seg_offsets, kblocks, w, acc);
  const RequantVectors r(*params);
  const RequantChannels ch0123(*params, 0);
  const RequantChannels ch4567(*params, 4);
  if (mr == 4 && c[1] == c[0] + 1 && c[2] == c[0] + 2 && c[3] == c[0] + 3) {
    store_4x8_u8(c[0], c_stride, nc, pack_u8(requantize4(acc.r0x0123, ch0123, r), requantize4(acc.r0x4567, ch4567, r)),
                 pack_u8(requantize4(acc.r1x0123, ch0123, r), requantize4(acc.r1x4567, ch4567, r)),
                 pack_u8(requantize4(acc.r2x0123, ch0123, r), requantize4(acc.r2x4567, ch4567, r)),
                 pack_u8(requantize4(acc.r3x0123, ch0123, r), requantize4(acc.r3x4567, ch4567, r)));
    return;
  }
  store_u8_lanes(c[0], c_stride, nc, requantize4(acc.r0x0123, ch0123, r), requantize4(acc.r0x4567, ch4567, r));
  if (mr > 1)
    store_u8_lanes(c[1], c_stride, nc, requantize4(acc.r1x0123, ch0123, r), requantize4(acc.r1x4567, ch4567, r));
  if (mr > 2)
    store_u8_lanes(c[2], c_stride, nc, requantize4(acc.r2x0123, ch0123, r), requantize4(acc.r2x4567, ch4567, r));
  if (mr > 3)
    store_u8_lanes(c[3], c_stride, nc, requantize4(acc.r3x0123, ch0123, r), requantize4(acc.r3x4567, ch4567, r));
}

}  // namespace kernels
}  // namespace qwasm
