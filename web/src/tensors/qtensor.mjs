// QTensor: the JavaScript face of a quantized tensor held in wasm memory.
// Getters return JS-owned copies; dispose() frees the wasm memory (a
// FinalizationRegistry frees forgotten tensors too, but only eventually).
import {
  bytesOf,
  describe,
  lengthOf,
  MAX_NUMEL,
  MAX_RANK,
  readOptions,
  setQTensorCheck,
  typedArrayKind,
} from '../runtime/args.mjs';
import { DTYPE_NAMES, MEMORY_FORMAT, QSCHEME, QSCHEME_NAMES } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { copyView, noteOutOfMemory, streamFloatsOut } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { adopt, release } from '../runtime/owned.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { tidyWith, trackNew } from '../runtime/scope.mjs';

const PER_TENSOR = QSCHEME.get('per_tensor_affine');
const FLOAT_QPARAMS = QSCHEME.get('per_channel_affine_float_qparams');
const typedArraySet = Object.getPrototypeOf(Uint8Array.prototype).set;

// Only this module (and wrapHandle) can make a QTensor.
const constructing = Symbol('QTensor');
// Brand-checked access to the private fields, for this module and its
// internal callers (set in the class's static block).
let isQTensor;
let handleOf;
let shapeOf;
let live;
let own;
let release_;

// The live handle, for a method that needs a per-tensor (or per-channel) tensor.
function perScheme(self, method, wantPerTensor) {
  const h = live(self, method);
  const scheme = h.qschemeCode();
  if ((scheme === PER_TENSOR) !== wantPerTensor) {
    throw new Error(
      `QTensor.${method} needs a ${wantPerTensor ? 'per-tensor' : 'per-channel'} tensor, but this one is ${QSCHEME_NAMES.get(scheme)}`,
    );
  }
  return h;
}

export class QTensor {
  /** @type {import('../runtime/bridge.mjs').QTensorHandle | null} */
  #handle;
  #shape;
  #dtype;

  /** @internal Use quantizePerTensor / quantizePerChannel / make*QuantizedTensor. */
  constructor(token, handle) {
    if (token !== constructing) {
      throw new TypeError(
        'QTensor cannot be constructed directly: use quantizePerTensor, quantizePerChannel or makePerTensorQuantizedTensor',
      );
    }
    this.#handle = handle;
    this.#shape = Object.freeze(handle.shape());
    this.#dtype = DTYPE_NAMES.get(handle.dtypeCode());
    adopt(this, handle, null, handle.nbytes());
    trackNew(this);
  }

