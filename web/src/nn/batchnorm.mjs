// nn.BatchNorm1d / 2d / 3d in eval mode: y = (x - runningMean) / sqrt(runningVar
// + eps) * weight + bias per channel (dimension 1), in float32. Their main use
// here is to be folded into the convolution before it (quantization.fuseModules);
// training-mode batch statistics are not implemented.
import { readFloatTensor, readNumber, readOptions, tensorBytes } from '../runtime/args.mjs';
import { Module } from './module.mjs';
import { Parameter, readTensorArg } from './parameter.mjs';
import { batchNormFloats } from './torch-float.mjs';

const RANKS = { 1: [2, 3], 2: [4], 3: [5] }; // input ranks per variant ([N, C] or [N, C, L] for 1d)

/**
 * @internal The module's own statistics and affine parameters (for folding
 * into a conv), read through its private fields, or undefined for anything else.
 */
export let batchNormParts;

class BatchNormBase extends Module {
  #dims;
  #numFeatures;
  #eps;
  #momentum;
  #affine;
  #weight;
  #bias;
  #runningMean;
  #runningVar;

  constructor(dims, numFeatures, options) {
    super();
    this.#dims = dims;
    const ctx = `new nn.BatchNorm${dims}d(numFeatures, options)`;
    const o = readOptions(options, ['eps', 'momentum', 'affine', 'trackRunningStats'], ctx);
    const n = readNumber(numFeatures, 'numFeatures', ctx);
    if (!Number.isInteger(n)) throw new TypeError(`${ctx}: numFeatures must be an integer, got ${n}`);
    if (n < 1 || n > 2 ** 24) throw new RangeError(`${ctx}: numFeatures must be in 1..16777216, got ${n}`);
    this.#numFeatures = n;
    this.#eps = o.has('eps') ? readNumber(o.get('eps'), 'eps', ctx) : 1e-5;
    if (!(this.#eps >= 0 && Number.isFinite(this.#eps)))
      throw new RangeError(`${ctx}: eps must be a finite number >= 0`);
    this.#momentum = o.has('momentum') ? readNumber(o.get('momentum'), 'momentum', ctx) : 0.1;
    this.#affine = o.has('affine') ? o.get('affine') === true : true;
    if (o.has('affine') && typeof o.get('affine') !== 'boolean')
      throw new TypeError(`${ctx}: affine must be a boolean`);
    if (o.has('trackRunningStats') && o.get('trackRunningStats') !== true) {
      throw new RangeError(
        `${ctx}: only trackRunningStats: true is supported (qwasm normalizes with running statistics)`,
      );
    }
    const name = `nn.BatchNorm${dims}d`;
    const filled = (v) => new Float32Array(n).fill(v);
    this.#weight = this.#affine ? new Parameter(filled(1), [n], `${name}.weight`) : null;
    this.#bias = this.#affine ? new Parameter(filled(0), [n], `${name}.bias`) : null;
    this.#runningMean = new Parameter(filled(0), [n], `${name}.runningMean`);
    this.#runningVar = new Parameter(filled(1), [n], `${name}.runningVar`);
  }

  get numFeatures() {
    return this.#numFeatures;
  }
  get eps() {
    return this.#eps;
  }
  get momentum() {
    return this.#momentum;
  }
  get affine() {
    return this.#affine;
  }

  #param(which) {
    return `nn.BatchNorm${this.#dims}d.${which}`;
  }

  /** [numFeatures] or null without affine. Assigning a tensor copies it. */
  get weight() {
    return this.#weight;
  }
  set weight(w) {
    this.#requireAffine('weight');
    this.#weight = new Parameter(
      readTensorArg(w, [this.#numFeatures], this.#param('weight')),
      [this.#numFeatures],
      this.#param('weight'),
    );
  }
  get bias() {
    return this.#bias;
  }
  set bias(b) {
    this.#requireAffine('bias');
    this.#bias = new Parameter(
      readTensorArg(b, [this.#numFeatures], this.#param('bias')),
      [this.#numFeatures],
      this.#param('bias'),
    );
  }
  get runningMean() {
    return this.#runningMean;
  }
  set runningMean(v) {
    const n = [this.#numFeatures];
    this.#runningMean = new Parameter(readTensorArg(v, n, this.#param('runningMean')), n, this.#param('runningMean'));
  }
  get runningVar() {
    return this.#runningVar;
  }
  set runningVar(v) {
    const n = [this.#numFeatures];
    this.#runningVar = new Parameter(readTensorArg(v, n, this.#param('runningVar')), n, this.#param('runningVar'));
  }

  static {
    batchNormParts = (bn) =>
      bn !== null && typeof bn === 'object' && #eps in bn
        ? {
            dims: bn.#dims,
            eps: bn.#eps,
            weight: bn.#weight?.data ?? null,
            bias: bn.#bias?.data ?? null,
            mean: bn.#runningMean.data,
            variance: bn.#runningVar.data,
            numFeatures: bn.#numFeatures,
          }
        : undefined;
  }

  #requireAffine(which) {
    if (!this.#affine) throw new TypeError(`${this.#param(which)}: this BatchNorm has affine: false`);
  }

  forward(x) {
    const ctx = `nn.BatchNorm${this.#dims}d.forward(x)`;
    if (this.training) {
      throw new Error(`${ctx}: qwasm's BatchNorm runs in eval mode only (running statistics): call model.eval()`);
    }
    const t = readFloatTensor(x, ctx);
    if (!RANKS[this.#dims].includes(t.shape.length)) {
      throw new RangeError(
        `${ctx}: expected a ${RANKS[this.#dims].join('-D or ')}-D input, got shape [${t.shape.join(', ')}]`,
      );
    }
    const c = t.shape[1];
    if (c !== this.#numFeatures) throw new RangeError(`${ctx}: expected ${this.#numFeatures} channels, got ${c}`);
    // PyTorch's inference form, in the core: y = x * alpha + beta per channel.
    return { data: batchNormFloats(tensorBytes(t, ctx), t.shape, batchNormParts(this), ctx), shape: t.shape };
  }

  toString() {
    return `BatchNorm${this.#dims}d(${this.#numFeatures}, eps=${this.#eps}, momentum=${this.#momentum}, affine=${this.#affine})`;
  }
}

export class BatchNorm1d extends BatchNormBase {
  constructor(numFeatures, options) {
    super(1, numFeatures, options);
  }
}
export class BatchNorm2d extends BatchNormBase {
  constructor(numFeatures, options) {
    super(2, numFeatures, options);
  }
}
export class BatchNorm3d extends BatchNormBase {
  constructor(numFeatures, options) {
    super(3, numFeatures, options);
  }
}
