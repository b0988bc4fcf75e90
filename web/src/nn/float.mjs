// Float modules: nn.Conv1d/2d/3d, nn.Linear, nn.ReLU and the fused
// nn.intrinsic.ConvReLU1d/2d/3d / LinearReLU, running the WASM SIMD float32
// kernels (the baseline int8 is compared against). Weights are Parameters the
// module owns (parameter.mjs); they are packed into wasm memory on the first
// forward() and repacked when their values change.
import { describe, readFloatTensor, tensorBytes } from '../runtime/args.mjs';
import { checked } from '../runtime/errors.mjs';
import { noteOutOfMemory, withHeapCopy } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { adopt, release } from '../runtime/owned.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { relu as qrelu } from './functional.mjs';
import { Module } from './module.mjs';
import { Parameter, parameterBytes, readTensorArg, sameBytes } from './parameter.mjs';
import {
  freezeGeometry,
  liftInputShape,
  lowerOutputShape,
  readConvArgs,
  SPECS,
  userTriple,
  validateGeometry,
  weightShape,
} from './spec.mjs';
import { reluFloats } from './torch-float.mjs';

function uniform(n, bound) {
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * bound;
  return data;
}

// Each float conv module's spec and validated geometry, read through this
// map by the fused and quantized modules (getters can be overridden).
const convInternals = new WeakMap();
let ownParams; // (module) => {weight, bias}, from the private fields (set in a static block)

/** @internal {spec, geometry, weight, bias} of a float conv / linear module, or undefined. */
export function floatConvParts(mod) {
  const parts = mod !== null && typeof mod === 'object' ? convInternals.get(mod) : undefined;
  return parts && { spec: parts.spec, geometry: parts.geometry, ...ownParams(mod) };
}

class FloatConvBase extends Module {
  #spec;
  #geometry;
  #weight;
  #bias;
  /** @type {import('../runtime/bridge.mjs').FConvHandle | null} */
  #packed = null;
  #packedWeight = null; // the bytes last packed, to notice in-place edits
  #packedBias = null;
  #name;

