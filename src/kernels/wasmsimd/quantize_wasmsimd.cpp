// Family file: every wasmsimd quantize / dequantize kernel of quantize.inc,
// dequantize.inc and quantize_row.inc. Each processes full vectors and hands
// the tail (< one block) to the element functions of kernels/quantize_val.h.
#include <wasm_simd128.h>

#include <cassert>
#include <cmath>

#include "kernels/quantize_kernels.h"
#include "kernels/quantize_val.h"

namespace qwasm {
namespace kernels {
namespace {

// x * inv, a NaN input -> 0 and a NaN product of anything else (0 times an
// infinite reciprocal) -> +Inf (quantize_val.h), rounded half-to-even with the
// zero point added after (integer zp, FBGEMM) or before (float zp) rounding,
// then saturated to int32 and clamped; trunc_sat maps +-Inf and |r| >= 2^31
// exactly as clamp_rounded.
template <bool kFloatZeroPoint>
inline v128_t quantize4(v128_t x, v128_t vinv, v128_t vzp, v128_t vmin, v128_t vmax) {
  v128_t t = wasm_f32x4_mul(x, vinv);
  t = wasm_v128_bitselect(wasm_f32x4_splat(HUGE_VALF), t, wasm_f32x4_ne(t, t));
  t = wasm_v128_andnot(t, wasm_f32x4_ne(x, x));
  const v128_t r =
      kFloatZeroPoint ? wasm_f32x4_nearest(wasm_f32x4_add(t, vzp)) : wasm_f32x4_add(wasm_f32x4_nearest(t), vzp);
  return wasm_i32x4_min(wasm_i32x4_max(wasm_i32x4_trunc_sat_f32x4(r), vmin), vmax);
}

template <Storage kStorage, bool kFloatZeroPoint>
void quantize_wasmsimd(size_t n, const float* x, void* y, const QuantizeParams* p) {
  assert(n == 0 || (x != nullptr && y != nullptr));
  const v128_t vinv = wasm_f32x4_splat(p->inv_scale);
  const v128_t vzp = wasm_f32x4_splat(p->zero_point);
  const v128_t vmin = wasm_i32x4_splat(p->qmin);
  const v128_t vmax = wasm_i32x4_splat(p->qmax);
  size_t i = 0;
  if (kStorage == Storage::kS32) {
    int32_t* out = static_cast<int32_t*>(y);
    for (; i + 4 <= n; i += 4) {
      wasm_v128_store(out + i, quantize4<kFloatZeroPoint>(wasm_v128_load(x + i), vinv, vzp, vmin, vmax));
    }
    for (; i < n; ++i) {
      out[i] = kFloatZeroPoint ? quantize_val_float_qparams(x[i], *p) : quantize_val(x[i], *p);
    }
  } else {
    uint8_t* out = static_cast<uint8_t*>(y);
    for (; i + 16 <= n; i += 16) {
      const v128_t q0 = quantize4<kFloatZeroPoint>(wasm_v128_load(x + i), vinv, vzp, vmin, vmax);
      const v128_t q1 = quantize4<kFloatZeroPoint>(wasm_v128_load(x + i + 4), vinv, vzp, vmin, vmax);
      const v128_t q2 = quantize4<kFloatZeroPoint>(wasm_v128_load(x + i + 8), vinv, vzp, vmin, vmax);
      const v128_t q3 = quantize4<kFloatZeroPoint>(wasm_v128_load(x + i + 12), vinv, vzp, vmin, vmax);
      // Values are already inside the dtype's range: the saturating narrows are exact.
      const v128_t lo = wasm_i16x8_narrow_i32x4(q0, q1);
      const v128_t hi = wasm_i16x8_narrow_i32x4(q2, q3);
      wasm_v128_store(out + i,
                      kStorage == Storage::kU8 ? wasm_u8x16_narrow_i16x8(lo, hi) : wasm_i8x16_narrow_i16x8(lo, hi));
    }
    for (; i < n; ++i) {
      const int32_t q = kFloatZeroPoint ? quantize_val_float_qparams(x[i], *p) : quantize_val(x[i], *p);
      out[i] = static_cast<uint8_t>(q);
    }
  }
}

// Loads 8 consecutive elements of any storage as two int32x4 vectors.
template <Storage kStorage>
inline void load8_i32(const void* q, size_t i, v128_t* lo, v128_t* hi) {
  if (kStorage == Storage::kS32) {
    *lo = wasm_v128_load(static_cast<const int32_t*>(q) + i);
    *hi = wasm_v128_load(static_cast<const int32_t*>(q) + i + 4);
  } else if (kStorage == Storage::kU8) {
    const v128_t w = wasm_u16x8_load8x8(static_cast<const uint8_t*>(q) + i);
    *lo = wasm_u32x4_extend_low_u16x8(w);
    *hi = wasm_u32x4_extend_high_u16x8(w);
  } else {
    const v128_t w = wasm_i16x8_load8x8(static_cast<const int8_t*>(q) + i);
    *lo = wasm_i32x4_extend_low_i16x8(w);
    *hi = wasm_i32x4_extend_high_i16x8(w);
  }
}

// Four f64 results (two vectors) demoted, each rounded once, into one f32x4.
inline v128_t demote_pair(v128_t lo, v128_t hi) {
  return wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 1, 4, 5);
}

template <Storage kStorage, DequantizeMode kMode>
inline v128_t dequantize4(v128_t q, const DequantizeParams& p) {
  if (kMode == DequantizeMode::kPerTensor) {
    v128_t diff;
    if (kStorage == Storage::kS32) {
      // q - zp can leave int32: subtract exactly in double, round once to float.
      const v128_t vzp = wasm_f64x2_splat(static_cast<double>(p.zero_point));
      const v128_t lo = wasm_f64x2_sub(wasm_f64x2_convert_low_i32x4(q), vzp);
      const v128_t hi = wasm_f64x2_sub(wasm_f64x2_convert_low_i32x4(wasm_i32x4_shuffle(q, q, 2, 3, 0, 1)), vzp);
      diff = demote_pair(lo, hi);
    } else {
      diff = wasm_f32x4_convert_i32x4(wasm_i32x4_sub(q, wasm_i32x4_splat(p.zero_point)));
    }
    return wasm_f32x4_mul(wasm_f32x4_splat(p.scale_f), diff);
  }
  const v128_t centered = wasm_f32x4_sub(wasm_f32x4_convert_i32x4(q), wasm_f32x4_splat(p.zero_point_f));
  if (kMode == DequantizeMode::kFloatQParams) return wasm_f32x4_mul(centered, wasm_f32x4_splat(p.scale_f));
  const v128_t vscale = wasm_f64x2_splat(p.scale);
  const v128_t lo = wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(centered), vscale);
  const v128_t hi =
      wasm_f64x2_mul(wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(centered, centered, 2, 3, 0, 1)), vscale);
  return demote_pair(lo, hi);
}

