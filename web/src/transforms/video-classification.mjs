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

import { fma32, roundHalfEven } from '../nn/float32.mjs';
import {
  bytesOf,
  checkNotRevoked,
  describe,
  lengthOf,
  MAX_NUMEL,
  readNumberList,
  readOptions,
  typedArrayKind,
} from '../runtime/args.mjs';

/** torchvision's Kinetics-400 normalisation (the default of VideoClassification). */
export const KINETICS_MEAN = Object.freeze([0.43216, 0.394666, 0.37645]);
export const KINETICS_STD = Object.freeze([0.22803, 0.22145, 0.216989]);
const MAX_SIDE = 16384;
const MAX_FRAMES = 4096;
// One frame at most 2^26 pixels (an 8K frame is 2^25): frames are copied one at
// a time, so this bounds the copy, and the crop bounds the work.
const MAX_FRAME_PIXELS = 2 ** 26;
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

// One axis of upsample_bilinear2d (align_corners=False, no scale given), as
// PyTorch's generic CPU kernel computes it in float32 (aten/src/ATen/native/
// UpSample.h: area_pixel_compute_source_index, guard_index_and_lambda).
function bilinearAxis(inSize, outSize) {
  const index0 = new Int32Array(outSize);
  const index1 = new Int32Array(outSize);
  const lambda0 = new Float32Array(outSize);
  const lambda1 = new Float32Array(outSize);
  const scale = Math.fround(inSize / outSize);
  for (let d = 0; d < outSize; d++) {
    if (inSize === outSize) {
      index0[d] = d;
      index1[d] = d;
      lambda0[d] = 1;
      continue;
    }
    let real = Math.fround(Math.fround(scale * Math.fround(d + 0.5)) - 0.5);
    if (real < 0) real = 0;
    const i = Math.min(Math.floor(real), inSize - 1);
    const l1 = Math.min(Math.max(Math.fround(real - i), 0), 1);
    index0[d] = i;
    index1[d] = i < inSize - 1 ? i + 1 : i;
    lambda1[d] = l1;
    lambda0[d] = Math.fround(1 - l1);
  }
  return { index0, index1, lambda0, lambda1 };
}

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
    this.cropSize = Object.freeze(crop.length === 1 ? [crop[0], crop[0]] : crop);
    this.resizeSize = Object.freeze(readSize(o.get('resizeSize'), 'resizeSize', [1, 2]));
    this.mean = Object.freeze(readChannelValues(o.get('mean') ?? KINETICS_MEAN, 'mean', false));
    this.std = Object.freeze(readChannelValues(o.get('std') ?? KINETICS_STD, 'std', true));
    this.interpolation = interpolation;
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
    const rows = bilinearAxis(height, rh);
    const cols = bilinearAxis(width, rw);
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
            const c0 = cols.index0[x];
            const c1 = cols.index1[x];
            const w0 = cols.lambda0[x];
            const w1 = cols.lambda1[x];
            const r0 = rows.index0[y];
            const r1 = rows.index1[y];
            const top = fma32(at(r0, c0, c), w0, Math.fround(at(r0, c1, c) * w1));
            const bottom = fma32(at(r1, c0, c), w0, Math.fround(at(r1, c1, c) * w1));
            const v = fma32(top, rows.lambda0[y], Math.fround(bottom * rows.lambda1[y]));
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
