// nn.Parameter, as far as qwasm needs it: a float tensor a module owns.
//
// The behaviour PyTorch users expect: module.weight is the module's own
// tensor; an in-place edit (module.weight.data[0] = 5) takes effect in the
// next forward() and in fromFloat(); assigning module.weight.data = array (or
// module.weight = {data, shape}) copies the new values after checking their
// type and length. The shape is fixed (frozen). Modules detect in-place edits
// by comparing with the values they last packed (cheap next to a convolution).
import { bytesOf, checkNotRevoked, describe, lengthOf, readShape, typedArrayKind } from '../runtime/args.mjs';

export class Parameter {
  #data;
  #shape;
  #name;

  /** @internal */
  constructor(data, shape, name) {
    this.#data = data;
    this.#shape = Object.freeze(shape.slice());
    this.#name = name;
  }

  /** The values (Float32Array, owned by the module; edit in place or assign a new one). */
  get data() {
    return this.#data;
  }

  set data(v) {
    this.#data = readValues(v, this.#shape, `${this.#name}.data`);
  }

  /** PyTorch's shape (frozen). */
  get shape() {
    return this.#shape;
  }

  toString() {
    return `Parameter(shape=[${this.#shape.join(', ')}])`;
  }
}

/** @internal A copy of `v` (a Float32Array of shape's element count). */
export function readValues(v, shape, ctx) {
  if (typedArrayKind(v) !== 'Float32Array') throw new TypeError(`${ctx} must be a Float32Array, got ${describe(v)}`);
  const bytes = bytesOf(v, ctx, ctx);
  const numel = shape.reduce((a, b) => a * b, 1);
  if (lengthOf(v) !== numel) {
    throw new RangeError(`${ctx} must hold ${numel} elements (shape [${shape.join(', ')}]), got ${lengthOf(v)}`);
  }
  return new Float32Array(new Uint8Array(bytes).buffer);
}

/** @internal The bytes of a parameter's current values (TypeError if its buffer was detached). */
export function parameterBytes(p, ctx) {
  return bytesOf(p.data, 'the parameter', ctx);
}

/** @internal True when two byte views hold the same bytes. */
export function sameBytes(a, b) {
  if (a.byteLength !== b.byteLength) return false;
  const n = a.byteLength;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0 && n % 4 === 0) {
    const x = new Int32Array(a.buffer, a.byteOffset, n / 4);
    const y = new Int32Array(b.buffer, b.byteOffset, n / 4);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** @internal {data, shape} assigned to module.weight / bias / runningMean...: read once, checked, copied. */
export function readTensorArg(v, shape, ctx) {
  checkNotRevoked(v, ctx, ctx);
  if (v === null || typeof v !== 'object') {
    throw new TypeError(`${ctx} must be a float tensor {data: Float32Array, shape}, got ${describe(v)}`);
  }
  const data = v.data;
  const given = readShape(v.shape, ctx, `${ctx}.shape`).shape;
  if (given.length !== shape.length || shape.some((d, i) => given[i] !== d)) {
    throw new RangeError(`${ctx}: expected shape [${shape.join(', ')}], got [${given.join(', ')}]`);
  }
  return readValues(data, shape, `${ctx}.data`);
}
