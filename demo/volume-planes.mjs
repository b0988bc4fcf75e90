// The Volume view's three orthogonal planes, as pixels: a slice of a volume in
// the model's grid (RAS+, [X, Y, Z] in C order, Z fastest) in grey, its voxel
// classes over it at an opacity, and a crosshair through the picked voxel.
// Pure functions of the arrays, so that the browser test computes the pixels
// the page must show from the API's labels, in Node, and compares them.
//
// Neurological convention: the subject's right on the image's right (i grows
// rightwards), anterior and superior up.
import { PALETTE } from './segmentation-slice.mjs';

/**
 * Each plane: the axis it fixes, and the volume axes along the image's columns
 * and rows (rows grow upwards in the volume: the top row is the last index).
 */
export const PLANES = {
  axial: { fixed: 2, across: 0, up: 1 },
  coronal: { fixed: 1, across: 0, up: 2 },
  sagittal: { fixed: 0, across: 1, up: 2 },
};

export const CROSSHAIR = [255, 64, 64];

/** [width, height] in pixels (one per voxel) of a plane of a volume of `dims` [X, Y, Z]. */
export function planeSize(dims, plane) {
  const p = PLANES[plane];
  return [dims[p.across], dims[p.up]];
}

/**
 * The intensity window of a volume: its 1st and 99.5th percentile (by a
 * 256-bin histogram between its minimum and maximum), so that one bright voxel
 * does not leave the brain dark. Returns [lo, hi] with lo < hi when the
 * volume is not constant.
 */
export function intensityWindow(values) {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(hi > lo)) return [lo, lo + 1];
  const bins = new Float64Array(256);
  const scale = 255 / (hi - lo);
  for (const v of values) bins[Math.floor((v - lo) * scale)] += 1;
  const at = (share) => {
    let seen = 0;
    for (let b = 0; b < 256; b++) {
      seen += bins[b];
      if (seen >= share * values.length) return lo + b / scale;
    }
    return hi;
  };
  const [a, b] = [at(0.01), at(0.995)];
  return b > a ? [a, b] : [lo, hi];
}

/**
 * Each voxel's class from the model's output {data, shape: [1, C, X, Y, Z]}:
 * the first maximum over C, NaN above everything (torch.argmax), in the
 * model's grid (C order, as the planes read it). transforms().labels gives the
 * same classes on the input file's grid, for the download.
 */
export function voxelClasses({ data, shape }) {
  const classes = shape[1];
  const plane = data.length / classes;
  const out = new Uint8Array(plane);
  for (let i = 0; i < plane; i++) {
    let best = data[i];
    let k = 0;
    for (let c = 1; c < classes && !Number.isNaN(best); c++) {
      const v = data[c * plane + i];
      if (Number.isNaN(v) || v > best) {
        best = v;
        k = c;
      }
    }
    out[i] = k;
  }
  return out;
}

/**
 * The RGBA pixels (Uint8ClampedArray, rows top to bottom) of slice `index` of
 * `plane`: the volume's values in grey through `window`, the labels (class 0
 * left clear) blended over them at `opacity` (0..1), and the crosshair at
 * `cursor` ([i, j, k]) unless it is null.
 */
export function renderPlane({ values, labels, dims, plane, index, window, opacity, cursor }) {
  const p = PLANES[plane];
  const [width, height] = planeSize(dims, plane);
  const strides = [dims[1] * dims[2], dims[2], 1];
  const [lo, hi] = window;
  const span = hi - lo;
  const alpha = Math.min(1, Math.max(0, opacity));
  const pixels = new Uint8ClampedArray(width * height * 4);
  const crossX = cursor === null ? -1 : cursor[p.across];
  const crossY = cursor === null ? -1 : height - 1 - cursor[p.up];
  for (let y = 0; y < height; y++) {
    const up = height - 1 - y;
    for (let x = 0; x < width; x++) {
      const voxel = index * strides[p.fixed] + x * strides[p.across] + up * strides[p.up];
      const o = 4 * (y * width + x);
      pixels[o + 3] = 255;
      if (x === crossX || y === crossY) {
        pixels.set(CROSSHAIR, o);
        continue;
      }
      const g = Math.round(Math.min(1, Math.max(0, (values[voxel] - lo) / span)) * 255);
      const label = labels === null ? 0 : labels[voxel];
      if (label === 0 || alpha === 0) {
        pixels[o] = g;
        pixels[o + 1] = g;
        pixels[o + 2] = g;
      } else {
        const c = PALETTE[label % PALETTE.length];
        for (let k = 0; k < 3; k++) pixels[o + k] = Math.round(g * (1 - alpha) + c[k] * alpha);
      }
    }
  }
  return { width, height, pixels };
}

/** The voxel [i, j, k] under pixel (x, y) of slice `index` of `plane`. */
export function voxelAt(dims, plane, index, x, y) {
  const p = PLANES[plane];
  const height = dims[p.up];
  const voxel = [0, 0, 0];
  voxel[p.fixed] = index;
  voxel[p.across] = x;
  voxel[p.up] = height - 1 - y;
  return voxel;
}

/** Millilitres of each class: voxel count times the voxel's volume (mm^3) / 1000. */
export function classVolumesMl(labels, classes, voxelMm3) {
  const counts = new Array(classes).fill(0);
  for (const l of labels) counts[l] += 1;
  return counts.map((n) => (n * voxelMm3) / 1000);
}
