// QTensor: the JavaScript face of a quantized tensor held in wasm memory.
// Getters return JS-owned copies; dispose() frees the wasm memory (a
// FinalizationRegistry frees forgotten tensors too, but only eventually).
import { MAX_NUMEL, MAX_RANK, bytesOf, describe, lengthOf, typedArrayKind } from './args.mjs';
import { DTYPE_NAMES, QSCHEME_NAMES } from './dtypes.mjs';
import { checked } from './errors.mjs';
import { copyView, noteOutOfMemory, streamFloatsOut } from './heap.mjs';
import { currentIsa } from './isa.mjs';
import { adopt, release } from './owned.mjs';
import { wasm } from './runtime.mjs';

const PER_TENSOR = 0;
const FLOAT_QPARAMS = 2;
const typedArraySet = Object.getPrototypeOf(Uint8Array.prototype).set;

// Only this module (and wrapHandle) can make a QTensor.
const constructing = Symbol('QTensor');
let handleOf;

export class QTensor {
  #handle;
  #shape;
  #dtype;

  /** @internal Use quantizePerTensor / quantizePerChannel / make*QuantizedTensor. */
  constructor(token, handle) {
    if (token !== constructing) {
      throw new TypeError('QTensor cannot be constructed directly: use quantizePerTensor, quantizePerChannel or makePerTensorQuantizedTensor');
    }
    this.#handle = handle;
    this.#shape = Object.freeze(handle.shape());
    this.#dtype = DTYPE_NAMES.get(handle.dtypeCode());
    adopt(this, handle, null, handle.nbytes());
  }

