// The quantization namespace (torch.ao.quantization): the observers and
// their options, QConfig, the quantized engine, the eager flow and the
// numeric suite; the observers at the top level too.
import type { nn } from './nn.js';
import type { WinogradOption } from './nn-options.js';
import type { QDType, QTensor, Tensor, TensorQScheme } from './tensors.js';

/**
 * The values of `torch.backends.quantized.engine` that qwasm reproduces: the
 * engine a quantized layer's arithmetic follows (see {@link quantization.setEngine}).
 */
export type QuantizedEngine = 'x86' | 'fbgemm';

/**
 * Schemes an observer can target: the tensor schemes plus the symmetric ones
 * (`torch.per_tensor_symmetric`, `torch.per_channel_symmetric`), whose
 * tensors are stored as affine with a fixed zero point.
 */
export type ObserverQScheme = TensorQScheme | 'per_tensor_symmetric' | 'per_channel_symmetric';

/** Options shared by the observers (PyTorch's keyword arguments in camelCase, same defaults). */
export interface ObserverOptions {
  /** Default 'quint8'. */
  dtype?: QDType;
  /** Default 'per_tensor_affine' (per-channel observers: 'per_channel_affine'). */
  qscheme?: ObserverQScheme;
  /** Halve the range (quint8 0..127, qint8 -64..63), as fbgemm needs for activations. Default false. */
  reduceRange?: boolean;
  /** Lower end of a custom range (PyTorch's quant_min); give both quantMin and quantMax or neither. The range must include 0. */
  quantMin?: number;
  /** Upper end of a custom range (PyTorch's quant_max); give both quantMin and quantMax or neither. */
  quantMax?: number;
  /** Smallest scale. Default 2^-23 (float32 epsilon), kept as float32. */
  eps?: number;
}

/** Options of the per-channel observers. */
export interface PerChannelObserverOptions extends ObserverOptions {
  /** The channel dimension (PyTorch's ch_axis); negative counts from the end, as in PyTorch. Default 0. */
  chAxis?: number;
}

/** Options of {@link quantization.HistogramObserver}. */
export interface HistogramObserverOptions extends ObserverOptions {
  /** Number of histogram bins, 1..2^24. Default 2048. */
  bins?: number;
}

/** Options of the moving-average observers. */
export interface MovingAverageOptions {
  /** c in min += c * (batch_min - min) (PyTorch's averaging_constant). Default 0.01. */
  averagingConstant?: number;
}

/**
 * What every observer has (PyTorch's `torch.ao.quantization.ObserverBase`).
 * Not exported: the observers below are the classes; `quantization.Observer`
 * names any of them. Constructing an observer needs {@link init} (the core
 * checks the options): before it, an Error.
 */
declare abstract class ObserverBase<Q> {
  /**
   * PyTorch's `with_args`: a factory that makes this observer with these
   * options each time it is called (for {@link quantization.QConfig}). The
   * options are checked now, by making one observer.
   * @throws As the constructor does, for bad options.
   */
  static withArgs<T>(
    this: new (
      options?: never,
    ) => T,
    options?: HistogramObserverOptions & PerChannelObserverOptions & MovingAverageOptions,
  ): () => T;
  /** The target dtype (PyTorch's dtype). */
  readonly dtype: QDType;
  /** The target scheme (PyTorch's qscheme). */
  readonly qscheme: ObserverQScheme;
  /** True when the range is halved (PyTorch's reduce_range). */
  readonly reduceRange: boolean;
  /** The effective lower end of the range after reduceRange (PyTorch's quant_min). */
  readonly quantMin: number;
  /** The effective upper end of the range after reduceRange (PyTorch's quant_max). */
  readonly quantMax: number;
  /** True when quantMin / quantMax were given (PyTorch's has_customized_qrange). */
  readonly hasCustomizedQRange: boolean;
  /** The smallest scale, as the float32 PyTorch keeps. */
  readonly eps: number;
  /**
   * Records the range of x and returns x (PyTorch's `forward()`). Empty
   * tensors are ignored.
   * @param x A float tensor; per channel, its rank must include chAxis.
   * @returns x itself.
   * @throws TypeError when x is not a float tensor, RangeError on NaN or
   *   +-Infinity (PyTorch would carry them into the scale; the
   *   HistogramObserver leaves infinities out, as PyTorch does) or when
   *   wasm memory runs out, Error before {@link init}.
   */
  observe(x: Tensor): Tensor;
  /**
   * PyTorch's `calculate_qparams()` on what was observed (scale 1, zero
   * point 0 before any data). Fresh arrays; yours.
   * @throws Error before {@link init}.
   */
  calculateQParams(): Q;
  /** Forgets what was observed. */
  reset(): void;
  /** PyTorch's name for reset() (`reset_min_max_vals()`). */
  resetMinMaxVals(): void;
}

