// transforms.VideoClassification's options, checked: shared by its constructor
// and by a model file's load (description.mjs), which need not carry the
// transform itself (the model worker loads models and never runs it).

import { describe, readNumberList, readOptions } from '../runtime/args.mjs';

export const KINETICS_MEAN = Object.freeze([0.43216, 0.394666, 0.37645]);
export const KINETICS_STD = Object.freeze([0.22803, 0.22145, 0.216989]);
/** The largest side a frame or a resize may have. */
export const MAX_SIDE = 16384;
const OPTIONS = ['cropSize', 'resizeSize', 'mean', 'std', 'interpolation'];
const CTX = 'new transforms.VideoClassification(options)';

function readSize(v, name, lengths) {
  const list = typeof v === 'number' ? [v] : readNumberList(v, name, CTX, 2);
  if (!lengths.includes(list.length)) {
    throw new TypeError(
      `${CTX}: ${name} must be ${lengths.map((n) => `${n}`).join(' or ')} integers, got ${list.length}`,
    );
  }
  for (const s of list) {
    if (!Number.isInteger(s) || s < 1 || s > MAX_SIDE) {
      throw new RangeError(`${CTX}: ${name} must hold integers from 1 to ${MAX_SIDE}, got ${describe(s)}`);
    }
  }
  return list;
}

// torchvision normalises a (C, H, W) float image with mean and std of one value
// (broadcast to the three channels) or one per channel; anything else fails there.
function readChannelValues(v, name, positive) {
  const list = readNumberList(v, name, CTX, 3);
  if (list.length !== 1 && list.length !== 3) {
    throw new RangeError(`${CTX}: ${name} must hold 3 values (one per RGB channel) or 1 for all, got ${list.length}`);
  }
  for (const x of list) {
    const f = Math.fround(x);
    if (!Number.isFinite(f) || (positive && f === 0)) {
      throw new RangeError(`${CTX}: ${name} must hold finite${positive ? ', nonzero' : ''} float32 values, got ${x}`);
    }
  }
  return list; // as given (torchvision keeps the Python floats); forward() rounds them to float32 as torch.as_tensor does
}

/**
 * The options of transforms.VideoClassification, checked ({cropSize, resizeSize,
 * mean, std, interpolation}, frozen): what its constructor keeps, and what a
 * model file's VideoClassification record is checked by at load.
 */
export function videoClassificationOptions(options) {
  const o = readOptions(options, OPTIONS, CTX);
  for (const key of ['cropSize', 'resizeSize']) {
    if (!o.has(key)) throw new TypeError(`${CTX}: options.${key} is required`);
  }
  const interpolation = o.get('interpolation') ?? 'bilinear';
  if (interpolation !== 'bilinear') {
    throw new TypeError(
      `${CTX}: interpolation must be 'bilinear' (torchvision's video presets), got ${describe(interpolation)}`,
    );
  }
  const crop = readSize(o.get('cropSize'), 'cropSize', [1, 2]);
  return Object.freeze({
    cropSize: Object.freeze(crop.length === 1 ? [crop[0], crop[0]] : crop),
    resizeSize: Object.freeze(readSize(o.get('resizeSize'), 'resizeSize', [1, 2])),
    mean: Object.freeze(readChannelValues(o.get('mean') ?? KINETICS_MEAN, 'mean', false)),
    std: Object.freeze(readChannelValues(o.get('std') ?? KINETICS_STD, 'std', true)),
    interpolation,
  });
}
