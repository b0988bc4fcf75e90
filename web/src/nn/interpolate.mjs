// F.interpolate / nn.Upsample (modes nearest, nearest-exact, linear, bilinear,
// trilinear) on float tensors and, for nearest, on QTensors' integers, with
// PyTorch 2.15's CPU arithmetic (docs/numerics.md, "Resampling"):
// aten/src/ATen/native/UpSample.h (the source index and weight formulas) and
// aten/src/ATen/native/cpu/UpSampleKernel.cpp (which kernel runs, and the
// order of its float32 sums). Every step is a float32 operation written with
// Math.fround, or fma32 where GCC contracts PyTorch's `a * b + c` into one
// fused multiply-add; the generic linear kernel's sums run in the core
// (src/qwasm/interpolate_float.h) on the axes' tables computed here.
import { fma32, roundHalfEven } from '../runtime/float32.mjs';
import { inHeap } from './torch-float.mjs';

/** The modes qwasm runs, with the number of spatial dimensions each allows (null: 1, 2 or 3). */
export const INTERPOLATE_MODES = Object.freeze({
  nearest: null,
  'nearest-exact': null,
  linear: 1,
  bilinear: 2,
  trilinear: 3,
});

// At most this many output elements along one axis (the sizes' product is bounded by the caller's numel limit).
export const MAX_INTERPOLATE_SIDE = 2 ** 24;

/**
 * F.interpolate's sizes (torch/nn/functional.py): the output size of each
 * spatial dimension and the scales passed to the kernel (null where none is).
 * `size` and `scaleFactor` are as the user gave them (a number or one per
 * dimension); exactly one is given. Returns an error message or the result.
 */
export function interpolateSizes(spatial, size, scaleFactor, recompute) {
  const dims = spatial.length;
  const each = (v, what) => {
    if (!Array.isArray(v)) return Array(dims).fill(v);
    if (v.length !== dims) return `${what} has ${v.length} values for ${dims} spatial dimensions`;
    return v;
  };
  if ((size === null) === (scaleFactor === null)) return 'exactly one of size and scale_factor must be given';
  if (size !== null) {
    if (recompute === true) return 'recompute_scale_factor is not meaningful with an explicit size';
    const out = each(size, 'size');
    if (typeof out === 'string') return out;
    for (const s of out) {
      if (!Number.isSafeInteger(s) || s < 1 || s > MAX_INTERPOLATE_SIDE) {
        return `size must hold integers from 1 to ${MAX_INTERPOLATE_SIDE}, got ${s}`;
      }
    }
    return { outSize: out.slice(), scales: Array(dims).fill(null) };
  }
  const scales = each(scaleFactor, 'scale_factor');
  if (typeof scales === 'string') return scales;
  const outSize = [];
  for (let i = 0; i < dims; i++) {
    const s = scales[i];
    if (typeof s !== 'number' || !Number.isFinite(s) || s <= 0) {
      return `scale_factor must hold finite numbers above 0, got ${s}`;
    }
    // Python's int(size * scale) and ATen's static_cast<int64_t>(size * scale), in double.
    const o = Math.floor(spatial[i] * s);
    if (o < 1 || o > MAX_INTERPOLATE_SIDE) {
      return `scale_factor ${s} makes an output size of ${o} from ${spatial[i]}; qwasm allows 1 to ${MAX_INTERPOLATE_SIDE}`;
    }
    outSize.push(o);
  }
  // recompute_scale_factor=True: the kernel gets the sizes only.
  return { outSize, scales: recompute === true ? Array(dims).fill(null) : scales.slice() };
}

const f = Math.fround;

// compute_scales_value<float>: the user's 1 / scale (rounded once from double), or in / out in float32.
const scaleValue = (scale, inSize, outSize) => (scale !== null && scale > 0 ? f(1 / scale) : f(f(inSize) / f(outSize)));

