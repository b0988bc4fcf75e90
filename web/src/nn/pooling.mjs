// nn.MaxPool1d/2d/3d, nn.AvgPool1d/2d/3d, nn.AdaptiveAvgPool1d/2d/3d and
// nn.AdaptiveMaxPool1d/2d/3d. On a float tensor they compute in float; on a
// quint8 QTensor they run PyTorch's quantized kernels (the integers PyTorch
// gives, the input's qparams kept) — after convert() a model's pools run on
// the QTensors its quantized layers produce, as in PyTorch.
import { describe, readBoolean, readFloatTensor, readInteger, readOptions, tensorBytes } from '../runtime/args.mjs';
import { POOL_KIND } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { noteOutOfMemory, withHeapCopy } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { isQTensorInstance, qtensorHandle, wrapHandle } from '../tensors/qtensor.mjs';
import { Module } from './module.mjs';

// An int, or an array of `dims` ints (null in adaptive sizes: keep that input size).
function readSizes(v, dims, name, ctx, { allowNull = false, min = 1 } = {}) {
  const one = (x, where) => {
    if (allowNull && x === null) return null;
    const n = readInteger(x, where, ctx);
    if (n < min || n > 2 ** 31 - 1) throw new RangeError(`${ctx}: ${where} must be in ${min}..2147483647, got ${n}`);
    return n;
  };
  if (Array.isArray(v)) {
    if (v.length !== dims)
      throw new TypeError(`${ctx}: ${name} must be an integer or an array of ${dims}, got ${describe(v)}`);
    return Array.from({ length: dims }, (_, i) => one(v[i], `${name}[${i}]`));
  }
  const n = one(v, name);
  return Array(dims).fill(n);
}

// The first `dims` entries are the module's; the core ignores the rest.
/** @returns {import('../runtime/bridge.mjs').Triple} */
const pad3 = (a, fill) => /** @type {any} */ ([...a, ...Array(3 - a.length).fill(fill)]);

/**
 * A float pool on x's bytes in wasm memory.
 * @param {(M: import('../runtime/bridge.mjs').Core, address: number, nbytes: number, shape: number[]) => import('../runtime/bridge.mjs').Result<import('../runtime/bridge.mjs').FloatResult>} call
 */
function runFloat(x, ctx, call) {
  const t = readFloatTensor(x, ctx);
  const M = wasm(ctx);
  try {
    return withHeapCopy(M, tensorBytes(t, ctx), 'the input', ctx, (address, n) => {
      const r = checked(call(M, address, n, t.shape), ctx);
      return { data: r.data, shape: r.shape };
    });
  } catch (e) {
    throw noteOutOfMemory(e);
  }
}

class PoolBase extends Module {
  #dims;
  #kind; // 'max' or 'avg'
  #name;
  #kernel;
  #stride;
  #padding;
  #dilation;
  #ceilMode;
  #countIncludePad;
  #divisor;

