// Type declarations for qwasm. Every function that owns or returns memory says
// who owns it: QTensor objects own wasm memory (free it with dispose()); every
// typed array returned to you is a JS-owned copy, never a view into wasm memory.

/** PyTorch's memory formats: torch.contiguous_format, torch.channels_last, torch.channels_last_3d. */
export type MemoryFormat = 'contiguous' | 'channels_last' | 'channels_last_3d';
/** Quantized dtypes, PyTorch's names. quint4x2 packs two 4-bit values per byte. */
/** torch.backends.quantized.engine values qwasm reproduces. */
export type QuantizedEngine = 'x86' | 'fbgemm';
export type QDType = 'quint8' | 'qint8' | 'qint32' | 'quint4x2';

/** The typed array that holds each dtype's integers (what intRepr() returns). */
export interface IntArrayOf {
  quint8: Uint8Array;
  qint8: Int8Array;
  qint32: Int32Array;
  /** Packed: two 4-bit values per byte, low nibble first. */
  quint4x2: Uint8Array;
}

/** Schemes a QTensor can carry (PyTorch `QTensor.qscheme()`). */
export type TensorQScheme = 'per_tensor_affine' | 'per_channel_affine' | 'per_channel_affine_float_qparams';

/** Schemes an observer can target (adds the symmetric ones). */
export type ObserverQScheme = TensorQScheme | 'per_tensor_symmetric' | 'per_channel_symmetric';

/** A float32 tensor: row-major data in PyTorch's default layout (e.g. NCDHW). */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Integer data quantized elsewhere, laid out as PyTorch's `int_repr()`. */
export interface IntTensor<D extends QDType = QDType> {
  /** Uint8Array (quint8, or packed quint4x2 bytes), Int8Array (qint8) or Int32Array (qint32). */
  data: IntArrayOf[D];
  shape: number[];
}

export interface InitOptions {
  /** The wasm bytes, when you load them yourself (copied when init() is called). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Where the wasm is: called with 'qwasm.wasm' and the default directory,
   * returns the URL to fetch (browsers, workers) or the file path or file:
   * URL to read (Node.js). Default: dist/qwasm.wasm beside the package's code.
   */
  locateFile?: (path: string, prefix: string) => string | URL;
  /**
   * Threads for parallel loops (1..64), the calling thread included. More
   * than 1 loads the threaded variant (qwasm.mt.wasm, with its glue and
   * worker script from dist/) where threads can run: always in Node.js; in
   * browsers only on cross-origin isolated pages and workers (COOP/COEP),
   * except Firefox workers (a Firefox worker that starts workers can hang).
   * Elsewhere qwasm runs single-threaded, without error, and runtimeInfo()
   * says why. Default: Node.js, the cores (os.availableParallelism()) up to 8;
   * browsers, navigator.hardwareConcurrency up to 8 when cross-origin
   * isolated, else 1. With wasmBinary, the bytes decide the variant.
   */
  numThreads?: number;
}

/** What init() loaded (runtimeInfo()). */
export interface RuntimeInfo {
  /** 'threads': qwasm.mt.wasm with a thread pool; 'single-thread': qwasm.wasm. */
  variant: 'threads' | 'single-thread';
  /** Threads each parallel loop uses (setNumThreads). */
  numThreads: number;
  /** Threads init() started (the most setNumThreads accepts). */
  maxThreads: number;
  /** The kernel family in use by default. */
  isa: 'scalar' | 'wasmsimd';
  /** Present when more than one thread was asked for but none run: why. */
  threadsUnavailable?: string;
}

/**
 * Loads and instantiates the WebAssembly module. Every call returns the same
 * promise; a later call may omit the options, but passing different ones is an
 * Error (one module per page, worker or process). Every other function but
 * tensor() and io throws until it has resolved. A failed load rejects with an
 * Error that names what was tried and what to do; it can be retried.
 */
export declare function init(options?: InitOptions): Promise<void>;

/** True once init() has resolved. */
export declare function isInitialized(): boolean;

/** What init() loaded: the variant, the threads and the kernel family (and why not threads, if so). */
export declare function runtimeInfo(): RuntimeInfo;

/** Threads each parallel loop uses (like torch.get_num_threads()). */
export declare function getNumThreads(): number;

/**
 * Threads each parallel loop uses from now on, 1..runtimeInfo().maxThreads
 * (like torch.set_num_threads(), but it cannot start more threads than init()
 * did). Results are bit-identical for every thread count.
 */
export declare function setNumThreads(n: number): void;

/**
 * Builds a float tensor, checking that `shape` (default `[data.length]`) holds
 * exactly `data.length` elements. Arrays of numbers are copied into a Float32Array;
 * a Float32Array is used as is (not copied).
 * @throws TypeError for wrong types, RangeError when shape and data disagree.
 */
export declare function tensor(data: Float32Array | number[], shape?: number[]): Tensor;

/**
 * A quantized tensor living in wasm memory, of dtype D. Make one with
 * quantizePerTensor, quantizePerChannel or make*QuantizedTensor; free it with
 * dispose(). A FinalizationRegistry frees forgotten tensors eventually, but do
 * not rely on it. Every method of a disposed tensor throws.
 */
export declare class QTensor<D extends QDType = QDType> {
  private constructor();
  /** Dimensions, PyTorch order (frozen). */
  readonly shape: readonly number[];
  readonly dtype: D;
  /** True after dispose(). */
  readonly disposed: boolean;
  /** Number of elements. */
  numel(): number;
  qscheme(): TensorQScheme;
  /** Per-tensor scale (PyTorch keeps it as a double). @throws Error on per-channel tensors. */
  qScale(): number;
  /** Per-tensor zero point. @throws Error on per-channel tensors. */
  qZeroPoint(): number;
  /** The quantized dimension. @throws Error on per-tensor tensors. */
  qPerChannelAxis(): number;
  /** Per-channel scales: Float64Array (float32 values in a Float32Array for float qparams). A copy. */
  qPerChannelScales(): Float64Array | Float32Array;
  /** Per-channel zero points: Int32Array (Float32Array for float qparams). A copy. */
  qPerChannelZeroPoints(): Int32Array | Float32Array;
  /**
   * The stored integers, a JS-owned copy: Uint8Array (quint8), Int8Array (qint8),
   * Int32Array (qint32), or for quint4x2 the packed bytes (ceil(numel / 2);
   * element i in byte i >> 1, low nibble first).
   */
  intRepr(): IntArrayOf[D];
  /**
   * Back to float32 with PyTorch's formula for the scheme. The result is
   * JS-owned: a new Float32Array, or `out` when given (like PyTorch's out=:
   * numel() elements; saves allocating a fresh array for large tensors).
   */
  dequantize(out?: Float32Array): Tensor;
  /**
   * torch.Tensor.view: the same integers (shared storage) with another shape of
   * the same element count; one entry may be -1. Per channel, the channel
   * dimension must stay one dimension of the new shape. The view is a QTensor
   * of its own: dispose() it (the integers live until every view is disposed).
   */
  view(shape: number[]): QTensor<D>;
  /**
   * tensor.stride(): the strides PyTorch's tensor would have, in elements.
   * qwasm stores every tensor in logical order; the strides record the
   * layout PyTorch would hold it in (quantized convolutions return
   * channels-last tensors), because some PyTorch kernels round differently
   * by layout and qwasm follows them. A view takes PyTorch's view strides
   * where PyTorch could make the view, a contiguous copy's otherwise.
   */
  stride(): number[];
  /** tensor.is_contiguous(memory_format); false for a format of another rank. */
  isContiguous(memoryFormat?: MemoryFormat): boolean;
  /**
   * tensor.contiguous(memory_format=...): the same integers and qparams (shared
   * storage) with that format's strides, so that later ops compute what
   * PyTorch's would on such a tensor. channels_last needs rank 4,
   * channels_last_3d rank 5. A new QTensor: dispose() it.
   */
  contiguous(options?: { memoryFormat?: MemoryFormat }): QTensor<D>;
  /**
   * Frees the wasm memory. Idempotent. (Where the runtime has
   * Symbol.dispose, `using q = ...` calls it too; not declared here so that
   * these types compile without the esnext.disposable lib.)
   */
  dispose(): void;
}

