// The instruction-mix ceiling of an exact relaxed-SIMD int8 conv kernel
// against qwasm's dot16 kernel (src/kernels/wasmsimd/
// conv3d_qu8_qs8w_4x8c2_wasmsimd_dot16.cpp), on L1-resident operands, with
// the same 4-pixel x 8-channel register tile:
//   dot16:   per 2 reduction values, 4 broadcast int16 pairs x 2 weight
//            vectors -> 8 i32x4.dot_i16x8_s = 64 multiply-adds;
//   relaxed: per 4 reduction values, 4 broadcast quads of activations in
//            0..127 (raw, reduce_range) x 2 int8 weight vectors ->
//            8 i32x4.relaxed_dot_i8x16_i7x16_add_s = 128 multiply-adds.
// Both sums are exact (the relaxed one is deterministic for a 0..127 second
// operand), so both count as a kernel qwasm could ship. Built by
// bench/relaxed.bench.mjs with clang-19 (clang 14, Emscripten 3.1.6's, has no
// relaxed-SIMD builtins) into a standalone module.
#include <stdint.h>
#include <wasm_simd128.h>

#define K_MAX 1024
static int16_t a16[4][K_MAX];
static int16_t w16[K_MAX * 8];  // [k / 2][8 channels][2]
static uint8_t a8[4][K_MAX];
static int8_t w8[K_MAX * 8];  // [k / 4][8 channels][4]
static int32_t out[32];

__attribute__((export_name("fill"))) void fill(void) {
  for (int r = 0; r < 4; ++r)
    for (int k = 0; k < K_MAX; ++k) a16[r][k] = (int16_t)(a8[r][k] = (uint8_t)((k * 7 + r) % 128));
  // The same weight W(k, channel) in both packings.
  for (int k = 0; k < K_MAX; ++k) {
    for (int ch = 0; ch < 8; ++ch) {
      const int8_t w = (int8_t)(((k * 8 + ch) * 13) % 255 - 127);
      w16[(k / 2) * 16 + ch * 2 + k % 2] = w;
      w8[(k / 4) * 32 + ch * 4 + k % 4] = w;
    }
  }
}

static int32_t store(v128_t acc[4][2]) {
  for (int r = 0; r < 4; ++r) {
    wasm_v128_store(&out[r * 8], acc[r][0]);
    wasm_v128_store(&out[r * 8 + 4], acc[r][1]);
  }
  return out[0];
}

// reps passes over k = 0..K (K a multiple of 4, at most K_MAX): reps * K * 32 multiply-adds.
__attribute__((export_name("dot16"))) int32_t dot16(int reps, int K) {
  v128_t acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (int rep = 0; rep < reps; ++rep) {
    const int16_t* w = w16;
    for (int k = 0; k < K; k += 2, w += 16) {
      const v128_t w0 = wasm_v128_load(w), w1 = wasm_v128_load(w + 8);
      for (int r = 0; r < 4; ++r) {
        const v128_t a = wasm_v128_load32_splat(&a16[r][k]);
        acc[r][0] = wasm_i32x4_add(acc[r][0], wasm_i32x4_dot_i16x8(a, w0));
        acc[r][1] = wasm_i32x4_add(acc[r][1], wasm_i32x4_dot_i16x8(a, w1));
      }
    }
  }
  return store(acc);
}

__attribute__((export_name("relaxed"))) int32_t relaxed(int reps, int K) {
  v128_t acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
  for (int rep = 0; rep < reps; ++rep) {
    const int8_t* w = w8;
    for (int k = 0; k < K; k += 4, w += 32) {
      const v128_t w0 = wasm_v128_load(w), w1 = wasm_v128_load(w + 16);
      for (int r = 0; r < 4; ++r) {
        const v128_t a = wasm_v128_load32_splat(&a8[r][k]);
        acc[r][0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w0, a, acc[r][0]);
        acc[r][1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(w1, a, acc[r][1]);
      }
    }
  }
  return store(acc);
}

// The relaxed tile's result for one reduction pass must equal dot16's: both exact.
__attribute__((export_name("out_at"))) int32_t out_at(int i) { return out[i]; }
