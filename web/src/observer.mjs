// PyTorch's min/max observers (torch.ao.quantization.observer), same options,
// defaults and arithmetic. The running min/max live here, in float32 values;
// the per-batch reduction and _calculate_qparams run in the core.
//
// Moving averages are computed as PyTorch does in float32,
//   min = min + c * (cur - min),
// each operation rounded to float32 with Math.fround: a double result rounded
// once to float32 equals the float32 operation (double has > 2 * 24 + 2 bits).
import { checked } from './errors.mjs';
import { withHeapCopy } from './heap.mjs';
import { describe, wasm } from './runtime.mjs';
import { checkFloatTensor } from './tensor.mjs';

const f32 = Math.fround;
const FLOAT32_EPS = 2 ** -23;
const OBSERVER_DTYPES = ['quint8', 'qint8', 'qint32', 'quint4x2'];

function option(options, name, check, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  check(v, name);
  return v;
}

const isBool = (v, name) => {
  if (typeof v !== 'boolean') throw new TypeError(`observer option ${name} must be a boolean, got ${describe(v)}`);
};
const isInt = (v, name) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TypeError(`observer option ${name} must be an integer, got ${describe(v)}`);
  }
};
const isString = (v, name) => {
  if (typeof v !== 'string') throw new TypeError(`observer option ${name} must be a string, got ${describe(v)}`);
};
const isNumber = (v, name) => {
  if (typeof v !== 'number') throw new TypeError(`observer option ${name} must be a number, got ${describe(v)}`);
};

