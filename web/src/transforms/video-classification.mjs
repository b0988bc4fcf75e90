// torchvision's video preprocessing (torchvision.transforms._presets.
// VideoClassification, what `R3D_18_Weights.KINETICS400_V1.transforms()`
// returns) in JavaScript: frames in, the model's float input out, with
// torchvision's numbers. Pure JavaScript: works before init(), in a worker,
// in Node.js (where frames come from any decoder) and in browsers (ImageData
// from a <canvas>).
//
// torchvision, per frame (uint8, T x C x H x W): F.resize(size, bilinear,
// antialias=False) - computed in float32 by PyTorch's upsample_bilinear2d,
// then rounded half to even back to uint8; F.center_crop (zero padding when
// the crop is larger); convert_image_dtype (/ 255); normalize ((x - mean) /
// std, float32); then (T, C, H, W) -> (C, T, H, W) with a batch of 1.

import { linearAxis } from '../nn/interpolate.mjs';
import { bytesOf, checkNotRevoked, describe, lengthOf, MAX_NUMEL, typedArrayKind } from '../runtime/args.mjs';
import { fma32, roundHalfEven } from '../runtime/float32.mjs';
import { KINETICS_MEAN, KINETICS_STD, MAX_SIDE, videoClassificationOptions } from './video-options.mjs';

export { KINETICS_MEAN, KINETICS_STD };

/** torchvision's Kinetics-400 normalisation (the default of VideoClassification). */
const MAX_FRAMES = 4096;
// One frame at most 2^26 pixels (an 8K frame is 2^25): frames are copied one at
// a time, so this bounds the copy, and the crop bounds the work.
const MAX_FRAME_PIXELS = 2 ** 26;

// Where output row/column o of the crop reads in the resized image, or -1 for
// the zero padding F.center_crop adds when the crop is larger than the image.
function cropAxis(size, crop) {
  const from = new Int32Array(crop);
  if (crop > size) {
    const before = Math.floor((crop - size) / 2);
    for (let o = 0; o < crop; o++) from[o] = o - before >= 0 && o - before < size ? o - before : -1;
  } else {
    const offset = roundHalfEven((size - crop) / 2); // Python's round(), as torchvision
    for (let o = 0; o < crop; o++) from[o] = o + offset;
  }
  return from;
}

/** torchvision's _compute_resized_output_size: [h, w], or the shorter side for one size. */
function resizedSize(height, width, size) {
  if (size.length === 2) return size;
  const [short, long] = width <= height ? [width, height] : [height, width];
  const newLong = Math.trunc((size[0] * long) / short);
  return width <= height ? [newLong, size[0]] : [size[0], newLong];
}

/**
 * The frames checked, nothing copied yet: {data (the caller's array), width,
 * height, channels} of one size each. forward() copies one frame at a time.
 */
function readFrames(frames, ctx) {
  checkNotRevoked(frames, 'frames', ctx);
  if (!Array.isArray(frames)) throw new TypeError(`${ctx}: frames must be an array of frames, got ${describe(frames)}`);
  const count = frames.length;
  if (!Number.isInteger(count) || count < 1 || count > MAX_FRAMES) {
    throw new RangeError(`${ctx}: frames must hold 1 to ${MAX_FRAMES} frames, got ${describe(count)}`);
  }
  const out = [];
  for (let t = 0; t < count; t++) {
    const name = `frames[${t}]`;
    const f = frames[t];
    checkNotRevoked(f, name, ctx);
    if (f === null || typeof f !== 'object') {
      throw new TypeError(`${ctx}: ${name} must be {data, width, height} (e.g. an ImageData), got ${describe(f)}`);
    }
    const { data, width, height } = f;
    for (const [key, v] of [
      ['width', width],
      ['height', height],
    ]) {
      if (!Number.isInteger(v) || v < 1 || v > MAX_SIDE) {
        throw new RangeError(`${ctx}: ${name}.${key} must be an integer from 1 to ${MAX_SIDE}, got ${describe(v)}`);
      }
    }
    const pixels = width * height;
    if (pixels > MAX_FRAME_PIXELS) {
      throw new RangeError(`${ctx}: ${name} is ${width}x${height}, above ${MAX_FRAME_PIXELS} pixels`);
    }
    const kind = typedArrayKind(data);
    if (kind !== 'Uint8Array' && kind !== 'Uint8ClampedArray') {
      throw new TypeError(`${ctx}: ${name}.data must be a Uint8Array or Uint8ClampedArray, got ${describe(data)}`);
    }
    bytesOf(data, `${name}.data`, ctx); // refuses a detached buffer
    const length = lengthOf(data);
    const channels = length / pixels;
    if (channels !== 3 && channels !== 4) {
      throw new RangeError(
        `${ctx}: ${name}.data has ${length} bytes; a ${width}x${height} frame needs ${pixels * 3} (RGB) or ${pixels * 4} (RGBA)`,
      );
    }
    if (t > 0 && (width !== out[0].width || height !== out[0].height)) {
      throw new RangeError(
        `${ctx}: ${name} is ${width}x${height} but frames[0] is ${out[0].width}x${out[0].height}: every frame must have one size`,
      );
    }
    out.push({ data, width, height, channels, length });
  }
  return out;
}