/**
 * torch.quantize_per_tensor: q = clamp(round_half_even(x * (1 / scale)) + zeroPoint, qmin, qmax).
 * @param x float tensor (copied into wasm memory once)
 * @param scale > 0 and finite (PyTorch accepts <= 0; qwasm refuses it)
 * @param zeroPoint an integer in the dtype's range
 * @returns a new QTensor; the caller owns it and must dispose() it.
 */
export declare function quantizePerTensor<D extends QDType>(
  x: Tensor,
  scale: number,
  zeroPoint: number,
  dtype: D,
): QTensor<D>;

/**
 * torch.quantize_per_channel. Channel c of dimension `axis` uses scales[c] and
 * zeroPoints[c]. Integer zero points give per_channel_affine (quint8, qint8,
 * qint32); a Float32Array of zero points gives per_channel_affine_float_qparams
 * (also quint4x2), where q = clamp(round(x * (1 / scale) + zeroPoint)).
 * @param scales shape[axis] positive finite numbers
 * @param zeroPoints shape[axis] values: integers in range, or a Float32Array
 * @param axis 0 <= axis < rank (negative axes are an error, as in PyTorch)
 * @returns a new QTensor; the caller owns it and must dispose() it.
 */
export declare function quantizePerChannel<D extends QDType>(
  x: Tensor,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype: D,
): QTensor<D>;

/**
 * torch._make_per_tensor_quantized_tensor: wraps integers quantized elsewhere.
 * The dtype follows the array type unless given (quint4x2 must be given, with
 * packed bytes); the array type must be the dtype's.
 * @returns a new QTensor holding a copy of the data; dispose() it.
 */
export declare function makePerTensorQuantizedTensor<D extends QDType>(
  intTensor: IntTensor<D>,
  scale: number,
  zeroPoint: number,
  dtype: D,
): QTensor<D>;
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'quint8'>,
  scale: number,
  zeroPoint: number,
): QTensor<'quint8'>;
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'qint8'>,
  scale: number,
  zeroPoint: number,
): QTensor<'qint8'>;
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'qint32'>,
  scale: number,
  zeroPoint: number,
): QTensor<'qint32'>;

/** torch._make_per_channel_quantized_tensor: as makePerTensorQuantizedTensor, per channel. */
export declare function makePerChannelQuantizedTensor<D extends QDType>(
  intTensor: IntTensor<D>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype: D,
): QTensor<D>;
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'quint8'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'quint8'>;
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'qint8'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'qint8'>;
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'qint32'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'qint32'>;

/** torch.dequantize(q): the same as q.dequantize(). */
export declare function dequantize(q: QTensor): Tensor;

/**
 * Runs fn and disposes every QTensor made while it ran, except the QTensors it
 * returns (directly, or in a returned array or plain object). fn must be
 * synchronous. A model's forward() makes one QTensor per layer: tidy frees the
 * intermediate ones.
 */
export declare function tidy<T>(fn: () => T): T;

/** Chooses the kernels: 'auto' (default: the fastest available), 'scalar' or 'wasmsimd'. */
export declare function setKernelIsa(name: 'auto' | 'scalar' | 'wasmsimd'): void;

/** The kernel family in use. */
export declare function kernelIsa(): 'scalar' | 'wasmsimd';

/** Bytes of wasm heap allocated right now (leak checks). */
export declare function heapInUse(): number;

/** Options shared by the observers (PyTorch's names in camelCase, same defaults). */
export interface ObserverOptions {
  /** Default 'quint8'. */
  dtype?: QDType;
  /** Default 'per_tensor_affine' (per-channel observers: 'per_channel_affine'). */
  qscheme?: ObserverQScheme;
  /** Halve the range (quint8 0..127, qint8 -64..63). Default false. */
  reduceRange?: boolean;
  /** Custom range; give both or neither. Must include 0. */
  quantMin?: number;
  quantMax?: number;
  /** Smallest scale. Default 2^-23 (float32 epsilon), kept as float32. */
  eps?: number;
}

export interface PerChannelObserverOptions extends ObserverOptions {
  /** The channel dimension; negative counts from the end, as in PyTorch. Default 0. */
  chAxis?: number;
}

export interface HistogramObserverOptions extends ObserverOptions {
  /** Number of histogram bins, 1..2^24. Default 2048. */
  bins?: number;
}

export interface MovingAverageOptions {
  /** c in min += c * (batch_min - min). Default 0.01. */
  averagingConstant?: number;
}

/**
 * What every observer has (PyTorch's ObserverBase). Not exported: the
 * observers below are the classes; `Observer` names any of them.
 */
declare abstract class ObserverBase<Q> {
  /**
   * PyTorch's with_args: a factory that makes this observer with these
   * options each time it is called (for QConfig). The options are checked now.
   */
  static withArgs<T>(
    this: new (
      options?: never,
    ) => T,
    options?: HistogramObserverOptions & PerChannelObserverOptions & MovingAverageOptions,
  ): () => T;
  readonly dtype: QDType;
  readonly qscheme: ObserverQScheme;
  readonly reduceRange: boolean;
  /** The effective range after reduceRange. */
  readonly quantMin: number;
  readonly quantMax: number;
  /** True when quantMin / quantMax were given. */
  readonly hasCustomizedQRange: boolean;
  readonly eps: number;
  /**
   * Records the range of x and returns x (PyTorch's forward()). Empty tensors
   * are ignored. @throws RangeError on NaN or +-Infinity (PyTorch would carry
   * them into the scale).
   */
  observe(x: Tensor): Tensor;
  /** PyTorch's _calculate_qparams on what was observed. Fresh arrays; yours. */
  calculateQParams(): Q;
  /** Forgets what was observed. */
  reset(): void;
  /** PyTorch's name for reset(). */
  resetMinMaxVals(): void;
}

