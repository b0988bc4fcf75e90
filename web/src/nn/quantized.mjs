// Quantized modules: nn.quantized.Conv1d/2d/3d and Linear, and
// nn.intrinsic.quantized.ConvReLU1d/2d/3d and LinearReLU. quint8 per-tensor
// input, qint8 weights (per channel on axis 0, or per tensor) packed once into
// wasm memory, float bias, quint8 output with the module's scale / zero point.
// Conv1d/2d run as the one 3-D convolution through views of their input and
// output (shared storage, no copies); Linear runs as a GEMM on [..., in].
//
// Every argument is read once, through the QTensor's private fields (a caller
// cannot shadow its shape), and every user getter runs before anything
// changes: a call that throws leaves the module as it was.
import { bytesOf, checkNotRevoked, describe, readNumber, readOptions, typedArrayKind } from '../runtime/args.mjs';
import { BACKEND_NAMES, CONV_PATH_NAMES } from '../runtime/codes.mjs';
import { engineCode } from '../runtime/engine.mjs';
import { checked, isOutOfMemory, OUT_OF_MEMORY } from '../runtime/errors.mjs';
import { noteOutOfMemory, withHeapCopy } from '../runtime/heap.mjs';
import { currentIsa } from '../runtime/isa.mjs';
import { adopt, release } from '../runtime/owned.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { readWinograd, winogradCode } from '../runtime/winograd.mjs';
import { isObserver, PerChannelMinMaxObserver } from '../tensors/observer.mjs';
import { qtensorHandle, qtensorShape, viewOf, wrapHandle } from '../tensors/qtensor.mjs';
import {
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  quantizePerChannel,
  quantizePerTensor,
} from '../tensors/quantize.mjs';
import * as floatNN from './float.mjs';
import { Module } from './module.mjs';
import {
  freezeGeometry,
  liftInputShape,
  readConvArgs,
  SPECS,
  userTriple,
  validateGeometry,
  weightShape,
} from './spec.mjs';

