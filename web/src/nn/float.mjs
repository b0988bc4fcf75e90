// Float modules: nn.Conv1d/2d/3d, nn.Linear, nn.ReLU and the fused
// nn.intrinsic.ConvReLU1d/2d/3d / LinearReLU, running the WASM SIMD float32
// kernels (the baseline int8 is compared against). Weights are plain tensors
// you can set; they are packed into wasm memory on the next forward().
import { checked } from '../errors.mjs';
import { withHeapCopy } from '../heap.mjs';
import { currentIsa } from '../isa.mjs';
import { describe, wasm } from '../runtime.mjs';
import { checkFloatTensor, tensor } from '../tensor.mjs';
import { adopt, release } from '../owned.mjs';
import { SPECS, convGeometry, liftInputShape, lowerOutputShape, weightShape } from './spec.mjs';

function uniform(n, bound) {
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (Math.random() * 2 - 1) * bound;
  return data;
}

function sameShape(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

class FloatConvBase {
  #weight;
  #bias;
  #packed = null;

  constructor(spec, inChannels, outChannels, kernelSize, options = {}) {
    const ctx = `new nn.${spec.name}(...)`;
    this._spec = spec;
    this._geometry = convGeometry(spec, inChannels, outChannels, kernelSize, options, ctx);
    const { bias = true } = options;
    if (typeof bias !== 'boolean') throw new TypeError(`${ctx}: bias must be a boolean, got ${describe(bias)}`);
    const shape = weightShape(spec, this._geometry);
    // PyTorch's reset_parameters: kaiming_uniform_(a = sqrt(5)) and a bias in
    // U(-1/sqrt(fan_in), 1/sqrt(fan_in)); both bounds are 1/sqrt(fan_in).
    const fanIn = shape.slice(1).reduce((a, b) => a * b, 1);
    const bound = 1 / Math.sqrt(fanIn);
    this.#weight = { data: uniform(shape.reduce((a, b) => a * b, 1), bound), shape };
    this.#bias = bias ? { data: uniform(outChannels, bound), shape: [outChannels] } : null;
    this.inChannels = inChannels;
    this.outChannels = outChannels;
    this.groups = this._geometry.groups;
    /** As given: an integer, an array, 'same' or 'valid'. */
    this.padding = options.padding ?? 0;
  }

  /** The float weight, PyTorch's shape. Setting it repacks on the next forward(). */
  get weight() {
    return this.#weight;
  }

  set weight(w) {
    const ctx = `nn.${this._spec.name}.weight`;
    checkFloatTensor(w, ctx);
    const want = weightShape(this._spec, this._geometry);
    if (!sameShape(w.shape, want)) throw new RangeError(`${ctx}: expected shape [${want.join(', ')}], got [${w.shape.join(', ')}]`);
    this.#weight = tensor(w.data, w.shape);
    this.#packed = release(this, this.#packed);
  }

  /** The float bias [outChannels], or null. */
  get bias() {
    return this.#bias;
  }

  set bias(b) {
    const ctx = `nn.${this._spec.name}.bias`;
    if (b !== null) {
      checkFloatTensor(b, ctx);
      if (!sameShape(b.shape, [this.outChannels])) {
        throw new RangeError(`${ctx}: expected shape [${this.outChannels}], got [${b.shape.join(', ')}]`);
      }
      b = tensor(b.data, b.shape);
    }
    this.#bias = b;
    this.#packed = release(this, this.#packed);
  }

  /** @internal Forward with or without the fused ReLU. */
  _run(x, relu, ctx) {
    checkFloatTensor(x, ctx);
    const shape5 = liftInputShape(this._spec, x.shape, ctx);
    const M = wasm();
    if (this.#packed === null || this.#packed.isDeleted()) {
      const w = this.#weight;
      const b = this.#bias;
      const handle = withHeapCopy(M, w.data, (wAddr) =>
        b === null
          ? checked(M._makeFConv(this._geometry, wAddr, 0, false), ctx)
          : withHeapCopy(M, b.data, (bAddr) => checked(M._makeFConv(this._geometry, wAddr, bAddr, true), ctx)),
      );
      this.#packed = adopt(this, handle, null);
    }
    const packed = this.#packed;
    const out = withHeapCopy(M, x.data, (address) => {
      const r = checked(packed.forward(address, shape5, relu, currentIsa()), ctx);
      const data = new Float32Array(r.view);
      packed.releaseOutput();
      return { data, shape: lowerOutputShape(this._spec, x.shape, r.shape) };
    });
    return out;
  }

  forward(x) {
    return this._run(x, false, `nn.${this._spec.name}.forward(x)`);
  }

  /** Bytes of wasm scratch memory the last forward() used beyond input, output and weights. */
  lastScratchBytes() {
    return this.#packed ? this.#packed.scratchBytes() : 0;
  }

  /** Frees the packed weights in wasm memory (the module repacks if used again). */
  dispose() {
    this.#packed = release(this, this.#packed);
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
    this.inFeatures = inFeatures;
    this.outFeatures = outFeatures;
  }
}

export class ReLU {
  forward(x) {
    checkFloatTensor(x, 'nn.ReLU.forward(x)');
    return { data: x.data.map((v) => (v < 0 ? 0 : v)), shape: x.shape.slice() };
  }
}

// nn.intrinsic fused float modules: conv (or linear) followed by ReLU, run as one kernel pass.
function fusedClass(name, Inner) {
  return class {
    constructor(inner, relu = new ReLU()) {
      if (!(inner instanceof Inner)) {
        throw new TypeError(`new nn.intrinsic.${name}(module, relu): module must be an nn.${Inner.name}, got ${describe(inner)}`);
      }
      if (!(relu instanceof ReLU)) throw new TypeError(`new nn.intrinsic.${name}(module, relu): relu must be an nn.ReLU`);
      this[0] = inner;
      this[1] = relu;
    }

    /** The wrapped module (PyTorch: self[0]). */
    get conv() {
      return this[0];
    }

    forward(x) {
      return this[0]._run(x, true, `nn.intrinsic.${name}.forward(x)`);
    }

    dispose() {
      this[0].dispose();
    }

    static get name() {
      return name;
    }
  };
}

export const ConvReLU1d = fusedClass('ConvReLU1d', Conv1d);
export const ConvReLU2d = fusedClass('ConvReLU2d', Conv2d);
export const ConvReLU3d = fusedClass('ConvReLU3d', Conv3d);
export const LinearReLU = fusedClass('LinearReLU', Linear);
