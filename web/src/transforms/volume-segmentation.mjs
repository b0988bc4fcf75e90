// A segmentation model's input from a NIfTI volume, and its output back as a
// label volume on the input's grid (transforms.VolumeSegmentation; the steps
// are docs/numerics.md's "Volumes", the same as python/qwasm_volume.py's to the
// bit): values scaled as the header says, reoriented to RAS+ by an exact
// transpose and flips, resampled (trilinear, float64) to the model's spacing
// where an axis differs by more than 1e-3 mm, then the intensities mapped to
// [0, 1] between two quantiles. Pure JavaScript: works before init().

import { bytesOf, checkNotRevoked, describe, lengthOf, typedArrayKind } from '../runtime/args.mjs';
import { rasOrientation } from '../volumes/geometry.mjs';
import { volumeSegmentationOptions } from './volume-options.mjs';

/** An axis whose voxel size is within this of the target spacing (mm) is not resampled. */
export const SPACING_TOLERANCE = 1e-3;
const MAX_SIDE = 32767;
/** The most voxels a step holds (2^28, about 645³: 2 GiB as float64). */
export const MAX_VOXELS = 2 ** 28;
const VOLUME_ARRAYS = new Map([
  ['Uint8Array', 'uint8'],
  ['Int8Array', 'int8'],
  ['Int16Array', 'int16'],
  ['Uint16Array', 'uint16'],
  ['Int32Array', 'int32'],
  ['Uint32Array', 'uint32'],
  ['Float32Array', 'float32'],
  ['Float64Array', 'float64'],
]);

/** The volume's voxels, dims and affine (a volume from io.readNifti, or any object with those fields). */
function readVolume(volume, ctx) {
  checkNotRevoked(volume, 'volume', ctx);
  if (volume === null || typeof volume !== 'object') {
    throw new TypeError(`${ctx}: volume must be what io.readNifti returns, got ${describe(volume)}`);
  }
  const {
    data,
    dims,
    affine,
    sclSlope,
    sclInter,
    pixdim,
    sformCode,
    sform,
    qformCode,
    qform,
    quatern,
    qoffset,
    qfac,
    xyztUnits,
  } = volume;
  const kind = typedArrayKind(data);
  if (!VOLUME_ARRAYS.has(kind))
    throw new TypeError(`${ctx}: volume.data must be a typed array of voxels, got ${describe(data)}`);
  bytesOf(data, 'volume.data', ctx); // refuses a detached buffer
  if (!Array.isArray(dims) || dims.length !== 3 || !dims.every((d) => Number.isInteger(d) && d >= 1 && d <= MAX_SIDE)) {
    throw new TypeError(`${ctx}: volume.dims must be 3 integers from 1 to ${MAX_SIDE}, got ${describe(dims)}`);
  }
  const numel = dims[0] * dims[1] * dims[2];
  if (lengthOf(data) !== numel)
    throw new RangeError(`${ctx}: volume.data holds ${lengthOf(data)} voxels, dims ${dims.join('x')} need ${numel}`);
  if (
    !Array.isArray(affine) ||
    affine.length !== 16 ||
    !affine.every((x) => typeof x === 'number' && Number.isFinite(x))
  ) {
    throw new TypeError(`${ctx}: volume.affine must be 16 finite numbers (4x4, row by row), got ${describe(affine)}`);
  }
  const slope = sclSlope ?? 0;
  const inter = sclInter ?? 0;
  if (typeof slope !== 'number' || typeof inter !== 'number')
    throw new TypeError(`${ctx}: volume.sclSlope and sclInter must be numbers`);
  const scaled = slope !== 0 && Number.isFinite(slope);
  if (scaled && !Number.isFinite(inter))
    throw new RangeError(`${ctx}: volume.sclInter must be finite when sclSlope is set`);
  const copy = (x) => (Array.isArray(x) ? x.slice() : x);
  // What a label volume keeps of the input's header (io.writeNifti writes it back).
  const header = {
    pixdim: copy(pixdim),
    sformCode,
    sform: copy(sform) ?? null,
    qformCode,
    qform: copy(qform) ?? null,
    quatern: copy(quatern),
    qoffset: copy(qoffset),
    qfac,
    xyztUnits,
  };
  return { data, dims: dims.slice(), numel, affine: affine.slice(), slope: scaled ? slope : null, inter, header };
}