/** Per tensor: numbers. */
export interface QParams {
  scale: number;
  zeroPoint: number;
}

/** Per channel: one entry per channel; zeroPoint is a Float32Array for float qparams. */
export interface PerChannelQParams {
  scale: Float32Array;
  zeroPoint: Int32Array | Float32Array;
}

/** PyTorch's torch.ao.quantization namespace (the observers). */
export declare namespace quantization {
  /** Running min/max of everything observed (torch.ao.quantization.MinMaxObserver). */
  class MinMaxObserver extends ObserverBase<QParams> {
    #private;
    constructor(options?: ObserverOptions);
    /** Infinity before the first observe(). */
    readonly minVal: number;
    readonly maxVal: number;
  }

  /** Moving-average min/max (torch.ao.quantization.MovingAverageMinMaxObserver). */
  class MovingAverageMinMaxObserver extends ObserverBase<QParams> {
    #private;
    constructor(options?: ObserverOptions & MovingAverageOptions);
    readonly averagingConstant: number;
    readonly minVal: number;
    readonly maxVal: number;
  }

  /** Per-channel min/max along chAxis (torch.ao.quantization.PerChannelMinMaxObserver). */
  class PerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    constructor(options?: PerChannelObserverOptions);
    readonly chAxis: number;
    /** A copy; empty before the first observe(). */
    readonly minVal: Float32Array;
    readonly maxVal: Float32Array;
  }

  /** torch.ao.quantization.MovingAveragePerChannelMinMaxObserver. */
  class MovingAveragePerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    constructor(options?: PerChannelObserverOptions & MovingAverageOptions);
    readonly chAxis: number;
    readonly averagingConstant: number;
    readonly minVal: Float32Array;
    readonly maxVal: Float32Array;
  }

  /**
   * torch.ao.quantization.HistogramObserver, PyTorch's default activation
   * observer: a running histogram (re-binned as the range grows) and an
   * L2-minimising search for the range to quantize, bit for bit PyTorch's.
   * Per tensor only. Infinite values are left out, as PyTorch does.
   */
  class HistogramObserver extends ObserverBase<QParams> {
    #private;
    constructor(options?: HistogramObserverOptions);
    /** Default 2048. */
    readonly bins: number;
    /** Infinity before the first observe(). */
    readonly minVal: number;
    readonly maxVal: number;
    /** The running histogram over [minVal, maxVal]: a copy, bins values. */
    readonly histogram: Float32Array;
  }

  /** QConfig({activation, weight}): the observer factories prepare() and convert() use. */
  class QConfig {
    #private;
    constructor(options: { activation: () => Observer; weight: () => Observer });
    readonly activation: () => Observer;
    readonly weight: () => Observer;
  }

  /**
   * torch.ao.quantization.get_default_qconfig, PyTorch 2.15's definitions:
   * HistogramObserver activations (reduceRange on 'x86' and 'fbgemm'), and
   * per-channel symmetric qint8 weights (per-tensor for 'qnnpack').
   */
  function getDefaultQConfig(backend?: 'x86' | 'fbgemm' | 'qnnpack' | 'onednn'): QConfig;

  /**
   * torch.backends.quantized.engine = name: the engine quantized layers are
   * packed for from now on ('x86', the default as in PyTorch on x86 CPUs, or
   * 'fbgemm'). Under 'x86' a convolution with symmetric weights and groups
   * <= 100 gives the numbers PyTorch's oneDNN path gives on a CPU with
   * AVX-512 VNNI; everything else FBGEMM's. @throws TypeError for another name.
   */
  function setEngine(name: QuantizedEngine): void;
  /** torch.backends.quantized.engine. */
  function getEngine(): QuantizedEngine;
  /** The engines qwasm reproduces. */
  const supportedEngines: readonly QuantizedEngine[];
  /**
   * The Winograd option of every quantized convolution built from now on
   * (constructor, fromFloat, convert, io.loadModel) whose options do not
   * name one. Default 'auto'.
   */
  function setWinograd(mode: WinogradOption): void;
  /** The default setWinograd set. */
  function getWinograd(): WinogradOption;

  /** Marks where the quantized region starts: the identity until convert() makes it a nn.quantized.Quantize. */
  class QuantStub extends nn.Module {
    #private;
    forward<T>(x: T): T;
  }
  /** Marks where the quantized region ends: the identity until convert() makes it a nn.quantized.DeQuantize. */
  class DeQuantStub extends nn.Module {
    #private;
    forward<T>(x: T): T;
  }

  /**
   * torch.ao.quantization.fuse_modules: fuses each group of module paths
   * (['conv', 'bn', 'relu'], or a list of groups) in place and returns the
   * model. Conv + BatchNorm (+ ReLU) needs eval mode and folds the BatchNorm
   * into the weights bit for bit as PyTorch does; Conv + ReLU and Linear +
   * ReLU make the nn.intrinsic modules; the other slots become nn.Identity.
   * Always in place (a JavaScript module cannot be deep-copied).
   */
  function fuseModules<M extends nn.Module>(
    model: M,
    modulesToFuse: string[] | string[][],
    options?: { inplace?: true },
  ): M;

  /**
   * torch.ao.quantization.prepare: in place, propagates each module's
   * `qconfig` to its children and attaches observers where PyTorch does (a
   * QuantStub's output, each Conv / Linear and fused ConvReLU / LinearReLU
   * output, each FloatFunctional's result). Run calibration data through
   * model.forward(x), then convert(model). Unfused BatchNorm under a qconfig
   * is an Error (fuse it first: fuseModules); so is a model with nothing to
   * observe.
   */
  function prepare<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /**
   * torch.ao.quantization.convert: in place, swaps each observed module for its
   * quantized twin (QuantStub -> nn.quantized.Quantize, DeQuantStub ->
   * nn.quantized.DeQuantize, Conv3d -> nn.quantized.Conv3d, ConvReLU3d ->
   * nn.intrinsic.quantized.ConvReLU3d, FloatFunctional -> QFunctional, ...)
   * with the qparams its observers calibrated, and disposes the float modules
   * it replaced. Error when the model was not prepared.
   */
  function convert<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /** Any observer. */
  type Observer =
    | MinMaxObserver
    | MovingAverageMinMaxObserver
    | PerChannelMinMaxObserver
    | MovingAveragePerChannelMinMaxObserver
    | HistogramObserver;
}

// The observers at the top level too (the same classes).
export import MinMaxObserver = quantization.MinMaxObserver;
export import MovingAverageMinMaxObserver = quantization.MovingAverageMinMaxObserver;
export import PerChannelMinMaxObserver = quantization.PerChannelMinMaxObserver;
export import MovingAveragePerChannelMinMaxObserver = quantization.MovingAveragePerChannelMinMaxObserver;
export import HistogramObserver = quantization.HistogramObserver;