  constructor(spec, inChannels, outChannels, kernelSize, options) {
    super();
    this.#name = `nn.${spec.name}`;
    const ctx = `new ${this.#name}(...)`;
    this.#spec = spec;
    const g = readConvArgs(spec, inChannels, outChannels, kernelSize, options, ctx);
    const numel = validateGeometry(g, ctx); // before any work sized by the arguments
    this.#geometry = freezeGeometry(g);
    const shape = weightShape(g);
    // PyTorch's reset_parameters: kaiming_uniform_(a = sqrt(5)) and a bias in
    // U(-1/sqrt(fan_in), 1/sqrt(fan_in)); both bounds are 1/sqrt(fan_in).
    const fanIn = numel / outChannels;
    const bound = 1 / Math.sqrt(fanIn);
    this.#weight = new Parameter(uniform(numel, bound), shape, `${this.#name}.weight`);
    this.#bias = g.bias ? new Parameter(uniform(outChannels, bound), [outChannels], `${this.#name}.bias`) : null;
    convInternals.set(this, { spec, geometry: this.#geometry });
  }

  static {
    ownParams = (m) => ({ weight: m.#weight, bias: m.#bias });
  }

  get inChannels() {
    return this.#geometry.inChannels;
  }
  get outChannels() {
    return this.#geometry.outChannels;
  }
  get groups() {
    return this.#geometry.groups;
  }
  get kernelSize() {
    return userTriple(this.#geometry.kernel, this.#spec.dims);
  }
  get stride() {
    return userTriple(this.#geometry.stride, this.#spec.dims);
  }
  get dilation() {
    return userTriple(this.#geometry.dilation, this.#spec.dims);
  }
  /** As given: an integer, an array, 'same' or 'valid'. */
  get padding() {
    return this.#geometry.padding;
  }

  /** The float weight (a Parameter: PyTorch's shape; edit in place or assign). */
  get weight() {
    return this.#weight;
  }

  set weight(w) {
    const ctx = `${this.#name}.weight`;
    this.#weight = new Parameter(readTensorArg(w, this.#weight.shape, ctx), this.#weight.shape, ctx);
  }

  /** The float bias [outChannels] (a Parameter), or null. */
  get bias() {
    return this.#bias;
  }

  set bias(b) {
    const ctx = `${this.#name}.bias`;
    const shape = [this.#geometry.outChannels];
    this.#bias = b === null ? null : new Parameter(readTensorArg(b, shape, ctx), shape, ctx);
  }

  /** @internal The validated geometry (frozen). */
  get _geometry() {
    return this.#geometry;
  }

  /** @internal */
  get _spec() {
    return this.#spec;
  }

  // Packs the weights unless the packed copy still holds the current values.
  /**
   * @param {import('../runtime/bridge.mjs').Core} M
   * @returns {import('../runtime/bridge.mjs').FConvHandle}
   */
  #pack(M, ctx) {
    const w = parameterBytes(this.#weight, ctx);
    const b = this.#bias === null ? null : parameterBytes(this.#bias, ctx);
    const fresh =
      this.#packed !== null &&
      sameBytes(w, this.#packedWeight) &&
      (b === null ? this.#packedBias === null : this.#packedBias !== null && sameBytes(b, this.#packedBias));
    if (fresh) return this.#packed;
    const geometry = this.#geometry;
    const wCount = w.byteLength / 4;
    const handle = withHeapCopy(M, w, 'the weight', ctx, (wAddr) =>
      b === null
        ? checked(M._makeFConv(geometry, wAddr, wCount, 0, 0, false), ctx)
        : withHeapCopy(M, b, 'the bias', ctx, (bAddr) =>
            checked(M._makeFConv(geometry, wAddr, wCount, bAddr, b.byteLength / 4, true), ctx),
          ),
    );
    this.#packed = adopt(this, handle, this.#packed, w.byteLength);
    this.#packedWeight = new Uint8Array(w);
    this.#packedBias = b === null ? null : new Uint8Array(b);
    return this.#packed;
  }

  /** @internal Forward with or without the fused ReLU. */
  _run(x, relu, ctx) {
    const t = readFloatTensor(x, ctx);
    const shape5 = liftInputShape(this.#spec, t.shape, ctx);
    const M = wasm(ctx);
    try {
      const packed = this.#pack(M, ctx);
      return withHeapCopy(M, tensorBytes(t, ctx), 'the input', ctx, (address, n) => {
        const r = checked(packed.forward(address, n, shape5, relu, currentIsa()), ctx);
        const data = new Float32Array(r.view);
        packed.releaseOutput();
        return { data, shape: lowerOutputShape(this.#spec, t.shape, r.shape) };
      });
    } catch (e) {
      throw noteOutOfMemory(e);
    }
  }

  forward(x) {
    return this._run(x, false, `${this.#name}.forward(x)`);
  }

  /**
   * @internal _run(x, relu) with this call's depth padding replaced by
   * (padBegin, padEnd): a Conv3d over a window of depth slices
   * (web/src/model/depth-stream.mjs), from the same packed weights.
   */
  _runDepthPadded(x, relu, padBegin, padEnd, ctx) {
    if (this.#spec.dims !== 3) throw new Error(`${ctx}: a depth padding override is for a Conv3d`);
    const t = readFloatTensor(x, ctx);
    const M = wasm(ctx);
    try {
      const packed = this.#pack(M, ctx);
      return withHeapCopy(M, tensorBytes(t, ctx), 'the input', ctx, (address, n) => {
        const r = checked(packed.forwardDepthPadded(address, n, t.shape, relu, currentIsa(), padBegin, padEnd), ctx);
        const data = new Float32Array(r.view);
        packed.releaseOutput();
        return { data, shape: r.shape };
      });
    } catch (e) {
      throw noteOutOfMemory(e);
    }
  }

  /** @internal forward(x) under a depth padding override. */
  _forwardDepthPadded(x, padBegin, padEnd) {
    return this._runDepthPadded(x, false, padBegin, padEnd, `${this.#name}.forward(x)`);
  }

  /** @internal _scratchBound(shape) under a depth padding override. */
  _scratchBoundDepthPadded(shape, padBegin, padEnd) {
    const ctx = `${this.#name}._scratchBound(shape)`;
    const M = wasm(ctx);
    return checked(this.#pack(M, ctx).scratchBoundDepthPadded(shape, padBegin, padEnd), ctx);
  }

  /** Bytes of wasm scratch memory the last forward() used beyond input, output and weights. */
  lastScratchBytes() {
    return this.#packed ? this.#packed.scratchBytes() : 0;
  }

  /**
   * @internal The most scratch memory a forward() on an input of `shape`
   * allocates (every ISA, every thread): the model loader's budget.
   */
  _scratchBound(shape) {
    const ctx = `${this.#name}._scratchBound(shape)`;
    const M = wasm(ctx);
    return checked(this.#pack(M, ctx).scratchBound(liftInputShape(this.#spec, shape, ctx)), ctx);
  }

  /** Frees the packed weights in wasm memory (the module repacks if used again). */
  dispose() {
    this.#packed = release(this, this.#packed);
    this.#packedWeight = null;
    this.#packedBias = null;
  }

  toString() {
    const g = this.#geometry;
    return this.#spec.dims === 0
      ? `${this.#name}(in_features=${g.inChannels}, out_features=${g.outChannels}, bias=${this.#bias !== null})`
      : `${this.#name}(${g.inChannels}, ${g.outChannels}, kernel_size=${JSON.stringify(this.kernelSize)}, stride=${JSON.stringify(this.stride)})`;
  }
}

export class Conv1d extends FloatConvBase {
  constructor(inChannels, outChannels, kernelSize, options) {
    super(SPECS[1], inChannels, outChannels, kernelSize, options);
  }
}

export class Conv2d extends FloatConvBase {
  constructor(inChannels, outChannels, kernelSize, options) {
    super(SPECS[2], inChannels, outChannels, kernelSize, options);
  }
}

export class Conv3d extends FloatConvBase {
  constructor(inChannels, outChannels, kernelSize, options) {
    super(SPECS[3], inChannels, outChannels, kernelSize, options);
  }
}

export class Linear extends FloatConvBase {
  constructor(inFeatures, outFeatures, options) {
    super(SPECS.linear, inFeatures, outFeatures, 1, options);
  }

  get inFeatures() {
    return this.inChannels;
  }
  get outFeatures() {
    return this.outChannels;
  }
}

export class ReLU extends Module {
  /** max(x, 0) on a float tensor; on a quint8 QTensor max(q, zeroPoint), the qparams kept (PyTorch's quantized relu). */
  forward(x) {
    if (isQTensorInstance(x)) return qrelu(x);
    const ctx = 'nn.ReLU.forward(x)';
    const t = readFloatTensor(x, ctx);
    return { data: reluFloats(tensorBytes(t, ctx), ctx), shape: t.shape };
  }

  toString() {
    return 'nn.ReLU()';
  }
}

// The modules inside a fused module, read through its private fields (a
// subclass could override the public getters).
const fusedParts = new WeakMap();

/** @internal The wrapped conv / linear of an nn.intrinsic module, or undefined. */
export function fusedInner(mod) {
  return mod !== null && typeof mod === 'object' ? fusedParts.get(mod) : undefined;
}

// nn.intrinsic fused float modules: conv (or linear) followed by ReLU, run as one kernel pass.
function fusedClass(name, Inner) {
  const Fused = class extends Module {
    #inner;
    #relu;

    constructor(inner, relu = new ReLU()) {
      super();
      const ctx = `new nn.intrinsic.${name}(module, relu)`;
      if (!(inner instanceof Inner)) {
        throw new TypeError(`${ctx}: module must be an nn.${Inner.name}, got ${describe(inner)}`);
      }
      if (!(relu instanceof ReLU)) throw new TypeError(`${ctx}: relu must be an nn.ReLU, got ${describe(relu)}`);
      this.#inner = inner;
      this.#relu = relu;
      fusedParts.set(this, inner);
    }

    /** The wrapped modules (PyTorch: self[0], self[1]). */
    get 0() {
      return this.#inner;
    }

    get 1() {
      return this.#relu;
    }

    forward(x) {
      return this.#inner._run(x, true, `nn.intrinsic.${name}.forward(x)`);
    }

    /** @internal The wrapped layer's scratch bound (the model loader's budget). */
    _scratchBound(shape) {
      return this.#inner._scratchBound(shape);
    }

    /** @internal The wrapped layer's geometry (depth streaming). */
    get _geometry() {
      return this.#inner._geometry;
    }

    /** @internal forward(x) under a depth padding override (depth streaming). */
    _forwardDepthPadded(x, padBegin, padEnd) {
      return this.#inner._runDepthPadded(x, true, padBegin, padEnd, `nn.intrinsic.${name}.forward(x)`);
    }

    /** @internal The wrapped layer's scratch bound under a depth padding override. */
    _scratchBoundDepthPadded(shape, padBegin, padEnd) {
      return this.#inner._scratchBoundDepthPadded(shape, padBegin, padEnd);
    }

    dispose() {
      this.#inner.dispose();
    }

    toString() {
      return `nn.intrinsic.${name}(${this.#inner}, ${this.#relu})`;
    }
  };
  Object.defineProperty(Fused, 'name', { value: name });
  return Fused;
}

export const ConvReLU1d = fusedClass('ConvReLU1d', Conv1d);
export const ConvReLU2d = fusedClass('ConvReLU2d', Conv2d);
export const ConvReLU3d = fusedClass('ConvReLU3d', Conv3d);
export const LinearReLU = fusedClass('LinearReLU', Linear);