  constructor(kind, dims, kernelSize, options) {
    super();
    this.#kind = kind;
    this.#dims = dims;
    this.#name = `nn.${kind === 'max' ? 'Max' : 'Avg'}Pool${dims}d`;
    const ctx = `new ${this.#name}(kernelSize, options)`;
    const allowed =
      kind === 'max'
        ? ['stride', 'padding', 'dilation', 'ceilMode', 'returnIndices']
        : ['stride', 'padding', 'ceilMode', 'countIncludePad', ...(dims > 1 ? ['divisorOverride'] : [])];
    const o = readOptions(options, allowed, ctx);
    this.#kernel = readSizes(kernelSize, dims, 'kernelSize', ctx);
    this.#stride =
      o.has('stride') && o.get('stride') !== null ? readSizes(o.get('stride'), dims, 'stride', ctx) : this.#kernel;
    this.#padding = o.has('padding')
      ? readSizes(o.get('padding'), dims, 'padding', ctx, { min: 0 })
      : Array(dims).fill(0);
    this.#dilation = o.has('dilation') ? readSizes(o.get('dilation'), dims, 'dilation', ctx) : Array(dims).fill(1);
    this.#ceilMode = o.has('ceilMode') ? readBoolean(o.get('ceilMode'), 'ceilMode', ctx) : false;
    this.#countIncludePad = o.has('countIncludePad')
      ? readBoolean(o.get('countIncludePad'), 'countIncludePad', ctx)
      : true;
    if (o.has('returnIndices') && readBoolean(o.get('returnIndices'), 'returnIndices', ctx)) {
      throw new TypeError(`${ctx}: returnIndices is not supported`);
    }
    this.#divisor = null;
    if (o.has('divisorOverride') && o.get('divisorOverride') !== null) {
      this.#divisor = readInteger(o.get('divisorOverride'), 'divisorOverride', ctx);
      if (this.#divisor === 0) throw new RangeError(`${ctx}: divisorOverride must not be zero`);
    }
  }

  get kernelSize() {
    return this.#kernel.slice();
  }
  get stride() {
    return this.#stride.slice();
  }
  get padding() {
    return this.#padding.slice();
  }
  get ceilMode() {
    return this.#ceilMode;
  }

  /** @returns {import('../runtime/bridge.mjs').PoolGeometry} */
  #geometry() {
    return {
      dims: this.#dims,
      kernelSize: pad3(this.#kernel, 1),
      stride: pad3(this.#stride, 1),
      padding: pad3(this.#padding, 0),
      dilation: pad3(this.#dilation, 1),
      ceilMode: this.#ceilMode,
      countIncludePad: this.#countIncludePad,
      hasDivisor: this.#divisor !== null,
      divisorOverride: this.#divisor ?? 0,
    };
  }

  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    const g = this.#geometry();
    if (isQTensorInstance(x)) {
      const h = qtensorHandle(x, ctx);
      return wrapHandle(checked(wasm(ctx)._qpool(h, POOL_KIND.get(this.#kind), g, currentIsa()), ctx));
    }
    return runFloat(x, ctx, (M, address, n, shape) => M._fpool(address, n, shape, POOL_KIND.get(this.#kind), g));
  }

  toString() {
    return `${this.#name.slice(3)}(kernel_size=${JSON.stringify(this.#kernel)}, stride=${JSON.stringify(this.#stride)}, padding=${JSON.stringify(this.#padding)})`;
  }
}

class AdaptivePoolBase extends Module {
  #dims;
  #kind;
  #name;
  #outputSize;

  constructor(kind, dims, outputSize) {
    super();
    this.#kind = kind;
    this.#dims = dims;
    this.#name = `nn.Adaptive${kind === 'max' ? 'Max' : 'Avg'}Pool${dims}d`;
    this.#outputSize = readSizes(outputSize, dims, 'outputSize', `new ${this.#name}(outputSize)`, { allowNull: true });
  }

  get outputSize() {
    return this.#outputSize.slice();
  }

  // null entries keep the input's size (PyTorch's None).
  #sizes(shape) {
    return this.#outputSize.map((s, i) => (s === null ? shape[shape.length - this.#dims + i] : s));
  }

  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    if (isQTensorInstance(x)) {
      if (this.#kind === 'max') {
        throw new TypeError(`${ctx}: PyTorch has no quantized adaptive max pooling; dequantize() first`);
      }
      const h = qtensorHandle(x, ctx);
      return wrapHandle(checked(wasm(ctx)._qadaptiveAvgPool(h, this.#dims, this.#sizes(x.shape), currentIsa()), ctx));
    }
    return runFloat(x, ctx, (M, address, n, shape) =>
      M._fadaptivePool(address, n, shape, POOL_KIND.get(this.#kind), this.#dims, this.#sizes(shape)),
    );
  }

  toString() {
    return `${this.#name.slice(3)}(output_size=${JSON.stringify(this.#outputSize)})`;
  }
}

export class MaxPool1d extends PoolBase {
  constructor(kernelSize, options) {
    super('max', 1, kernelSize, options);
  }
}
export class MaxPool2d extends PoolBase {
  constructor(kernelSize, options) {
    super('max', 2, kernelSize, options);
  }
}
export class MaxPool3d extends PoolBase {
  constructor(kernelSize, options) {
    super('max', 3, kernelSize, options);
  }
}
export class AvgPool1d extends PoolBase {
  constructor(kernelSize, options) {
    super('avg', 1, kernelSize, options);
  }
}
export class AvgPool2d extends PoolBase {
  constructor(kernelSize, options) {
    super('avg', 2, kernelSize, options);
  }
}
export class AvgPool3d extends PoolBase {
  constructor(kernelSize, options) {
    super('avg', 3, kernelSize, options);
  }
}
export class AdaptiveAvgPool1d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('avg', 1, outputSize);
  }
}
export class AdaptiveAvgPool2d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('avg', 2, outputSize);
  }
}
export class AdaptiveAvgPool3d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('avg', 3, outputSize);
  }
}
export class AdaptiveMaxPool1d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('max', 1, outputSize);
  }
}
export class AdaptiveMaxPool2d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('max', 2, outputSize);
  }
}
export class AdaptiveMaxPool3d extends AdaptivePoolBase {
  constructor(outputSize) {
    super('max', 3, outputSize);
  }
}
