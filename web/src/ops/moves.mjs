// The data movement of the layout ops (layout.mjs): PyTorch's shape rules for
// permute, transpose and pad, and the copies that carry them out on a typed
// array. They only move or select values, so one copy serves a float tensor's
// float32s and a quantized tensor's integers alike; on a QTensor the integers
// move and the qparams stay (exact by construction: PyTorch's
// dequantize -> op -> quantize with the input's qparams gives those integers).

import { describe, MAX_NUMEL } from '../runtime/args.mjs';
import { makePerTensorQuantizedTensor, quantizePerTensor } from '../tensors/quantize.mjs';
import { numel } from './abstract-values.mjs';
import { isFloatTensor, isQ, NodeError } from './graph-calls.mjs';

const stridesOf = (shape) => {
  const s = new Array(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= shape[d];
  }
  return s;
};

// An argument in a message: an integer as written, anything else described.
const show = (v) => (Number.isSafeInteger(v) ? String(v) : describe(v));

/** A dim in [-rank, rank) as an index (a scalar counts as rank 1, as PyTorch's maybe_wrap_dim), or null. */
export function wrapDim(dim, rank) {
  const r = Math.max(rank, 1);
  if (!Number.isSafeInteger(dim) || dim < -r || dim >= r) return null;
  return dim < 0 ? dim + r : dim;
}

/** torch.permute's dims as indices (a permutation of 0..rank-1), or a message saying what is wrong. */
export function permutation(dims, rank) {
  if (!Array.isArray(dims)) return `permute: dims must be a list of integers, got ${describe(dims)}`;
  if (dims.length !== rank)
    return `permute: number of dims don't match: the input has ${rank} dimensions, dims has ${dims.length}`;
  const out = [];
  for (const [i, d] of dims.entries()) {
    const w = wrapDim(d, rank);
    if (w === null) return `permute: dims[${i}] = ${show(d)} is out of range for rank ${rank}`;
    if (out.includes(w)) return `permute: dim ${w} repeated in dims [${dims.join(', ')}]`;
    out.push(w);
  }
  return out;
}

/** torch.transpose(x, dim0, dim1)'s permutation, or a message. */
export function transposition(dim0, dim1, rank) {
  const a = wrapDim(dim0, rank);
  const b = wrapDim(dim1, rank);
  if (a === null || b === null) {
    return `transpose: dims ${show(dim0)}, ${show(dim1)} out of range for rank ${rank}`;
  }
  const perm = Array.from({ length: rank }, (_, i) => i);
  if (rank > 0) [perm[a], perm[b]] = [perm[b], perm[a]];
  return perm;
}

/** The values of `data` (contiguous, of `shape`) permuted: output dim i is input dim perm[i]. */
export function permuteData(data, shape, perm) {
  const outShape = perm.map((p) => shape[p]);
  const inStrides = stridesOf(shape);
  return {
    data: stridedCopy(
      data,
      outShape,
      perm.map((p) => inStrides[p]),
    ),
    shape: outShape,
  };
}

// out[i0, ..., ik] = data[sum(i_d * strides[d])], with the last dim in the inner loop.
function stridedCopy(data, outShape, strides) {
  const n = numel(outShape);
  const out = new /** @type {any} */ (data.constructor)(n);
  const rank = outShape.length;
  if (n === 0) return out;
  if (rank === 0) {
    out[0] = data[0];
    return out;
  }
  const inner = outShape[rank - 1];
  const innerStride = strides[rank - 1];
  const index = new Array(rank).fill(0);
  let base = 0;
  for (let o = 0; o < n; o += inner) {
    for (let j = 0, i = base; j < inner; j++, i += innerStride) out[o + j] = data[i];
    // The odometer over the outer dims.
    for (let d = rank - 2; d >= 0; d--) {
      index[d]++;
      base += strides[d];
      if (index[d] < outShape[d]) break;
      base -= strides[d] * outShape[d];
      index[d] = 0;
    }
  }
  return out;
}

/** F.pad's modes. */
export const PAD_MODES = ['constant', 'reflect', 'replicate', 'circular'];

/**
 * F.pad's output shape and, per padded dim, the input index of each output
 * index (-1: the fill value), as PyTorch's PadNd.cpp, ReflectionPad.cpp,
 * ReplicationPadding.cpp compute them; or a message saying why PyTorch refuses.
 * pad is [left of the last dim, right of the last dim, left of the one before, ...].
 */
