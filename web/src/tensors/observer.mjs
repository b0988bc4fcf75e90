// PyTorch's min/max observers (torch.ao.quantization.observer): same options,
// defaults and arithmetic. The running min/max live here as Float32Arrays (a
// few floats: an observer owns no wasm memory and needs no dispose()); every
// float operation on them (the batch reduction, the running or moving-average
// update, _calculate_qparams) runs in the core, in float32 like PyTorch.
import {
  option,
  readBoolean,
  readChoice,
  readFloatTensor,
  readInteger,
  readNumber,
  readOptions,
  tensorBytes,
} from '../runtime/args.mjs';
import { DTYPE, QSCHEME } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { noteOutOfMemory, ownBytes, withHeapCopy } from '../runtime/heap.mjs';
import { wasm } from '../runtime/runtime.mjs';

const FLOAT32_EPS = 2 ** -23;

// The running state as one block: n minimums, then n maximums.
function stateBlock(min, max) {
  const block = new Float32Array(min.length * 2);
  block.set(min);
  block.set(max, min.length);
  return block;
}

const factoryOptions = new WeakMap(); // factory -> {observer: class, options}

/**
 * @internal Observer.withArgs(options): a function that makes a fresh
 * observer with those options each time it is called (PyTorch's with_args).
 * The options are checked now, by making one.
 */
export function observerFactory(Observer, options, ctx) {
  wasm(ctx); // before init(), the error names the call, not the observer it checks the options with
  const frozen = Object.freeze({ ...(options ?? {}) });
  const make = () => new Observer(frozen);
  make();
  factoryOptions.set(make, { observer: Observer, options: frozen });
  return make;
}

/** @internal {observer, options} of a withArgs factory, or undefined. */
export function factoryInfo(f) {
  return factoryOptions.get(f);
}

class UniformObserverBase {
  #dtype;
  #qscheme;
  #reduceRange;
  #quantMin;
  #quantMax;
  #customized;
  #eps;
  #chAxis;
  #averagingConstant;
  #perChannel;
  #averaging;
  #name;
  #min = new Float32Array(0);
  #max = new Float32Array(0);
  #extra;

