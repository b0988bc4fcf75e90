// The transforms namespace: torchvision's video preprocessing preset, and a
// segmentation model's NIfTI volumes in and labels out.
import type { NiftiImage, NiftiVolume } from './io.js';
import type { Tensor } from './tensors.js';

/**
 * torchvision's preprocessing presets (`torchvision.transforms._presets`),
 * giving a model's input the numbers torchvision gives; and
 * {@link transforms.VolumeSegmentation}, a segmentation model's input from a
 * NIfTI volume and its labels back (the numbers of python/qwasm_volume.py).
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
  /** {@link transforms.VolumeSegmentation}'s options: the record a model file keeps (python/qwasm_volume.py RECORD). */
  interface VolumeSegmentationOptions {
    /** Only 'RAS' (the default): the input's axes run to the Right, Anterior and Superior. */
    readonly orientation?: 'RAS';
    /** The model's voxel size per axis (mm), positive and finite; default [1, 1, 1]. */
    readonly spacing?: readonly number[];
    /**
     * Intensity normalisation: `(x - lo) / (hi - lo)` clamped to [0, 1], lo and hi
     * the volume's `low` and `high` quantiles (0 <= low < high <= 1). Default
     * `{ kind: 'quantile', low: 0.01, high: 0.99 }`.
     */
    readonly intensity?: {
      /** Only 'quantile'. */
      readonly kind: 'quantile';
      /** The lower quantile, mapped to 0. */
      readonly low: number;
      /** The upper quantile, mapped to 1. */
      readonly high: number;
    };
  }
  /** Where {@link transforms.VolumeSegmentation.forward} puts a volume: the model's grid and how it was reached. */
  interface VolumeGrid {
    /** [X, Y, Z]: the model input's spatial shape. */
    shape: number[];
    /** The volume's shape after reorientation, before resampling. */
    rasShape: number[];
    /** For each output axis (R, A, S), the stored axis it comes from (0, 1, 2). */
    from: number[];
    /** For each output axis, whether the stored axis runs the other way. */
    flip: boolean[];
    /** The voxel size (mm) along each output axis, from the affine's columns. */
    spacing: number[];
    /** For each output axis, whether it was resampled (its voxel size differs from the target by more than 1e-3 mm). */
    resampled: boolean[];
    /** The model grid's voxel-to-world affine (4x4, row by row): the volume's, permuted, flipped and rescaled as forward does. */
    affine: number[];
  }
  /**
   * A segmentation model's input from a NIfTI volume, and its output back as
   * labels on the volume's own grid. `forward`: the stored values scaled
   * (scl_slope, scl_inter), reoriented to RAS+ by an exact transpose and
   * flips (the nearest axes of the affine, as nibabel's `io_orientation`),
   * resampled trilinearly to `spacing` on the axes more than 1e-3 mm off,
   * then mapped to [0, 1] between two quantiles; the result is
   * [1, 1, X, Y, Z] float32, Z fastest. `labels`: argmax of the model's
   * logits over classes, back through the resampling (nearest) and the
   * reorientation. The steps are docs/numerics.md's "Volumes", the same
   * float32 bytes and labels as python/qwasm_volume.py (which training
   * uses). Pure JavaScript: works before init().
   * @throws TypeError for an orientation other than 'RAS', an intensity kind
   *   other than 'quantile' or an unknown option; RangeError for a spacing
   *   that is not 3 positive finite numbers or quantiles outside 0 <= low < high <= 1.
   * @example
   * ```ts
   * // a 4x3x2 volume, 1 mm, RAS: values 0..23, quantiles 0 and 1
   * const volume = { data: Int16Array.from({ length: 24 }, (_, i) => i), dims: [4, 3, 2],
   *   affine: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
   * const t = new transforms.VolumeSegmentation({ intensity: { kind: 'quantile', low: 0, high: 1 } });
   * const x = t.forward(volume);
   * x.shape; // → [ 1, 1, 4, 3, 2 ]
   * x.data[23]; // → 1
   * // two classes, the second larger where x > 0.5: labels on the stored grid
   * const logits = { data: new Float32Array([...x.data].map(() => 0.5).concat([...x.data])), shape: [1, 2, 4, 3, 2] };
   * t.labels(logits, volume).data[23]; // → 1
   * ```
   */
  class VolumeSegmentation {
    constructor(options?: VolumeSegmentationOptions);
    /** Always 'RAS'. */
    readonly orientation: 'RAS';
    /** The model's voxel size per axis (mm). */
    readonly spacing: readonly number[];
    /** The intensity normalisation. */
    readonly intensity: {
      /** 'quantile'. */
      readonly kind: 'quantile';
      /** The lower quantile, mapped to 0. */
      readonly low: number;
      /** The upper quantile, mapped to 1. */
      readonly high: number;
    };
    /**
     * The grid `forward` puts `volume` on.
     * @throws as {@link transforms.VolumeSegmentation.forward}.
     */
    grid(volume: NiftiImage): VolumeGrid;
    /**
     * The model's input from `volume` (what {@link io.readNifti} returns, or
     * any {data, dims, affine} with optional sclSlope / sclInter).
     * @returns A float tensor [1, 1, X, Y, Z] (JS-owned), values in [0, 1].
     * @throws TypeError for a volume without typed-array data, 3 dims of
     *   1..32767 or a 16-number affine; RangeError for data of another
     *   length, a singular affine, a non-finite value after scaling, or a
     *   volume that would hold more than 2^28 voxels at any step.
     */
    forward(volume: NiftiImage): Tensor;
    /**
     * The labels of the model's output on `volume`'s own grid: argmax over
     * classes (the first maximum; NaN above all, as torch.argmax), uint8,
     * with `volume`'s geometry, ready for {@link io.writeNifti}.
     * @param logits The model's output on `forward(volume)`: [1, C, X, Y, Z] float32, 1 <= C <= 256.
     * @throws TypeError for logits that are not a Float32Array tensor;
     *   RangeError for another shape; as forward for the volume.
     */
    labels(logits: Tensor, volume: NiftiImage): NiftiVolume;
    /** The options as the exporter writes them into a model file's metadata. */
    toJSON(): {
      /** The transform's name. */
      transform: 'VolumeSegmentation';
      /** orientation. */
      orientation: 'RAS';
      /** spacing. */
      spacing: number[];
      /** intensity. */
      intensity: {
        /** 'quantile'. */
        kind: 'quantile';
        /** The lower quantile. */
        low: number;
        /** The upper quantile. */
        high: number;
      };
    };
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