export function padPlan(shape, pad, mode) {
  if (!PAD_MODES.includes(mode)) return `pad: mode must be one of ${PAD_MODES.join(', ')}, got ${describe(mode)}`;
  if (!Array.isArray(pad) || pad.some((p) => !Number.isSafeInteger(p))) {
    return `pad: pad must be a list of integers, got ${describe(pad)}`;
  }
  const rank = shape.length;
  if (pad.length % 2 !== 0) return `pad: padding length must be divisible by 2, got ${pad.length}`;
  if (pad.length > 2 * rank) {
    return `pad: padding length ${pad.length} is more than two times the input's ${rank} dimensions`;
  }
  const padded = pad.length / 2;
  if (mode !== 'constant') {
    // PyTorch's non-constant pads: 1, 2 or 3 trailing dims, with one or two dims before them.
    if (padded < 1 || padded > 3 || rank < padded + 1 || rank > padded + 2) {
      return `pad: ${mode} padding of ${pad.length} values needs a ${padded + 1}-D or ${padded + 2}-D input, got ${rank}-D`;
    }
    if (shape.slice(1).some((s) => s === 0)) {
      return `pad: ${mode} padding needs non-zero dimensions besides the batch, got [${shape.join(', ')}]`;
    }
  }
  const outShape = shape.slice();
  const maps = new Array(rank).fill(null);
  for (let k = 0; k < padded; k++) {
    const d = rank - 1 - k;
    const left = pad[2 * k];
    const right = pad[2 * k + 1];
    const size = shape[d];
    const out = size + left + right;
    if (mode === 'constant') {
      if (out < 0) return `pad: dimension ${d} of size ${size} padded by (${left}, ${right}) would have size ${out}`;
    } else if (out < 1) {
      return `pad: dimension ${d} of size ${size} padded by (${left}, ${right}) would have size ${out}, at least 1`;
    }
    if (mode === 'reflect' && (left >= size || right >= size)) {
      return `pad: reflect padding (${left}, ${right}) must be less than the size ${size} of dimension ${d}`;
    }
    if (mode === 'circular' && (left > size || right > size)) {
      return `pad: circular padding (${left}, ${right}) would wrap around dimension ${d} of size ${size} more than once`;
    }
    if (out > MAX_NUMEL) return `pad: dimension ${d} would have ${out} elements`;
    outShape[d] = out;
    maps[d] = { left, right, size, out };
  }
  return { shape: outShape, maps, mode };
}

// The input index of output index j of one padded dim (-1: the fill value).
function sourceIndex(mode, { left, size }, j) {
  const iStart = Math.max(0, -left);
  const oStart = Math.max(0, left);
  if (mode === 'constant') {
    const i = j - left;
    return i >= 0 && i < size ? i : -1;
  }
  let ip;
  if (j < left) ip = mode === 'reflect' ? 2 * left - j : left;
  else if (j < size + left) ip = j;
  else ip = mode === 'reflect' ? 2 * (size + left - 1) - j : size + left - 1;
  return ip - oStart + iStart;
}

function circularIndex({ left, right, size }, j) {
  // The input with its negative sides cropped, then wrapped on its positive sides.
  const from = Math.max(0, -left);
  const kept = size - from - Math.max(0, -right);
  const i = (((j - Math.max(0, left)) % kept) + kept) % kept;
  return from + i;
}

/** The values of `data` (contiguous, of `shape`) padded as `plan` says, `fill` where the pad is constant. */
export function padData(data, shape, plan, fill) {
  const outShape = plan.shape;
  const rank = shape.length;
  const inStrides = stridesOf(shape);
  // Per dim: the input offset of each output index (-1: the fill value).
  const offsets = outShape.map((size, d) => {
    const m = plan.maps[d];
    const o = new Float64Array(size);
    for (let j = 0; j < size; j++) {
      const i = m === null ? j : plan.mode === 'circular' ? circularIndex(m, j) : sourceIndex(plan.mode, m, j);
      o[j] = i < 0 ? -1 : i * inStrides[d];
    }
    return o;
  });
  const n = numel(outShape);
  const out = new /** @type {any} */ (data.constructor)(n);
  if (n === 0) return { data: out, shape: outShape };
  if (rank === 0) {
    out[0] = data[0];
    return { data: out, shape: outShape };
  }
  const index = new Array(rank).fill(0);
  const inner = offsets[rank - 1];
  const width = outShape[rank - 1];
  for (let o = 0; o < n; o += width) {
    let base = 0;
    let filled = false;
    for (let d = 0; d < rank - 1; d++) {
      const off = offsets[d][index[d]];
      if (off < 0) filled = true;
      base += off;
    }
    if (filled) out.fill(fill, o, o + width);
    else for (let j = 0; j < width; j++) out[o + j] = inner[j] < 0 ? fill : data[base + inner[j]];
    for (let d = rank - 2; d >= 0; d--) {
      if (++index[d] < outShape[d]) break;
      index[d] = 0;
    }
  }
  return { data: out, shape: outShape };
}

/**
 * `move(data, shape, fill)` ({data, shape}) on a float tensor's values, or on
 * a per-tensor QTensor's integers (in logical order), giving a new QTensor
 * with the input's qparams. `fill` (a constant pad's value) reaches move as a
 * float32, or as the integer it quantizes to in the QTensor's qparams.
 */
export function moveValues(x, what, move, fill = 0) {
  if (isFloatTensor(x)) return move(x.data, x.shape, Math.fround(fill));
  if (!isQ(x)) throw new NodeError(`${what} must be a tensor, got ${describe(x)}`);
  if (x.qscheme() !== 'per_tensor_affine') {
    throw new NodeError(`${what} must be quantized per tensor (a graph's activations are), got ${x.qscheme()}`);
  }
  const scale = x.qScale();
  const zeroPoint = x.qZeroPoint();
  const c = x.contiguous();
  let ints;
  try {
    ints = c.intRepr();
  } finally {
    c.dispose();
  }
  const out = move(ints, [...x.shape], fill === 0 ? zeroPoint : quantizedFill(fill, scale, zeroPoint, x.dtype));
  return makePerTensorQuantizedTensor(out, scale, zeroPoint, x.dtype);
}

// A constant fill in the input's qparams: what quantize gives for it (the
// reference's quantize after the float pad sees that value).
function quantizedFill(value, scale, zeroPoint, dtype) {
  const q = quantizePerTensor({ data: Float32Array.of(value), shape: [1] }, scale, zeroPoint, dtype);
  try {
    return q.intRepr()[0];
  } finally {
    q.dispose();
  }
}