class UniformObserverBase {
  constructor(options, perChannel, defaults, className) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`new ${className}(options): options must be an object, got ${describe(options)}`);
    }
    const ctx = `new ${className}(options)`;
    this.dtype = option(options, 'dtype', isString, 'quint8');
    if (!OBSERVER_DTYPES.includes(this.dtype)) {
      throw new TypeError(`${ctx}: dtype must be one of ${OBSERVER_DTYPES.join(', ')}, got '${this.dtype}'`);
    }
    this.qscheme = option(options, 'qscheme', isString, defaults.qscheme);
    this.reduceRange = option(options, 'reduceRange', isBool, false);
    const quantMin = option(options, 'quantMin', isInt, undefined);
    const quantMax = option(options, 'quantMax', isInt, undefined);
    if ((quantMin === undefined) !== (quantMax === undefined)) {
      throw new TypeError(`${ctx}: give both quantMin and quantMax, or neither`);
    }
    this.hasCustomizedQRange = quantMin !== undefined;
    const eps = option(options, 'eps', isNumber, FLOAT32_EPS);
    if (!(eps > 0 && Number.isFinite(eps))) throw new RangeError(`${ctx}: eps must be a finite number > 0, got ${eps}`);
    this.eps = f32(eps); // PyTorch keeps eps in a float32 buffer
    if (perChannel) {
      this.chAxis = option(options, 'chAxis', isInt, 0);
      if (this.chAxis < 0) throw new RangeError(`${ctx}: chAxis must be >= 0, got ${this.chAxis}`);
    }
    if (defaults.averaging) {
      const c = option(options, 'averagingConstant', isNumber, 0.01);
      if (!(c > 0 && c <= 1)) throw new RangeError(`${ctx}: averagingConstant must be in (0, 1], got ${c}`);
      this.averagingConstant = c;
    }
    const range = checked(
      wasm()._observerConfig(this.dtype, this.qscheme, this.reduceRange, perChannel, this.hasCustomizedQRange,
        quantMin ?? 0, quantMax ?? 0),
      ctx,
    );
    this.quantMin = range.quantMin;
    this.quantMax = range.quantMax;
    this._perChannel = perChannel;
    this._averaging = Boolean(defaults.averaging);
    this._className = className;
    this.reset();
  }

  /** Forgets what was observed. */
  reset() {
    this._min = this._perChannel ? new Float32Array(0) : Infinity;
    this._max = this._perChannel ? new Float32Array(0) : -Infinity;
  }

  /** PyTorch's name for reset(). */
  resetMinMaxVals() {
    this.reset();
  }

  /** Running minimum: a number, or a Float32Array per channel (a copy). */
  get minVal() {
    return this._perChannel ? this._min.slice() : this._min;
  }

  get maxVal() {
    return this._perChannel ? this._max.slice() : this._max;
  }

  /** Records the range of x (a float tensor) and returns x, like forward(). */
  observe(x) {
    const ctx = `${this._className}.observe(x)`;
    checkFloatTensor(x, ctx);
    if (x.data.length === 0) return x;
    if (this._perChannel && this.chAxis >= x.shape.length) {
      throw new RangeError(`${ctx}: chAxis ${this.chAxis} is out of range for a tensor of rank ${x.shape.length}`);
    }
    const M = wasm();
    const cur = withHeapCopy(M, x.data, (address) =>
      checked(M._observerAminmax(address, x.shape, this._perChannel ? this.chAxis : -1), ctx),
    );
    if (this._perChannel) this.#updatePerChannel(cur.min, cur.max, ctx);
    else this.#update(cur.min[0], cur.max[0]);
    return x;
  }

  #update(curMin, curMax) {
    if (this._averaging && !(this._min === Infinity && this._max === -Infinity)) {
      const c = f32(this.averagingConstant);
      this._min = f32(this._min + f32(c * f32(curMin - this._min)));
      this._max = f32(this._max + f32(c * f32(curMax - this._max)));
    } else if (this._averaging) {
      this._min = curMin;
      this._max = curMax;
    } else {
      this._min = Math.min(curMin, this._min);
      this._max = Math.max(curMax, this._max);
    }
  }

  #updatePerChannel(curMin, curMax, ctx) {
    if (this._min.length === 0) {
      this._min = Float32Array.from(curMin);
      this._max = Float32Array.from(curMax);
      return;
    }
    if (curMin.length !== this._min.length) {
      throw new RangeError(
        `${ctx}: axis ${this.chAxis} has ${curMin.length} channels but earlier batches had ${this._min.length}`,
      );
    }
    const c = f32(this.averagingConstant ?? 0);
    for (let i = 0; i < curMin.length; i++) {
      if (this._averaging) {
        this._min[i] = this._min[i] + f32(c * f32(curMin[i] - this._min[i]));
        this._max[i] = this._max[i] + f32(c * f32(curMax[i] - this._max[i]));
      } else {
        this._min[i] = Math.min(curMin[i], this._min[i]);
        this._max[i] = Math.max(curMax[i], this._max[i]);
      }
    }
  }

  /**
   * Scale and zero point from what was observed (PyTorch _calculate_qparams).
   * Per tensor: numbers. Per channel: {scale: Float32Array, zeroPoint:
   * Int32Array (Float32Array for float qparams)}.
   */
  calculateQParams() {
    const ctx = `${this._className}.calculateQParams()`;
    const M = wasm();
    const empty = this._perChannel && this._min.length === 0;
    const mins = empty ? [Infinity] : this._perChannel ? Array.from(this._min) : [this._min];
    const maxs = empty ? [-Infinity] : this._perChannel ? Array.from(this._max) : [this._max];
    const r = checked(
      M._observerCalculateQParams(mins, maxs, this.dtype, this.qscheme, this.quantMin, this.quantMax,
        this.hasCustomizedQRange, this.eps),
      ctx,
    );
    const scale = new Float32Array(r.scale);
    if (!this._perChannel) return { scale: scale[0], zeroPoint: r.zeroPoint[0] };
    const floatZp = this.qscheme === 'per_channel_affine_float_qparams';
    return { scale, zeroPoint: floatZp ? Float32Array.from(r.zeroPoint) : Int32Array.from(r.zeroPoint) };
  }

  toString() {
    return `${this._className}(dtype=${this.dtype}, qscheme=${this.qscheme}, quantMin=${this.quantMin}, quantMax=${this.quantMax})`;
  }
}

export class MinMaxObserver extends UniformObserverBase {
  constructor(options = {}) {
    super(options, false, { qscheme: 'per_tensor_affine' }, 'MinMaxObserver');
  }
}

export class MovingAverageMinMaxObserver extends UniformObserverBase {
  constructor(options = {}) {
    super(options, false, { qscheme: 'per_tensor_affine', averaging: true }, 'MovingAverageMinMaxObserver');
  }
}

export class PerChannelMinMaxObserver extends UniformObserverBase {
  constructor(options = {}) {
    super(options, true, { qscheme: 'per_channel_affine' }, 'PerChannelMinMaxObserver');
  }
}

export class MovingAveragePerChannelMinMaxObserver extends UniformObserverBase {
  constructor(options = {}) {
    super(options, true, { qscheme: 'per_channel_affine', averaging: true }, 'MovingAveragePerChannelMinMaxObserver');
  }
}