/** Per-tensor qparams: numbers. */
export interface QParams {
  /** The scale (> 0). */
  scale: number;
  /** The zero point, an integer in the observer's range. */
  zeroPoint: number;
}

/** Per-channel qparams: one entry per channel. */
export interface PerChannelQParams {
  /** One scale per channel. */
  scale: Float32Array;
  /** One zero point per channel: an Int32Array, or a Float32Array for per_channel_affine_float_qparams. */
  zeroPoint: Int32Array | Float32Array;
}

/**
 * PyTorch's `torch.ao.quantization` namespace: the observers, QConfig and the
 * eager-mode flow (fuseModules, prepare, calibrate with forward(), convert),
 * and the quantized engine (`torch.backends.quantized.engine`).
 */
export declare namespace quantization {
  /**
   * Running min/max of everything observed
   * (`torch.ao.quantization.MinMaxObserver`).
   * @example
   * ```ts
   * const obs = new quantization.MinMaxObserver({ dtype: 'quint8' });
   * obs.observe(tensor([-1, 0, 3]));
   * obs.calculateQParams(); // → { scale: 0.01568627543747425, zeroPoint: 64 }
   * ```
   */
  class MinMaxObserver extends ObserverBase<QParams> {
    #private;
    /**
     * @throws TypeError for an unknown option or one of the wrong type (or
     *   only one of quantMin / quantMax), RangeError for a value out of
     *   range (a scheme the dtype cannot use, a range without 0), Error before {@link init}.
     */
    constructor(options?: ObserverOptions);
    /** The smallest value observed; Infinity before the first observe(). */
    readonly minVal: number;
    /** The largest value observed; -Infinity before the first observe(). */
    readonly maxVal: number;
  }