function sameShape(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

// The bias argument of setWeightBias: a Float32Array, a float tensor, or null; copied.
function readBias(bias, ctx) {
  if (bias === null || bias === undefined) return null;
  checkNotRevoked(bias, 'bias', ctx);
  let data = bias;
  if (typedArrayKind(bias) === undefined && typeof bias === 'object') data = bias.data;
  if (typedArrayKind(data) !== 'Float32Array') {
    throw new TypeError(`${ctx}: bias must be a Float32Array, a float tensor or null, got ${describe(bias)}`);
  }
  return new Float32Array(new Uint8Array(bytesOf(data, 'bias', ctx)).buffer);
}

class QuantizedConvBase extends Module {
  #spec;
  #relu;
  #name;
  #geometry;
  /** @type {import('../runtime/bridge.mjs').QConvHandle | null} */
  #packed = null;
  #bias = null; // Float32Array | null
  #scale = 1.0;
  #zeroPoint = 0;
  /** @type {import('../runtime/winograd.mjs').WinogradMode} */
  #winograd = 'auto';
  #timingPhases = false; // timeWinogradPhases(on), kept across setWeightBias
  #lastCallTimed = false;

  constructor(spec, relu, name, inChannels, outChannels, kernelSize, options) {
    super();
    this.#spec = spec;
    this.#relu = relu;
    this.#name = name;
    const ctx = `new ${name}(...)`;
    const g = readConvArgs(
      spec,
      inChannels,
      outChannels,
      kernelSize,
      options,
      ctx,
      spec.dims === 0 ? [] : ['winograd'],
    );
    const numel = validateGeometry(g, ctx);
    this.#geometry = freezeGeometry(g);
    this.#winograd = g.winograd;
    // PyTorch starts from an all-zero qint8 weight (scale 1, zero point 0) and a zero bias.
    const w = makePerTensorQuantizedTensor({ data: new Int8Array(numel), shape: weightShape(g) }, 1.0, 0, 'qint8');
    try {
      this.#setWeightBias(w, g.bias ? new Float32Array(outChannels) : null, ctx);
    } finally {
      w.dispose();
    }
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
  get padding() {
    return this.#geometry.padding;
  }

  /** Output scale (PyTorch: module.scale): a finite number > 0. */
  get scale() {
    return this.#scale;
  }

  set scale(v) {
    const ctx = `${this.#name}.scale`;
    readNumber(v, 'scale', ctx);
    checked(wasm(ctx)._checkOutputQParams(v, this.#zeroPoint), ctx);
    this.#scale = v;
  }

  /** Output zero point, 0..255 (quint8). */
  get zeroPoint() {
    return this.#zeroPoint;
  }

  set zeroPoint(v) {
    const ctx = `${this.#name}.zeroPoint`;
    readNumber(v, 'zeroPoint', ctx);
    checked(wasm(ctx)._checkOutputQParams(this.#scale, v), ctx);
    this.#zeroPoint = v;
  }

  #live(method) {
    if (this.#packed === null) throw new Error(`${this.#name}.${method}: this module has been disposed`);
    return this.#packed;
  }

  /** Documented at the quantized modules' setWeightBias (web/declarations/nn-bases.d.ts). */
  setWeightBias(weight, bias) {
    // A disposed module stays disposed, as forward() says: it is not brought back by new weights.
    this.#live('setWeightBias(weight, bias)');
    this.#setWeightBias(weight, bias, `${this.#name}.setWeightBias(weight, bias)`, 'setWeightBias(weight, bias)');
  }

  /**
   * @internal setWeightBias(weight, bias), packed for `engine` ('x86' or
   * 'fbgemm') rather than the engine in force: the model loader packs each
   * conv for the backend its file records, whatever this thread's engine is.
   * exactSums: a PT2E graph's conv, whose reference sums exactly (never
   * FBGEMM's int16 pair saturation; docs/numerics.md, "PT2E").
   */
  _setWeightBias(weight, bias, engine, exactSums = false) {
    this.#live('setWeightBias(weight, bias)');
    this.#setWeightBias(
      weight,
      bias,
      `${this.#name}.setWeightBias(weight, bias)`,
      'setWeightBias(weight, bias)',
      engine,
      exactSums,
    );
  }

  // method: the public call, whose module must still be live once the
  // arguments are read (a bias getter can dispose it); null from the
  // constructor. engineName: the engine the weights are packed for ('x86' or
  // 'fbgemm'), or undefined for the engine in force.
  #setWeightBias(weight, bias, ctx, method = null, engineName = undefined, exactSums = false) {
    // Everything the caller can run code in (the bias's getters) is read
    // first; the weight's handle after, so that it cannot be disposed between.
    const b = readBias(bias, ctx);
    const h = qtensorHandle(weight, ctx);
    if (method !== null) this.#live(method);
    const M = wasm(ctx);
    const geometry = this.#geometry;
    // Packed for the engine named, else the engine in force now (once the arguments are read), as PyTorch's prepack.
    const engine = engineCode(engineName);
    const winograd = winogradCode(this.#winograd);
    let packed = null;
    try {
      packed =
        b === null
          ? checked(M._makeQConv(geometry, h, 0, 0, false, engine, winograd, exactSums), ctx)
          : withHeapCopy(M, new Uint8Array(b.buffer), 'the bias', ctx, (address) =>
              checked(M._makeQConv(geometry, h, address, b.length, true, engine, winograd, exactSums), ctx),
            );
    } catch (e) {
      if (packed && !packed.isDeleted()) packed.delete();
      throw noteOutOfMemory(e);
    }
    // Nothing can fail from here on: swap in the new state. The packed
    // weights are all the module keeps (weight() rebuilds the integers).
    this.#packed = adopt(this, packed, this.#packed, packed.packedBytes());
    this.#bias = b;
    if (this.#timingPhases) packed._timePhases(true);
    this.#lastCallTimed = false;
  }

  /** Documented at the quantized modules' weight (web/declarations/nn-bases.d.ts). */
  weight() {
    const ctx = `${this.#name}.weight()`;
    const packed = this.#live('weight()');
    try {
      return wrapHandle(checked(packed.weight(), ctx));
    } catch (e) {
      throw noteOutOfMemory(e);
    }
  }

  /** A copy of the float bias, or null. */
  bias() {
    this.#live('bias()');
    return this.#bias === null ? null : this.#bias.slice();
  }

  /** x: quint8 per-tensor QTensor. Returns a new quint8 QTensor (the caller owns it). */
  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    const packed = this.#live('forward(x)');
    const h = qtensorHandle(x, ctx);
    const shape = qtensorShape(x, ctx);
    const shape5 = liftInputShape(this.#spec, shape, ctx);
    const lifted = !sameShape(shape5, shape);
    try {
      const input = lifted ? viewOf(x, shape5, ctx) : h;
      let out;
      this.#lastCallTimed = false;
      try {
        out = checked(packed.forward(input, this.#scale, this.#zeroPoint, this.#relu, currentIsa()), ctx);
        this.#lastCallTimed = this.#timingPhases;
      } finally {
        if (lifted && !input.isDeleted()) input.delete();
      }
      // The core returns a Conv1d / Conv2d output at its own rank, with PyTorch's strides.
      return wrapHandle(out);
    } catch (e) {
      throw noteOutOfMemory(e);
    }
  }

  /** @internal The validated geometry (frozen): depth streaming reads its depth entries. */
  get _geometry() {
    return this.#geometry;
  }

  /**
   * @internal Whether _forwardDepthPadded can run undilated along depth (a
   * Conv3d of groups 1; the integer sums are exact, so the bytes do not
   * depend on the window): depth streaming runs each depth phase of a
   * dilated layer on its own.
   */
  get _depthPhases() {
    return this.#spec.dims === 3 && this.#geometry.groups === 1;
  }

  /**
   * @internal forward(x) with this call's depth padding replaced by (padBegin,
   * padEnd): a Conv3d over a window of depth slices (web/src/model/depth-stream.mjs),
   * from the same packed weights. undilated: the call's depth dilation is 1
   * (a window of one depth phase of a dilated layer: every dilation-th slice;
   * groups 1 only).
   */
  _forwardDepthPadded(x, padBegin, padEnd, undilated = false) {
    const ctx = `${this.#name}.forward(x)`;
    const packed = this.#live('forward(x)');
    if (this.#spec.dims !== 3) throw new Error(`${ctx}: a depth padding override is for a Conv3d`);
    const h = qtensorHandle(x, ctx);
    try {
      this.#lastCallTimed = false;
      return wrapHandle(
        checked(
          packed.forwardDepthPadded(
            h,
            this.#scale,
            this.#zeroPoint,
            this.#relu,
            currentIsa(),
            padBegin,
            padEnd,
            undilated,
          ),
          ctx,
        ),
      );
    } catch (e) {
      throw noteOutOfMemory(e);
    }
  }

  /** @internal _scratchBound(shape) under a depth padding (and dilation) override. */
  _scratchBoundDepthPadded(shape, padBegin, padEnd, undilated = false) {
    const ctx = `${this.#name}._scratchBound(shape)`;
    return checked(this.#live(ctx).scratchBoundDepthPadded(shape, padBegin, padEnd, undilated), ctx);
  }

  /** Bytes of the packed weights in wasm memory. */
  packedWeightBytes() {
    return this.#live('packedWeightBytes()').packedBytes();
  }

  /** Bytes of scratch memory the last forward() used beyond input, output and packed weights. */
  lastScratchBytes() {
    return this.#live('lastScratchBytes()').scratchBytes();
  }

  /**
   * @internal The most scratch memory a forward() on an input of `shape`
   * allocates (every ISA and path, every thread): the model loader's budget.
   */
  _scratchBound(shape) {
    const ctx = `${this.#name}._scratchBound(shape)`;
    return checked(this.#live(ctx).scratchBound(liftInputShape(this.#spec, shape, ctx)), ctx);
  }

  /** Documented at the quantized convolutions' winograd (web/declarations/nn-bases.d.ts); false for Linear. */
  get winograd() {
    return this.#spec.dims === 0 ? false : this.#winograd;
  }

  /** Bytes of the Winograd-transformed weights among packedWeightBytes() (0 when none are held). */
  winogradWeightBytes() {
    return this.#live('winogradWeightBytes()').winogradBytes();
  }

  /** Documented at the quantized convolutions' lastPath (web/declarations/nn-bases.d.ts). */
  lastPath() {
    return CONV_PATH_NAMES.get(this.#live('lastPath()').lastPath());
  }

  /** Documented at the quantized convolutions' timeWinogradPhases (web/declarations/nn-bases.d.ts). */
  timeWinogradPhases(on) {
    const ctx = `${this.#name}.timeWinogradPhases(on)`;
    if (typeof on !== 'boolean') throw new TypeError(`${ctx}: on must be a boolean, got ${describe(on)}`);
    this.#live('timeWinogradPhases(on)')._timePhases(on);
    this.#timingPhases = on;
  }

  /**
   * Documented at the quantized convolutions' lastWinogradPhaseMs (web/declarations/nn-bases.d.ts).
   * @returns {{inputTransform: number, gemm: number, outputTransform: number} | null}
   */
  lastWinogradPhaseMs() {
    // A split only for a call timed on the Winograd path: the core's timers
    // hold zeros for an untimed or direct call.
    const packed = this.#live('lastWinogradPhaseMs()');
    if (!this.#lastCallTimed || packed.lastPath() !== 2) return null;
    const [inputTransform, gemm, outputTransform] = packed._lastPhaseMs();
    return { inputTransform, gemm, outputTransform };
  }

  /** The micro-kernel the last forward() ran (a registry name), or '' before the first. */
  lastKernel() {
    return this.#live('lastKernel()').lastKernel();
  }

  get disposed() {
    return this.#packed === null;
  }

  /** Documented at the quantized modules' backend (web/declarations/nn-bases.d.ts). */
  get backend() {
    return BACKEND_NAMES.get(this.#live('backend').backend());
  }

  dispose() {
    this.#packed = release(this, this.#packed);
  }

  toString() {
    return `${this.#name}(${this.inChannels}, ${this.outChannels}, scale=${this.#scale}, zero_point=${this.#zeroPoint})`;
  }
}

const FROM_FLOAT_OPTIONS = ['activationObserver', 'outputScale', 'outputZeroPoint', 'weightObserver', 'winograd'];

// Runs one step of fromFloat, naming it in any error (same class) the step throws.
function step(ctx, what, fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Error && typeof e.message === 'string') {
      const ErrorClass = /** @type {ErrorConstructor} */ (e.constructor);
      const wrapped = new ErrorClass(`${ctx}: ${what}: ${e.message}`);
      wrapped.cause = e;
      throw isOutOfMemory(e) ? Object.assign(wrapped, { kind: OUT_OF_MEMORY }) : wrapped;
    }
    throw e;
  }
}

// PyTorch's _clamp_weights: an observer with a range narrower than qint8's
// (e.g. quantMin -127) has its weights clamped to that range after quantizing.
function clampToObserverRange(qw, observer, axis, shape) {
  const lo = observer.quantMin;
  const hi = observer.quantMax;
  if (lo <= -128 && hi >= 127) return qw;
  try {
    const data = qw.intRepr().map((v) => Math.min(Math.max(v, lo), hi));
    return axis >= 0
      ? makePerChannelQuantizedTensor(
          { data, shape },
          qw.qPerChannelScales(),
          qw.qPerChannelZeroPoints(),
          axis,
          'qint8',
        )
      : makePerTensorQuantizedTensor({ data, shape }, qw.qScale(), qw.qZeroPoint(), 'qint8');
  } finally {
    qw.dispose();
  }
}

// Every quantized class's static fromFloat (PyTorch's from_float; documented
// at nn.quantized.Conv3d.fromFloat in web/declarations/nn.d.ts).
function fromFloat(Cls, FloatCls, floatName, name, mod, options) {
  const ctx = `${name}.fromFloat(mod, options)`;
  checkNotRevoked(mod, 'mod', ctx);
  if (!(mod instanceof FloatCls)) throw new TypeError(`${ctx}: mod must be an ${floatName}, got ${describe(mod)}`);
  const o = readOptions(options, FROM_FLOAT_OPTIONS, ctx);
  const conv = floatNN.fusedInner(mod) ?? mod;
  const parts = floatNN.floatConvParts(conv);
  if (parts === undefined) throw new TypeError(`${ctx}: mod must be an ${floatName}, got ${describe(mod)}`);
  const weightObserver = o.has('weightObserver')
    ? o.get('weightObserver')
    : new PerChannelMinMaxObserver({ dtype: 'qint8', qscheme: 'per_channel_symmetric' });
  if (!isObserver(weightObserver))
    throw new TypeError(`${ctx}: weightObserver must be an observer, got ${describe(weightObserver)}`);
  if (weightObserver.dtype !== 'qint8')
    throw new TypeError(`${ctx}: weightObserver must be qint8, got ${weightObserver.dtype}`);
  let outScale;
  let outZeroPoint;
  if (o.has('activationObserver') && (o.has('outputScale') || o.has('outputZeroPoint'))) {
    throw new TypeError(`${ctx}: give activationObserver or outputScale and outputZeroPoint, not both`);
  }
  if (o.has('activationObserver')) {
    const obs = o.get('activationObserver');
    if (!isObserver(obs) || obs._perChannel) {
      throw new TypeError(`${ctx}: activationObserver must be a per-tensor observer, got ${describe(obs)}`);
    }
    const qp = step(ctx, 'activationObserver', () => obs.calculateQParams());
    outScale = readNumber(qp?.scale, 'activationObserver.calculateQParams().scale', ctx);
    outZeroPoint = readNumber(qp?.zeroPoint, 'activationObserver.calculateQParams().zeroPoint', ctx);
  } else if (o.has('outputScale') && o.has('outputZeroPoint')) {
    outScale = readNumber(o.get('outputScale'), 'outputScale', ctx);
    outZeroPoint = readNumber(o.get('outputZeroPoint'), 'outputZeroPoint', ctx);
  } else {
    throw new Error(
      `${ctx}: give activationObserver (calibrated on the float outputs) or outputScale and outputZeroPoint`,
    );
  }
  checked(wasm(ctx)._checkOutputQParams(outScale, outZeroPoint), ctx);
  const { geometry: g, weight, bias } = parts;
  if (o.has('winograd') && parts.spec.dims === 0) {
    throw new TypeError(`${ctx}: winograd applies to convolutions, not to ${floatName}`);
  }
  if (o.has('winograd')) readWinograd(o.get('winograd'), ctx);
  const wt = { data: weight.data, shape: weight.shape };
  const qweight = step(ctx, 'the weight', () => {
    weightObserver.observe(wt);
    const { scale, zeroPoint } = weightObserver.calculateQParams();
    const rank = wt.shape.length;
    const axis = weightObserver._perChannel ? ((weightObserver.chAxis % rank) + rank) % rank : -1;
    const qw =
      axis >= 0
        ? quantizePerChannel(wt, scale, zeroPoint, axis, 'qint8')
        : quantizePerTensor(wt, scale, zeroPoint, 'qint8');
    return clampToObserverRange(qw, weightObserver, axis, wt.shape);
  });
  let q = null;
  try {
    const dims = parts.spec.dims;
    q =
      dims === 0
        ? new Cls(g.inChannels, g.outChannels, { bias: bias !== null })
        : new Cls(g.inChannels, g.outChannels, userTriple(g.kernel, dims), {
            stride: userTriple(g.stride, dims),
            padding: g.padding,
            dilation: userTriple(g.dilation, dims),
            groups: g.groups,
            bias: bias !== null,
            ...(o.has('winograd') ? { winograd: o.get('winograd') } : {}),
          });
    step(ctx, 'the quantized module', () => q.setWeightBias(qweight, bias === null ? null : bias.data));
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

const floatNameOf = (relu, FloatCls) => (relu ? `nn.intrinsic.${FloatCls.name}` : `nn.${FloatCls.name}`);

function quantizedConvClass(spec, relu, FloatCls, name) {
  const floatName = floatNameOf(relu, FloatCls);
  const Cls = class extends QuantizedConvBase {
    constructor(inChannels, outChannels, kernelSize, options) {
      super(spec, relu, name, inChannels, outChannels, kernelSize, options);
    }

    /** Documented at nn.quantized.Conv3d.fromFloat (web/declarations/nn.d.ts). */
    static fromFloat(mod, options) {
      return fromFloat(Cls, FloatCls, floatName, name, mod, options);
    }
  };
  Object.defineProperty(Cls, 'name', { value: name.split('.').pop() });
  return Cls;
}

function quantizedLinearClass(relu, FloatCls, name) {
  const floatName = floatNameOf(relu, FloatCls);
  const Cls = class extends QuantizedConvBase {
    constructor(inFeatures, outFeatures, options) {
      super(SPECS.linear, relu, name, inFeatures, outFeatures, 1, options);
    }

    get inFeatures() {
      return this.inChannels;
    }
    get outFeatures() {
      return this.outChannels;
    }

    /** Documented at nn.quantized.Linear.fromFloat (web/declarations/nn.d.ts). */
    static fromFloat(mod, options) {
      return fromFloat(Cls, FloatCls, floatName, name, mod, options);
    }
  };
  Object.defineProperty(Cls, 'name', { value: name.split('.').pop() });
  return Cls;
}

export const Conv1d = quantizedConvClass(SPECS[1], false, floatNN.Conv1d, 'nn.quantized.Conv1d');
export const Conv2d = quantizedConvClass(SPECS[2], false, floatNN.Conv2d, 'nn.quantized.Conv2d');
export const Conv3d = quantizedConvClass(SPECS[3], false, floatNN.Conv3d, 'nn.quantized.Conv3d');
export const Linear = quantizedLinearClass(false, floatNN.Linear, 'nn.quantized.Linear');
export const ConvReLU1d = quantizedConvClass(SPECS[1], true, floatNN.ConvReLU1d, 'nn.intrinsic.quantized.ConvReLU1d');
export const ConvReLU2d = quantizedConvClass(SPECS[2], true, floatNN.ConvReLU2d, 'nn.intrinsic.quantized.ConvReLU2d');
export const ConvReLU3d = quantizedConvClass(SPECS[3], true, floatNN.ConvReLU3d, 'nn.intrinsic.quantized.ConvReLU3d');
export const LinearReLU = quantizedLinearClass(true, floatNN.LinearReLU, 'nn.intrinsic.quantized.LinearReLU');
