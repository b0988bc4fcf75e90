// Type declarations for qwasm. Every function that owns or returns memory says
// who owns it: QTensor objects own wasm memory (free it with dispose()); every
// typed array returned to you is a JS-owned copy, never a view into wasm memory.

/** Quantized dtypes, PyTorch's names. quint4x2 packs two 4-bit values per byte. */
export type QDType = 'quint8' | 'qint8' | 'qint32' | 'quint4x2';

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
export interface IntTensor {
  /** Uint8Array (quint8, or packed quint4x2 bytes), Int8Array (qint8) or Int32Array (qint32). */
  data: Uint8Array | Int8Array | Int32Array;
  shape: number[];
}

export interface InitOptions {
  /** The wasm bytes, when you load them yourself (Node: defaults to reading dist/qwasm.node.wasm). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Browser: maps 'qwasm.web.wasm' to the URL to fetch it from. */
  locateFile?: (path: string, prefix: string) => string;
}

/**
 * Loads and instantiates the WebAssembly module. Every call returns the same
 * promise; a later call may omit the options, but passing different ones is an
 * Error (one module per page, worker or process). Every other function but
 * tensor() and io throws until it has resolved. A failed load can be retried.
 */
export declare function init(options?: InitOptions): Promise<void>;

/** True once init() has resolved. */
export declare function isInitialized(): boolean;

/**
 * Builds a float tensor, checking that `shape` (default `[data.length]`) holds
 * exactly `data.length` elements. Arrays of numbers are copied into a Float32Array;
 * a Float32Array is used as is (not copied).
 * @throws TypeError for wrong types, RangeError when shape and data disagree.
 */
export declare function tensor(data: Float32Array | number[], shape?: number[]): Tensor;

/**
 * A quantized tensor living in wasm memory. Make one with quantizePerTensor,
 * quantizePerChannel or make*QuantizedTensor; free it with dispose(). A FinalizationRegistry frees forgotten tensors eventually, but do
 * not rely on it. Every method of a disposed tensor throws.
 */
export declare class QTensor {
  private constructor();
  /** Dimensions, PyTorch order (frozen). */
  readonly shape: readonly number[];
  readonly dtype: QDType;
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
  intRepr(): Uint8Array | Int8Array | Int32Array;
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
  view(shape: number[]): QTensor;
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
export declare function quantizePerTensor(x: Tensor, scale: number, zeroPoint: number, dtype: QDType): QTensor;

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
export declare function quantizePerChannel(
  x: Tensor,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype: QDType,
): QTensor;

/**
 * torch._make_per_tensor_quantized_tensor: wraps integers quantized elsewhere.
 * The dtype follows the array type unless given (quint4x2 must be given, with packed bytes).
 * @returns a new QTensor holding a copy of the data; dispose() it.
 */
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor,
  scale: number,
  zeroPoint: number,
  dtype?: QDType,
): QTensor;

/** torch._make_per_channel_quantized_tensor: as makePerTensorQuantizedTensor, per channel. */
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype?: QDType,
): QTensor;

/** torch.dequantize(q): the same as q.dequantize(). */
export declare function dequantize(q: QTensor): Tensor;

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

export interface MovingAverageOptions {
  /** c in min += c * (batch_min - min). Default 0.01. */
  averagingConstant?: number;
}

declare abstract class ObserverBase<Q> {
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

/** Running min/max of everything observed (torch.ao.quantization.MinMaxObserver). */
export declare class MinMaxObserver extends ObserverBase<QParams> {
  constructor(options?: ObserverOptions);
  /** Infinity before the first observe(). */
  readonly minVal: number;
  readonly maxVal: number;
}

/** Moving-average min/max (torch.ao.quantization.MovingAverageMinMaxObserver). */
export declare class MovingAverageMinMaxObserver extends ObserverBase<QParams> {
  constructor(options?: ObserverOptions & MovingAverageOptions);
  readonly averagingConstant: number;
  readonly minVal: number;
  readonly maxVal: number;
}

/** Per-channel min/max along chAxis (torch.ao.quantization.PerChannelMinMaxObserver). */
export declare class PerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
  constructor(options?: PerChannelObserverOptions);
  readonly chAxis: number;
  /** A copy; empty before the first observe(). */
  readonly minVal: Float32Array;
  readonly maxVal: Float32Array;
}

