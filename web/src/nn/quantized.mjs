// Quantized modules: nn.quantized.Conv1d/2d/3d and Linear, and
// nn.intrinsic.quantized.ConvReLU1d/2d/3d and LinearReLU. quint8 per-tensor
// input, qint8 weights (per channel on axis 0, or per tensor) packed once into
// wasm memory, float bias, quint8 output with the module's scale / zero point.
import { checked } from '../errors.mjs';
import { withHeapCopy } from '../heap.mjs';
import { currentIsa } from '../isa.mjs';
import { PerChannelMinMaxObserver } from '../observer.mjs';
import { QTensor } from '../qtensor.mjs';
import { makePerTensorQuantizedTensor, quantizePerChannel, quantizePerTensor } from '../quantize.mjs';
import { describe, wasm } from '../runtime.mjs';
import { typeName } from '../tensor.mjs';
import * as floatNN from './float.mjs';
import { adopt, release } from '../owned.mjs';
import { SPECS, convGeometry, liftInputShape, lowerOutputShape, weightShape } from './spec.mjs';

function sameShape(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

// A JS-owned copy of a QTensor (optionally reshaped): modules never hand out their own.
function copyOf(q, shape = q.shape) {
  const M = wasm();
  const r = checked(M._reshaped(q._live('copy'), shape), 'copy');
  return new QTensor(r);
}

class QuantizedConvBase {
  #packed = null;
  #weight = null; // the module's own QTensor (PyTorch shape)
  #bias = null; // Float32Array | null
  #scale = 1.0;
  #zeroPoint = 0;

  constructor(spec, relu, inChannels, outChannels, kernelSize, options = {}) {
    this._spec = spec;
    this._relu = relu;
    this._name = relu ? `nn.intrinsic.quantized.${spec.name === 'Linear' ? 'LinearReLU' : spec.name.replace('Conv', 'ConvReLU')}` : `nn.quantized.${spec.name}`;
    const ctx = `new ${this._name}(...)`;
    this._geometry = convGeometry(spec, inChannels, outChannels, kernelSize, options, ctx);
    const { bias = true } = options;
    if (typeof bias !== 'boolean') throw new TypeError(`${ctx}: bias must be a boolean, got ${describe(bias)}`);
    this.inChannels = inChannels;
    this.outChannels = outChannels;
    this.groups = this._geometry.groups;
    // PyTorch starts from an all-zero qint8 weight (scale 1, zero point 0) and a zero bias.
    const shape = weightShape(spec, this._geometry);
    const zeros = { data: new Int8Array(shape.reduce((a, b) => a * b, 1)), shape };
    const w = makePerTensorQuantizedTensor(zeros, 1.0, 0, 'qint8');
    try {
      this.setWeightBias(w, bias ? new Float32Array(outChannels) : null);
    } finally {
      w.dispose();
    }
  }

  /** Output scale (PyTorch: module.scale). */
  get scale() {
    return this.#scale;
  }

  set scale(v) {
    if (typeof v !== 'number') throw new TypeError(`${this._name}.scale must be a number, got ${describe(v)}`);
    if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${this._name}.scale must be a finite number > 0, got ${v}`);
    this.#scale = v;
  }

  /** Output zero point, 0..255 (quint8). */
  get zeroPoint() {
    return this.#zeroPoint;
  }

  set zeroPoint(v) {
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      throw new TypeError(`${this._name}.zeroPoint must be an integer, got ${describe(v)}`);
    }
    if (v < 0 || v > 255) throw new RangeError(`${this._name}.zeroPoint must be in 0..255 (quint8), got ${v}`);
    this.#zeroPoint = v;
  }

  #live(method) {
    if (this.#packed === null) throw new Error(`${this._name}.${method}: this module has been disposed`);
    return this.#packed;
  }

  /**
   * PyTorch set_weight_bias: a qint8 weight (per tensor, or per channel on
   * axis 0) of the module's weight shape, and a float bias of outChannels (or
   * null). Both are copied; the weight is packed into wasm memory now.
   */
  setWeightBias(weight, bias) {
    const ctx = `${this._name}.setWeightBias(weight, bias)`;
    if (!(weight instanceof QTensor)) throw new TypeError(`${ctx}: weight must be a QTensor, got ${describe(weight)}`);
    const want = weightShape(this._spec, this._geometry);
    if (weight.dtype !== 'qint8') throw new TypeError(`${ctx}: weight must be qint8, got ${weight.dtype}`);
    if (!sameShape(weight.shape, want)) {
      throw new RangeError(`${ctx}: weight shape must be [${want.join(', ')}], got [${weight.shape.join(', ')}]`);
    }
    let biasData = null;
    if (bias !== null && bias !== undefined) {
      biasData = typeName(bias) === 'Float32Array' ? bias : bias && typeName(bias.data) === 'Float32Array' ? bias.data : undefined;
      if (biasData === undefined) throw new TypeError(`${ctx}: bias must be a Float32Array, a float tensor or null, got ${describe(bias)}`);
      if (biasData.length !== this.outChannels) {
        throw new RangeError(`${ctx}: bias must have ${this.outChannels} elements, got ${biasData.length}`);
      }
    }
    const M = wasm();
    const lifted = weightShape(SPECS[3], this._geometry);
    const w5 = copyOf(weight, lifted);
    let handle;
    try {
      const h = w5._live('pack');
      handle = biasData === null
        ? checked(M._makeQConv(this._geometry, h, 0, false), ctx)
        : withHeapCopy(M, biasData, (address) => checked(M._makeQConv(this._geometry, h, address, true), ctx));
    } finally {
      w5.dispose();
    }
    this.#packed = adopt(this, handle, this.#packed);
    if (this.#weight) this.#weight.dispose();
    this.#weight = copyOf(weight);
    this.#bias = biasData === null ? null : Float32Array.from(biasData);
  }

  /** A copy of the quantized weight; the caller owns (and disposes) it. */
  weight() {
    this.#live('weight()');
    return copyOf(this.#weight);
  }

  /** A copy of the float bias, or null. */
  bias() {
    this.#live('bias()');
    return this.#bias === null ? null : this.#bias.slice();
  }

  /** qx: quint8 per-tensor QTensor. Returns a new quint8 QTensor (the caller owns it). */
  forward(qx) {
    const ctx = `${this._name}.forward(x)`;
    const packed = this.#live('forward(x)');
    if (!(qx instanceof QTensor)) throw new TypeError(`${ctx}: x must be a quint8 QTensor, got ${describe(qx)}`);
    const shape5 = liftInputShape(this._spec, qx.shape, ctx);
    const needsReshape = !sameShape(shape5, qx.shape);
    const input = needsReshape ? copyOf(qx, shape5) : qx;
    try {
      const out = new QTensor(
        checked(packed.forward(input._live('forward'), this.#scale, this.#zeroPoint, this._relu, currentIsa()), ctx),
      );
      if (sameShape(out.shape, lowerOutputShape(this._spec, qx.shape, out.shape))) return out;
      try {
        return copyOf(out, lowerOutputShape(this._spec, qx.shape, out.shape));
      } finally {
        out.dispose();
      }
    } finally {
      if (needsReshape) input.dispose();
    }
  }

  /** Bytes of the packed weights in wasm memory. */
  packedWeightBytes() {
    return this.#live('packedWeightBytes()').packedBytes();
  }

  /** Bytes of scratch memory the last forward() used beyond input, output and packed weights. */
  lastScratchBytes() {
    return this.#live('lastScratchBytes()').scratchBytes();
  }

  get disposed() {
    return this.#packed === null;
  }

  dispose() {
    this.#packed = release(this, this.#packed);
    if (this.#weight) this.#weight.dispose();
    this.#weight = null;
  }

  toString() {
    return `${this._name}(${this.inChannels}, ${this.outChannels}, scale=${this.#scale}, zero_point=${this.#zeroPoint})`;
  }

  /**
   * PyTorch from_float: quantizes a float module's weight with `weightObserver`
   * (default: PerChannelMinMaxObserver, qint8, per_channel_symmetric, chAxis 0)
   * and takes the output scale / zero point from `activationObserver` (which has
   * seen calibration outputs) or from `outputScale` and `outputZeroPoint`.
   */
  static _fromFloat(Cls, FloatCls, mod, options, name) {
    const ctx = `${name}.fromFloat(mod, options)`;
    if (!(mod instanceof FloatCls)) {
      const floatName = FloatCls === floatNN.Conv1d || FloatCls === floatNN.Conv2d || FloatCls === floatNN.Conv3d || FloatCls === floatNN.Linear
        ? `nn.${FloatCls.name}` : `nn.intrinsic.${FloatCls.name}`;
      throw new TypeError(`${ctx}: mod must be an ${floatName}, got ${describe(mod)}`);
    }
    if (options === null || typeof options !== 'object') throw new TypeError(`${ctx}: options must be an object`);
    const conv = mod[0] ?? mod;
    const { weightObserver = new PerChannelMinMaxObserver({ dtype: 'qint8', qscheme: 'per_channel_symmetric' }) } = options;
    if (weightObserver.dtype !== 'qint8') throw new TypeError(`${ctx}: weightObserver must be qint8, got ${weightObserver.dtype}`);
    let outScale;
    let outZeroPoint;
    if (options.activationObserver) {
      const qp = options.activationObserver.calculateQParams();
      if (typeof qp.scale !== 'number') throw new TypeError(`${ctx}: activationObserver must be a per-tensor observer`);
      outScale = qp.scale;
      outZeroPoint = qp.zeroPoint;
    } else if (options.outputScale !== undefined && options.outputZeroPoint !== undefined) {
      outScale = options.outputScale;
      outZeroPoint = options.outputZeroPoint;
    } else {
      throw new Error(`${ctx}: give activationObserver (calibrated on the float outputs) or outputScale and outputZeroPoint`);
    }
    weightObserver.observe(conv.weight);
    const { scale, zeroPoint } = weightObserver.calculateQParams();
    const perChannel = typeof scale !== 'number';
    const qweight = perChannel
      ? quantizePerChannel(conv.weight, scale, zeroPoint, weightObserver.chAxis, 'qint8')
      : quantizePerTensor(conv.weight, scale, zeroPoint, 'qint8');
    const g = conv._geometry;
    const dims = conv._spec.dims;
    let q = null;
    try {
      q = dims === 0
        ? new Cls(conv.inChannels, conv.outChannels, { bias: conv.bias !== null })
        : new Cls(conv.inChannels, conv.outChannels, g.kernel.slice(3 - dims), {
          stride: g.stride.slice(3 - dims),
          padding: conv.padding,
          dilation: g.dilation.slice(3 - dims),
          groups: g.groups,
          bias: conv.bias !== null,
        });
      q.setWeightBias(qweight, conv.bias === null ? null : conv.bias.data);
      q.scale = outScale;
      q.zeroPoint = outZeroPoint;
      return q;
    } catch (e) {
      if (q) q.dispose(); // a half-built module frees its wasm memory now
      throw e;
    } finally {
      qweight.dispose();
    }
  }
}

function quantizedClass(spec, relu, FloatCls, name) {
  const Cls = spec.dims === 0
    ? class extends QuantizedConvBase {
        constructor(inFeatures, outFeatures, options) {
          super(spec, relu, inFeatures, outFeatures, 1, options);
          this.inFeatures = inFeatures;
          this.outFeatures = outFeatures;
        }
      }
    : class extends QuantizedConvBase {
        constructor(inChannels, outChannels, kernelSize, options) {
          super(spec, relu, inChannels, outChannels, kernelSize, options);
        }
      };
  Object.defineProperty(Cls, 'name', { value: name.split('.').pop() });
  Cls.fromFloat = (mod, options = {}) => QuantizedConvBase._fromFloat(Cls, FloatCls, mod, options, name);
  return Cls;
}

export const Conv1d = quantizedClass(SPECS[1], false, floatNN.Conv1d, 'nn.quantized.Conv1d');
export const Conv2d = quantizedClass(SPECS[2], false, floatNN.Conv2d, 'nn.quantized.Conv2d');
export const Conv3d = quantizedClass(SPECS[3], false, floatNN.Conv3d, 'nn.quantized.Conv3d');
export const Linear = quantizedClass(SPECS.linear, false, floatNN.Linear, 'nn.quantized.Linear');
export const ConvReLU1d = quantizedClass(SPECS[1], true, floatNN.ConvReLU1d, 'nn.intrinsic.quantized.ConvReLU1d');
export const ConvReLU2d = quantizedClass(SPECS[2], true, floatNN.ConvReLU2d, 'nn.intrinsic.quantized.ConvReLU2d');
export const ConvReLU3d = quantizedClass(SPECS[3], true, floatNN.ConvReLU3d, 'nn.intrinsic.quantized.ConvReLU3d');
export const LinearReLU = quantizedClass(SPECS.linear, true, floatNN.LinearReLU, 'nn.intrinsic.quantized.LinearReLU');
