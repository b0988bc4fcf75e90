// Built-in tensors for the demo, deterministic (seeded) so that tests can
// rebuild the very same data in Node and compare with what the page shows.
import { gaussian, mulberry32 } from './random.mjs';

function build(shape, seed, valueAt) {
  const next = mulberry32(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  const inner = n / shape[0];
  for (let i = 0; i < n; i++) data[i] = valueAt(Math.floor(i / inner), gaussian(next), next);
  return { data, shape };
}

export const PRESETS = {
  conv3dWeight: {
    label: 'Conv3d weight [64, 3, 3, 3, 3] (channel ranges differ 100x)',
    // Output channel c has spread 0.01 * 1.075^c: per-channel scales matter here.
    make: () => build([64, 3, 3, 3, 3], 1, (c, g) => g * 0.01 * 1.075 ** c),
  },
  activation4d: {
    label: 'Activation-like [2, 4, 5, 3] (ReLU output, shifted channels)',
    make: () => build([2, 4, 5, 3], 2, (b, g, next) => Math.max(0, g + 0.5 * b) * (1 + 3 * next())),
  },
  outlierChannels: {
    label: 'Outlier channels [16, 32] (channels 3 and 11 are 50x wider)',
    make: () => build([16, 32], 3, (c, g) => g * (c === 3 || c === 11 ? 50 : 1)),
  },
};