/** torch.ao.quantization.MovingAveragePerChannelMinMaxObserver. */
export declare class MovingAveragePerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
  constructor(options?: PerChannelObserverOptions & MovingAverageOptions);
  readonly chAxis: number;
  readonly averagingConstant: number;
  readonly minVal: Float32Array;
  readonly maxVal: Float32Array;
}

/** PyTorch's torch.ao.quantization namespace. */
export declare const quantization: {
  readonly MinMaxObserver: typeof MinMaxObserver;
  readonly MovingAverageMinMaxObserver: typeof MovingAverageMinMaxObserver;
  readonly PerChannelMinMaxObserver: typeof PerChannelMinMaxObserver;
  readonly MovingAveragePerChannelMinMaxObserver: typeof MovingAveragePerChannelMinMaxObserver;
};

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
 * nn.Parameter: a float tensor a module owns. In-place edits of `data` take
 * effect in the module's next forward() and in fromFloat(); assigning `data`
 * copies the new values (a Float32Array of the same length). `shape` is frozen.
 */
export interface Parameter {
  data: Float32Array;
  readonly shape: readonly number[];
}

/**
 * A float convolution (or linear layer) running WASM SIMD float32 kernels.
 * Weights are PyTorch-initialized (kaiming uniform) Parameters; they are
 * packed into wasm memory on forward() (again whenever their values changed).
 * dispose() frees the packed copy.
 */
declare class FloatConvModule {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly groups: number;
  /** As given to the constructor (one int, or one per dimension). */
  readonly kernelSize: number | number[];
  readonly stride: number | number[];
  readonly dilation: number | number[];
  /** As given to the constructor. */
  readonly padding: Padding;
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
  dispose(): void;
}

/** A quantized convolution / linear layer: quint8 in, qint8 weights packed once, quint8 out. */
declare class QuantizedConvModule {
  readonly inChannels: number;
  readonly outChannels: number;
  readonly groups: number;
  /** Output scale (> 0). Default 1. */
  scale: number;
  /** Output zero point, 0..255. Default 0. */
  zeroPoint: number;
  readonly disposed: boolean;
  /** As given to the constructor. */
  readonly padding: Padding;
  /**
   * PyTorch set_weight_bias: qint8 weight of the module's weight shape, per
   * tensor or per channel on axis 0, and a float bias (or null). The weight's
   * integers are shared (the module keeps them alive), the bias copied.
   */
  setWeightBias(weight: QTensor, bias: Float32Array | Tensor | null): void;
  /** The quantized weight: a view of the module's integers; the caller disposes it. */
  weight(): QTensor;
  /** A copy of the bias, or null. */
  bias(): Float32Array | null;
  /**
   * x: quint8 per_tensor_affine QTensor (Conv3d: [N, C, D, H, W]; Conv2d:
   * [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures]).
   * @returns a new quint8 QTensor with the module's scale and zero point; the caller owns it.
   */
  forward(x: QTensor): QTensor;
  /** Bytes of the packed weights in wasm memory. */
  packedWeightBytes(): number;
  /** Scratch bytes of the last forward() beyond input, output and packed weights. */
  lastScratchBytes(): number;
  /** Frees the packed weights. Idempotent; forward() then throws. */
  dispose(): void;
}

/** Options of fromFloat (PyTorch from_float). */
export interface FromFloatOptions {
  /** Quantizes the weight; must be qint8. Default PerChannelMinMaxObserver(qint8, per_channel_symmetric, chAxis 0). */
  weightObserver?:
    | MinMaxObserver
    | PerChannelMinMaxObserver
    | MovingAverageMinMaxObserver
    | MovingAveragePerChannelMinMaxObserver;
  /** A per-tensor observer that saw the float module's outputs during calibration. */
  activationObserver?: MinMaxObserver | MovingAverageMinMaxObserver;
  /** Or the output qparams directly. */
  outputScale?: number;
  outputZeroPoint?: number;
}