/**
 * Where output voxel o of an axis reads (trilinear, along that axis): input
 * index i0, i1 and weights w0, w1 for x = (o + 0.5) * target / spacing - 0.5,
 * clamped to [0, n - 1].
 */
function linearTaps(n, nOut, spacing, target) {
  const i0 = new Int32Array(nOut);
  const i1 = new Int32Array(nOut);
  const w0 = new Float64Array(nOut);
  const w1 = new Float64Array(nOut);
  for (let o = 0; o < nOut; o++) {
    let x = ((o + 0.5) * target) / spacing - 0.5;
    x = x < 0 ? 0 : Math.min(x, n - 1);
    const a = Math.min(Math.floor(x), n - 1);
    i0[o] = a;
    i1[o] = Math.min(a + 1, n - 1);
    w1[o] = x - a;
    w0[o] = 1 - w1[o];
  }
  return { i0, i1, w0, w1 };
}

/** v (shape, C order) resampled along `axis` to nOut voxels: v[i0] * w0 + v[i1] * w1, in float64. */
function resampleAxis(v, shape, axis, taps, nOut) {
  const n = shape[axis];
  const outer = axis === 0 ? 1 : axis === 1 ? shape[0] : shape[0] * shape[1];
  const inner = axis === 0 ? shape[1] * shape[2] : axis === 1 ? shape[2] : 1;
  const out = new Float64Array(outer * nOut * inner);
  const { i0, i1, w0, w1 } = taps;
  for (let p = 0; p < outer; p++) {
    for (let o = 0; o < nOut; o++) {
      const a = (p * n + i0[o]) * inner;
      const b = (p * n + i1[o]) * inner;
      const c = (p * nOut + o) * inner;
      const wa = w0[o];
      const wb = w1[o];
      for (let k = 0; k < inner; k++) out[c + k] = v[a + k] * wa + v[b + k] * wb;
    }
  }
  const next = shape.slice();
  next[axis] = nOut;
  return { v: out, shape: next };
}

/** Documented at transforms.VolumeSegmentation (web/declarations/transforms.d.ts). */
export class VolumeSegmentation {
  /**
   * @param {{orientation?: 'RAS', spacing?: number[], intensity?: {kind: 'quantile', low: number, high: number}}} [options]
   */
  constructor(options = {}) {
    const o = volumeSegmentationOptions(options);
    this.orientation = o.orientation;
    this.spacing = o.spacing;
    this.intensity = o.intensity;
    Object.freeze(this);
  }

  /**
   * Documented at transforms.VolumeSegmentation.grid (web/declarations/transforms.d.ts).
   * @param {any} volume
   */
  grid(volume) {
    const v = readVolume(volume, 'VolumeSegmentation.grid(volume)');
    return this.#grid(v, 'VolumeSegmentation.grid(volume)');
  }

