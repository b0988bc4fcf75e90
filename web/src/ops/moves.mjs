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

// out[i0, ..., ik] = data[offset + sum(i_d * strides[d])], with the last dim in the inner loop.
function stridedCopy(data, outShape, strides, offset = 0) {
  const n = numel(outShape);
  const out = new /** @type {any} */ (data.constructor)(n);
  const rank = outShape.length;
  if (n === 0) return out;
  if (rank === 0) {
    out[0] = data[offset];
    return out;
  }
  const inner = outShape[rank - 1];
  const innerStride = strides[rank - 1];
  const index = new Array(rank).fill(0);
  let base = offset;
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

// A view of a contiguous input of `shape` (output shape, strides per output dim, offset), copied.
export const viewData = (data, view) => ({
  data: stridedCopy(data, view.shape, view.strides, view.offset),
  shape: view.shape,
});

/**
 * A planned output (a shape, or an object with one) that no tensor can hold
 * is a message: the planner prices the shape (the load budget refuses it
 * first), a run refuses it here, before allocating.
 */
export function fits(op, planned) {
  if (typeof planned === 'string') return planned;
  const shape = Array.isArray(planned) ? planned : planned.shape;
  const n = shape.reduce((a, b) => a * b, 1);
  return n > MAX_NUMEL
    ? `${op}: the output [${shape.join(', ')}] would have ${n} elements, over ${MAX_NUMEL}`
    : planned;
}

const isIntList = (v) => Array.isArray(v) && v.every((d) => Number.isSafeInteger(d));

/** x[..., start:end:step, ...] on dim (aten.slice.Tensor; null start / end: the ends): the view, or a message. */
export function sliceView(shape, dim, start, end, step) {
  const d = wrapDim(dim, shape.length);
  if (d === null || shape.length === 0) return `slice: dim ${show(dim)} out of range for rank ${shape.length}`;
  for (const [name, v] of [
    ['start', start],
    ['end', end],
  ]) {
    if (v !== null && !Number.isSafeInteger(v)) return `slice: ${name} must be an integer or None, got ${describe(v)}`;
  }
  if (!Number.isSafeInteger(step) || step <= 0) return `slice: step must be a positive integer, got ${show(step)}`;
  const size = shape[d];
  // PyTorch's slice: negative bounds count from the end, then both are clamped to [0, size].
  const clamp = (v, fallback) => {
    if (v === null) return fallback;
    const w = v < 0 ? v + size : v;
    return Math.min(Math.max(w, 0), size);
  };
  const s = clamp(start, 0);
  const e = Math.max(clamp(end, size), s);
  const strides = stridesOf(shape);
  const out = shape.slice();
  out[d] = Math.ceil((e - s) / step);
  const st = strides.slice();
  st[d] = strides[d] * step;
  return { shape: out, strides: st, offset: s * strides[d] };
}

/** x.select(dim, index) / x[..., index]: the view, or a message. */
export function selectView(shape, dim, index) {
  const d = wrapDim(dim, shape.length);
  if (d === null || shape.length === 0) return `select: dim ${show(dim)} out of range for rank ${shape.length}`;
  const size = shape[d];
  if (!Number.isSafeInteger(index) || index < -size || index >= size) {
    return `select: index ${show(index)} out of range for dimension ${d} of size ${size}`;
  }
  const strides = stridesOf(shape);
  const i = index < 0 ? index + size : index;
  return {
    shape: shape.filter((_, k) => k !== d),
    strides: strides.filter((_, k) => k !== d),
    offset: i * strides[d],
  };
}

/** x.narrow(dim, start, length): the view, or a message. */
export function narrowView(shape, dim, start, length) {
  const d = wrapDim(dim, shape.length);
  if (d === null || shape.length === 0) return `narrow: dim ${show(dim)} out of range for rank ${shape.length}`;
  const size = shape[d];
  if (!Number.isSafeInteger(start) || start < -size || start > size) {
    return `narrow: start ${show(start)} out of range for dimension ${d} of size ${size}`;
  }
  const s = start < 0 ? start + size : start;
  if (!Number.isSafeInteger(length) || length < 0 || s + length > size) {
    return `narrow: start ${s} + length ${show(length)} exceeds dimension ${d} of size ${size}`;
  }
  return sliceView(shape, d, s, s + length, 1);
}

/** x.expand(*sizes): the view (stride 0 where a dim of 1 is broadcast), or a message. */
export function expandView(shape, sizes) {
  if (!isIntList(sizes)) return `expand: sizes must be a list of integers, got ${describe(sizes)}`;
  if (sizes.length < shape.length) {
    return `expand: the number of sizes (${sizes.length}) must be at least the input's ${shape.length} dimensions`;
  }
  const lead = sizes.length - shape.length;
  const strides = stridesOf(shape);
  const out = [];
  const st = [];
  for (const [i, size] of sizes.entries()) {
    if (i < lead) {
      if (size < 0) return `expand: size ${size} for the new leading dimension ${i} must be >= 0`;
      out.push(size);
      st.push(0);
      continue;
    }
    const have = shape[i - lead];
    if (size === -1 || size === have) {
      out.push(have);
      st.push(strides[i - lead]);
    } else if (have === 1 && size >= 0) {
      out.push(size);
      st.push(0);
    } else {
      return `expand: the size ${size} of dimension ${i} must match the existing size ${have} (or the input's size be 1)`;
    }
  }
  return { shape: out, strides: st, offset: 0 };
}

/** x.repeat(*repeats): the output as a view of [r0, s0, r1, s1, ...] (stride 0 over each r), or a message. */
export function repeatView(shape, repeats) {
  if (!isIntList(repeats)) return `repeat: repeats must be a list of integers, got ${describe(repeats)}`;
  if (repeats.length < shape.length) {
    return `repeat: the number of repeats (${repeats.length}) must be at least the input's ${shape.length} dimensions`;
  }
  const bad = repeats.find((r) => r < 0);
  if (bad !== undefined) return `repeat: repeats must be >= 0, got ${bad}`;
  const padded = [...new Array(repeats.length - shape.length).fill(1), ...shape];
  const out = padded.map((s, i) => s * repeats[i]);
  const strides = stridesOf(padded);
  return {
    shape: out,
    gather: { shape: padded.flatMap((s, i) => [repeats[i], s]), strides: strides.flatMap((t) => [0, t]), offset: 0 },
  };
}

/** torch.flip(x, dims): the view (negative strides), or a message. */
export function flipView(shape, dims) {
  if (!isIntList(dims)) return `flip: dims must be a list of integers, got ${describe(dims)}`;
  const strides = stridesOf(shape);
  const st = strides.slice();
  let offset = 0;
  const seen = [];
  for (const dim of dims) {
    const d = wrapDim(dim, shape.length);
    if (d === null) return `flip: dim ${dim} out of range for rank ${shape.length}`;
    if (seen.includes(d)) return `flip: dim ${d} appears multiple times in dims [${dims.join(', ')}]`;
    seen.push(d);
    if (shape.length === 0) continue;
    st[d] = -strides[d];
    offset += (shape[d] - 1) * strides[d];
  }
  return { shape: shape.slice(), strides: st, offset: shape.some((s) => s === 0) ? 0 : offset };
}

/** x.squeeze(dim) (an int, a list, or null: every dim of size 1): the output shape, or a message. */
export function squeezeShape(shape, dim) {
  const dims = dim === null ? null : Array.isArray(dim) ? dim : [dim];
  if (dims === null) return shape.filter((s) => s !== 1);
  const drop = [];
  for (const d of dims) {
    const w = wrapDim(d, shape.length);
    if (w === null) return `squeeze: dim ${show(d)} out of range for rank ${shape.length}`;
    drop.push(w);
  }
  return shape.filter((s, i) => !(s === 1 && drop.includes(i)));
}

/** x.unsqueeze(dim): the output shape, or a message. */
export function unsqueezeShape(shape, dim) {
  const d = wrapDim(dim, shape.length + 1);
  if (d === null) return `unsqueeze: dim ${show(dim)} out of range for rank ${shape.length + 1}`;
  if (shape.length + 1 > 64) return `unsqueeze: the output would have ${shape.length + 1} dimensions, at most 64`;
  return [...shape.slice(0, d), 1, ...shape.slice(d)];
}

/** torch.stack(tensors, dim): the output shape, or a message (every input of `shape`). */
export function stackShape(shapes, dim) {
  if (shapes.length === 0) return 'stack: expects a non-empty list of tensors';
  const shape = shapes[0];
  const k = shapes.findIndex((s) => s.length !== shape.length || s.some((v, i) => v !== shape[i]));
  if (k !== -1) {
    return `stack: every tensor must have the same shape, got [${shape.join(', ')}] and [${shapes[k].join(', ')}] at ${k}`;
  }
  const d = wrapDim(dim, shape.length + 1);
  if (d === null) return `stack: dim ${show(dim)} out of range for rank ${shape.length + 1}`;
  return [...shape.slice(0, d), shapes.length, ...shape.slice(d)];
}

/** The values of equal-shaped contiguous inputs stacked along a new dim d. */
export function stackData(datas, shape, d) {
  const inner = shape.slice(d).reduce((a, b) => a * b, 1);
  const outer = shape.slice(0, d).reduce((a, b) => a * b, 1);
  const out = new /** @type {any} */ (datas[0].constructor)(inner * outer * datas.length);
  let o = 0;
  for (let i = 0; i < outer; i++) {
    for (const data of datas) {
      out.set(data.subarray(i * inner, (i + 1) * inner), o);
      o += inner;
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
    if (mode === 'circular' && out > 0 && size + Math.min(left, 0) + Math.min(right, 0) <= 0) {
      // PyTorch reads memory it never wrote there (measured on 2.15: arbitrary floats).
      return `pad: circular padding (${left}, ${right}) crops all of dimension ${d} of size ${size} and wraps what is left`;
    }
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

/**
 * torch.stack(xs, d) of float tensors, or of per-tensor QTensors with the same
 * qparams (their integers stacked, the qparams kept: PyTorch's
 * dequantize -> stack -> quantize with those qparams gives them); null for
 * QTensors whose qparams differ.
 */
export function stackValues(xs, shape, d) {
  if (xs.every(isFloatTensor))
    return {
      data: stackData(
        xs.map((x) => x.data),
        shape,
        d,
      ),
      shape: null,
    };
  if (!xs.every(isQ)) throw new NodeError('stack: the tensors must be all float or all quantized');
  const [first] = xs;
  const k = xs.findIndex((q) => q.qscheme() !== 'per_tensor_affine' || q.dtype !== first.dtype);
  if (k !== -1) throw new NodeError(`stack: tensor ${k} is not quantized per tensor as tensor 0 is`);
  // Other qparams than the first's: PyTorch's quantized cat requantizes to them (the caller does).
  if (xs.some((q) => q.qScale() !== first.qScale() || q.qZeroPoint() !== first.qZeroPoint())) return null;
  const ints = xs.map((q) => {
    const c = q.contiguous();
    try {
      return c.intRepr();
    } finally {
      c.dispose();
    }
  });
  return { ints: stackData(ints, shape, d), scale: first.qScale(), zeroPoint: first.qZeroPoint(), dtype: first.dtype };
}

/** A QTensor of `ints` with these qparams (the output of a move of integers). */
export const qtensorOf = (ints, shape, scale, zeroPoint, dtype) =>
  makePerTensorQuantizedTensor({ data: ints, shape }, scale, zeroPoint, dtype);
