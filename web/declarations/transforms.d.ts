// The transforms namespace: torchvision's video preprocessing preset.
import type { Tensor } from './tensors.js';

/**
 * torchvision's preprocessing presets (`torchvision.transforms._presets`),
 * giving a model's input the numbers torchvision gives.
 */
export declare namespace transforms {
  /** {@link transforms.VideoClassification}'s options; torchvision's names, camelCased. */
  interface VideoClassificationOptions {
    /** The crop, [height, width] or one side for both (pixels); the model's input height and width. */
    readonly cropSize: number | readonly number[];
    /** The resize before the crop: [height, width], or [shorter side] keeping the aspect ratio (pixels). */
    readonly resizeSize: number | readonly number[];
    /** Mean per RGB channel (3 values, or 1 for all), on the [0, 1] scale. Default Kinetics-400's {@link transforms.KINETICS_MEAN}. */
    readonly mean?: readonly number[];
    /** Standard deviation per RGB channel (3 values, or 1 for all; nonzero). Default Kinetics-400's {@link transforms.KINETICS_STD}. */
    readonly std?: readonly number[];
    /** Only 'bilinear' (torchvision's video presets; antialias off, as they have it). */
    readonly interpolation?: 'bilinear';
  }
  /** A video frame: RGB or RGBA bytes, row by row (an ImageData from a canvas fits; alpha is ignored). */
  interface Frame {
    /** width * height * 3 (RGB) or * 4 (RGBA) bytes. */
    readonly data: Uint8Array | Uint8ClampedArray;
    /** Pixels. */
    readonly width: number;
    /** Pixels. */
    readonly height: number;
  }
  /** torchvision's Kinetics-400 mean: [0.43216, 0.394666, 0.37645]. */
  const KINETICS_MEAN: readonly number[];
  /** torchvision's Kinetics-400 standard deviation: [0.22803, 0.22145, 0.216989]. */
  const KINETICS_STD: readonly number[];
  /**
   * `torchvision.transforms._presets.VideoClassification` (what
   * `R3D_18_Weights.KINETICS400_V1.transforms()` returns): each frame resized
   * (bilinear, no antialias, in float32 as PyTorch's generic CPU kernel, then
   * rounded to uint8), center-cropped (zero padding when the crop is larger),
   * scaled to [0, 1] and normalised; the frames stacked as [1, C, T, H, W].
   * Pure JavaScript: works before init().
   * @throws TypeError for options of the wrong type, a missing cropSize or
   *   resizeSize, or another interpolation; RangeError for sizes outside
   *   1..16384, non-finite means, a std of 0, or a mean or std of other than 1 or 3 values.
   * @example
   * ```ts
   * const t = new transforms.VideoClassification({ cropSize: [112, 112], resizeSize: [128, 171] });
   * // RGB (or RGBA) bytes of any one size: here two black 320x240 frames
   * const black = { data: new Uint8Array(320 * 240 * 3), width: 320, height: 240 };
   * const x = t.forward([black, black]);
   * x.shape; // → [ 1, 3, 2, 112, 112 ]
   * // black: (0 - 0.43216) / 0.22803 in float32
   * x.data[0]; // → -1.8951891660690308
   * ```
   */
  class VideoClassification {
    constructor(options: VideoClassificationOptions);
    /** [height, width] of the crop. */
    readonly cropSize: readonly number[];
    /** As given: [height, width] or [shorter side]. */
    readonly resizeSize: readonly number[];
    /** Per-channel mean, as given. */
    readonly mean: readonly number[];
    /** Per-channel standard deviation, as given. */
    readonly std: readonly number[];
    /** Always 'bilinear'. */
    readonly interpolation: 'bilinear';
    /**
     * The model's input from `frames` (T frames of one size).
     * @returns A float tensor [1, 3, T, cropH, cropW] (JS-owned).
     * @throws TypeError for frames that are not {data, width, height} with
     *   Uint8Array or Uint8ClampedArray data (or a revoked Proxy);
     *   RangeError for no frames or more than 4096, sides outside 1..16384 or
     *   frames above 2^26 pixels, data of neither 3 nor 4 bytes per pixel,
     *   or frames of two sizes.
     */
    forward(frames: readonly Frame[]): Tensor;
    /** The options as the exporter writes them (torchvision's snake_case names). */
    toJSON(): {
      /** The preset's name. */
      transform: 'VideoClassification';
      /** cropSize. */
      crop_size: number[];
      /** resizeSize. */
      resize_size: number[];
      /** mean. */
      mean: number[];
      /** std. */
      std: number[];
      /** interpolation. */
      interpolation: 'bilinear';
    };
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