/** Padding as PyTorch takes it: one int, one per spatial dimension, 'same' (stride 1 only) or 'valid'. */
export type Padding = number | number[] | 'same' | 'valid';

/** Constructor options of the convolution modules (PyTorch's keyword arguments). */
export interface ConvOptions {
  /** Default 1. */
  stride?: number | number[];
  /** Default 0. 'same' pads d * (k - 1) in total, the odd one at the end. */
  padding?: Padding;
  /** Default 1. */
  dilation?: number | number[];
  /** Default 1; must divide both channel counts. groups == in == out is depthwise. */
  groups?: number;
  /** Default true. */
  bias?: boolean;
  /** Only 'zeros' (the default) is supported. */
  paddingMode?: 'zeros';
}

/**
 * The exact integer Winograd option of the quantized convolutions: 'auto'
 * (the default: transformed weights packed, and used, where it pays), true
 * (wherever the shape allows: stride 1, dilation 1, groups 1, each kernel
 * extent 3 or 1) or false (never). The output bytes are the same either way.
 */
export type WinogradOption = 'auto' | boolean;

/** Constructor options of the quantized convolutions. */
export interface QuantizedConvOptions extends ConvOptions {
  /** Default 'auto'. */
  winograd?: WinogradOption;
}

/** Constructor options of the linear modules. */
export interface LinearOptions {
  /** Default true. */
  bias?: boolean;
}

/**
 * nn.Parameter: a float tensor a module owns. In-place edits of `data` take
 * effect in the module's next forward() and in fromFloat(); assigning `data`
 * copies the new values (a Float32Array of the same length). `shape` is frozen.
 */
export interface Parameter {
  data: Float32Array;
  readonly shape: readonly number[];
}

/** What the float conv / linear modules share (not exported: use nn.Conv3d etc.). */
declare abstract class FloatModule extends nn.Module {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly groups: number;
  /** PyTorch's weight shape, e.g. [out, in / groups, kD, kH, kW] for Conv3d. Assigning a tensor copies it. */
  get weight(): Parameter;
  set weight(w: Tensor | Parameter);
  /** [outChannels], or null without bias. Assigning a tensor copies it. */
  get bias(): Parameter | null;
  set bias(b: Tensor | Parameter | null);
  /** y = conv(x) + bias; a new JS-owned tensor. */
  forward(x: Tensor): Tensor;
  /** Scratch bytes of the last forward() beyond input, output and weights. */
  lastScratchBytes(): number;
  /** Frees the packed copy of the weights. */
  dispose(): void;
}

/** A float convolution's geometry; K is one number per spatial dimension. */
declare abstract class FloatConv<K extends number[]> extends FloatModule {
  /** PyTorch's tuples (Conv1d: [k]): fresh arrays. */
  readonly kernelSize: K;
  readonly stride: K;
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
}

/** What the quantized modules share (not exported: use nn.quantized.Conv3d etc.). */
declare abstract class QuantizedModule extends nn.Module {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly groups: number;
  /** Output scale (> 0). Default 1. */
  scale: number;
  /** Output zero point, 0..255. Default 0. */
  zeroPoint: number;
  readonly disposed: boolean;
  /**
   * Whose arithmetic the layer reproduces, fixed when its weights are set
   * (constructor, setWeightBias, fromFloat) under the engine in force then
   * (quantization.setEngine): 'onednn' for a convolution under 'x86' with
   * symmetric weights and groups <= 100 (PyTorch's routing), else 'fbgemm'.
   */
  readonly backend: 'onednn' | 'fbgemm';
  /**
   * PyTorch set_weight_bias: qint8 weight of the module's weight shape, per
   * tensor or per channel on axis 0, and a float bias (or null). Both are
   * copied (the weight into the kernel's packed layout): the caller still
   * owns and disposes `weight`.
   */
  setWeightBias(weight: QTensor<'qint8'>, bias: Float32Array | Tensor | null): void;
  /**
   * The quantized weight: a new QTensor with the module's integers and qparams
   * (rebuilt from the packed weights); the caller disposes it.
   */
  weight(): QTensor<'qint8'>;
  /** A copy of the bias, or null. */
  bias(): Float32Array | null;
  /**
   * x: quint8 per_tensor_affine QTensor (Conv3d: [N, C, D, H, W]; Conv2d:
   * [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures]).
   * @returns a new quint8 QTensor with the module's scale and zero point; the caller owns it.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  /** Bytes of the packed weights in wasm memory. */
  packedWeightBytes(): number;
  /** Scratch bytes of the last forward() beyond input, output and packed weights. */
  lastScratchBytes(): number;
  /** Frees the packed weights. Idempotent; forward() then throws. */
  dispose(): void;
}

/** A quantized convolution's geometry; K is one number per spatial dimension. */
declare abstract class QuantizedConv<K extends number[]> extends QuantizedModule {
  /** PyTorch's tuples (Conv1d: [k]): fresh arrays. */
  readonly kernelSize: K;
  readonly stride: K;
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
  /** The Winograd option the module was built with. */
  readonly winograd: WinogradOption;
  /** Bytes of the Winograd-transformed weights among packedWeightBytes() (0 when none are held). */
  winogradWeightBytes(): number;
  /**
   * The arithmetic the last forward() ran: 'winograd' or 'direct' ('' before
   * the first). A layer holding Winograd weights still runs direct when the
   * input's zero point could overflow the transform's accumulators, or (auto)
   * when the output is too small to pay.
   */
  lastPath(): 'winograd' | 'direct' | '';
  /** The GEMM or conv micro-kernel the last forward() ran (a registry name), or ''. */
  lastKernel(): string;
}

/** The weight observer fromFloat may use: a qint8 observer (checked when called). */
export type WeightObserver = quantization.Observer;

/**
 * Options of fromFloat (PyTorch from_float): the output qparams come from
 * an activation observer or are given, never both.
 */
export type FromFloatOptions = {
  /** Quantizes the weight; must be qint8. Default PerChannelMinMaxObserver(qint8, per_channel_symmetric, chAxis 0). */
  weightObserver?: WeightObserver;
  /** Convolutions only: the quantized module's Winograd option (default 'auto'). */
  winograd?: WinogradOption;
} & (
  | {
      /** A per-tensor observer that saw the float module's outputs during calibration. */
      activationObserver:
        | quantization.MinMaxObserver
        | quantization.MovingAverageMinMaxObserver
        | quantization.HistogramObserver;
      outputScale?: undefined;
      outputZeroPoint?: undefined;
    }
  | {
      /** The output qparams, directly. */
      outputScale: number;
      outputZeroPoint: number;
      activationObserver?: undefined;
    }
);

