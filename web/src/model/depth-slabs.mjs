// Depth slabs: a run of slices of a tensor along one axis (its depth), held in
// JS memory as the typed array of the values in row-major order. Depth
// streaming (depth-stream.mjs) keeps each conv's line buffer as a slab and
// builds its input windows from slabs; a slab converts back to the value a
// module takes: a quint8 per-tensor QTensor (same integers, same qparams) or
// a float tensor ({data, shape}).
import { isFloatTensor } from '../ops/graph-calls.mjs';
import { DTYPE } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { noteOutOfMemory } from '../runtime/heap.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { isQTensorInstance, qtensorHandle, wrapHandle } from '../tensors/qtensor.mjs';
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

/**
 * A conv's line buffer in depth streaming: the input slices [start, start +
 * count) of a tensor [N, C, D, ...] along depth (axis 2), held slice by slice
 * in a ring (each slot one slice of every [N, C] plane), so that slices
 * leave from the front and arrive at the back without moving the others.
 */
export class DepthRing {
  #outer;
  #inner;
  #Ctor;
  #buf = null;
  #cap = 0; // slots
  #head = 0; // the slot of slice `start`
  /** The first slice held (an index into the whole depth). */
  start = 0;
  /** How many slices are held. */
  count = 0;
  /** The slices' qparams (quantized) or null (float). */
  q = null;
  /** The shape of a slab of these slices, with the depth of the last one appended. */
  shape = null;
  #planned;

  /** @param {number} planned the most slices it is expected to hold (its first allocation) */
  constructor(planned = 0) {
    this.#planned = planned;
  }

  /** Appends the slab's slices (a view may be passed: it is copied at once). */
  append(slab) {
    if (slab.axis !== 2) throw new Error('depth streaming: a line buffer holds slices along depth');
    const n = slab.shape[2];
    if (this.shape === null) {
      ({ outer: this.#outer, inner: this.#inner } = split(slab.shape, 2));
      this.#Ctor = slab.data.constructor;
      this.q = slab.q;
      this.shape = slab.shape.slice();
    }
    if (this.count + n > this.#cap) this.#grow(Math.max(this.count + n, this.#planned));
    const outer = this.#outer;
    const inner = this.#inner;
    const plane = outer * inner;
    for (let j = 0; j < n; j++) {
      const slot = (this.#head + this.count + j) % this.#cap;
      for (let o = 0; o < outer; o++) {
        const from = (o * n + j) * inner;
        this.#buf.set(slab.data.subarray(from, from + inner), slot * plane + o * inner);
      }
    }
    this.count += n;
  }

  // Room for `need` slices, the held ones moved to the front in order.
  #grow(need) {
    const plane = this.#outer * this.#inner;
    const buf = new this.#Ctor(need * plane);
    for (let j = 0; j < this.count; j++) {
      const slot = (this.#head + j) % this.#cap;
      buf.set(this.#buf.subarray(slot * plane, (slot + 1) * plane), j * plane);
    }
    this.#buf = buf;
    this.#cap = need;
    this.#head = 0;
  }

  /** Drops the slices below `first` (an index into the whole depth). */
  dropBelow(first) {
    const n = Math.min(this.count, first - this.start);
    if (n <= 0) return;
    this.#head = (this.#head + n) % this.#cap;
    this.start += n;
    this.count -= n;
  }

  /**
   * The slices begin, begin + step, ... below end (indices into the whole
   * depth) as the value a module takes: a new QTensor (the caller owns it)
   * whose integers are written in place in wasm memory, or a float tensor.
   */
  gather(begin, end, step) {
    if (begin < this.start || end > this.start + this.count) {
      throw new Error(`depth streaming: slices [${begin}, ${end}) are not in the line buffer`);
    }
    const n = end > begin ? Math.ceil((end - begin) / step) : 0;
    const shape = this.shape.slice();
    shape[2] = n;
    if (this.q === null) {
      const data = new this.#Ctor(this.#outer * n * this.#inner);
      this.#gatherInto(data, begin, n, step);
      return { data, shape };
    }
    const ctx = 'depth streaming';
    let q;
    try {
      q = wrapHandle(
        checked(wasm(ctx)._emptyPerTensor(shape, this.q.scale, this.q.zeroPoint, DTYPE.get('quint8')), ctx),
      );
    } catch (e) {
      throw noteOutOfMemory(e);
    }
    this.#gatherInto(qtensorHandle(q, ctx).intReprView(), begin, n, step);
    return q;
  }

  #gatherInto(data, begin, n, step) {
    const outer = this.#outer;
    const inner = this.#inner;
    const plane = outer * inner;
    for (let j = 0; j < n; j++) {
      const slot = (this.#head + begin - this.start + j * step) % this.#cap;
      for (let o = 0; o < outer; o++) {
        const from = slot * plane + o * inner;
        data.set(this.#buf.subarray(from, from + inner), (o * n + j) * inner);
      }
    }
  }
}

/**
 * A value's slab without a copy where it can be: a QTensor's integers as a
 * view of the wasm heap (valid until the next allocation: the caller copies
 * it at once), a float tensor's data or a slab as they are.
 */
export function slabView(value, axis, ctx) {
  if (isSlab(value)) return value;
  if (isQTensorInstance(value)) {
    if (value.dtype !== 'quint8' || value.qscheme() !== 'per_tensor_affine') {
      throw new Error(`${ctx}: depth streaming carries quint8 per-tensor values, got ${value.dtype}`);
    }
    const view = qtensorHandle(value, ctx).intReprView();
    return {
      data: view instanceof Uint8Array ? view : new Uint8Array(view.buffer, view.byteOffset, view.byteLength),
      shape: [...value.shape],
      axis,
      q: { scale: value.qScale(), zeroPoint: value.qZeroPoint() },
    };
  }
  return slabOf(value, axis, ctx);
}

/** Whether v is a slab (depth streaming's own values between stages). */
export function isSlab(v) {
  return v !== null && typeof v === 'object' && Object.hasOwn(v, 'axis') && Object.hasOwn(v, 'q');
}
