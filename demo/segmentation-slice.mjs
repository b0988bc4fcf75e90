// A segmentation output ([N, C, D, H, W] scores over C classes) shown as one
// depth slice: the per-voxel class (the argmax over C, the first on ties, as
// torch.argmax) in a colour per class, beside the input's slice in grey.
// Shared by the Model view and its browser test (which computes the same in Node).

// One colour per class (class 0, usually the background, dark); past the list they repeat.
export const PALETTE = [
  [20, 20, 28],
  [230, 159, 0],
  [86, 180, 233],
  [0, 158, 115],
  [240, 228, 66],
  [0, 114, 178],
  [213, 94, 0],
  [204, 121, 167],
];

/** Whether an output shape is a segmentation's: [N, C > 1, D, H, W]. */
export const isSegmentation = (shape) => shape.length === 5 && shape[1] > 1;

/**
 * The labels of sample 0 of an [N, C, D, H, W] output: Uint8Array(D * H * W)
 * (classes past 255 are refused: no demo model has them).
 */
export function labelVolume(data, shape) {
  const [, classes, d, h, w] = shape;
  if (classes > 256) throw new Error(`a segmentation of ${classes} classes: the view shows at most 256`);
  const voxels = d * h * w;
  const labels = new Uint8Array(voxels);
  for (let v = 0; v < voxels; v++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if (data[c * voxels + v] > data[best * voxels + v]) best = c;
    labels[v] = best;
  }
  return labels;
}

/** Voxels per class of a label volume. */
export function classCounts(labels, classes) {
  const counts = new Array(classes).fill(0);
  for (const l of labels) counts[l] += 1;
  return counts;
}

/** Draws slice `z` of the labels of an output of `shape` [N, C, D, H, W] into `canvas`, `zoom` pixels per voxel. */
export function drawLabels(canvas, labels, [, , , h, w], z, zoom) {
  drawSlice(canvas, h, w, zoom, (i) => PALETTE[labels[z * h * w + i] % PALETTE.length]);
}

/** Draws slice `z` of channel 0 of the input ([N, C, D, H, W] floats) in grey, its range mapped to 0..255. */
export function drawInput(canvas, data, [, , , h, w], z, zoom) {
  const slice = data.subarray(z * h * w, (z + 1) * h * w);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of slice) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const span = hi > lo ? hi - lo : 1;
  drawSlice(canvas, h, w, zoom, (i) => {
    const g = Math.round(((slice[i] - lo) / span) * 255);
    return [g, g, g];
  });
}

function drawSlice(canvas, h, w, zoom, colourAt) {
  canvas.width = w * zoom;
  canvas.height = h * zoom;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(canvas.width, canvas.height);
  for (let y = 0; y < canvas.height; y++) {
    for (let x = 0; x < canvas.width; x++) {
      const [r, g, b] = colourAt(Math.floor(y / zoom) * w + Math.floor(x / zoom));
      const o = 4 * (y * canvas.width + x);
      image.data[o] = r;
      image.data[o + 1] = g;
      image.data[o + 2] = b;
      image.data[o + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
}