/** A fused float module: the module then ReLU (not exported: use nn.intrinsic.ConvReLU3d etc.). */
declare abstract class FusedModule<M extends FloatModule> extends nn.Module {
  /** The wrapped modules (PyTorch: self[0], self[1]). */
  readonly 0: M;
  readonly 1: nn.ReLU;
  /** relu(module(x)); a new JS-owned tensor. */
  forward(x: Tensor): Tensor;
  /** Disposes the wrapped module. */
  dispose(): void;
}

type K1 = [number];
type K2 = [number, number];
type K3 = [number, number, number];

/** PyTorch's module namespaces: torch.nn, nn.intrinsic, nn.quantized, nn.intrinsic.quantized. */
/** Options of nn.BatchNorm1d/2d/3d (PyTorch's names and defaults). */
export interface BatchNormOptions {
  /** Default 1e-5. */
  eps?: number;
  /** Default 0.1 (kept for PyTorch compatibility; qwasm does not train). */
  momentum?: number;
  /** Default true: learnable weight and bias. */
  affine?: boolean;
  /** Only true (the default): normalization uses the running statistics. */
  trackRunningStats?: true;
}

declare abstract class BatchNormModule extends nn.Module {
  readonly numFeatures: number;
  readonly eps: number;
  readonly momentum: number;
  readonly affine: boolean;
  /** [numFeatures], or null without affine. Assigning a tensor copies it. */
  get weight(): Parameter | null;
  set weight(w: Tensor | Parameter);
  get bias(): Parameter | null;
  set bias(b: Tensor | Parameter);
  get runningMean(): Parameter;
  set runningMean(v: Tensor | Parameter);
  get runningVar(): Parameter;
  set runningVar(v: Tensor | Parameter);
  /** Eval mode only: (x - runningMean) / sqrt(runningVar + eps) * weight + bias per channel. */
  forward(x: Tensor): Tensor;
}

/** Options of nn.MaxPool1d/2d/3d (PyTorch's keyword arguments). */
export interface MaxPoolOptions {
  /** Default kernelSize. */
  stride?: number | number[] | null;
  /** Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Default 1. */
  dilation?: number | number[];
  /** Default false. */
  ceilMode?: boolean;
  /** Only false (the default). */
  returnIndices?: false;
}

/** Options of nn.AvgPool1d/2d/3d. */
export interface AvgPoolOptions {
  /** Default kernelSize. */
  stride?: number | number[] | null;
  /** Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Default false. */
  ceilMode?: boolean;
  /** Default true: padding counts in the divisor. */
  countIncludePad?: boolean;
  /** 2d and 3d: divide by this instead (non-zero). */
  divisorOverride?: number | null;
}

/**
 * What the pooling modules share. On a float tensor they compute in float;
 * on a quint8 QTensor they run PyTorch's quantized kernel, whose formula
 * depends on the input's layout (QTensor.stride()): PyTorch's integers, the
 * input's qparams kept.
 */
declare abstract class Pool extends nn.Module {
  forward(x: Tensor): Tensor;
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}
declare abstract class MaxPool extends Pool {
  readonly kernelSize: number[];
  readonly stride: number[];
  readonly padding: number[];
  readonly ceilMode: boolean;
}
declare abstract class AvgPool extends MaxPool {}
declare abstract class AdaptivePool extends nn.Module {
  /** null entries keep the input's size. */
  readonly outputSize: (number | null)[];
}
declare abstract class AdaptiveAvgPool extends AdaptivePool {
  forward(x: Tensor): Tensor;
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}

export declare namespace nn {
  /**
   * torch.nn.Module: subclass it, assign child modules as properties in the
   * constructor (in the order PyTorch would register them), write forward().
   * A module's children are its own enumerable properties holding modules.
   */
  class Module {
    /** True in training mode (the default), false after eval(). */
    readonly training: boolean;
    /** Set before quantization.prepare(): this module's QConfig (inherited by its children); null leaves it float. */
    qconfig?: quantization.QConfig | null;
    /** Training mode on this module and every descendant. */
    train(mode?: boolean): this;
    /** train(false). */
    eval(): this;
    /** [name, module] of each direct child, in assignment order. */
    namedChildren(): [string, Module][];
    children(): Module[];
    /** [path, module] for this module ('') and every descendant, depth first ('layer1.0.conv'). */
    namedModules(prefix?: string): [string, Module][];
    modules(): Module[];
    /** The descendant at a dotted path. @throws Error naming the missing part. */
    getSubmodule(target: string): Module;
    /** fn on every descendant, then this module. */
    apply(fn: (m: Module) => void): this;
    /** The computation (subclasses define it). */
    forward(x: unknown): unknown;
    /** Frees the wasm memory of every descendant (packed weights). Idempotent. */
    dispose(): void;
  }

  /** torch.nn.Sequential: the modules run in order; children '0', '1', ... or the given names. */
  class Sequential extends Module {
    #private;
    constructor(...modules: Module[]);
    constructor(modules: Record<string, Module> | Map<string, Module>);
    readonly length: number;
    readonly [index: number]: Module;
    forward(x: unknown): unknown;
  }

  /** torch.nn.Identity: returns its input. */
  class Identity extends Module {
    #private;
    forward<T>(x: T): T;
  }

  /** torch.nn.Flatten(startDim = 1, endDim = -1): a float tensor shares its data; a QTensor gives a view (dispose it). */
  class Flatten extends Module {
    #private;
    constructor(startDim?: number, endDim?: number);
    readonly startDim: number;
    readonly endDim: number;
    forward(x: Tensor): Tensor;
    forward<D extends QDType>(x: QTensor<D>): QTensor<D>;
  }

  /** torch.nn.Dropout(p = 0.5): the identity in eval mode; in training mode (float tensors) drops with probability p. */
  class Dropout extends Module {
    #private;
    constructor(p?: number, options?: { inplace?: boolean });
    readonly p: number;
    forward<T extends Tensor | QTensor>(x: T): T;
  }

  /** torch.nn.BatchNorm1d ([N, C] or [N, C, L]), eval mode. */
  class BatchNorm1d extends BatchNormModule {
    #private;
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** torch.nn.BatchNorm2d ([N, C, H, W]), eval mode. */
  class BatchNorm2d extends BatchNormModule {
    #private;
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** torch.nn.BatchNorm3d ([N, C, D, H, W]), eval mode. */
  class BatchNorm3d extends BatchNormModule {
    #private;
    constructor(numFeatures: number, options?: BatchNormOptions);
  }