template <Storage kStorage, DequantizeMode kMode>
float dequantize_one(const void* q, size_t i, const DequantizeParams& p) {
  int32_t v;
  if (kStorage == Storage::kS32)
    v = static_cast<const int32_t*>(q)[i];
  else if (kStorage == Storage::kU8)
    v = static_cast<const uint8_t*>(q)[i];
  else
    v = static_cast<const int8_t*>(q)[i];
  if (kMode == DequantizeMode::kPerTensor) return dequantize_val_per_tensor(v, p);
  if (kMode == DequantizeMode::kPerChannel) return dequantize_val_per_channel(v, p);
  return dequantize_val_float_qparams(v, p);
}

template <Storage kStorage, DequantizeMode kMode>
void dequantize_wasmsimd(size_t n, const void* q, float* y, const DequantizeParams* p) {
  assert(n == 0 || (q != nullptr && y != nullptr));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    v128_t lo, hi;
    load8_i32<kStorage>(q, i, &lo, &hi);
    wasm_v128_store(y + i, dequantize4<kStorage, kMode>(lo, *p));
    wasm_v128_store(y + i + 4, dequantize4<kStorage, kMode>(hi, *p));
  }
  for (; i < n; ++i) y[i] = dequantize_one<kStorage, kMode>(q, i, *p);
}

// Stores four int32 lanes (already in the dtype's range) as kStorage.
template <Storage kStorage>
inline void store4(void* y, size_t i, v128_t q) {
  if (kStorage == Storage::kS32) {
    wasm_v128_store(static_cast<int32_t*>(y) + i, q);
  } else {
    const v128_t w = wasm_i16x8_narrow_i32x4(q, q);
    const v128_t b = kStorage == Storage::kU8 ? wasm_u8x16_narrow_i16x8(w, w) : wasm_i8x16_narrow_i16x8(w, w);
    wasm_v128_store32_lane(static_cast<uint8_t*>(y) + i, b, 0);
  }
}

template <Storage kStorage, bool kFloatZeroPoint>
void quantize_row_wasmsimd(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points,
                           int32_t qmin, int32_t qmax) {
  assert(n == 0 || (x != nullptr && y != nullptr && inv_scales != nullptr && zero_points != nullptr));
  const v128_t vmin = wasm_i32x4_splat(qmin);
  const v128_t vmax = wasm_i32x4_splat(qmax);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    store4<kStorage>(y, i,
                     quantize4<kFloatZeroPoint>(wasm_v128_load(x + i), wasm_v128_load(inv_scales + i),
                                                wasm_v128_load(zero_points + i), vmin, vmax));
  }
  for (; i < n; ++i) {
    const QuantizeParams p{inv_scales[i], zero_points[i], qmin, qmax};
    const int32_t q = kFloatZeroPoint ? quantize_val_float_qparams(x[i], p) : quantize_val(x[i], p);
    if (kStorage == Storage::kS32)
      static_cast<int32_t*>(y)[i] = q;
    else
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(q);
  }
}