  /**
   * Moving-average min/max
   * (`torch.ao.quantization.MovingAverageMinMaxObserver`): the first batch
   * sets the range, each later one moves it by averagingConstant.
   */
  class MovingAverageMinMaxObserver extends ObserverBase<QParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: ObserverOptions & MovingAverageOptions);
    /** c in min += c * (batch_min - min). */
    readonly averagingConstant: number;
    /** The running minimum; Infinity before the first observe(). */
    readonly minVal: number;
    /** The running maximum; -Infinity before the first observe(). */
    readonly maxVal: number;
  }

  /**
   * Per-channel min/max along chAxis
   * (`torch.ao.quantization.PerChannelMinMaxObserver`), the default weight
   * observer of from_float (qint8, per_channel_symmetric).
   * @example
   * ```ts
   * const w = tensor([0.5, -0.25, 1, 2], [2, 2]);
   * const obs = new quantization.PerChannelMinMaxObserver({ dtype: 'qint8', qscheme: 'per_channel_symmetric' });
   * obs.observe(w);
   * // One per row: the scale is the row's largest |w| / 127.5, the zero point 0.
   * const { scale, zeroPoint } = obs.calculateQParams();
   * scale;     // → Float32Array(2) [ 0.003921568859368563, 0.01568627543747425 ]
   * zeroPoint; // → Int32Array(2) [ 0, 0 ]
   * const qw = quantizePerChannel(w, scale, zeroPoint, obs.chAxis, 'qint8');
   * qw.intRepr(); // → Int8Array(4) [ 127, -64, 64, 127 ]
   * ```
   */
  class PerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: PerChannelObserverOptions);
    /** The channel dimension, as given (may be negative). */
    readonly chAxis: number;
    /** The minimum of each channel: a copy; empty before the first observe(). */
    readonly minVal: Float32Array;
    /** The maximum of each channel: a copy; empty before the first observe(). */
    readonly maxVal: Float32Array;
  }

  /** Per-channel moving-average min/max (`torch.ao.quantization.MovingAveragePerChannelMinMaxObserver`). */
  class MovingAveragePerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: PerChannelObserverOptions & MovingAverageOptions);
    /** The channel dimension, as given (may be negative). */
    readonly chAxis: number;
    /** c in min += c * (batch_min - min). */
    readonly averagingConstant: number;
    /** The running minimum of each channel: a copy; empty before the first observe(). */
    readonly minVal: Float32Array;
    /** The running maximum of each channel: a copy; empty before the first observe(). */
    readonly maxVal: Float32Array;
  }

  /**
   * `torch.ao.quantization.HistogramObserver`, PyTorch's default activation
   * observer: a running histogram (re-binned as the range grows) and an
   * L2-minimising search for the range to quantize, bit for bit PyTorch's.
   * Per tensor only. Infinite values are left out, as PyTorch does; NaN is a
   * RangeError.
   * @example
   * ```ts
   * const obs = new quantization.HistogramObserver({ reduceRange: true });
   * for (const batch of [tensor([-1, 0, 2.5, 0.5]), tensor([0.25, 3, -0.5, 1])]) obs.observe(batch);
   * obs.calculateQParams(); // → { scale: 0.031480684876441956, zeroPoint: 32 }
   * ```
   */
  class HistogramObserver extends ObserverBase<QParams> {
    #private;
    /**
     * @throws RangeError for bins outside 1..2^24, and as {@link MinMaxObserver}'s constructor.
     */
    constructor(options?: HistogramObserverOptions);
    /** Number of bins (default 2048). */
    readonly bins: number;
    /** The smallest finite value observed; Infinity before the first observe(). */
    readonly minVal: number;
    /** The largest finite value observed; -Infinity before the first observe(). */
    readonly maxVal: number;
    /** The running histogram over [minVal, maxVal]: a copy, bins counts (zeros before any data). */
    readonly histogram: Float32Array;
  }

  /**
   * `torch.ao.quantization.QConfig(activation, weight)`: the observer
   * factories {@link prepare} and {@link convert} use. Set it on a module as
   * `model.qconfig`.
   */
  class QConfig {
    #private;
    /**
     * @param options activation and weight: observer factories
     *   (`Observer.withArgs(...)`) or observer classes (PyTorch's
     *   `QConfig(activation=MinMaxObserver, ...)`: made with their default
     *   options), called once per observed module.
     * @throws TypeError when either is not a function or class.
     */
    constructor(options: {
      activation: (() => Observer) | (new () => Observer);
      weight: (() => Observer) | (new () => Observer);
    });
    /** Makes the observer of each observed output (a class given to the constructor comes back as a factory). */
    readonly activation: () => Observer;
    /** Makes the observer of each weight (qint8; a class given to the constructor comes back as a factory). */
    readonly weight: () => Observer;
  }

  /**
   * `torch.ao.quantization.get_default_qconfig(backend)`, PyTorch 2.15's
   * definitions: HistogramObserver activations (reduceRange on 'x86' and
   * 'fbgemm'), and per-channel symmetric qint8 weights (per-tensor for
   * 'qnnpack').
   * @param backend Default 'x86'.
   * @throws TypeError for another backend name.
   */
  function getDefaultQConfig(backend?: 'x86' | 'fbgemm' | 'qnnpack' | 'onednn'): QConfig;

  /**
   * `torch.backends.quantized.engine = name`: the engine quantized layers are
   * packed for from now on ('x86', the default as in PyTorch on x86 CPUs, or
   * 'fbgemm'). Under 'x86' a convolution with symmetric weights and groups
   * <= 100 gives the numbers PyTorch's oneDNN path gives on a CPU with
   * AVX-512 VNNI; everything else FBGEMM's.
   * @throws TypeError for another name.
   */
  function setEngine(name: QuantizedEngine): void;
  /** `torch.backends.quantized.engine`: the engine in force. */
  function getEngine(): QuantizedEngine;
  /** The engines qwasm reproduces (`torch.backends.quantized.supported_engines`, the ones qwasm has). */
  const supportedEngines: readonly QuantizedEngine[];
  /**
   * The Winograd option of every quantized convolution built from now on
   * (constructor, fromFloat, convert, io.loadModel) whose options do not
   * name one. Default 'auto'. (qwasm's own: PyTorch has no Winograd path.)
   * @throws TypeError for a value other than 'auto', true or false.
   */
  function setWinograd(mode: WinogradOption): void;
  /** The default {@link setWinograd} set. */
  function getWinograd(): WinogradOption;

  /**
   * `torch.ao.quantization.QuantStub`: marks where the quantized region
   * starts: the identity until {@link convert} makes it a
   * {@link nn.quantized.Quantize}.
   */
  class QuantStub extends nn.Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }
  /**
   * `torch.ao.quantization.DeQuantStub`: marks where the quantized region
   * ends: the identity until {@link convert} makes it a
   * {@link nn.quantized.DeQuantize}.
   */
  class DeQuantStub extends nn.Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }

  /**
   * `torch.ao.quantization.fuse_modules`: fuses each group of module paths
   * (['conv', 'bn', 'relu'], or a list of groups) in place and returns the
   * model. Conv + BatchNorm (+ ReLU) needs eval mode and folds the BatchNorm
   * into the weights bit for bit as PyTorch does; Conv + ReLU and Linear +
   * ReLU make the nn.intrinsic modules; the other slots become nn.Identity.
   * Always in place (a JavaScript module cannot be deep-copied).
   * @param modulesToFuse Dotted module paths ('layer1.0.conv1'), one group or a list of groups.
   * @throws TypeError for a model that is not an nn.Module or paths that are
   *   not dotted names, RangeError when a BatchNorm does not match its conv,
   *   Error for a missing submodule, a sequence PyTorch has no fuser for, or
   *   a BatchNorm fold in training mode.
   * @example
   * ```ts
   * const model = new nn.Sequential({
   *   conv1: new nn.Conv3d(3, 8, 3), bn1: new nn.BatchNorm3d(8), relu1: new nn.ReLU(),
   *   conv2: new nn.Conv3d(8, 8, 1), relu2: new nn.ReLU(),
   * });
   * model.eval();
   * quantization.fuseModules(model, [['conv1', 'bn1', 'relu1'], ['conv2', 'relu2']]);
   * model.children().map((m) => m.constructor.name); // → [ 'ConvReLU3d', 'Identity', 'Identity', 'ConvReLU3d', 'Identity' ]
   * ```
   */
  function fuseModules<M extends nn.Module>(
    model: M,
    modulesToFuse: string[] | string[][],
    options?: { inplace?: true },
  ): M;

  /**
   * `torch.ao.quantization.prepare`: in place, propagates each module's
   * `qconfig` to its children and attaches observers where PyTorch does (a
   * QuantStub's output, each Conv / Linear and fused ConvReLU / LinearReLU
   * output, each FloatFunctional's result). Run calibration data through
   * model.forward(x), then {@link convert}(model).
   * @throws TypeError for a model that is not an nn.Module or a qconfig
   *   that is not a QConfig, Error for unfused BatchNorm under a qconfig
   *   (fuse it first: {@link fuseModules}), a model already prepared, or
   *   one with nothing to observe.
   * @example
   * ```ts
   * const fc = new nn.Linear(3, 2);
   * fc.weight = tensor([0.5, -1, 0.25, 1, 0.5, -0.5], [2, 3]);
   * const model = new nn.Sequential(new quantization.QuantStub(), fc, new quantization.DeQuantStub());
   * model.eval();
   * model.qconfig = quantization.getDefaultQConfig('x86');
   * quantization.prepare(model);
   * for (const x of [tensor([0.5, -1, 2]), tensor([1, 0.25, -0.5])]) model.forward(x);
   * quantization.convert(model);
   * const y = model.forward(tensor([0.5, 1, -1])); // quantized arithmetic, PyTorch's integers
   * model[1] instanceof nn.quantized.Linear; // → true
   * ```
   */
  function prepare<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /**
   * `torch.ao.quantization.convert`: in place, swaps each observed module for
   * its quantized twin (QuantStub -> nn.quantized.Quantize, DeQuantStub ->
   * nn.quantized.DeQuantize, Conv3d -> nn.quantized.Conv3d, ConvReLU3d ->
   * nn.intrinsic.quantized.ConvReLU3d, FloatFunctional -> QFunctional, ...)
   * with the qparams its observers calibrated, and disposes the float modules
   * it replaced.
   * @throws TypeError for a model that is not an nn.Module, Error when the
   *   model was not prepared (and RangeError, as the quantized modules'
   *   constructors, for qparams out of range).
   */
  function convert<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /** Any observer. */
  type Observer =
    | MinMaxObserver
    | MovingAverageMinMaxObserver
    | PerChannelMinMaxObserver
    | MovingAveragePerChannelMinMaxObserver
    | HistogramObserver;

  /**
   * PyTorch's eager numeric suite (`torch.ao.ns._numeric_suite`): where int8
   * loses accuracy, layer by layer. Layers are paired as PyTorch pairs them,
   * so the keys are PyTorch's state-dict and logger keys.
   */
  namespace ns {
    /** One float tensor against its quantized twin (dequantized). */
    interface Comparison {
      /** The float model's key this entry was paired with (PyTorch's `_find_match`). */
      floatKey: string;
      /** The float tensor. */
      float: Tensor;
      /** The quantized tensor, dequantized. */
      quantized: Tensor;
      /** `compute_sqnr(float, quantized)` in dB; Infinity when they are equal. */
      sqnr: number;
      /** The largest |float - quantized|. */
      maxAbsError: number;
    }
    /** A weight: also per output channel (axis 0). */
    interface WeightComparison extends Comparison {
      /** The same along the output channels (axis 0 of a conv or linear weight). */
      perChannel: {
        /** Each channel's SQNR in dB. */
        sqnr: number[];
        /** Each channel's largest |float - quantized|. */
        maxAbsError: number[];
      };
    }
    /** A module's output. */
    interface OutputComparison extends Comparison {
      /** The share of elements more than one quantization step apart; null for a float output. */
      offByMoreThanOneStep: number | null;
    }
    /**
     * `torch.ao.ns.fx.utils.compute_sqnr`: 20 log10(‖x‖ / ‖x − y‖) in dB
     * (Infinity when y equals x). QTensors are dequantized.
     * @throws TypeError for an argument that is not a tensor, RangeError for shapes that differ.
     * @example
     * ```ts
     * quantization.ns.computeSqnr(tensor([3, 4]), tensor([3, 4.5])); // → 20
     * ```
     */
    function computeSqnr(x: Tensor | QTensor, y: Tensor | QTensor): number;
    /**
     * `torch.ao.ns._numeric_suite.compare_weights`: each quantized weight
     * with the float weight it came from, keyed by the quantized model's
     * state-dict key (`'layer1.0.conv1.0.weight'`, `'fc._packed_params._packed_params'`).
     * The models: qwasm modules (build the float model twice: `convert` works
     * in place), or a float model and its quantized twin exported from
     * PyTorch and loaded with {@link io.loadModel}.
     * @throws TypeError for a model that is not a module, RangeError for a pair of different sizes.
     * @example
     * ```ts
     * const floatModel = io.loadModel(await readFile('r3d_18_float.qwasm.safetensors'));
     * const int8Model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
     * const [worst] = Object.entries(quantization.ns.compareWeights(floatModel, int8Model))
     *   .sort(([, a], [, b]) => a.sqnr - b.sqnr); // the weight int8 hurts most
     * worst[0]; // → 'layer4.0.conv2.0.weight'
     * ```
     */
    function compareWeights(floatModel: nn.Module, quantizedModel: nn.Module): Record<string, WeightComparison>;
    /**
     * `torch.ao.ns._numeric_suite.compare_model_outputs`: runs both models on
     * `x` and pairs the outputs of the modules PyTorch logs (QuantStub /
     * Quantize, convs, linears, fused modules, FloatFunctional ops,
     * BatchNorm, ReLU6; not a float DeQuantStub), keyed by the quantized
     * model's `'<path>.stats'`.
     * @throws TypeError for a model that is not a module; a model's own error (named) when it cannot run x.
     */
    function compareModelOutputs(
      floatModel: nn.Module,
      quantizedModel: nn.Module,
      x: Tensor,
    ): Record<string, OutputComparison>;
  }
}

// The observers at the top level too (the same classes).
export import MinMaxObserver = quantization.MinMaxObserver;
export import MovingAverageMinMaxObserver = quantization.MovingAverageMinMaxObserver;
export import PerChannelMinMaxObserver = quantization.PerChannelMinMaxObserver;
export import MovingAveragePerChannelMinMaxObserver = quantization.MovingAveragePerChannelMinMaxObserver;
export import HistogramObserver = quantization.HistogramObserver;

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
