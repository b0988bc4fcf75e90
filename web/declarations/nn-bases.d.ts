// What nn's modules share: abstract classes the package does not export
// (web/index.d.ts leaves this file out; the other files import it).
import type { nn } from './nn.js';
import type { Padding, Parameter, WinogradOption, WinogradPhaseMs } from './nn-options.js';
import type { quantization } from './quantization.js';
import type { QTensor, Tensor } from './tensors.js';

/** What the float conv / linear modules share (not exported: use nn.Conv3d etc.). */
export declare abstract class FloatModule extends nn.Module {
  /** Input channels (Linear: inFeatures). */
  readonly inChannels: number;
  /** Output channels (Linear: outFeatures). */
  readonly outChannels: number;
  /** Channel groups (1 for Linear). */
  readonly groups: number;
  /**
   * PyTorch's weight shape, e.g. [out, in / groups, kD, kH, kW] for Conv3d,
   * [out, in] for Linear. Assigning a tensor of that shape copies it
   * (TypeError for another type, RangeError for another shape).
   */
  get weight(): Parameter;
  /** Copies w's values (its shape must be the weight's). */
  set weight(w: Tensor | Parameter);
  /** [outChannels], or null without bias. Assigning a tensor copies it. */
  get bias(): Parameter | null;
  /** Copies b's values ([outChannels]); null removes the bias. */
  set bias(b: Tensor | Parameter | null);
  /**
   * y = conv(x) + bias (Linear: x W^T + b), float32 as PyTorch computes it.
   * @param x Conv3d: [N, C, D, H, W]; Conv2d: [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures].
   * @returns A new JS-owned tensor.
   * @throws TypeError when x is not a float tensor, RangeError for a shape
   *   the module cannot take (rank, channels, an empty output) or when wasm
   *   memory runs out, Error after dispose().
   */
  forward(x: Tensor): Tensor;
  /** Scratch bytes of the last forward() beyond input, output and weights. */
  lastScratchBytes(): number;
  /** Frees the packed copy of the weights. */
  dispose(): void;
}

/** A float convolution's geometry; K is one number per spatial dimension. */
export declare abstract class FloatConv<K extends number[]> extends FloatModule {
  /** Kernel extents in elements, PyTorch's tuple (Conv1d: [k]): a fresh array. */
  readonly kernelSize: K;
  /** Stride in elements per spatial dimension: a fresh array. */
  readonly stride: K;
  /** Dilation in elements per spatial dimension: a fresh array. */
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
}

/** What the quantized modules share (not exported: use nn.quantized.Conv3d etc.). */
export declare abstract class QuantizedModule extends nn.Module {
  /** Input channels (Linear: inFeatures). */
  readonly inChannels: number;
  /** Output channels (Linear: outFeatures). */
  readonly outChannels: number;
  /** Channel groups (1 for Linear). */
  readonly groups: number;
  /**
   * Output scale (PyTorch's module.scale; > 0 and finite). Default 1.
   * Assigning checks it: TypeError for a non-number, RangeError out of range.
   */
  scale: number;
  /** Output zero point (PyTorch's module.zero_point), an integer in 0..255. Default 0. Assigning checks it. */
  zeroPoint: number;
  /** True after dispose(). */
  readonly disposed: boolean;
  /**
   * Whose arithmetic the layer reproduces, fixed when its weights are set
   * (constructor, setWeightBias, fromFloat) under the engine in force then
   * ({@link quantization.setEngine}): 'onednn' for a convolution under 'x86' with
   * symmetric weights and groups <= 100 (PyTorch's routing), else 'fbgemm'.
   */
  readonly backend: 'onednn' | 'fbgemm';
  /**
   * PyTorch's `set_weight_bias(w, b)`: qint8 weight of the module's weight
   * shape, per tensor or per channel on axis 0, and a float bias of
   * outChannels elements (or null). Both are copied (the weight into the
   * kernel's packed layout): the caller still owns and disposes `weight`.
   * @throws TypeError for a weight that is not a qint8 QTensor or a bias of
   *   the wrong type, RangeError for a weight shape or bias length that does
   *   not fit the module or when wasm memory runs out, Error after dispose().
   */
  setWeightBias(weight: QTensor<'qint8'>, bias: Float32Array | Tensor | null): void;
  /**
   * The quantized weight (PyTorch's `weight()`): a new QTensor with the
   * module's integers and qparams (rebuilt from the packed weights); the
   * caller disposes it.
   * @throws Error after dispose().
   */
  weight(): QTensor<'qint8'>;
  /**
   * A copy of the bias, or null (PyTorch's `bias()`).
   * @throws Error after dispose().
   */
  bias(): Float32Array | null;
  /**
   * The quantized layer on x, with PyTorch's integers for the module's backend.
   * @param x A quint8 per_tensor_affine QTensor (Conv3d: [N, C, D, H, W];
   *   Conv2d: [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures]).
   * @returns A new quint8 QTensor with the module's scale and zero point
   *   (convolutions: channels-last strides, as PyTorch's); the caller owns it.
   * @throws TypeError when x is not a quint8 per_tensor_affine QTensor,
   *   RangeError for a shape the module cannot take (rank, channels, an
   *   empty output) or when wasm memory runs out, Error when x or the module
   *   is disposed.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  /** Bytes of the packed weights in wasm memory. @throws Error after dispose(). */
  packedWeightBytes(): number;
  /** Scratch bytes of the last forward() beyond input, output and packed weights. @throws Error after dispose(). */
  lastScratchBytes(): number;
  /** Frees the packed weights. Idempotent; forward() then throws an Error. */
  dispose(): void;
}