// The source index of nearest, by kernel (`rule`):
// - 'generic' (HelperInterpNearest / HelperInterpNearestExact): floorf(s * o); nearest-exact
//   floorf(max(s * (o + 0.5f) - 0.5f, 0) + 0.5), the + 0.5 in double, rounded to float by floorf;
// - 'channelsLast' (nearest_idx / nearest_exact_idx): the same for nearest, but a copy when the sizes
//   match and o >> 1 at twice the size, whatever the scale; nearest-exact floorf((o + 0.5) * s), the
//   product in double;
// - 'quantized' (quantized/cpu/UpSampleNearest*d.cpp, nearest_neighbor_(exact_)compute_source_index):
//   floorf(s * o), and nearest-exact as channelsLast.
function nearestAxis(inSize, outSize, scale, exact, rule) {
  const index = new Int32Array(outSize);
  const s = scaleValue(scale, inSize, outSize);
  for (let o = 0; o < outSize; o++) {
    let i;
    if (exact && rule === 'generic') i = Math.floor(f(Math.max(f(f(s * f(o + 0.5)) - 0.5), 0) + 0.5));
    else if (exact) i = Math.floor(f((o + 0.5) * s));
    else if (rule === 'channelsLast' && outSize === inSize) i = o;
    else if (rule === 'channelsLast' && outSize === 2 * inSize) i = o >> 1;
    else i = Math.floor(f(s * f(o)));
    index[o] = Math.min(i, inSize - 1);
  }
  return index;
}

// area_pixel_compute_scale (UpSample.h) in float32, shared by the float and quantized linear kernels:
// (in - 1) / (out - 1) with align_corners, else compute_scales_value.
const linearScale = (inSize, outSize, scale, alignCorners) =>
  alignCorners ? (outSize > 1 ? f(f(inSize - 1) / f(outSize - 1)) : 0) : scaleValue(scale, inSize, outSize);

// area_pixel_compute_source_index (UpSample.h) in float32 for output `o` at scale `s`: s * o with
// align_corners, else s * (o + 0.5) - 0.5 clamped at 0 (`fused`: as one fma, see linearAxis).
function linearSource(s, o, alignCorners, fused) {
  if (alignCorners) return f(s * f(o));
  const real = fused ? fma32(s, f(o + 0.5), -0.5) : f(f(s * f(o + 0.5)) - 0.5);
  if (real < 0) return 0; // not Math.max: a -0 stays -0, as PyTorch's src_idx < 0 ? 0 : src_idx
  return real;
}

// compute_source_index_and_lambda (UpSample.h), in float32: two source indices and their weights
// ({i0, i1, l0, l1}, one entry per output); transforms.VideoClassification's resize uses it too.
// `fused`: GCC contracted area_pixel_compute_source_index's scale * (o + 0.5) - 0.5 into one fma
// (the channels-last kernel's loops, linearValues says which axes; the generic kernel rounds twice).
export function linearAxis(inSize, outSize, scale, alignCorners, fused) {
  const i0 = new Int32Array(outSize);
  const i1 = new Int32Array(outSize);
  const l0 = new Float32Array(outSize);
  const l1 = new Float32Array(outSize);
  const s = linearScale(inSize, outSize, scale, alignCorners);
  for (let o = 0; o < outSize; o++) {
    if (outSize === inSize) {
      i0[o] = o;
      i1[o] = o;
      l0[o] = 1;
      continue;
    }
    const real = linearSource(s, o, alignCorners, fused);
    const i = Math.min(Math.floor(real), inSize - 1);
    const w1 = Math.min(Math.max(f(real - i), 0), 1);
    i0[o] = i;
    i1[o] = i < inSize - 1 ? i + 1 : i;
    l1[o] = w1;
    l0[o] = f(1 - w1);
  }
  return { i0, i1, l0, l1 };
}

const product = (a) => a.reduce((x, y) => x * y, 1);

/**
 * Which kernel PyTorch's upsample_*_kernel_impl picks for a contiguous input
 * of `shape` and output spatial sizes `outSize` (UpSampleKernel.cpp):
 * 'channelsLast' (cpu_upsample_*_channels_last) or 'generic'.
 * _use_vectorized_kernel_cond_2d: channels-last contiguous with C > 3, or
 * output height + width <= 128; _3d: channels-last contiguous with C > 3.
 * A contiguous NC... tensor is also channels-last contiguous when its spatial
 * sizes are all 1. The one-thread rule of bilinear (C == 3 on one thread) is
 * not followed: qwasm computes as PyTorch on more than one thread.
 */