  static {
    isQTensor = (q) => q !== null && typeof q === 'object' && #handle in q;
    setQTensorCheck(isQTensor);
    handleOf = (q, ctx) => {
      if (!isQTensor(q)) throw new TypeError(`${ctx}: expected a QTensor, got ${describe(q)}`);
      if (q.#handle === null) throw new Error(`${ctx}: the QTensor has been disposed`);
      wasm(ctx); // the module must still be there
      return q.#handle;
    };
    shapeOf = (q) => q.#shape;
    live = (self, method) => {
      if (!isQTensor(self)) throw new TypeError(`QTensor.${method}: called on ${describe(self)}, not a QTensor`);
      if (self.#handle === null) throw new Error(`QTensor.${method}: this tensor has been disposed`);
      wasm(`QTensor.${method}`);
      return self.#handle;
    };
    own = (self, method) => {
      if (!isQTensor(self)) throw new TypeError(`QTensor.${method}: called on ${describe(self)}, not a QTensor`);
      return self;
    };
    release_ = (self) => {
      self.#handle = release(self, self.#handle);
    };
  }

  /** Dimensions, PyTorch order (a frozen array). */
  get shape() {
    return own(this, 'shape').#shape;
  }

  /** @returns {import('../../index.js').QDType} */
  get dtype() {
    return own(this, 'dtype').#dtype;
  }

  /** True after dispose(). */
  get disposed() {
    return own(this, 'disposed').#handle === null;
  }

  /** Number of elements. */
  numel() {
    return live(this, 'numel()').numel();
  }

  /** @returns {import('../../index.js').TensorQScheme} */
  qscheme() {
    return QSCHEME_NAMES.get(live(this, 'qscheme()').qschemeCode());
  }

  qScale() {
    return perScheme(this, 'qScale()', true).qScale();
  }

  qZeroPoint() {
    return perScheme(this, 'qZeroPoint()', true).qZeroPoint();
  }

  qPerChannelAxis() {
    return perScheme(this, 'qPerChannelAxis()', false).axis();
  }

  qPerChannelScales() {
    const h = perScheme(this, 'qPerChannelScales()', false);
    const floatQParams = h.qschemeCode() === FLOAT_QPARAMS;
    const scales = copyView(h.scalesView()); // copied before anything else can touch wasm memory
    return floatQParams ? Float32Array.from(scales) : scales;
  }

  qPerChannelZeroPoints() {
    const h = perScheme(this, 'qPerChannelZeroPoints()', false);
    const floatQParams = h.qschemeCode() === FLOAT_QPARAMS;
    const zps = copyView(h.zeroPointsView());
    return floatQParams ? Float32Array.from(zps) : Int32Array.from(zps);
  }

  /** The stored integers, a JS-owned copy (quint4x2: the packed bytes). */
  intRepr() {
    return copyView(live(this, 'intRepr()').intReprView());
  }

  /** Documented at QTensor.dequantize (web/declarations/tensors.d.ts). */
  dequantize(out) {
    const ctx = 'QTensor.dequantize(out)';
    const h = live(this, 'dequantize(out)');
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
    const M = wasm(ctx);
    try {
      streamFloatsOut(M, n, ctx, (address, begin, end) => checked(h.dequantizeInto(address, begin, end, isa), ctx), {
        set: (chunk, offset) => typedArraySet.call(target, chunk, offset),
      });
    } catch (e) {
      throw noteOutOfMemory(e);
    }
    return { data: target, shape: this.#shape.slice() };
  }

  /** Documented at QTensor.view (web/declarations/tensors.d.ts). */
  view(shape) {
    const ctx = 'QTensor.view(shape)';
    const h = live(this, 'view(shape)');
    const dims = readViewShape(shape, h.numel(), ctx);
    return wrapHandle(viewOf(this, dims, ctx));
  }

  /** Documented at QTensor.stride (web/declarations/tensors.d.ts). */
  stride() {
    return live(this, 'stride()').strides();
  }

  /** Documented at QTensor.isContiguous (web/declarations/tensors.d.ts). */
  isContiguous(memoryFormat = 'contiguous') {
    const h = live(this, 'isContiguous(memoryFormat)');
    const format = memoryFormatCode(memoryFormat, 'QTensor.isContiguous(memoryFormat)');
    return format.rank === undefined || format.rank === this.#shape.length ? h.isContiguousIn(format.code) : false;
  }

  /** Documented at QTensor.contiguous (web/declarations/tensors.d.ts). */
  contiguous(options = undefined) {
    const ctx = 'QTensor.contiguous({ memoryFormat })';
    const h = live(this, 'contiguous({ memoryFormat })');
    const o = readOptions(options, ['memoryFormat'], ctx);
    const memoryFormat = o.has('memoryFormat') ? o.get('memoryFormat') : 'contiguous';
    const format = memoryFormatCode(memoryFormat, ctx);
    if (format.rank !== undefined && format.rank !== this.#shape.length) {
      throw new RangeError(
        `${ctx}: ${memoryFormat} needs a tensor of rank ${format.rank}, got rank ${this.#shape.length}`,
      );
    }
    return wrapHandle(checked(wasm(ctx)._withMemoryFormat(h, format.code), ctx));
  }

  dispose() {
    own(this, 'dispose()');
    release_(this);
  }

  /**
   * `a + b` on QTensors would concatenate their descriptions: refuse it, and
   * name what PyTorch offers instead (it has no + on quantized tensors either).
   * Strings (template literals, String(q)) still get toString().
   */
  [Symbol.toPrimitive](hint) {
    if (hint === 'string') return this.toString();
    throw new TypeError(
      'QTensors have no arithmetic operators (PyTorch refuses + on quantized tensors too): use ' +
        'nn.quantized.functional.add(a, b, scale, zeroPoint) (or mul, cat), a FloatFunctional / QFunctional in a ' +
        'model, or dequantize() and compute in float',
    );
  }

  toString() {
    if (!isQTensor(this)) return 'QTensor(?)';
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

/** Documented at tidy (web/declarations/tensors.d.ts). */
export function tidy(fn) {
  return tidyWith(fn, isQTensor);
}

/** @internal True for a QTensor (disposed or not), by its private brand. */
export function isQTensorInstance(x) {
  return isQTensor(x);
}

/**
 * @internal A QTensor around a handle the bindings returned.
 * @param {import('../runtime/bridge.mjs').QTensorHandle} handle
 */
export function wrapHandle(handle) {
  return new QTensor(constructing, handle);
}

/**
 * @internal The live handle of a QTensor argument (TypeError / Error otherwise).
 * @returns {import('../runtime/bridge.mjs').QTensorHandle}
 */
export function qtensorHandle(q, ctx) {
  return handleOf(q, ctx);
}

/** @internal A QTensor's own shape (frozen; never read through a property a caller could shadow). */
export function qtensorShape(q, ctx) {
  handleOf(q, ctx);
  return shapeOf(q);
}

/**
 * @internal A new handle viewing q's integers with shape `dims` (same element
 * count). Per channel, the channel axis is found in the new shape; the core
 * refuses a view that would regroup the channels.
 */
export function viewOf(q, dims, ctx) {
  const h = handleOf(q, ctx);
  const axis = h.qschemeCode() === PER_TENSOR ? -1 : viewAxis(shapeOf(q), h.axis(), dims, ctx);
  return checked(wasm(ctx)._view(h, dims.slice(), axis), ctx);
}

// PyTorch's names: the core's channels-last format is channels_last at rank 4, channels_last_3d at rank 5.
const MEMORY_FORMATS = new Map([
  ['contiguous', { code: MEMORY_FORMAT.get('contiguous') }],
  ['channels_last', { code: MEMORY_FORMAT.get('channels_last'), rank: 4 }],
  ['channels_last_3d', { code: MEMORY_FORMAT.get('channels_last'), rank: 5 }],
]);

function memoryFormatCode(name, ctx) {
  const format = typeof name === 'string' ? MEMORY_FORMATS.get(name) : undefined;
  if (!format) {
    throw new TypeError(
      `${ctx}: memoryFormat must be 'contiguous', 'channels_last' or 'channels_last_3d', got ${describe(name)}`,
    );
  }
  return format;
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
    if (typeof d !== 'number' || !Number.isInteger(d))
      throw new TypeError(`${ctx}: shape[${i}] must be an integer, got ${describe(d)}`);
    if (d === -1 && inferred < 0) inferred = i;
    else if (d < 0 || d > MAX_NUMEL)
      throw new RangeError(`${ctx}: shape[${i}] must be in 0..${MAX_NUMEL} (or one -1), got ${d}`);
    else known *= d;
    dims[i] = d;
  }
  if (inferred >= 0) {
    if (known === 0 || numel % known !== 0)
      throw new RangeError(`${ctx}: shape [${dims.join(', ')}] is invalid for ${numel} elements`);
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
  throw new RangeError(
    `${ctx}: a view of a per-channel tensor must keep axis ${axis} (size ${shape[axis]}) as one dimension`,
  );
}