  /** torch.nn.Conv1d (float32, WASM SIMD). */
  class Conv1d extends FloatConv<K1> {
    #private;
    constructor(inChannels: number, outChannels: number, kernelSize: number | K1, options?: ConvOptions);
  }
  /** torch.nn.Conv2d (float32, WASM SIMD). */
  class Conv2d extends FloatConv<K2> {
    #private;
    constructor(inChannels: number, outChannels: number, kernelSize: number | K2, options?: ConvOptions);
  }
  /** torch.nn.Conv3d (float32, WASM SIMD). */
  class Conv3d extends FloatConv<K3> {
    #private;
    constructor(inChannels: number, outChannels: number, kernelSize: number | K3, options?: ConvOptions);
  }
  /** torch.nn.Linear (float32, WASM SIMD): y = x W^T + b over the last dimension. */
  class Linear extends FloatModule {
    #private;
    constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
    readonly inFeatures: number;
    readonly outFeatures: number;
  }
  /** torch.nn.ReLU. */
  class ReLU extends Module {
    #private;
    forward(x: Tensor): Tensor;
    /** max(q, zeroPoint): PyTorch's quantized relu; the qparams stay. */
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /**
   * torch.nn.ReLU6: clamp to [0, 6]. On a quint8 QTensor the bounds are
   * quantized with its qparams, which stay (prepare() attaches no observer:
   * PyTorch attaches one, but its quantized ReLU6 ignores it).
   */
  class ReLU6 extends Hardtanh {
    constructor(options?: { inplace?: boolean });
  }
  /** torch.nn.Hardtanh(minVal = -1, maxVal = 1): clamp; on a quint8 QTensor with its own qparams. */
  class Hardtanh extends Module {
    #private;
    constructor(minVal?: number, maxVal?: number, options?: { inplace?: boolean });
    readonly minVal: number;
    readonly maxVal: number;
    forward(x: Tensor): Tensor;
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /** torch.nn.MaxPool1d ([N, C, L] or [C, L]). */
  class MaxPool1d extends MaxPool {
    constructor(kernelSize: number | [number], options?: MaxPoolOptions);
  }
  /** torch.nn.MaxPool2d ([N, C, H, W] or [C, H, W]). */
  class MaxPool2d extends MaxPool {
    constructor(kernelSize: number | [number, number], options?: MaxPoolOptions);
  }
  /** torch.nn.MaxPool3d ([N, C, D, H, W]; float also [C, D, H, W]). */
  class MaxPool3d extends MaxPool {
    constructor(kernelSize: number | [number, number, number], options?: MaxPoolOptions);
  }
  /** torch.nn.AvgPool1d ([N, C, L] or [C, L]). */
  class AvgPool1d extends AvgPool {
    constructor(kernelSize: number | [number], options?: Omit<AvgPoolOptions, 'divisorOverride'>);
  }
  /** torch.nn.AvgPool2d ([N, C, H, W] or [C, H, W]). */
  class AvgPool2d extends AvgPool {
    constructor(kernelSize: number | [number, number], options?: AvgPoolOptions);
  }
  /** torch.nn.AvgPool3d ([N, C, D, H, W]; float also [C, D, H, W]). */
  class AvgPool3d extends AvgPool {
    constructor(kernelSize: number | [number, number, number], options?: AvgPoolOptions);
  }
  /** torch.nn.AdaptiveAvgPool1d(outputSize). */
  class AdaptiveAvgPool1d extends AdaptiveAvgPool {
    constructor(outputSize: number | [number | null]);
  }
  /** torch.nn.AdaptiveAvgPool2d(outputSize); null keeps that input size. */
  class AdaptiveAvgPool2d extends AdaptiveAvgPool {
    constructor(outputSize: number | [number | null, number | null]);
  }
  /** torch.nn.AdaptiveAvgPool3d(outputSize); null keeps that input size. */
  class AdaptiveAvgPool3d extends AdaptiveAvgPool {
    constructor(outputSize: number | [number | null, number | null, number | null]);
  }
  /** torch.nn.AdaptiveMaxPool1d: float tensors only (PyTorch has no quantized kernel; a QTensor is a TypeError). */
  class AdaptiveMaxPool1d extends AdaptivePool {
    constructor(outputSize: number | [number | null]);
    forward(x: Tensor): Tensor;
  }
  /** torch.nn.AdaptiveMaxPool2d: float tensors only. */
  class AdaptiveMaxPool2d extends AdaptivePool {
    constructor(outputSize: number | [number | null, number | null]);
    forward(x: Tensor): Tensor;
  }
  /** torch.nn.AdaptiveMaxPool3d: float tensors only. */
  class AdaptiveMaxPool3d extends AdaptivePool {
    constructor(outputSize: number | [number | null, number | null, number | null]);
    forward(x: Tensor): Tensor;
  }

  /** torch.ao.nn.intrinsic: fused float modules (the module then ReLU, in one kernel pass). */
  namespace intrinsic {
    class ConvReLU1d extends FusedModule<nn.Conv1d> {
      #private;
      constructor(conv: nn.Conv1d, relu?: nn.ReLU);
    }
    class ConvReLU2d extends FusedModule<nn.Conv2d> {
      #private;
      constructor(conv: nn.Conv2d, relu?: nn.ReLU);
    }
    class ConvReLU3d extends FusedModule<nn.Conv3d> {
      #private;
      constructor(conv: nn.Conv3d, relu?: nn.ReLU);
    }
    class LinearReLU extends FusedModule<nn.Linear> {
      #private;
      constructor(linear: nn.Linear, relu?: nn.ReLU);
    }

    /** torch.ao.nn.intrinsic.quantized: quint8 in, qint8 weights packed once, ReLU fused, quint8 out. */
    namespace quantized {
      class ConvReLU1d extends QuantizedConv<K1> {
        #private;
        constructor(inChannels: number, outChannels: number, kernelSize: number | K1, options?: QuantizedConvOptions);
        /** PyTorch from_float: quantizes a calibrated nn.intrinsic.ConvReLU1d. */
        static fromFloat(mod: nn.intrinsic.ConvReLU1d, options: FromFloatOptions): ConvReLU1d;
      }
      class ConvReLU2d extends QuantizedConv<K2> {
        #private;
        constructor(inChannels: number, outChannels: number, kernelSize: number | K2, options?: QuantizedConvOptions);
        /** PyTorch from_float: quantizes a calibrated nn.intrinsic.ConvReLU2d. */
        static fromFloat(mod: nn.intrinsic.ConvReLU2d, options: FromFloatOptions): ConvReLU2d;
      }
      class ConvReLU3d extends QuantizedConv<K3> {
        #private;
        constructor(inChannels: number, outChannels: number, kernelSize: number | K3, options?: QuantizedConvOptions);
        /** PyTorch from_float: quantizes a calibrated nn.intrinsic.ConvReLU3d. */
        static fromFloat(mod: nn.intrinsic.ConvReLU3d, options: FromFloatOptions): ConvReLU3d;
      }
      class LinearReLU extends QuantizedModule {
        #private;
        constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
        readonly inFeatures: number;
        readonly outFeatures: number;
        /** PyTorch from_float: quantizes a calibrated nn.intrinsic.LinearReLU. */
        static fromFloat(mod: nn.intrinsic.LinearReLU, options: FromFloatOptions): LinearReLU;
      }
    }
  }