export function interpolateKernel(shape, outSize, mode) {
  const dims = outSize.length;
  if (dims === 1 || mode === 'linear') return 'generic';
  const channelsLast = shape[1] > 3 && product(shape.slice(2)) === 1;
  if (dims === 2) return channelsLast || outSize[0] + outSize[1] <= 128 ? 'channelsLast' : 'generic';
  return channelsLast ? 'channelsLast' : 'generic';
}

// Each output's flat source offset for nearest, from one index map per axis.
function nearestGather(src, dst, shape, outSize, axes) {
  const dims = outSize.length;
  const inSpatial = shape.slice(2);
  const planes = shape[0] * shape[1];
  const inPlane = product(inSpatial);
  const outPlane = product(outSize);
  // The source offset of each output within a plane.
  const offsets = new Int32Array(outPlane);
  const idx = Array(dims).fill(0);
  for (let k = 0; k < outPlane; k++) {
    let off = 0;
    for (let a = 0; a < dims; a++) off = off * inSpatial[a] + axes[a][idx[a]];
    offsets[k] = off;
    for (let a = dims - 1; a >= 0; a--) {
      if (++idx[a] < outSize[a]) break;
      idx[a] = 0;
    }
  }
  for (let p = 0; p < planes; p++) {
    const from = p * inPlane;
    const to = p * outPlane;
    for (let k = 0; k < outPlane; k++) dst[to + k] = src[from + offsets[k]];
  }
  return dst;
}

/**
 * Nearest / nearest-exact on any array of values (float32s, or a QTensor's
 * integers) of a contiguous `shape`: `quantized` picks the quantized
 * kernels' index rule, else the float kernel's (which depends on the sizes).
 */
export function nearestValues(src, dst, shape, outSize, scales, exact, quantized) {
  // The quantized kernels copy when no size changes (whatever the scales).
  if (quantized && outSize.every((o, a) => o === shape[2 + a])) {
    dst.set(src.subarray(0, dst.length));
    return dst;
  }
  const rule = quantized ? 'quantized' : interpolateKernel(shape, outSize, 'nearest');
  const axes = outSize.map((o, a) => nearestAxis(shape[2 + a], o, scales[a], exact, rule));
  return nearestGather(src, dst, shape, outSize, axes);
}

// The generic kernel (upsample_generic_Nd_kernel_impl, Interpolate<n, ..., 2>): along the first
// spatial axis t0 * w0 + t1 * w1 of the interpolations along the others, innermost the last
// axis; GCC contracts each to fma(t0, w0, t1 * w1). The core computes it (one pass per axis,
// src/qwasm/interpolate_float.cpp) from the axes' tables, packed as it reads them: per axis,
// out int32 i0, out int32 i1, out float32 l0, out float32 l1. Its scratch is at most two
// float32 arrays of a plane's partial results (interpolateScratchBytes).
function linearGeneric(src, dst, shape, outSize, axes, ctx) {
  const table = new ArrayBuffer(16 * outSize.reduce((a, b) => a + b, 0));
  let at = 0;
  outSize.forEach((n, a) => {
    new Int32Array(table, at, n).set(axes[a].i0);
    new Int32Array(table, at + 4 * n, n).set(axes[a].i1);
    new Float32Array(table, at + 8 * n, n).set(axes[a].l0);
    new Float32Array(table, at + 12 * n, n).set(axes[a].l1);
    at += 16 * n;
  });
  const copies = [
    { bytes: new Uint8Array(src.buffer, src.byteOffset, src.byteLength), what: 'the input' },
    { bytes: new Uint8Array(table), what: 'the interpolation tables' },
  ];
  const y = inHeap(copies, ctx, (M, address, n, t, tn) =>
    M._flinearInterpolate(address, n, shape.slice(), outSize.slice(), t, tn),
  );
  dst.set(y);
  return dst;
}

