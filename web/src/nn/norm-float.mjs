// InstanceNorm, GroupNorm and LayerNorm on float32 tensors, with PyTorch
// 2.15's CPU arithmetic step for step, computed by the core
// (src/qwasm/norm_float.h, bound in bindings/norm_float_bindings.cpp;
// docs/numerics.md, "Normalisation"), so that every element equals
// PyTorch's bit for bit. Each function takes x's bytes (a Uint8Array of
// float32s, read once by the caller; the core checks them against the sizes)
// and returns a new Float32Array.
// Below them: the quantized kernels, in JavaScript (integer sums and a table
// per channel).

import { fma32, roundHalfEven } from '../runtime/float32.mjs';
import { ownBytes } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { qtensorHandle, wrapHandle } from '../tensors/qtensor.mjs';
import { inHeap } from './torch-float.mjs';

const f = Math.fround;

/**
 * The parameters block the core takes: the present ones of weight, bias,
 * runningMean, runningVar, in that order (each `count` floats).
 * @param {(Float32Array | null)[]} parts
 */
function paramsBytes(parts) {
  const present = parts.filter((p) => p !== null);
  const block = new Float32Array(present.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of present) {
    block.set(p, at);
    at += p.length;
  }
  return ownBytes(block);
}

/** The copies into wasm memory of x and a parameters block. */
const copies = (x, params) => [
  { bytes: x, what: 'the input' },
  { bytes: params, what: 'the normalisation parameters' },
];

/**
 * InstanceNorm of x [N, C, *] (rows of `inner` elements), with s = {weight,
 * bias (null without affine), runningMean, runningVar (null: the input's own
 * statistics), eps}.
 */
export function instanceNormFloats(x, rows, channels, inner, s, ctx) {
  const running = s.runningMean !== null;
  const params = paramsBytes([s.weight, s.bias, s.runningMean, s.runningVar]);
  return inHeap(copies(x, params), ctx, (M, address, n, p, pn) =>
    M._finstanceNorm(
      address,
      n,
      rows,
      channels,
      inner,
      p,
      pn,
      s.weight !== null,
      s.bias !== null,
      running,
      s.eps,
      currentIsa(),
    ),
  );
}

/**
 * GroupNorm of x [N, C, *] in `groups` groups (C / groups channels of
 * `spatial` elements each), with s = {weight, bias (null without affine), eps}.
 */
export function groupNormFloats(x, batch, channels, spatial, groups, s, ctx) {
  const params = paramsBytes([s.weight, s.bias]);
  return inHeap(copies(x, params), ctx, (M, address, n, p, pn) =>
    M._fgroupNorm(
      address,
      n,
      batch,
      channels,
      spatial,
      groups,
      p,
      pn,
      s.weight !== null,
      s.bias !== null,
      s.eps,
      currentIsa(),
    ),
  );
}

/**
 * LayerNorm of x over its last dimensions (rows of `inner` elements), with
 * s = {weight, bias (each null or of `inner` elements), eps}.
 */
export function layerNormFloats(x, rows, inner, s, ctx) {
  const params = paramsBytes([s.weight, s.bias]);
  return inHeap(copies(x, params), ctx, (M, address, n, p, pn) =>
    M._flayerNorm(address, n, rows, inner, p, pn, s.weight !== null, s.bias !== null, s.eps, currentIsa()),
  );
}

// -- A PT2E graph's region dequantize -> norm -> [relu] -> quantize, in one call ------------------------------------
// (src/qwasm/norm_region.h): q, a contiguous per-tensor quint8 QTensor, in; r = {relu, scale, zeroPoint} the
// region's ReLU and its quantize's qparams; a quint8 QTensor out, the integers of the three nodes run one by one.

/** The parameters block in wasm memory, then `call(M, handle, address, n)`, its result a new QTensor. */
function region(q, parts, ctx, call) {
  const h = qtensorHandle(q, ctx);
  return wrapHandle(
    inHeap([{ bytes: paramsBytes(parts), what: 'the normalisation parameters' }], ctx, (M, p, pn) => call(M, h, p, pn)),
  );
}

export function instanceNormRegion(q, rows, channels, inner, s, r, ctx) {
  return region(q, [s.weight, s.bias, s.runningMean, s.runningVar], ctx, (M, h, p, pn) =>
    M._qinstanceNormRegion(
      h,
      rows,
      channels,
      inner,
      p,
      pn,
      s.weight !== null,
      s.bias !== null,
      s.runningMean !== null,
      s.eps,
      r.relu,
      r.scale,
      r.zeroPoint,
      currentIsa(),
    ),
  );
}

export function groupNormRegion(q, batch, channels, spatial, groups, s, r, ctx) {
  return region(q, [s.weight, s.bias], ctx, (M, h, p, pn) =>
    M._qgroupNormRegion(
      h,
      batch,
      channels,
      spatial,
      groups,
      p,
      pn,
      s.weight !== null,
      s.bias !== null,
      s.eps,
      r.relu,
      r.scale,
      r.zeroPoint,
      currentIsa(),
    ),
  );
}

export function layerNormRegion(q, rows, inner, s, r, ctx) {
  return region(q, [s.weight, s.bias], ctx, (M, h, p, pn) =>
    M._qlayerNormRegion(
      h,
      rows,
      inner,
      p,
      pn,
      s.weight !== null,
      s.bias !== null,
      s.eps,
      r.relu,
      r.scale,
      r.zeroPoint,
      currentIsa(),
    ),
  );
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
