// The options of nn's modules (and fromFloat): exported types.
import type { quantization } from './quantization.js';

/**
 * Padding as PyTorch takes it, in elements: one int for every side, one per
 * spatial dimension, 'same' (output size = input size; stride 1 only) or
 * 'valid' (no padding).
 */
export type Padding = number | number[] | 'same' | 'valid';

/** Constructor options of the convolution modules (PyTorch's keyword arguments, camelCase). */
export interface ConvOptions {
  /** Elements between window starts, per spatial dimension or one for all. Default 1. */
  stride?: number | number[];
  /** Default 0. 'same' pads d * (k - 1) in total, the odd one at the end. */
  padding?: Padding;
  /** Elements between kernel taps. Default 1. */
  dilation?: number | number[];
  /** Default 1; must divide both channel counts. groups == in == out is depthwise. */
  groups?: number;
  /** Default true. */
  bias?: boolean;
  /** Only 'zeros' (the default) is supported (PyTorch's padding_mode). */
  paddingMode?: 'zeros';
}

/**
 * The exact integer Winograd option of the quantized convolutions: 'auto'
 * (the default: where it pays), true (wherever the shape allows: stride 1,
 * groups 1, each kernel extent 3 or 1) or false (never). The output bytes are
 * the same either way. A layer on the path holds its weights as int8 (half
 * the direct packing) and transforms them per call into scratch memory.
 * qwasm's own: PyTorch has no such option.
 */
export type WinogradOption = 'auto' | boolean;

/** A Winograd forward()'s time per phase, in ms summed over threads (QuantizedConv.lastWinogradPhaseMs()). */
export interface WinogradPhaseMs {
  /** The input's transform into the points of each tile. */
  inputTransform: number;
  /** The GEMMs of the transformed input and weights, one per point. */
  gemm: number;
  /** The points' transform back to outputs, with the requantization. */
  outputTransform: number;
}

/** Constructor options of the quantized convolutions. */
export interface QuantizedConvOptions extends ConvOptions {
  /** Default: {@link quantization.getWinograd}() ('auto' unless changed). */
  winograd?: WinogradOption;
}

/** Constructor options of the linear modules. */
export interface LinearOptions {
  /** Default true. */
  bias?: boolean;
}

/**
 * `torch.nn.Parameter`: a float tensor a module owns. In-place edits of
 * `data` take effect in the module's next forward() and in fromFloat();
 * assigning `data` copies the new values (a Float32Array of the same
 * length: otherwise a TypeError or RangeError).
 */
export interface Parameter {
  /** The values, row-major; edit in place or assign a Float32Array of the same length. */
  data: Float32Array;
  /** Dimensions, PyTorch order (frozen). */
  readonly shape: readonly number[];
}

/** The weight observer fromFloat may use: a qint8 observer (checked when called). */
export type WeightObserver = quantization.Observer;

/**
 * Options of fromFloat (PyTorch's `from_float`): the output qparams come from
 * an activation observer or are given, never both.
 */
export type FromFloatOptions = {
  /** Quantizes the weight; must be qint8. Default PerChannelMinMaxObserver(qint8, per_channel_symmetric, chAxis 0). */
  weightObserver?: WeightObserver;
  /** Convolutions only: the quantized module's Winograd option (default {@link quantization.getWinograd}()). */
  winograd?: WinogradOption;
} & (
  | {
      /** A per-tensor observer that saw the float module's outputs during calibration. */
      activationObserver:
        | quantization.MinMaxObserver
        | quantization.MovingAverageMinMaxObserver
        | quantization.HistogramObserver;
      /** Not with activationObserver. */
      outputScale?: undefined;
      /** Not with activationObserver. */
      outputZeroPoint?: undefined;
    }
  | {
      /** The output scale, directly (> 0). */
      outputScale: number;
      /** The output zero point, directly (0..255). */
      outputZeroPoint: number;
      /** Not with outputScale / outputZeroPoint. */
      activationObserver?: undefined;
    }
);

/** Options of nn.BatchNorm1d/2d/3d (PyTorch's names and defaults). */
export interface BatchNormOptions {
  /** Added to the variance. Default 1e-5; finite and >= 0. */
  eps?: number;
  /** Default 0.1 (kept for PyTorch compatibility; qwasm does not train). */
  momentum?: number;
  /** Default true: learnable weight and bias. */
  affine?: boolean;
  /** Only true (the default): normalization uses the running statistics. */
  trackRunningStats?: true;
}

/** Options of nn.MaxPool1d/2d/3d (PyTorch's keyword arguments). */
export interface MaxPoolOptions {
  /** Elements between windows. Default kernelSize. */
  stride?: number | number[] | null;
  /** Implicit -Infinity padding in elements. Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Elements between taps. Default 1. */
  dilation?: number | number[];
  /** Round the output size up rather than down. Default false. */
  ceilMode?: boolean;
  /** Only false (the default). */
  returnIndices?: false;
}

/** Options of nn.AvgPool1d/2d/3d. */
export interface AvgPoolOptions {
  /** Elements between windows. Default kernelSize. */
  stride?: number | number[] | null;
  /** Implicit zero padding in elements. Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Round the output size up rather than down. Default false. */
  ceilMode?: boolean;
  /** Default true: padding counts in the divisor. */
  countIncludePad?: boolean;
  /** 2d and 3d: divide by this instead (non-zero). */
  divisorOverride?: number | null;
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