template <Storage kStorage>
void dequantize_row_wasmsimd(size_t n, const void* q, float* y, const float* scales, const float* zero_points) {
  assert(n == 0 || (q != nullptr && y != nullptr && scales != nullptr && zero_points != nullptr));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    v128_t lo, hi;
    load8_i32<kStorage>(q, i, &lo, &hi);
    wasm_v128_store(y + i, wasm_f32x4_mul(wasm_f32x4_sub(wasm_f32x4_convert_i32x4(lo), wasm_v128_load(zero_points + i)),
                                          wasm_v128_load(scales + i)));
    wasm_v128_store(y + i + 4,
                    wasm_f32x4_mul(wasm_f32x4_sub(wasm_f32x4_convert_i32x4(hi), wasm_v128_load(zero_points + i + 4)),
                                   wasm_v128_load(scales + i + 4)));
  }
  for (; i < n; ++i) {
    const DequantizeParams p{scales[i], scales[i], 0, zero_points[i]};
    y[i] = dequantize_one<kStorage, DequantizeMode::kFloatQParams>(q, i, p);
  }
}

}  // namespace

#define QUANTIZE(name, storage, fzp) \
  void name(size_t n, const float* x, void* y, const QuantizeParams* p) { quantize_wasmsimd<storage, fzp>(n, x, y, p); }
QUANTIZE(quantize_f32_qu8_wasmsimd, Storage::kU8, false)
QUANTIZE(quantize_f32_qs8_wasmsimd, Storage::kS8, false)
QUANTIZE(quantize_f32_qs32_wasmsimd, Storage::kS32, false)
QUANTIZE(quantize_fqp_f32_qu8_wasmsimd, Storage::kU8, true)
QUANTIZE(quantize_fqp_f32_qs8_wasmsimd, Storage::kS8, true)
QUANTIZE(quantize_fqp_f32_qs32_wasmsimd, Storage::kS32, true)
#undef QUANTIZE

#define DEQUANTIZE(name, storage, mode)                                     \
  void name(size_t n, const void* q, float* y, const DequantizeParams* p) { \
    dequantize_wasmsimd<storage, mode>(n, q, y, p);                         \
  }
DEQUANTIZE(dequantize_qu8_f32_wasmsimd, Storage::kU8, DequantizeMode::kPerTensor)
DEQUANTIZE(dequantize_qs8_f32_wasmsimd, Storage::kS8, DequantizeMode::kPerTensor)
DEQUANTIZE(dequantize_qs32_f32_wasmsimd, Storage::kS32, DequantizeMode::kPerTensor)
DEQUANTIZE(dequantize_pc_qu8_f32_wasmsimd, Storage::kU8, DequantizeMode::kPerChannel)
DEQUANTIZE(dequantize_pc_qs8_f32_wasmsimd, Storage::kS8, DequantizeMode::kPerChannel)
DEQUANTIZE(dequantize_pc_qs32_f32_wasmsimd, Storage::kS32, DequantizeMode::kPerChannel)
DEQUANTIZE(dequantize_fqp_qu8_f32_wasmsimd, Storage::kU8, DequantizeMode::kFloatQParams)
DEQUANTIZE(dequantize_fqp_qs8_f32_wasmsimd, Storage::kS8, DequantizeMode::kFloatQParams)
DEQUANTIZE(dequantize_fqp_qs32_f32_wasmsimd, Storage::kS32, DequantizeMode::kFloatQParams)
#undef DEQUANTIZE

#define QUANTIZE_ROW(name, storage, fzp)                                                                        \
  void name(size_t n, const float* x, void* y, const float* inv_scales, const float* zero_points, int32_t qmin, \
            int32_t qmax) {                                                                                     \
    quantize_row_wasmsimd<storage, fzp>(n, x, y, inv_scales, zero_points, qmin, qmax);                          \
  }
QUANTIZE_ROW(quantize_row_f32_qu8_wasmsimd, Storage::kU8, false)
QUANTIZE_ROW(quantize_row_f32_qs8_wasmsimd, Storage::kS8, false)
QUANTIZE_ROW(quantize_row_f32_qs32_wasmsimd, Storage::kS32, false)
QUANTIZE_ROW(quantize_row_fqp_f32_qu8_wasmsimd, Storage::kU8, true)
QUANTIZE_ROW(quantize_row_fqp_f32_qs8_wasmsimd, Storage::kS8, true)
QUANTIZE_ROW(quantize_row_fqp_f32_qs32_wasmsimd, Storage::kS32, true)
#undef QUANTIZE_ROW

#define DEQUANTIZE_ROW(name, storage)                                                           \
  void name(size_t n, const void* q, float* y, const float* scales, const float* zero_points) { \
    dequantize_row_wasmsimd<storage>(n, q, y, scales, zero_points);                             \
  }
DEQUANTIZE_ROW(dequantize_row_qu8_f32_wasmsimd, Storage::kU8)
DEQUANTIZE_ROW(dequantize_row_qs8_f32_wasmsimd, Storage::kS8)
DEQUANTIZE_ROW(dequantize_row_qs32_f32_wasmsimd, Storage::kS32)
#undef DEQUANTIZE_ROW

}  // namespace kernels
}  // namespace qwasm