  static {
    handleOf = (q, ctx) => {
      if (q === null || typeof q !== 'object' || !(#handle in q)) {
        throw new TypeError(`${ctx}: expected a QTensor, got ${describe(q)}`);
      }
      if (q.#handle === null) throw new Error(`${ctx}: the QTensor has been disposed`);
      wasm(); // the module must still be there
      return q.#handle;
    };
  }

  #live(method) {
    if (this.#handle === null) throw new Error(`QTensor.${method}(): this tensor has been disposed`);
    wasm();
    return this.#handle;
  }

  #scheme(method, wantPerTensor) {
    const h = this.#live(method);
    const scheme = h.qschemeCode();
    if ((scheme === PER_TENSOR) !== wantPerTensor) {
      throw new Error(
        `QTensor.${method}() needs a ${wantPerTensor ? 'per-tensor' : 'per-channel'} tensor, but this one is ${QSCHEME_NAMES.get(scheme)}`,
      );
    }
    return h;
  }

  /** Dimensions, PyTorch order (a frozen array). */
  get shape() {
    return this.#shape;
  }

  /** 'quint8' | 'qint8' | 'qint32' | 'quint4x2' */
  get dtype() {
    return this.#dtype;
  }

  /** True after dispose(). */
  get disposed() {
    return this.#handle === null;
  }

  /** Number of elements. */
  numel() {
    return this.#live('numel').numel();
  }

  qscheme() {
    return QSCHEME_NAMES.get(this.#live('qscheme').qschemeCode());
  }

  qScale() {
    return this.#scheme('qScale', true).qScale();
  }

  qZeroPoint() {
    return this.#scheme('qZeroPoint', true).qZeroPoint();
  }

  qPerChannelAxis() {
    return this.#scheme('qPerChannelAxis', false).axis();
  }

  qPerChannelScales() {
    const h = this.#scheme('qPerChannelScales', false);
    const floatQParams = h.qschemeCode() === FLOAT_QPARAMS;
    const scales = copyView(h.scalesView()); // copied before anything else can touch wasm memory
    return floatQParams ? Float32Array.from(scales) : scales;
  }

  qPerChannelZeroPoints() {
    const h = this.#scheme('qPerChannelZeroPoints', false);
    const floatQParams = h.qschemeCode() === FLOAT_QPARAMS;
    const zps = copyView(h.zeroPointsView());
    return floatQParams ? Float32Array.from(zps) : Int32Array.from(zps);
  }

  /** The stored integers, a JS-owned copy (quint4x2: the packed bytes). */
  intRepr() {
    return copyView(this.#live('intRepr').intReprView());
  }

  /**
   * Back to float32, as {data, shape}. `out` (optional, like PyTorch's out=) is
   * a Float32Array of numel() elements to write into; it saves allocating a
   * fresh array, which for large tensors costs more than the dequantization.
   */
  dequantize(out) {
    const ctx = 'QTensor.dequantize(out)';
    const h = this.#live('dequantize');
    const n = h.numel();
    if (out !== undefined) {
      if (typedArrayKind(out) !== 'Float32Array') {
        throw new TypeError(`${ctx}: out must be a Float32Array, got ${describe(out)}`);
      }
      bytesOf(out, 'out', ctx);
      if (lengthOf(out) !== n) throw new RangeError(`${ctx}: out must hold ${n} elements, got ${lengthOf(out)}`);
    }
    const isa = currentIsa();
    const target = out === undefined ? new Float32Array(n) : out;
    const M = wasm();
    try {
      streamFloatsOut(M, n, ctx, (address, begin, end) => checked(h.dequantizeInto(address, begin, end, isa), ctx), {
        set: (chunk, offset) => typedArraySet.call(target, chunk, offset),
      });
    } catch (e) {
      throw noteOutOfMemory(e, ctx);
    }
    return { data: target, shape: this.#shape.slice() };
  }

  /**
   * A tensor with another shape over the same integers (shared storage, like
   * torch.Tensor.view): one entry may be -1 (inferred). Per channel, the
   * channel dimension must survive as one dimension of the new shape.
   * The view owns a reference to the storage: dispose() it like any tensor.
   */
  view(shape) {
    const ctx = 'QTensor.view(shape)';
    const h = this.#live('view');
    const dims = readViewShape(shape, h.numel(), ctx);
    let axis = -1;
    if (h.qschemeCode() !== PER_TENSOR) axis = viewAxis(this.#shape, h.axis(), dims, ctx);
    return wrapHandle(checked(wasm()._view(h, dims, axis), ctx));
  }

  dispose() {
    this.#handle = release(this, this.#handle);
  }

  toString() {
    if (this.#handle === null) return 'QTensor(disposed)';
    return `QTensor(shape=[${this.#shape.join(', ')}], dtype=${this.#dtype}, qscheme=${this.qscheme()})`;
  }
}

// `using q = quantizePerTensor(...)` where the runtime has explicit resource management.
if (typeof Symbol.dispose === 'symbol') {
  QTensor.prototype[Symbol.dispose] = function dispose() {
    this.dispose();
  };
}

/** @internal A QTensor around a handle the bindings returned. */
export function wrapHandle(handle) {
  return new QTensor(constructing, handle);
}

/** @internal The live handle of a QTensor argument (TypeError / Error otherwise). */
export function qtensorHandle(q, ctx) {
  return handleOf(q, ctx);
}

// A view's shape: integers >= 0, one may be -1; the same element count.
function readViewShape(shape, numel, ctx) {
  if (!Array.isArray(shape)) throw new TypeError(`${ctx}: shape must be an array of integers, got ${describe(shape)}`);
  const rank = shape.length;
  if (rank > MAX_RANK) throw new RangeError(`${ctx}: shape has ${rank} dimensions, at most ${MAX_RANK} allowed`);
  const dims = new Array(rank);
  let inferred = -1;
  let known = 1;
  for (let i = 0; i < rank; i++) {
    const d = shape[i];
    if (typeof d !== 'number' || !Number.isInteger(d)) throw new TypeError(`${ctx}: shape[${i}] must be an integer, got ${describe(d)}`);
    if (d === -1 && inferred < 0) inferred = i;
    else if (d < 0 || d > MAX_NUMEL) throw new RangeError(`${ctx}: shape[${i}] must be in 0..${MAX_NUMEL} (or one -1), got ${d}`);
    else known *= d;
    dims[i] = d;
  }
  if (inferred >= 0) {
    if (known === 0 || numel % known !== 0) throw new RangeError(`${ctx}: shape [${dims.join(', ')}] is invalid for ${numel} elements`);
    dims[inferred] = numel / known;
  } else if (known !== numel) {
    throw new RangeError(`${ctx}: shape [${dims.join(', ')}] is invalid for ${numel} elements`);
  }
  return dims;
}

// Where the channel dimension of a per-channel tensor lands in a view.
function viewAxis(shape, axis, dims, ctx) {
  const outer = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  let prefix = 1;
  for (let i = 0; i < dims.length; i++) {
    if (prefix === outer && dims[i] === shape[axis]) return i;
    prefix *= dims[i];
  }
  throw new RangeError(`${ctx}: a view of a per-channel tensor must keep axis ${axis} (size ${shape[axis]}) as one dimension`);
}