// cpu_upsample_linear_channels_last: per output, the corners' weights (products of the axes'
// lambdas in float32, first axis first) and a sum over the corners (c0 the first axis' i0, ...,
// the last the i1 of every axis). Channels [0, C - C % 8) take the vector path (Vectorized<float>
// of 8 lanes, as measured on PyTorch 2.15's x86 build): c0 * w0 + (c1 * w1 + (... + (c6 * w6 +
// c7 * w7))), which GCC contracts from the inside, fma(c7, w7, c6 * w6) first; the other channels
// the scalar tail, left to right, contracted as fma(c0, w0, c1 * w1) and then fma(ck, wk, sum).
export const CHANNELS_LAST_LANES = 8;

function linearChannelsLast(src, dst, shape, outSize, axes) {
  const dims = outSize.length;
  const [N, C] = shape;
  const inSpatial = shape.slice(2);
  const strides = inSpatial.map((_, a) => product(inSpatial.slice(a + 1)));
  const inPlane = product(inSpatial);
  const outPlane = product(outSize);
  const corners = 1 << dims;
  const off = new Int32Array(corners);
  const w = new Float32Array(corners);
  const vectorEnd = C - (C % CHANNELS_LAST_LANES);
  const idx = Array(dims).fill(0);
  for (let k = 0; k < outPlane; k++) {
    // Corner bits from the first axis (most significant) to the last: i000, i001, i010, ...
    for (let c = 0; c < corners; c++) {
      let o = 0;
      let weight = 1;
      for (let a = 0; a < dims; a++) {
        const hi = (c >> (dims - 1 - a)) & 1;
        const ax = axes[a];
        o += (hi ? ax.i1[idx[a]] : ax.i0[idx[a]]) * strides[a];
        const l = hi ? ax.l1[idx[a]] : ax.l0[idx[a]];
        weight = a === 0 ? l : f(weight * l);
      }
      off[c] = o;
      w[c] = weight;
    }
    for (let n = 0; n < N; n++) {
      for (let ch = 0; ch < C; ch++) {
        const base = (n * C + ch) * inPlane;
        let acc;
        if (ch < vectorEnd) {
          acc = fma32(src[base + off[corners - 1]], w[corners - 1], f(src[base + off[corners - 2]] * w[corners - 2]));
          for (let c = corners - 3; c >= 0; c--) acc = fma32(src[base + off[c]], w[c], acc);
        } else {
          acc = fma32(src[base + off[0]], w[0], f(src[base + off[1]] * w[1]));
          for (let c = 2; c < corners; c++) acc = fma32(src[base + off[c]], w[c], acc);
        }
        dst[(n * C + ch) * outPlane + k] = acc;
      }
    }
    for (let a = dims - 1; a >= 0; a--) {
      if (++idx[a] < outSize[a]) break;
      idx[a] = 0;
    }
  }
  return dst;
}

/** linear / bilinear / trilinear on the float32s `src` (exactly the elements of a contiguous `shape`), into `dst`. */
export function linearValues(src, dst, shape, outSize, scales, alignCorners, mode, ctx) {
  const channelsLast = interpolateKernel(shape, outSize, mode) === 'channelsLast';
  // The channels-last kernel's index of each axis is fused, but for the width of a 3-D input (measured:
  // GCC contracts the 2-D loop's two and the 3-D loop's depth and height, not its innermost width).
  const fused = (a) => channelsLast && !(outSize.length === 3 && a === 2);
  const axes = outSize.map((o, a) => linearAxis(shape[2 + a], o, scales[a], alignCorners, fused(a)));
  return channelsLast
    ? linearChannelsLast(src, dst, shape, outSize, axes)
    : linearGeneric(src, dst, shape, outSize, axes, ctx);
}

// One axis of PyTorch's quantized bilinear kernels (quantized/cpu/UpSampleBilinear2d.cpp and
// QuantizedOpKernels.cpp qupsample_bilinear2d_nhwc_kernel): the index truncated and the lambda
// unclamped (no guard_index_and_lambda); `fused` as in linearAxis (the NHWC kernel's loop).
function quantizedBilinearAxis(inSize, outSize, scale, alignCorners, fused) {
  const axis = { i: new Int32Array(outSize), p: new Int32Array(outSize), l0: new Float32Array(outSize) };
  axis.l1 = new Float32Array(outSize);
  const s = linearScale(inSize, outSize, scale, alignCorners);
  for (let o = 0; o < outSize; o++) {
    const real = linearSource(s, o, alignCorners, fused);
    // real < in - 0.5 whenever out <= in * scale; the clamp only keeps the reads in bounds.
    const i = Math.min(Math.trunc(real), inSize - 1);
    axis.i[o] = i;
    axis.p[o] = i < inSize - 1 ? 1 : 0;
    axis.l1[o] = f(real - i);
    axis.l0[o] = f(1 - axis.l1[o]);
  }
  return axis;
}

