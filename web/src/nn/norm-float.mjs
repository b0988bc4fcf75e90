// InstanceNorm, GroupNorm and LayerNorm on float32 tensors, with PyTorch
// 2.15's CPU arithmetic step for step (docs/numerics.md, "Normalisation"),
// so that every element equals PyTorch's bit for bit:
// - InstanceNorm is batch_norm on x viewed as [1, N*C, *] with batch
//   statistics (Normalization.cpp instance_norm; batch_norm_kernel.cpp
//   batch_norm_cpu_collect_stats_contiguous_impl: sums in double), or with
//   the running statistics in eval mode (track_running_stats);
// - GroupNorm and LayerNorm take each row's mean and variance from
//   RowwiseMoments (moments_utils.h: Welford over 8-lane vectors, chunks of 16
//   merged as a cascade), then group_norm_kernel.cpp's / layer_norm_kernel.cpp's
//   affine step.
// Where PyTorch's x86 build (GCC, -mfma) contracts a * b + c into one fused
// multiply-add, this uses fma32 (one rounding); every other step rounds to
// float32 once (Math.fround), as the C++ float arithmetic does.

import { fma32, roundHalfEven } from '../runtime/float32.mjs';

const f = Math.fround;

// Vectorized<float>'s lanes in the kernels that call RowwiseMoments (measured
// on torch 2.15: its AVX2 kernels, 8 floats, whatever the CPU capability).
const LANES = 8;
const CHUNK = 16; // moments_utils.h kChunkSize
const RECIPROCALS = Array.from({ length: CHUNK }, (_, i) => f(1 / (i + 1))); // c_vecs: T(1) / T(i + 1)

/** utils::CeilLog2 (ATen/native/cpu/utils.h): 1 for x <= 2. */
const ceilLog2 = (x) => (x <= 2 ? 1 : 32 - Math.clz32(x - 1)); // bit_width(x - 1); x < 2^32 here

const lanes = () => ({ m0: 0, m1: new Float32Array(LANES), m2: new Float32Array(LANES) });

/** AddMomentsVec: merges (m0Add, m1Add, m2Add) into s, lane by lane. */
function addMomentsVec(m0Add, m1Add, m2Add, s) {
  const n = s.m0 + m0Add;
  const c = n === 0 ? 0 : f(f(m0Add) / f(n));
  const m0 = f(s.m0);
  for (let l = 0; l < LANES; l++) {
    const delta = f(m1Add[l] - s.m1[l]);
    const m2Sum = f(s.m2[l] + m2Add[l]);
    const cDelta = f(c * delta);
    const m0Delta = f(delta * m0);
    s.m1[l] = f(s.m1[l] + cDelta);
    s.m2[l] = fma32(m0Delta, cDelta, m2Sum);
  }
  s.m0 = n;
}

/**
 * RowwiseMoments(x[at .. at + count)): [mean, biased variance] as PyTorch
 * computes them in float32 for a row of float32s.
 */
export function rowwiseMoments(x, at, count) {
  const n = Math.floor(count / LANES); // whole vectors
  const m = Math.ceil(n / CHUNK);
  const depth = ceilLog2(m);
  const stack = Array.from({ length: depth }, lanes);
  const m1v = new Float32Array(LANES);
  const m2v = new Float32Array(LANES);
  for (let i = 0; i < m; i++) {
    const base = at + i * CHUNK * LANES;
    const vectors = Math.min(CHUNK, n - i * CHUNK);
    m1v.fill(0);
    m2v.fill(0);
    for (let j = 0; j < vectors; j++) {
      const r = RECIPROCALS[j];
      for (let l = 0; l < LANES; l++) {
        const v = x[base + j * LANES + l];
        const delta = f(v - m1v[l]);
        m1v[l] = fma32(r, delta, m1v[l]);
        m2v[l] = fma32(delta, f(v - m1v[l]), m2v[l]);
      }
    }
    addMomentsVec(vectors, m1v, m2v, stack[0]);
    let mask = i + 1;
    for (let j = 1; j < depth && (mask & 1) === 0; j++) {
      addMomentsVec(stack[j - 1].m0, stack[j - 1].m1, stack[j - 1].m2, stack[j]);
      stack[j - 1] = lanes();
      mask = Math.floor(mask / 2);
    }
  }
  for (let i = 1; i < depth; i++) addMomentsVec(stack[i].m0, stack[i].m1, stack[i].m2, stack[0]);
  // The tail (count % 8 elements) by scalar Welford, then each lane merged in (AddMoments).
  let m0 = 0;
  let m1 = 0;
  let m2 = 0;
  for (let i = n * LANES; i < count; i++) {
    const v = x[at + i];
    const delta = f(v - m1);
    m0 += 1;
    m1 = f(m1 + f(delta / f(m0)));
    m2 = fma32(delta, f(v - m1), m2);
  }
  const top = stack[0];
  for (let l = 0; l < LANES; l++) {
    const total = m0 + n;
    const c = total === 0 ? 0 : f(f(n) / f(total));
    const delta = f(top.m1[l] - m1);
    m1 = fma32(c, delta, m1);
    m2 = f(m2 + fma32(f(f(delta * delta) * c), f(m0), top.m2[l]));
    m0 = total;
  }
  return [m1, f(m2 / f(count))];
}