  /** torch.ao.nn.quantized: quint8 in, qint8 weights packed once, quint8 out. */
  namespace quantized {
    /**
     * PyTorch's quantized element-wise ops on quint8 per-tensor QTensors
     * (torch.ops.quantized.add etc.), with PyTorch's integers: the output of
     * add / mul / cat is requantized to (scale, zeroPoint); the others keep
     * or derive their qparams as PyTorch does. add and mul broadcast.
     */
    namespace functional {
      function add(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      function addRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      function mul(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      function mulRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** The same integers with the zero point shifted by round(c / scale) (requantized only if it leaves 0..255). */
      function addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** The same integers with the scale times |c| (c < 0 mirrors them; c = 0 gives zeros, scale 1). */
      function mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** Concatenation along dim, every input requantized to (scale, zeroPoint). */
      function cat(tensors: QTensor<'quint8'>[], dim: number, scale: number, zeroPoint: number): QTensor<'quint8'>;
      function relu(x: QTensor<'quint8'>): QTensor<'quint8'>;
      function relu6(x: QTensor<'quint8'>): QTensor<'quint8'>;
      function hardtanh(x: QTensor<'quint8'>, minVal?: number, maxVal?: number): QTensor<'quint8'>;
      /** Either bound may be undefined. */
      function clamp(x: QTensor<'quint8'>, min?: number, max?: number): QTensor<'quint8'>;
    }

    /**
     * torch.ao.nn.quantized.FloatFunctional: the float arithmetic a model's
     * forward() writes (skip connections, concatenations), as a module so
     * that prepare() can observe its results and convert() make it a
     * QFunctional. Float tensors broadcast.
     */
    class FloatFunctional extends Module {
      /** The observer prepare() installed (PyTorch's activation_post_process), or null. */
      activationPostProcess: quantization.Observer | null;
      add(x: Tensor, y: Tensor): Tensor;
      addRelu(x: Tensor, y: Tensor): Tensor;
      mul(x: Tensor, y: Tensor): Tensor;
      cat(tensors: Tensor[], dim?: number): Tensor;
      /** Not observed (as in PyTorch). */
      addScalar(x: Tensor, c: number): Tensor;
      mulScalar(x: Tensor, c: number): Tensor;
      /** @throws Error: use the methods. */
      forward(): never;
    }

    /** torch.ao.nn.quantized.QFunctional: FloatFunctional after convert(), with its observer's qparams. */
    class QFunctional extends Module {
      #private;
      scale: number;
      zeroPoint: number;
      add(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      addRelu(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      mul(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      cat(tensors: QTensor<'quint8'>[], dim?: number): QTensor<'quint8'>;
      addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** @throws Error: use the methods. */
      forward(): never;
      static fromFloat(mod: FloatFunctional): QFunctional;
    }

    /** nn.quantized.Quantize: forward(x) = quantizePerTensor(x, scale, zeroPoint, dtype). convert() makes it from a QuantStub. */
    class Quantize extends Module {
      #private;
      constructor(scale: number, zeroPoint: number, dtype?: QDType);
      readonly scale: number;
      readonly zeroPoint: number;
      readonly dtype: QDType;
      forward(x: Tensor): QTensor;
    }
    /** nn.quantized.DeQuantize: forward(q) = q.dequantize(). convert() makes it from a DeQuantStub. */
    class DeQuantize extends Module {
      #private;
      forward(q: QTensor): Tensor;
    }
    class Conv1d extends QuantizedConv<K1> {
      #private;
      constructor(inChannels: number, outChannels: number, kernelSize: number | K1, options?: QuantizedConvOptions);
      /** PyTorch from_float: quantizes a calibrated nn.Conv1d. */
      static fromFloat(mod: nn.Conv1d, options: FromFloatOptions): Conv1d;
    }
    class Conv2d extends QuantizedConv<K2> {
      #private;
      constructor(inChannels: number, outChannels: number, kernelSize: number | K2, options?: QuantizedConvOptions);
      /** PyTorch from_float: quantizes a calibrated nn.Conv2d. */
      static fromFloat(mod: nn.Conv2d, options: FromFloatOptions): Conv2d;
    }
    class Conv3d extends QuantizedConv<K3> {
      #private;
      constructor(inChannels: number, outChannels: number, kernelSize: number | K3, options?: QuantizedConvOptions);
      /** PyTorch from_float: quantizes a calibrated nn.Conv3d. */
      static fromFloat(mod: nn.Conv3d, options: FromFloatOptions): Conv3d;
    }
    class Linear extends QuantizedModule {
      #private;
      constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
      readonly inFeatures: number;
      readonly outFeatures: number;
      /** PyTorch from_float: quantizes a calibrated nn.Linear. */
      static fromFloat(mod: nn.Linear, options: FromFloatOptions): Linear;
    }
  }
}

/** A .npy tensor as read by io.loadNpy. */
export interface NpyTensor extends Tensor {
  /** The file's dtype; data is always converted to float32. */
  dtype: 'float32' | 'float64' | 'float16';
}

/** What io.loadSafetensors returns. */
export interface SafetensorsFile {
  /** Every tensor in the file, in header order. */
  tensors: { name: string; dtype: string; shape: number[] }[];
  /** The header's __metadata__ (or {}). */
  metadata: Record<string, string>;
  /** Reads one float tensor (F32, F64, F16, BF16) as float32. @throws RangeError for an unknown name, Error for other dtypes. */
  get(name: string): Tensor;
}

/**
 * Readers for tensors and models exported from numpy / PyTorch. loadNpy and
 * loadSafetensors are pure JavaScript (usable before init()); the returned
 * data is JS-owned. Malformed files throw an Error that says what is wrong.
 */
export declare namespace io {
  /** .npy (versions 1-3), float32 / float64 / float16, C order, either byte order. */
  function loadNpy(bytes: ArrayBuffer | Uint8Array): NpyTensor;
  /** .safetensors. */
  function loadSafetensors(bytes: ArrayBuffer | Uint8Array): SafetensorsFile;
  /**
   * A model written by python/qwasm_export.py (a PyTorch model converted by
   * the eager flow, or a float one), built into qwasm modules. The file is
   * checked as untrusted input. Needs init(). The caller disposes the model.
   * @throws Error naming what is wrong with the file (format version, a
   * tensor's dtype or shape, a module's attributes, the graph), or the node
   * that would go over the budget on the input shape the file declares.
   */
  function loadModel(bytes: ArrayBuffer | Uint8Array, options?: LoadModelOptions & { worker?: false }): GraphModule;
  /**
   * The model loaded and run in a dedicated worker the library starts (a
   * module worker in browsers, worker_threads in Node.js), so the calling
   * thread never blocks on it. A URL is downloaded by the worker (a path is
   * read from disk in Node.js); a Response, stream or Blob is read here
   * without blocking and handed over; bytes are copied once. Threads run in
   * the worker where the page allows (cross-origin isolated; not in Firefox
   * workers). Every error, a bad option included, is a rejection.
   */
  function loadModel(
    source: ModelSource,
    options: LoadModelOptions & WorkerLoadOptions & { worker: true },
  ): Promise<WorkerModel>;
  /**
   * The model loaded on this thread without blocking on its download (for
   * code that runs in its own worker): building it then takes one task, as
   * loadModel does. Needs init().
   */
  function loadModelAsync(
    source: ModelSource,
    options?: LoadModelOptions & Pick<WorkerLoadOptions, 'onProgress'>,
  ): Promise<GraphModule>;

  /** Where a model's bytes come from: a URL (or a path in Node.js), a Response, a byte stream, a Blob or File, or the bytes. */
  type ModelSource = string | URL | Response | ReadableStream<Uint8Array> | Blob | ArrayBuffer | Uint8Array;

  interface WorkerLoadOptions {
    /** Follows the download: totalBytes is null when the source does not say (no Content-Length, a bare stream). */
    onProgress?: (loadedBytes: number, totalBytes: number | null) => void;
    /** The worker's init({ numThreads }). Default: init()'s default there. */
    numThreads?: number;
    /**
     * Where the model worker's script is (qwasm.model-worker.mjs; .cjs in
     * Node.js), for bundlers that do not emit it (esbuild, Rollup: copy
     * node_modules/qwasm/dist/ and point here); the worker finds its wasm
     * beside itself.
     */
    locateFile?: (file: string) => string | URL;
  }

  /** A forward's answer from a worker: a float tensor, or a quantized output's integers and qparams. */
  type WorkerOutput =
    | Tensor
    | { dtype: 'quint8' | 'qint8'; data: Uint8Array | Int8Array; shape: number[]; scale: number; zeroPoint: number };

  /** A module of a model in a worker, as read at load. */
  interface WorkerModule {
    readonly path: string;
    /** Its class name (ConvReLU3d, Quantize, Identity, ...). */
    readonly type: string;
    readonly backend?: 'fbgemm' | 'onednn';
    readonly scale?: number;
    readonly zeroPoint?: number;
    /** A quantized layer's weight: its qparams (scales and zero points per channel along axis, or one of each). */
    readonly weight?: {
      shape: number[];
      dtype: 'qint8';
      qscheme: string;
      axis: number | null;
      scales: number[];
      zeroPoints: number[];
    };
  }

  /**
   * A model loaded in a worker by io.loadModel(source, { worker: true }).
   * forward and profile return Promises; dispose() ends the worker (pending
   * requests reject).
   */
  class WorkerModel {
    #private;
    private constructor();
    readonly nodes: GraphNode[];
    readonly inputShape: number[] | null;
    readonly engine: QuantizedEngine;
    readonly modules: WorkerModule[];
    /** runtimeInfo() inside the worker. */
    readonly runtime: RuntimeInfo;
    weightBytes(): { packed: number; winograd: number };
    /**
     * x's buffer is transferred to the worker (detached here) unless
     * transfer is false (then copied once); a view into a larger buffer is
     * always copied.
     */
    forward(x: Tensor, options?: { transfer?: boolean }): Promise<WorkerOutput>;
    profile(
      x: Tensor,
      options?: { transfer?: boolean },
    ): Promise<{ output: WorkerOutput; layers: ReturnType<GraphModule['profile']>['layers']; peakHeapBytes: number }>;
    dispose(): void;
  }

  /** The budget of one forward of a loaded model; forward() checks each node against it before running it. */
  interface LoadModelOptions {
    /** Bytes of one node's output or scratch. Default 2^28 (256 MiB); Infinity for no limit. */
    maxActivationBytes?: number;
    /** Multiply-adds of one forward (a pool's window element counts 32). Default 5e11; Infinity for no limit. */
    maxWork?: number;
    /** Every quantized convolution's Winograd option. Default 'auto'. */
    winograd?: WinogradOption;
  }

  /** A graph argument: a reference to another node's output, a constant, or a list of those. */
  type NodeArgument = { readonly node: string } | number | boolean | string | null | readonly NodeArgument[];

  /** What a node produces; null where it is not known (before a run, or not a tensor's property). */
  interface NodeOutput {
    readonly dtype: 'quint8' | 'float32';
    readonly shape: readonly number[] | null;
    readonly scale: number | null;
    readonly zeroPoint: number | null;
  }

  /** One node of a loaded graph, as torch.fx has it (frozen). */
  interface GraphNode {
    readonly name: string;
    /** placeholder, call_module, call_function, call_method or output. */
    readonly op: string;
    /** The module path, function or method name; undefined for placeholder and output. */
    readonly target: string | undefined;
    readonly args: readonly NodeArgument[];
    readonly kwargs: { readonly [name: string]: NodeArgument };
    /** Its output on the input shape the file declares (null if the file declares none). */
    readonly output: NodeOutput | null;
  }

  /**
   * A loaded model (torch.fx's GraphModule): its modules at their PyTorch
   * paths (namedModules(), getSubmodule('layer1.0.conv1.0')), and the
   * exported graph, which forward() runs node by node. Intermediate
   * QTensors are disposed as soon as they are last used.
   */
  class GraphModule extends nn.Module {
    #private;
    private constructor();
    /** The shape of the example input the model was exported with (informative), or null. */
    readonly inputShape: number[] | null;
    /** The quantized engine the model was converted under in PyTorch ('fbgemm' for files of format version 1). */
    readonly engine: QuantizedEngine;
    /** The graph's nodes in execution order, with their arguments and (planned) outputs. */
    readonly nodes: GraphNode[];
    /**
     * The PyTorch model's forward: a float tensor in; out, a float tensor when
     * the model ends with a DeQuantStub (or a QTensor the caller disposes when
     * it does not).
     */
    forward(x: Tensor): Tensor | QTensor;
    /**
     * For pipelines: q enters where the QuantStub's output would, and the
     * result is the QTensor the final DeQuantStub would have read (the caller
     * disposes it). @throws Error if the input does not go through one QuantStub.
     */
    forwardQuantized(q: QTensor<'quint8'>): QTensor;
    /** Bytes of the quantized modules' packed weights in wasm memory, and the Winograd-transformed share of them. */
    weightBytes(): { packed: number; winograd: number };
    /**
     * forward(x), timed node by node. heapBytes: the wasm heap after the node
     * plus its convolution's scratch; peakHeapBytes: their maximum (one
     * forward's high-water mark); outputBytes: the size of the node's output.
     */
    profile(x: Tensor): {
      output: Tensor | QTensor;
      layers: {
        name: string;
        op: string;
        target: string | undefined;
        /** A quantized convolution's arithmetic in this run; null for other nodes. */
        path: 'winograd' | 'direct' | null;
        ms: number;
        heapBytes: number;
        outputBytes: number;
        /** What the node produced in this run (its qparams included). */
        output: NodeOutput | null;
      }[];
      peakHeapBytes: number;
    };
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above is public.
export {};