/**
 * PyTorch's quantized upsample_bilinear2d on a QTensor's integers `src` of a
 * contiguous [N, C, H, W] `shape` (the output keeps the qparams, so the
 * requantization is a round half to even of the float value plus the zero
 * point). kernel 'nchw': the contiguous kernel (a copy when no size changes;
 * float32 sums without fma); 'nhwc': the channels-last kernel, which PyTorch
 * takes for an input it sees as channels-last contiguous (a channels-last
 * tensor, one channel, or one pixel), with the fused source index: channels
 * [0, C - C % 8) on its 8-lane vector path, h0 * (w0 * a + w1 * b) + h1 *
 * (w0 * c + w1 * d) contracted as fma(h1, fma(w1, d, w0 * c), h0 * fma(w1, b,
 * w0 * a)), the rest on its scalar loop, contracted as fma(h0, fma(w0, a,
 * w1 * b), h1 * fma(w0, c, w1 * d)); then minus the zero point (measured).
 */
export function quantizedBilinearValues(src, dst, shape, outSize, scales, alignCorners, zeroPoint, kernel) {
  const [N, C, H, W] = shape;
  const [OH, OW] = outSize;
  if (kernel === 'nchw' && H === OH && W === OW) {
    dst.set(src.subarray(0, dst.length));
    return dst;
  }
  const fused = kernel === 'nhwc';
  const ah = quantizedBilinearAxis(H, OH, scales[0], alignCorners, fused);
  const aw = quantizedBilinearAxis(W, OW, scales[1], alignCorners, fused);
  const vectorEnd = C - (C % CHANNELS_LAST_LANES);
  for (let nc = 0; nc < N * C; nc++) {
    const plane = nc * H * W;
    const vector = fused && nc % C < vectorEnd;
    for (let oh = 0; oh < OH; oh++) {
      const row = plane + ah.i[oh] * W;
      const down = ah.p[oh] * W;
      const h0 = ah.l0[oh];
      const h1 = ah.l1[oh];
      for (let ow = 0; ow < OW; ow++) {
        const at = row + aw.i[ow];
        const right = aw.p[ow];
        const w0 = aw.l0[ow];
        const w1 = aw.l1[ow];
        const a = src[at];
        const b = src[at + right];
        const c = src[at + down];
        const d = src[at + down + right];
        let r;
        if (vector) {
          r = f(fma32(h1, fma32(w1, d, f(w0 * c)), f(h0 * fma32(w1, b, f(w0 * a)))) - zeroPoint);
        } else if (fused) {
          r = f(fma32(h0, fma32(w0, a, f(w1 * b)), f(h1 * fma32(w0, c, f(w1 * d)))) - zeroPoint);
        } else {
          r = f(f(f(h0 * f(f(w0 * a) + f(w1 * b))) + f(h1 * f(f(w0 * c) + f(w1 * d)))) - zeroPoint);
        }
        dst[(nc * OH + oh) * OW + ow] = Math.min(Math.max(roundHalfEven(r) + zeroPoint, 0), 255);
      }
    }
  }
  return dst;
}

/** The scratch linearValues allocates (bytes): the generic kernel's partial results of one plane. */
export function interpolateScratchBytes(shape, outSize, mode) {
  if (INTERPOLATE_MODES[mode] === null || interpolateKernel(shape, outSize, mode) === 'channelsLast') return 0;
  const inSpatial = shape.slice(2);
  let bytes = 0;
  for (let a = 1; a < outSize.length; a++) {
    bytes += 4 * product(inSpatial.slice(0, a)) * product(outSize.slice(a));
  }
  return bytes;
}