  /**
   * `extra` ({names, read(o, ctx)}) lets a subclass take options of its own:
   * they are read in the same single pass over the options object.
   */
  constructor(options, perChannel, averaging, defaultScheme, name, extra = null) {
    const ctx = `new ${name}(options)`;
    const allowed = ['dtype', 'qscheme', 'reduceRange', 'quantMin', 'quantMax', 'eps'];
    if (perChannel) allowed.push('chAxis');
    if (averaging) allowed.push('averagingConstant');
    if (extra) allowed.push(...extra.names);
    const o = readOptions(options, allowed, ctx);
    this.#extra = extra ? extra.read(o, ctx) : undefined;
    this.#name = name;
    this.#perChannel = perChannel;
    this.#averaging = averaging;
    this.#dtype = option(o, 'dtype', 'quint8');
    const dtypeCode = readChoice(this.#dtype, DTYPE, 'dtype', ctx);
    this.#qscheme = option(o, 'qscheme', defaultScheme);
    const schemeCode = readChoice(this.#qscheme, QSCHEME, 'qscheme', ctx);
    this.#reduceRange = o.has('reduceRange') ? readBoolean(o.get('reduceRange'), 'reduceRange', ctx) : false;
    const quantMin = o.has('quantMin') ? readNumber(o.get('quantMin'), 'quantMin', ctx) : undefined;
    const quantMax = o.has('quantMax') ? readNumber(o.get('quantMax'), 'quantMax', ctx) : undefined;
    if ((quantMin === undefined) !== (quantMax === undefined)) {
      throw new TypeError(`${ctx}: give both quantMin and quantMax, or neither`);
    }
    this.#customized = quantMin !== undefined;
    const eps = o.has('eps') ? readNumber(o.get('eps'), 'eps', ctx) : FLOAT32_EPS;
    this.#chAxis = perChannel ? (o.has('chAxis') ? readInteger(o.get('chAxis'), 'chAxis', ctx) : 0) : undefined;
    const c = averaging
      ? o.has('averagingConstant')
        ? readNumber(o.get('averagingConstant'), 'averagingConstant', ctx)
        : 0.01
      : 0;
    this.#averagingConstant = averaging ? c : undefined;
    const range = checked(
      wasm(ctx)._observerConfig(
        dtypeCode,
        schemeCode,
        this.#reduceRange,
        perChannel,
        this.#customized,
        quantMin ?? 0,
        quantMax ?? 0,
        eps,
        averaging,
        c,
      ),
      ctx,
    );
    this.#quantMin = range.quantMin;
    this.#quantMax = range.quantMax;
    this.#eps = Math.fround(eps); // PyTorch keeps eps in a float32 buffer
  }

  get dtype() {
    return this.#dtype;
  }
  get qscheme() {
    return this.#qscheme;
  }
  get reduceRange() {
    return this.#reduceRange;
  }
  /** The quantization range in use (halved by reduceRange). */
  get quantMin() {
    return this.#quantMin;
  }
  get quantMax() {
    return this.#quantMax;
  }
  /** True when quantMin / quantMax were given. */
  get hasCustomizedQRange() {
    return this.#customized;
  }
  get eps() {
    return this.#eps;
  }

  /** Forgets what was observed. */
  reset() {
    this.#min = new Float32Array(0);
    this.#max = new Float32Array(0);
  }

  /** PyTorch's name for reset(). */
  resetMinMaxVals() {
    this.reset();
  }

  /** Running minimum: a number (Infinity before any data) per tensor, a Float32Array copy per channel. */
  get minVal() {
    if (this.#perChannel) return this.#min.slice();
    return this.#min.length ? this.#min[0] : Infinity;
  }

  get maxVal() {
    if (this.#perChannel) return this.#max.slice();
    return this.#max.length ? this.#max[0] : -Infinity;
  }

  /** Records the range of x (a float tensor) and returns x, like forward(). */
  observe(x) {
    const ctx = `${this.#name}.observe(x)`;
    const t = readFloatTensor(x, ctx);
    if (t.numel === 0) return x;
    const M = wasm(ctx);
    const bytes = tensorBytes(t, ctx);
    let next;
    try {
      next = withHeapCopy(M, ownBytes(stateBlock(this.#min, this.#max)), 'the running state', ctx, (state) =>
        withHeapCopy(M, bytes, 'the input', ctx, (address, n) =>
          checked(
            M._observerObserve(
              address,
              n,
              t.shape,
              this.#perChannel,
              this.#chAxis ?? 0,
              state,
              this.#min.length,
              this.#averaging,
              this.#averagingConstant ?? 0,
            ),
            ctx,
          ),
        ),
      );
    } catch (e) {
      throw noteOutOfMemory(e);
    }
    this.#min = next.min;
    this.#max = next.max;
    return x;
  }

  /** Documented at the observers' calculateQParams (web/declarations/quantization.d.ts). */
  calculateQParams() {
    const ctx = `${this.#name}.calculateQParams()`;
    const M = wasm(ctx);
    // Nothing observed: one "empty" channel, which gives scale 1, zero point 0.
    const empty = this.#min.length === 0;
    const block = empty ? Float32Array.of(Infinity, -Infinity) : stateBlock(this.#min, this.#max);
    const r = withHeapCopy(M, ownBytes(block), 'the running state', ctx, (state) =>
      checked(M._observerCalculateQParams(state, block.length / 2, ...this._qparamsConfig), ctx),
    );
    if (!this.#perChannel) return { scale: r.scale[0], zeroPoint: r.zeroPoint[0] };
    const floatZp = this.#qscheme === 'per_channel_affine_float_qparams';
    return { scale: r.scale, zeroPoint: floatZp ? Float32Array.from(r.zeroPoint) : Int32Array.from(r.zeroPoint) };
  }

  toString() {
    return `${this.#name}(dtype=${this.#dtype}, qscheme=${this.#qscheme}, quantMin=${this.#quantMin}, quantMax=${this.#quantMax})`;
  }

  /** Documented at the observers' withArgs (web/declarations/quantization.d.ts). */
  static withArgs(options) {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass withArgs was called on
    return observerFactory(this, options, `${this.name}.withArgs(options)`);
  }

  /** @internal True for the observers of this module. */
  static _isObserver(o) {
    return o !== null && typeof o === 'object' && #dtype in o;
  }

  /** @internal True for a per-channel observer. */
  get _perChannel() {
    return this.#perChannel;
  }

  /** @internal The channel axis (per-channel observers). */
  get _chAxis() {
    return this.#chAxis;
  }

  /** @internal What the subclass's extra.read returned. */
  get _extra() {
    return this.#extra;
  }

  /** @internal The configuration the core needs for qparams. */
  /**
   * @internal The qparams arguments the core's calculate-qparams bindings take after the state:
   * (dtype, qscheme, quantMin, quantMax, customized, eps).
   * @returns {[import('../runtime/bridge.mjs').DTypeCode, import('../runtime/bridge.mjs').QSchemeCode, number, number, boolean, number]}
   */
  get _qparamsConfig() {
    return [
      DTYPE.get(this.#dtype),
      QSCHEME.get(this.#qscheme),
      this.#quantMin,
      this.#quantMax,
      this.#customized,
      this.#eps,
    ];
  }

  /** @internal The averaging constant (moving-average observers). */
  get _averagingConstant() {
    return this.#averagingConstant;
  }
}

/** @internal True for any observer of this module. */
export function isObserver(o) {
  return UniformObserverBase._isObserver(o);
}

export class MinMaxObserver extends UniformObserverBase {
  constructor(options) {
    super(options, false, false, 'per_tensor_affine', 'MinMaxObserver');
  }
}

export class MovingAverageMinMaxObserver extends UniformObserverBase {
  constructor(options) {
    super(options, false, true, 'per_tensor_affine', 'MovingAverageMinMaxObserver');
  }

  get averagingConstant() {
    return this._averagingConstant;
  }
}

export class PerChannelMinMaxObserver extends UniformObserverBase {
  constructor(options) {
    super(options, true, false, 'per_channel_affine', 'PerChannelMinMaxObserver');
  }

  /** The channel axis (may be negative, counted from the end, as in PyTorch). */
  get chAxis() {
    return this._chAxis;
  }
}

export class MovingAveragePerChannelMinMaxObserver extends UniformObserverBase {
  constructor(options) {
    super(options, true, true, 'per_channel_affine', 'MovingAveragePerChannelMinMaxObserver');
  }

  get chAxis() {
    return this._chAxis;
  }

  get averagingConstant() {
    return this._averagingConstant;
  }
}

/** PyTorch's default number of histogram bins. */
const DEFAULT_BINS = 2048;

// The histogram lives here (bins floats), like the other observers' state;
// the core does the arithmetic (PyTorch's float32, in PyTorch's order).
/** Documented at quantization.HistogramObserver (web/declarations/quantization.d.ts). */
export class HistogramObserver extends UniformObserverBase {
  #state = null; // Float32Array [min, max, ...histogram], null before the first batch

  constructor(options) {
    super(options, false, false, 'per_tensor_affine', 'HistogramObserver', {
      names: ['bins'],
      read: (o, ctx) => (o.has('bins') ? readInteger(o.get('bins'), 'bins', ctx) : DEFAULT_BINS),
    });
    // Checked now rather than at the first observe() (the core checks it again there).
    const bins = this._extra;
    if (bins < 1 || bins > 2 ** 24) {
      throw new RangeError(`new HistogramObserver(options): bins must be in 1..16777216, got ${bins}`);
    }
  }

  /** The number of bins. */
  get bins() {
    return this._extra;
  }

  /** Forgets what was observed. */
  reset() {
    this.#state = null;
  }

  get minVal() {
    return this.#state ? this.#state[0] : Infinity;
  }

  get maxVal() {
    return this.#state ? this.#state[1] : -Infinity;
  }

  /** The running histogram over [minVal, maxVal] (a copy; zeros before any data). */
  get histogram() {
    return this.#state ? this.#state.slice(2) : new Float32Array(this.bins);
  }

  /** Documented at the observers' observe (web/declarations/quantization.d.ts). */
  observe(x) {
    const ctx = 'HistogramObserver.observe(x)';
    const t = readFloatTensor(x, ctx);
    if (t.numel === 0) return x;
    const M = wasm(ctx);
    const bytes = tensorBytes(t, ctx);
    let block = this.#state;
    if (block === null) {
      block = new Float32Array(this.bins + 2); // nothing observed: min +Inf, max -Inf, zero counts
      block[0] = Infinity;
      block[1] = -Infinity;
    }
    try {
      const next = withHeapCopy(M, ownBytes(block), 'the histogram', ctx, (s) =>
        withHeapCopy(M, bytes, 'the input', ctx, (address, n) =>
          checked(M._histogramObserve(address, n, this.bins, s), ctx),
        ),
      );
      if (next[0] !== Infinity) this.#state = next;
    } catch (e) {
      throw noteOutOfMemory(e);
    }
    return x;
  }

  /** PyTorch's calculate_qparams: {scale, zeroPoint} (scale 1, zero point 0 before any data). */
  calculateQParams() {
    const ctx = 'HistogramObserver.calculateQParams()';
    const M = wasm(ctx);
    if (this.#state === null) return { scale: 1, zeroPoint: 0 };
    const r = withHeapCopy(M, ownBytes(this.#state), 'the histogram', ctx, (s) =>
      checked(M._histogramQParams(s, this.bins, ...this._qparamsConfig), ctx),
    );
    return { scale: r.scale, zeroPoint: r.zeroPoint };
  }

  toString() {
    return `HistogramObserver(bins=${this.bins}, dtype=${this.dtype}, qscheme=${this.qscheme}, reduceRange=${this.reduceRange})`;
  }
}