declare class Conv1dF extends FloatConvModule {
  constructor(inChannels: number, outChannels: number, kernelSize: number | [number], options?: ConvOptions);
}
declare class Conv2dF extends FloatConvModule {
  constructor(inChannels: number, outChannels: number, kernelSize: number | [number, number], options?: ConvOptions);
}
declare class Conv3dF extends FloatConvModule {
  constructor(
    inChannels: number,
    outChannels: number,
    kernelSize: number | [number, number, number],
    options?: ConvOptions,
  );
}
declare class LinearF extends FloatConvModule {
  constructor(inFeatures: number, outFeatures: number, options?: { bias?: boolean });
  readonly inFeatures: number;
  readonly outFeatures: number;
}
declare class ReLUF {
  forward(x: Tensor): Tensor;
}

/** A fused float module: the wrapped conv / linear then ReLU, in one kernel pass. */
declare class Fused<M extends FloatConvModule> {
  constructor(module: M, relu?: ReLUF);
  /** The wrapped module (PyTorch: self[0]). */
  readonly 0: M;
  readonly 1: ReLUF;
  forward(x: Tensor): Tensor;
  dispose(): void;
}

declare class QConvNd<F> extends QuantizedConvModule {
  constructor(inChannels: number, outChannels: number, kernelSize: number | number[], options?: ConvOptions);
  /** PyTorch from_float: quantize a float module (see FromFloatOptions). */
  static fromFloat<F>(mod: F, options: FromFloatOptions): QConvNd<F>;
}
declare class QLinearNd<F> extends QuantizedConvModule {
  constructor(inFeatures: number, outFeatures: number, options?: { bias?: boolean });
  static fromFloat<F>(mod: F, options: FromFloatOptions): QLinearNd<F>;
}

/** PyTorch's module namespaces. */
export declare const nn: {
  readonly Conv1d: typeof Conv1dF;
  readonly Conv2d: typeof Conv2dF;
  readonly Conv3d: typeof Conv3dF;
  readonly Linear: typeof LinearF;
  readonly ReLU: typeof ReLUF;
  readonly intrinsic: {
    readonly ConvReLU1d: { new (conv: Conv1dF, relu?: ReLUF): Fused<Conv1dF> };
    readonly ConvReLU2d: { new (conv: Conv2dF, relu?: ReLUF): Fused<Conv2dF> };
    readonly ConvReLU3d: { new (conv: Conv3dF, relu?: ReLUF): Fused<Conv3dF> };
    readonly LinearReLU: { new (linear: LinearF, relu?: ReLUF): Fused<LinearF> };
    readonly quantized: {
      readonly ConvReLU1d: typeof QConvNd;
      readonly ConvReLU2d: typeof QConvNd;
      readonly ConvReLU3d: typeof QConvNd;
      readonly LinearReLU: typeof QLinearNd;
    };
  };
  readonly quantized: {
    readonly Conv1d: typeof QConvNd;
    readonly Conv2d: typeof QConvNd;
    readonly Conv3d: typeof QConvNd;
    readonly Linear: typeof QLinearNd;
  };
};

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
 * Readers for tensors exported from numpy / PyTorch. Pure JavaScript (usable
 * before init()); the returned data is JS-owned. Malformed files throw an
 * Error that says what is wrong.
 */
export declare namespace io {
  /** .npy (versions 1-3), float32 / float64 / float16, C order, either byte order. */
  function loadNpy(bytes: ArrayBuffer | Uint8Array): NpyTensor;
  /** .safetensors. */
  function loadSafetensors(bytes: ArrayBuffer | Uint8Array): SafetensorsFile;
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above is public.
export {};
