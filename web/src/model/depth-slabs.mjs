// Depth slabs: a run of slices of a tensor along one axis (its depth), held in
// JS memory as the typed array of the values in row-major order. Depth
// streaming (depth-stream.mjs) keeps each conv's line buffer as a slab and
// builds its input windows from slabs; a slab converts back to the value a
// module takes: a quint8 per-tensor QTensor (same integers, same qparams) or
// a float tensor ({data, shape}).
import { isFloatTensor } from '../ops/graph-calls.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';

/**
 * @typedef {{data: Uint8Array | Float32Array, shape: number[], axis: number,
 *   q: null | {scale: number, zeroPoint: number}}} Slab
 */

const product = (a) => a.reduce((x, y) => x * y, 1);

// outer: elements before the axis; inner: elements of one slice after it.
function split(shape, axis) {
  return { outer: product(shape.slice(0, axis)), inner: product(shape.slice(axis + 1)) };
}

/** The slab of a value (a copy; a QTensor stays the caller's to dispose). */
export function slabOf(value, axis, ctx) {
  if (isQTensorInstance(value)) {
    if (value.dtype !== 'quint8' || value.qscheme() !== 'per_tensor_affine') {
      throw new Error(`${ctx}: depth streaming carries quint8 per-tensor values, got ${value.dtype}`);
    }
    const data = value.intRepr();
    return {
      data: data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      shape: [...value.shape],
      axis,
      q: { scale: value.qScale(), zeroPoint: value.qZeroPoint() },
    };
  }
  if (isFloatTensor(value)) return { data: value.data, shape: value.shape.slice(), axis, q: null };
  throw new Error(`${ctx}: depth streaming carries tensors, got a value of another kind`);
}

/**
 * The value a module takes: a new QTensor (the caller owns it) or a float tensor.
 * @returns {any}
 */
export function tensorOfSlab(slab) {
  if (slab.q === null) return { data: slab.data, shape: slab.shape.slice() };
  return makePerTensorQuantizedTensor(
    { data: /** @type {Uint8Array} */ (slab.data), shape: slab.shape },
    slab.q.scale,
    slab.q.zeroPoint,
    'quint8',
  );
}

/** Slices [begin, end) along the slab's axis (a copy). */
export function sliceSlab(slab, begin, end) {
  const { shape, axis } = slab;
  const depth = shape[axis];
  if (begin === 0 && end === depth) return slab;
  const { outer, inner } = split(shape, axis);
  const n = end - begin;
  const data = new /** @type {any} */ (slab.data.constructor)(outer * n * inner);
  for (let o = 0; o < outer; o++) {
    const from = (o * depth + begin) * inner;
    data.set(slab.data.subarray(from, from + n * inner), o * n * inner);
  }
  const out = shape.slice();
  out[axis] = n;
  return { data, shape: out, axis, q: slab.q };
}

/** a then b along their axis (a copy); null stands for no slices. */
export function concatSlabs(a, b) {
  if (a === null) return b;
  if (b === null) return a;
  const { shape, axis } = a;
  const { outer, inner } = split(shape, axis);
  const da = shape[axis] * inner;
  const db = b.shape[axis] * inner;
  const data = new /** @type {any} */ (a.data.constructor)(outer * (da + db));
  for (let o = 0; o < outer; o++) {
    data.set(a.data.subarray(o * da, (o + 1) * da), o * (da + db));
    data.set(b.data.subarray(o * db, (o + 1) * db), o * (da + db) + da);
  }
  const out = shape.slice();
  out[axis] = shape[axis] + b.shape[axis];
  return { data, shape: out, axis, q: a.q };
}

/** Pieces in depth order into one slab of `depth` slices (the streamed output). */
export function joinSlabs(pieces, depth) {
  const first = pieces[0];
  const { axis } = first;
  const { outer, inner } = split(first.shape, axis);
  const data = new /** @type {any} */ (first.data.constructor)(outer * depth * inner);
  let at = 0;
  for (const p of pieces) {
    const n = p.shape[axis] * inner;
    for (let o = 0; o < outer; o++) data.set(p.data.subarray(o * n, (o + 1) * n), o * depth * inner + at);
    at += n;
  }
  const shape = first.shape.slice();
  shape[axis] = depth;
  return { data, shape, axis, q: first.q };
}