/**
 * InstanceNorm of x [N, C, *] (rows of `inner` elements), with s = {weight,
 * bias (null without affine), runningMean, runningVar (null: the input's own
 * statistics), eps}.
 */
export function instanceNormFloats(x, rows, channels, inner, s) {
  const y = new Float32Array(rows * inner);
  const eps32 = f(s.eps);
  for (let r = 0; r < rows; r++) {
    const c = r % channels;
    const at = r * inner;
    let mean;
    let invstd;
    if (s.runningMean === null) {
      // batch_norm_cpu_collect_stats_contiguous_impl: double sums (acc_type<float> on CPU).
      let sum = 0;
      for (let i = 0; i < inner; i++) sum += x[at + i];
      mean = f(sum / inner);
      let varSum = 0;
      for (let i = 0; i < inner; i++) {
        const d = f(x[at + i] - mean);
        varSum += f(d * d);
      }
      // InvStd<double>(var_sum / n, eps): the float quotient, then 1 / sqrt in double.
      const variance = f(f(varSum) / f(inner));
      invstd = variance === 0 && s.eps === 0 ? 0 : f(1 / Math.sqrt(variance + s.eps));
    } else {
      // Eval mode: batch_norm_cpu_collect_linear_and_constant_terms in float.
      mean = s.runningMean[c];
      invstd = f(1 / f(Math.sqrt(f(s.runningVar[c] + eps32))));
    }
    const alpha = f(invstd * (s.weight === null ? 1 : s.weight[c]));
    const beta = fma32(-mean, alpha, s.bias === null ? 0 : s.bias[c]);
    for (let i = 0; i < inner; i++) y[at + i] = fma32(x[at + i], alpha, beta);
  }
  return y;
}

/**
 * GroupNorm of x [N, C, *] in `groups` groups (C / groups channels of
 * `spatial` elements each), with s = {weight, bias (null without affine), eps}.
 */
export function groupNormFloats(x, batch, channels, spatial, groups, s) {
  const y = new Float32Array(batch * channels * spatial);
  const perGroup = channels / groups;
  const row = perGroup * spatial;
  const affine = s.weight !== null || s.bias !== null;
  for (let i = 0; i < batch * groups; i++) {
    const at = i * row;
    const [mean, variance] = rowwiseMoments(x, at, row);
    // eps stays a double here: opmath_t(1) / std::sqrt(max(var, 0) + eps).
    // biome-ignore lint/complexity/useMathMinMax: std::max keeps a -0 variance (Math.max would give +0)
    const rstd = f(1 / Math.sqrt((variance < 0 ? 0 : variance) + s.eps));
    if (!affine) {
      for (let k = at; k < at + row; k++) y[k] = f(f(x[k] - mean) * rstd);
      continue;
    }
    const g = i % groups;
    for (let j = 0; j < perGroup; j++) {
      const c = g * perGroup + j;
      const scale = f(rstd * (s.weight === null ? 1 : s.weight[c]));
      const bias = fma32(-scale, mean, s.bias === null ? 0 : s.bias[c]);
      const start = at + j * spatial;
      for (let k = start; k < start + spatial; k++) y[k] = fma32(scale, x[k], bias);
    }
  }
  return y;
}

/**
 * LayerNorm of x over its last dimensions (rows of `inner` elements), with
 * s = {weight, bias (each null or of `inner` elements), eps}.
 */