  #grid(v, ctx) {
    const { from, flip, spacing } = rasOrientation(v.affine, ctx);
    const rasShape = from.map((d) => v.dims[d]);
    const resampled = spacing.map((s, a) => Math.abs(s - this.spacing[a]) > SPACING_TOLERANCE);
    const shape = rasShape.map((n, a) =>
      resampled[a] ? Math.max(1, Math.floor((n * spacing[a]) / this.spacing[a] + 0.5)) : n,
    );
    // Every volume the steps hold (the resampled one and each axis on the way) is bounded, before any is allocated.
    const sizes = [0, 1, 2, 3].map((k) =>
      shape
        .slice(0, k)
        .concat(rasShape.slice(k))
        .reduce((p, n) => p * n, 1),
    );
    if (!shape.every((n) => n <= MAX_SIDE) || sizes.some((n) => n > MAX_VOXELS)) {
      throw new RangeError(
        `${ctx}: resampled to ${this.spacing.join('x')} mm the volume (${rasShape.join('x')} voxels) would be ${shape.join('x')}: a step would hold more than ${MAX_VOXELS} voxels`,
      );
    }
    return {
      shape,
      rasShape,
      from,
      flip,
      spacing,
      resampled,
      affine: this.#gridAffine(v.affine, from, flip, rasShape, spacing, resampled),
    };
  }

  // The model grid's voxel-to-world affine: the stored affine's columns permuted, negated where flipped
  // (the origin moved to the far end), scaled by t / s where resampled (the origin moved by half a voxel of each).
  #gridAffine(A, from, flip, rasShape, spacing, resampled) {
    const out = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    for (let r = 0; r < 3; r++) {
      let origin = A[4 * r + 3];
      for (let a = 0; a < 3; a++) {
        let col = A[4 * r + from[a]];
        if (flip[a]) {
          origin = origin + col * (rasShape[a] - 1);
          col = -col;
        }
        if (resampled[a]) {
          const k = this.spacing[a] / spacing[a];
          origin = origin + col * (0.5 * k - 0.5);
          col = col * k;
        }
        out[4 * r + a] = col;
      }
      out[4 * r + 3] = origin;
    }
    return out;
  }

  /**
   * Documented at transforms.VolumeSegmentation.forward (web/declarations/transforms.d.ts).
   * @param {any} volume
   */
  forward(volume) {
    const ctx = 'VolumeSegmentation.forward(volume)';
    const vol = readVolume(volume, ctx);
    const g = this.#grid(vol, ctx);
    // Steps 1 and 2: scaled values in RAS order (C order, the last axis fastest).
    const strides = [1, vol.dims[0], vol.dims[0] * vol.dims[1]];
    const tables = [0, 1, 2].map((a) => {
      const n = g.rasShape[a];
      const t = new Float64Array(n);
      for (let o = 0; o < n; o++) t[o] = strides[g.from[a]] * (g.flip[a] ? n - 1 - o : o);
      return t;
    });
    const [X, Y, Z] = g.rasShape;
    const raw = vol.data.slice(); // one copy: a shared buffer cannot change under us
    let v = new Float64Array(vol.numel);
    for (let x = 0, at = 0; x < X; x++) {
      for (let y = 0; y < Y; y++) {
        const base = tables[0][x] + tables[1][y];
        for (let z = 0; z < Z; z++, at++) {
          const r = raw[base + tables[2][z]];
          v[at] = vol.slope === null ? r : r * vol.slope + vol.inter;
        }
      }
    }
    for (let i = 0; i < v.length; i++) {
      if (!Number.isFinite(v[i]))
        throw new RangeError(`${ctx}: the volume holds a non-finite value (${v[i]}) after scaling`);
    }
    // Step 3: each axis that is not at the target spacing, X then Y then Z.
    let shape = g.rasShape;
    for (let a = 0; a < 3; a++) {
      if (!g.resampled[a]) continue;
      const taps = linearTaps(shape[a], g.shape[a], g.spacing[a], this.spacing[a]);
      ({ v, shape } = resampleAxis(v, shape, a, taps, g.shape[a]));
    }
    // Step 4: quantiles of every voxel, then (x - lo) / (hi - lo) clamped to [0, 1].
    const sorted = Float64Array.from(v).sort();
    const n = sorted.length;
    const lo = sorted[Math.floor(this.intensity.low * (n - 1))];
    const hi = sorted[Math.floor(this.intensity.high * (n - 1))];
    const out = new Float32Array(n);
    if (hi > lo) {
      const range = hi - lo;
      for (let i = 0; i < n; i++) {
        const r = (v[i] - lo) / range;
        out[i] = r > 0 ? Math.min(r, 1) : 0;
      }
    }
    return { data: out, shape: [1, 1, ...shape] };
  }

  /**
   * Documented at transforms.VolumeSegmentation.labels (web/declarations/transforms.d.ts).
   * @param {any} logits
   * @param {any} volume
   */
  labels(logits, volume) {
    const ctx = 'VolumeSegmentation.labels(logits, volume)';
    const vol = readVolume(volume, ctx);
    const g = this.#grid(vol, ctx);
    checkNotRevoked(logits, 'logits', ctx);
    if (logits === null || typeof logits !== 'object')
      throw new TypeError(`${ctx}: logits must be a float tensor {data, shape}, got ${describe(logits)}`);
    const { data, shape } = logits;
    if (typedArrayKind(data) !== 'Float32Array')
      throw new TypeError(`${ctx}: logits.data must be a Float32Array, got ${describe(data)}`);
    const [X, Y, Z] = g.shape;
    if (
      !Array.isArray(shape) ||
      shape.length !== 5 ||
      shape[0] !== 1 ||
      shape[2] !== X ||
      shape[3] !== Y ||
      shape[4] !== Z
    ) {
      throw new RangeError(
        `${ctx}: logits must be [1, C, ${X}, ${Y}, ${Z}] (the model's output on forward(volume)), got ${describe(shape)}`,
      );
    }
    const C = shape[1];
    if (!Number.isInteger(C) || C < 1 || C > 256)
      throw new RangeError(`${ctx}: logits must have 1 to 256 classes (uint8 labels), got ${C}`);
    const plane = X * Y * Z;
    if (lengthOf(data) !== C * plane)
      throw new RangeError(`${ctx}: logits.data holds ${lengthOf(data)} values, the shape needs ${C * plane}`);
    const f = data.slice();
    // Step 5: argmax over classes, the first maximum winning and NaN above all (torch.argmax).
    const label = new Uint8Array(plane);
    for (let i = 0; i < plane; i++) {
      let best = f[i];
      let k = 0;
      if (!Number.isNaN(best)) {
        for (let c = 1; c < C; c++) {
          const x = f[c * plane + i];
          if (Number.isNaN(x)) {
            k = c;
            break;
          }
          if (x > best) {
            best = x;
            k = c;
          }
        }
      }
      label[i] = k;
    }
    // Back to the stored grid: the nearest output voxel (the one holding the input voxel's centre), unflipped, untransposed.
    const outStrides = [Y * Z, Z, 1];
    const tables = /** @type {Int32Array[]} */ ([null, null, null]);
    for (let a = 0; a < 3; a++) {
      const d = g.from[a];
      const n = vol.dims[d];
      const t = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const r = g.flip[a] ? n - 1 - i : i;
        const o = g.resampled[a]
          ? Math.min(g.shape[a] - 1, Math.floor(((r + 0.5) * g.spacing[a]) / this.spacing[a]))
          : r;
        t[i] = outStrides[a] * o;
      }
      tables[d] = t;
    }
    const [nx, ny, nz] = vol.dims;
    const out = new Uint8Array(vol.numel);
    for (let k = 0, at = 0; k < nz; k++) {
      for (let j = 0; j < ny; j++) {
        const base = tables[2][k] + tables[1][j];
        for (let i = 0; i < nx; i++, at++) out[at] = label[base + tables[0][i]];
      }
    }
    return {
      ...vol.header,
      dims: vol.dims,
      datatype: 'uint8',
      data: out,
      affine: vol.affine,
      sclSlope: 0,
      sclInter: 0,
      littleEndian: true,
    };
  }

  /** The options as the exporter writes them into a model file's metadata. */
  toJSON() {
    return {
      transform: 'VolumeSegmentation',
      orientation: this.orientation,
      spacing: [...this.spacing],
      intensity: { ...this.intensity },
    };
  }
}
