// transforms.VolumeSegmentation's options, checked: shared by its constructor
// and by a model file's load (description.mjs), which need not carry the
// transform itself (the model worker loads models and never runs it).

import { checkNotRevoked, describe, readNumberList, readOptions } from '../runtime/args.mjs';

const CTX = 'new transforms.VolumeSegmentation(options)';
const OPTIONS = ['orientation', 'spacing', 'intensity'];

function readIntensity(v) {
  checkNotRevoked(v, 'intensity', CTX);
  if (v === null || typeof v !== 'object')
    throw new TypeError(`${CTX}: intensity must be {kind, low, high}, got ${describe(v)}`);
  const o = readOptions(v, ['kind', 'low', 'high'], CTX);
  const kind = o.get('kind');
  if (kind !== 'quantile') throw new TypeError(`${CTX}: intensity.kind must be 'quantile', got ${describe(kind)}`);
  const low = o.get('low');
  const high = o.get('high');
  if (typeof low !== 'number' || typeof high !== 'number' || !(low >= 0 && low < high && high <= 1)) {
    throw new RangeError(
      `${CTX}: intensity needs 0 <= low < high <= 1, got low ${describe(low)}, high ${describe(high)}`,
    );
  }
  return Object.freeze({ kind, low, high });
}

/**
 * The options of transforms.VolumeSegmentation, checked ({orientation,
 * spacing, intensity}, frozen): what its constructor keeps, and what a model
 * file's VolumeSegmentation record is checked by at load.
 */
export function volumeSegmentationOptions(options = {}) {
  const o = readOptions(options, OPTIONS, CTX);
  const orientation = o.get('orientation') ?? 'RAS';
  if (orientation !== 'RAS') throw new TypeError(`${CTX}: orientation must be 'RAS', got ${describe(orientation)}`);
  const spacing = o.has('spacing') ? readNumberList(o.get('spacing'), 'spacing', CTX, 3) : [1, 1, 1];
  if (spacing.length !== 3 || !spacing.every((s) => Number.isFinite(s) && s > 0)) {
    throw new RangeError(`${CTX}: spacing must be 3 positive finite voxel sizes (mm), got [${spacing.join(', ')}]`);
  }
  const intensity = o.has('intensity')
    ? readIntensity(o.get('intensity'))
    : Object.freeze({ kind: 'quantile', low: 0.01, high: 0.99 });
  return Object.freeze({ orientation, spacing: Object.freeze(spacing), intensity });
}