/** Documented at transforms.VideoClassification (web/declarations/transforms.d.ts). */
export class VideoClassification {
  /**
   * @param {{cropSize: number | number[], resizeSize: number | number[], mean?: number[], std?: number[], interpolation?: 'bilinear'}} options
   */
  constructor(options) {
    const o = videoClassificationOptions(options);
    this.cropSize = o.cropSize;
    this.resizeSize = o.resizeSize;
    this.mean = o.mean;
    this.std = o.std;
    this.interpolation = o.interpolation;
    Object.freeze(this);
  }

  /**
   * Documented at transforms.VideoClassification.forward (web/declarations/transforms.d.ts).
   * @param {{data: Uint8Array | Uint8ClampedArray, width: number, height: number}[]} frames
   */
  forward(frames) {
    const ctx = 'VideoClassification.forward(frames)';
    const list = readFrames(frames, ctx);
    const C = 3; // RGB; one mean or std value is for all three, as torchvision broadcasts it
    const mean = [0, 1, 2].map((c) => Math.fround(this.mean[this.mean.length === 1 ? 0 : c]));
    const std = [0, 1, 2].map((c) => Math.fround(this.std[this.std.length === 1 ? 0 : c]));
    const { width, height } = list[0];
    const [rh, rw] = resizedSize(height, width, this.resizeSize);
    if (rh > MAX_SIDE || rw > MAX_SIDE) {
      throw new RangeError(`${ctx}: a ${width}x${height} frame resizes to ${rw}x${rh}, above ${MAX_SIDE}`);
    }
    const [ch, cw] = this.cropSize;
    const T = list.length;
    const numel = C * T * ch * cw;
    if (numel > MAX_NUMEL)
      throw new RangeError(`${ctx}: the output would hold ${numel} elements, at most ${MAX_NUMEL}`);
    // One axis each of upsample_bilinear2d's generic kernel (align_corners=False, no scale given).
    const rows = linearAxis(height, rh, null, false, false);
    const cols = linearAxis(width, rw, null, false, false);
    const cropRows = cropAxis(rh, ch);
    const cropCols = cropAxis(rw, cw);
    const out = new Float32Array(numel);
    // (b / 255 - mean) / std for each byte and channel, each step in float32 as torchvision's tensors
    const fromByte = new Float32Array(256 * C);
    for (let c = 0; c < C; c++) {
      for (let b = 0; b < 256; b++) {
        fromByte[c * 256 + b] = Math.fround(Math.fround(Math.fround(b / 255) - mean[c]) / std[c]);
      }
    }
    let scratch = null; // one frame's bytes at a time: a shared buffer cannot change under us
    for (let t = 0; t < T; t++) {
      const { channels, length } = list[t];
      const view = bytesOf(list[t].data, `frames[${t}].data`, ctx);
      // A getter of a later frame can resize this frame's resizable ArrayBuffer
      // (a length-tracking view follows it; a fixed one falls out of bounds):
      // refused, as a detached one is, instead of reading past its end (NaN).
      if (view.length !== length) {
        throw new TypeError(
          `${ctx}: frames[${t}].data changed size while the frames were read (its resizable ArrayBuffer was resized): ${length} bytes were checked, it has ${view.length} now`,
        );
      }
      if (scratch === null || scratch.length !== view.length) scratch = new Uint8Array(view.length);
      scratch.set(view);
      const data = scratch;
      const at = (y, x, c) => data[(y * width + x) * channels + c];
      for (let c = 0; c < C; c++) {
        const zero = fromByte[c * 256];
        const plane = (c * T + t) * ch * cw;
        for (let oy = 0; oy < ch; oy++) {
          const y = cropRows[oy];
          for (let ox = 0; ox < cw; ox++) {
            const x = cropCols[ox];
            if (y < 0 || x < 0) {
              out[plane + oy * cw + ox] = zero;
              continue;
            }
            // upsample_bilinear2d's generic kernel: each row t0 * w0 + t1 * w1, then the
            // same across rows, compiled to fma(t0, w0, t1 * w1).
            const c0 = cols.i0[x];
            const c1 = cols.i1[x];
            const w0 = cols.l0[x];
            const w1 = cols.l1[x];
            const r0 = rows.i0[y];
            const r1 = rows.i1[y];
            const top = fma32(at(r0, c0, c), w0, Math.fround(at(r0, c1, c) * w1));
            const bottom = fma32(at(r1, c0, c), w0, Math.fround(at(r1, c1, c) * w1));
            const v = fma32(top, rows.l0[y], Math.fround(bottom * rows.l1[y]));
            const byte = Math.min(Math.max(roundHalfEven(v), 0), 255);
            out[plane + oy * cw + ox] = fromByte[c * 256 + byte];
          }
        }
      }
    }
    return { data: out, shape: [1, C, T, ch, cw] };
  }

  /** The options as the exporter writes them into a model file's metadata. */
  toJSON() {
    return {
      transform: 'VideoClassification',
      crop_size: [...this.cropSize],
      resize_size: [...this.resizeSize],
      mean: [...this.mean],
      std: [...this.std],
      interpolation: this.interpolation,
    };
  }
}
