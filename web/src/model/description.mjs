// What a model file says about its input and output beyond the graph
// (python/qwasm_export.py, export(..., preprocessing=, classes=)): how to make
// its input from video frames (torchvision's VideoClassification preset) or
// from a NIfTI volume (VolumeSegmentation), and the names of its outputs. Both are optional; each is checked at load like
// the graph, so a bad entry is an error naming it, not a surprise later.

import { fail, isObject, MAX_NAME, onlyKeys, quote } from '../ops/format-readers.mjs';
import { videoClassificationOptions } from '../transforms/video-options.mjs';
import { volumeSegmentationOptions } from '../transforms/volume-options.mjs';

/**
 * The metadata entries of a model file's header that are qwasm's: format,
 * format_version and graph (read by load.mjs), preprocessing and classes
 * (read here). Every other entry is the user's; the exporter refuses a user's
 * entry of one of these names. The vocabulary's `header`
 * (tests/js/model/vocabulary.test.mjs checks both).
 */
export const HEADER_ENTRIES = Object.freeze(['format', 'format_version', 'graph', 'preprocessing', 'classes']);

const MAX_CLASSES = 1_000_000;
/** The transforms the preprocessing entry may name, and each one's fields besides 'transform' (the vocabulary's). */
export const PREPROCESSING_TRANSFORMS = Object.freeze({
  VideoClassification: Object.freeze(['crop_size', 'resize_size', 'mean', 'std', 'interpolation']),
  VolumeSegmentation: Object.freeze(['orientation', 'spacing', 'intensity']),
});
const PREPROCESSING_KEYS = ['transform', ...PREPROCESSING_TRANSFORMS.VideoClassification];
const VOLUME_KEYS = ['transform', ...PREPROCESSING_TRANSFORMS.VolumeSegmentation];

function parsed(meta, key) {
  try {
    return JSON.parse(meta[key]);
  } catch (e) {
    return fail(`metadata ${key} is not JSON: ${e.message}`);
  }
}

/** The preprocessing entry as VideoClassification's options (camelCase), or null. */
function readPreprocessing(meta, inputShape) {
  if (meta.preprocessing === undefined) return null;
  const p = parsed(meta, 'preprocessing');
  if (!isObject(p)) fail('metadata preprocessing must be an object');
  if (p.transform === 'VolumeSegmentation') return readVolumeSegmentation(p, inputShape);
  onlyKeys(p, PREPROCESSING_KEYS, 'metadata preprocessing');
  if (p.transform !== 'VideoClassification') {
    fail(
      `metadata preprocessing's transform must be 'VideoClassification' or 'VolumeSegmentation', got ${quote(p.transform)}`,
    );
  }
  const options = { cropSize: p.crop_size, resizeSize: p.resize_size, mean: p.mean, std: p.std };
  if (p.interpolation !== undefined) options.interpolation = p.interpolation;
  let transform;
  try {
    transform = videoClassificationOptions(options); // checks every value
  } catch (e) {
    fail(`metadata preprocessing: ${String(e.message).replace(/^[^:]*: /, '')}`);
  }
  const { cropSize, resizeSize, mean, std } = transform;
  if (inputShape !== null) {
    const [, channels, , h, w] = inputShape;
    if (inputShape.length !== 5 || cropSize[0] !== h || cropSize[1] !== w || channels !== 3) {
      fail(
        `metadata preprocessing makes [N, 3, T, ${cropSize.join(', ')}] (RGB frames cropped to ${cropSize.join('x')}), but the model's input is [${inputShape.join(', ')}] (N, C, T, H, W)`,
      );
    }
  }
  return Object.freeze({ cropSize, resizeSize, mean, std, interpolation: transform.interpolation });
}

/** A VolumeSegmentation record as the transform's options ({orientation, spacing, intensity}). */
function readVolumeSegmentation(p, inputShape) {
  onlyKeys(p, VOLUME_KEYS, 'metadata preprocessing');
  let transform;
  try {
    transform = volumeSegmentationOptions({ orientation: p.orientation, spacing: p.spacing, intensity: p.intensity });
  } catch (e) {
    fail(`metadata preprocessing: ${String(e.message).replace(/^[^:]*: /, '')}`);
  }
  if (inputShape !== null && (inputShape.length !== 5 || inputShape[1] !== 1)) {
    fail(
      `metadata preprocessing VolumeSegmentation makes [N, 1, X, Y, Z] (one intensity channel), but the model's input is [${inputShape.join(', ')}]`,
    );
  }
  const { orientation, spacing, intensity } = transform;
  return Object.freeze({ orientation, spacing, intensity });
}

function readClasses(meta) {
  if (meta.classes === undefined) return null;
  const names = parsed(meta, 'classes');
  if (!Array.isArray(names) || names.length === 0 || names.length > MAX_CLASSES) {
    fail(`metadata classes must be a list of 1 to ${MAX_CLASSES} names`);
  }
  names.forEach((n, i) => {
    if (typeof n !== 'string' || n.length > MAX_NAME) fail(`metadata classes[${i}] must be a name, got ${quote(n)}`);
  });
  return Object.freeze(names);
}

/** {preprocessing, classes} of a model file's metadata (each null when absent). */
export function readDescription(meta, inputShape) {
  return { preprocessing: readPreprocessing(meta, inputShape), classes: readClasses(meta) };
}

// The transforms themselves (transforms.VideoClassification and
// VolumeSegmentation) are made by the public entry's factory (api.mjs:
// transformsFactory), not imported here: the model worker loads models and
// checks their records above; the one transform it runs (a WorkerModel's
// preprocess: VideoClassification, worker-host.mjs) it imports itself, so its
// bundle leaves VolumeSegmentation and NIfTI out.
let makeTransforms = null;

/** Called once by the public API: how a checked preprocessing record becomes its transform. */
export function setTransformsFactory(factory) {
  makeTransforms = factory;
}

/** The model's VideoClassification or VolumeSegmentation, or an Error saying how to record one. */
export function transformsOf(preprocessing, ctx) {
  if (preprocessing === null) {
    throw new Error(
      `${ctx}: the model file records no preprocessing; export it with qwasm_export.export(..., preprocessing=weights.transforms()) (or qwasm_volume.RECORD), or build transforms.VideoClassification (or VolumeSegmentation) yourself`,
    );
  }
  if (makeTransforms === null) throw new Error(`${ctx}: transforms are not available in qwasm's model worker`);
  return makeTransforms(preprocessing);
}