/** A quantized convolution's geometry; K is one number per spatial dimension. */
export declare abstract class QuantizedConv<K extends number[]> extends QuantizedModule {
  /** Kernel extents in elements, PyTorch's tuple (Conv1d: [k]): a fresh array. */
  readonly kernelSize: K;
  /** Stride in elements per spatial dimension: a fresh array. */
  readonly stride: K;
  /** Dilation in elements per spatial dimension: a fresh array. */
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
  /** The Winograd option the module was built with. */
  readonly winograd: WinogradOption;
  /** Bytes of the Winograd layer's int8 weights among packedWeightBytes() (0 when the layer is not packed for Winograd); each call transforms them into scratch memory. */
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
  /**
   * Diagnostics: with `on` true, later forward() calls on the Winograd path
   * time its phases (lastWinogradPhaseMs()); off by default, since timing
   * reads the clock for every block of tiles. Kept across setWeightBias.
   * @throws TypeError when on is not a boolean, Error after dispose().
   */
  timeWinogradPhases(on: boolean): void;
  /**
   * Where the last forward()'s Winograd time went, in ms summed over threads
   * (the output transform includes the requantization), or null when that
   * call was not timed: timing off (timeWinogradPhases(true) not called),
   * or the call ran direct.
   * @throws Error after dispose().
   */
  lastWinogradPhaseMs(): WinogradPhaseMs | null;
}

/** A fused float module: the module then ReLU (not exported: use nn.intrinsic.ConvReLU3d etc.). */
export declare abstract class FusedModule<M extends FloatModule> extends nn.Module {
  /** The wrapped conv or linear module (PyTorch: self[0]). */
  readonly 0: M;
  /** The ReLU (PyTorch: self[1]). */
  readonly 1: nn.ReLU;
  /**
   * relu(module(x)), in one kernel pass.
   * @returns A new JS-owned tensor.
   * @throws As the wrapped module's forward().
   */
  forward(x: Tensor): Tensor;
  /** Disposes the wrapped module. */
  dispose(): void;
}

/** What nn.BatchNorm1d/2d/3d share (not exported). */
export declare abstract class BatchNormModule extends nn.Module {
  /** Channels (C). */
  readonly numFeatures: number;
  /** Added to the variance. */
  readonly eps: number;
  /** As given (unused: qwasm does not train). */
  readonly momentum: number;
  /** True when the module has weight and bias. */
  readonly affine: boolean;
  /** [numFeatures] (default ones), or null without affine. Assigning a tensor copies it. */
  get weight(): Parameter | null;
  /** Copies w's values ([numFeatures]). @throws TypeError without affine. */
  set weight(w: Tensor | Parameter);
  /** [numFeatures] (default zeros), or null without affine. Assigning a tensor copies it. */
  get bias(): Parameter | null;
  /** Copies b's values ([numFeatures]). @throws TypeError without affine. */
  set bias(b: Tensor | Parameter);
  /** [numFeatures], default zeros. Assigning a tensor copies it. */
  get runningMean(): Parameter;
  /** Copies v's values ([numFeatures]). */
  set runningMean(v: Tensor | Parameter);
  /** [numFeatures], default ones. Assigning a tensor copies it. */
  get runningVar(): Parameter;
  /** Copies v's values ([numFeatures]). */
  set runningVar(v: Tensor | Parameter);
  /**
   * Eval mode only: (x - runningMean) / sqrt(runningVar + eps) * weight + bias per channel.
   * @returns A new JS-owned tensor.
   * @throws Error in training mode (call eval()), RangeError for a rank or
   *   channel count the module cannot take.
   */
  forward(x: Tensor): Tensor;
}

/**
 * What the pooling modules share. On a float tensor they compute in float;
 * on a quint8 QTensor they run PyTorch's quantized kernel, whose formula
 * depends on the input's layout (QTensor.stride()): PyTorch's integers, the
 * input's qparams kept.
 */
export declare abstract class Pool extends nn.Module {
  /**
   * Pools a float tensor.
   * @returns A new JS-owned tensor.
   * @throws TypeError for another argument, RangeError for a shape the pool cannot take.
   */
  forward(x: Tensor): Tensor;
  /**
   * Pools a quint8 QTensor with PyTorch's quantized kernel.
   * @returns A new QTensor with x's qparams; the caller disposes it.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}
/** What the max and average pools share (not exported). */
export declare abstract class MaxPool extends Pool {
  /** Window extents in elements, one per spatial dimension. */
  readonly kernelSize: number[];
  /** Elements between windows, one per spatial dimension. */
  readonly stride: number[];
  /** Padding in elements, one per spatial dimension. */
  readonly padding: number[];
  /** True when the output size is rounded up. */
  readonly ceilMode: boolean;
}
/** What the average pools share (not exported). */
export declare abstract class AvgPool extends MaxPool {}
/** What the adaptive pools share (not exported). */
export declare abstract class AdaptivePool extends nn.Module {
  /** The output's spatial size in elements; null entries keep the input's size. */
  readonly outputSize: (number | null)[];
}
/** What the adaptive average pools share (not exported). */
export declare abstract class AdaptiveAvgPool extends AdaptivePool {
  /**
   * Pools a float tensor.
   * @returns A new JS-owned tensor.
   */
  forward(x: Tensor): Tensor;
  /**
   * Pools a quint8 QTensor with PyTorch's quantized kernel.
   * @returns A new QTensor with x's qparams; the caller disposes it.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