export function layerNormFloats(x, rows, inner, s) {
  const y = new Float32Array(rows * inner);
  const eps32 = f(s.eps); // layer_norm_kernel.cpp takes eps as the float opmath type
  for (let r = 0; r < rows; r++) {
    const at = r * inner;
    const [mean, variance] = rowwiseMoments(x, at, inner);
    const rstd = f(1 / f(Math.sqrt(f(variance + eps32))));
    const bias = -mean;
    for (let j = 0; j < inner; j++) {
      const t = f(f(x[at + j] + bias) * rstd);
      y[at + j] = fma32(t, s.weight === null ? 1 : s.weight[j], s.bias === null ? 0 : s.bias[j]);
    }
  }
  return y;
}

// -- The quantized kernels (quantized::instance_norm, group_norm, layer_norm) ---------------------------------------

const TABLE_FROM = 512; // a channel of at least this many elements is computed by a table of its 256 integers

/** Quantize as qwasm defines it for every path (docs/numerics.md): x * (1 / scale), ties to even, NaN to the zero point. */
function quantizeTo(y, inv, zeroPoint) {
  const t = f(y * inv);
  if (Number.isNaN(t)) return zeroPoint;
  const r = roundHalfEven(t) + zeroPoint;
  return Math.min(Math.max(r, 0), 255);
}

/**
 * PyTorch's quantized normalisation on quint8 integers (QuantizedOpKernels.cpp
 * quantized_normalize_kernel): `rows` rows of `inner` integers q with the
 * input's qparams; mean and variance from exact integer sums, then per
 * element in float32 `y = fma((q - zp) - mean, scale', beta)` quantized with
 * the output's qparams. perChannel: InstanceNorm and GroupNorm (weight and
 * bias per channel, `channels` in `groups`); else LayerNorm (per element of
 * the row). p = {weight, bias, eps, inputScale, inputZeroPoint, scale, zeroPoint}.
 */
export function quantizedNormInts(q, rows, inner, perChannel, channels, groups, p) {
  const y = new Uint8Array(rows * inner);
  const table = new Uint8Array(256);
  const xScale = f(p.inputScale);
  const xZp = p.inputZeroPoint;
  const inv = f(1 / f(p.scale));
  const perGroup = perChannel ? channels / groups : 1;
  const perChannelCount = inner / perGroup;
  const n32 = f(inner);
  for (let i = 0; i < rows; i++) {
    const at = i * inner;
    let sum = 0;
    let sumSq = 0;
    for (let k = at; k < at + inner; k++) {
      sum += q[k];
      sumSq += q[k] * q[k];
    }
    const meanShifted = f(f(sum) / n32);
    const mean = f(meanShifted - xZp); // mean(dqX) / scale_x
    // var(dqX) / scale_x^2: GCC contracts sum_sq / N - m * m into one fused multiply-add.
    const v = fma32(-meanShifted, meanShifted, f(f(sumSq) / n32));
    // biome-ignore lint/complexity/useMathMinMax: std::max(v, 0.0f) keeps a -0 (Math.max would give +0)
    const variance = v < 0 ? 0 : v;
    // scale_x / sqrt(var(dqX) + eps), eps a double.
    const scaleOverStd = f(xScale / Math.sqrt(f(f(variance * xScale) * xScale) + p.eps));
    if (perChannel) {
      for (let j = 0; j < perGroup; j++) {
        const c = (i * perGroup + j) % channels;
        const gamma = f(scaleOverStd * (p.weight === null ? 1 : p.weight[c]));
        const beta = p.bias === null ? 0 : p.bias[c];
        const start = at + j * perChannelCount;
        const out = (v) => quantizeTo(fma32(f(v - xZp - mean), gamma, beta), inv, p.zeroPoint);
        if (perChannelCount < TABLE_FROM) {
          for (let k = start; k < start + perChannelCount; k++) y[k] = out(q[k]);
          continue;
        }
        // A channel's output depends only on its integer: its 256 outputs once, then looked up.
        for (let v = 0; v < 256; v++) table[v] = out(v);
        for (let k = start; k < start + perChannelCount; k++) y[k] = table[q[k]];
      }
    } else {
      for (let j = 0; j < inner; j++) {
        const t = f(f(q[at + j] - xZp - mean) * scaleOverStd);
        const v2 = fma32(t, p.weight === null ? 1 : p.weight[j], p.bias === null ? 0 : p.bias[j]);
        y[at + j] = quantizeTo(v2, inv, p.zeroPoint);
      }
    }
  }
  return y;
}
