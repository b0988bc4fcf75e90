// A video model's clip from a video: which frames to take (torchvision's
// Kinetics clips: 16 frames at 15 fps, from the middle of the video), what
// io.readVideoFrames and classifyVideo take as a video, and who decodes it.
// Decoding is the browser's: video-decode.mjs (a <video> element of qwasm's
// own, and a canvas for the pixels) is handed in by the browser entry
// (index.browser.mjs, setVideoReader), so the Node.js build, where nothing
// can decode a video, leaves it out and says so when asked.
import { checkNotRevoked, describe, readOptions } from '../runtime/args.mjs';

/** torchvision's Kinetics-400 clips: 16 frames at 15 frames per second. */
export const CLIP_FRAMES = 16;
export const CLIP_FRAME_RATE = 15;
// As transforms.VideoClassification's forward takes at most.
const MAX_FRAMES = 4096;

/**
 * The times (seconds) of a clip's `count` frames: frame centres `1 / frameRate`
 * apart, centred in the video; a video shorter than the clip is spread over
 * evenly instead.
 */
export function clipTimes(duration, count, frameRate) {
  const step = duration * frameRate >= count ? 1 / frameRate : duration / count;
  const start = (duration - step * count) / 2;
  return Array.from({ length: count }, (_, i) => start + (i + 0.5) * step);
}

/**
 * @typedef {'frames' | 'element' | 'blob' | 'stream' | 'url'} SourceKind
 * @typedef {(kind: SourceKind, source: any, count: number, frameRate: number, ctx: string) =>
 *   Promise<{frames: {data: Uint8ClampedArray, width: number, height: number}[], times: number[], duration: number}>} VideoReader
 */

/** @type {VideoReader | null} */
let reader = null;

/** Called once by the browser entry: how a video is decoded into frames. */
export function setVideoReader(read) {
  reader = read;
}

const isA = (name, v) => typeof globalThis[name] === 'function' && v instanceof globalThis[name];

/** What kind of video `source` is, or null for none (checked without calling any getter of the caller's). */
export function sourceKind(source, ctx) {
  checkNotRevoked(source, 'source', ctx);
  if (Array.isArray(source)) return 'frames';
  if (typeof source === 'string' || source instanceof URL) return 'url';
  if (isA('Blob', source)) return 'blob'; // a File too
  if (isA('HTMLVideoElement', source)) return 'element';
  if (isA('MediaStream', source)) return 'stream';
  return null;
}

const NAMES = {
  element: 'an HTMLVideoElement',
  blob: 'a Blob (a video file)',
  stream: 'a MediaStream',
  url: "a video's URL",
};

/** The TypeError for a source that is no video; `frames` says whether decoded frames were one. */
export function notAVideo(source, ctx, frames) {
  return new TypeError(
    `${ctx}: source must be an HTMLVideoElement, a File or Blob of a video, a MediaStream (a camera), a video's URL` +
      `${frames ? ' or an array of frames ({data, width, height}, e.g. ImageData)' : ''}, got ${describe(source)}`,
  );
}

/** {frameCount, frameRate} read from `o` (a readOptions Map), each with its default. */
export function readClipOptions(o, ctx, defaultCount = CLIP_FRAMES) {
  const count = o.get('frameCount') ?? defaultCount;
  const frameRate = o.get('frameRate') ?? CLIP_FRAME_RATE;
  for (const [name, v] of [
    ['frameCount', count],
    ['frameRate', frameRate],
  ]) {
    if (typeof v !== 'number') throw new TypeError(`${ctx}: ${name} must be a number, got ${describe(v)}`);
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_FRAMES) {
    throw new RangeError(`${ctx}: frameCount must be an integer from 1 to ${MAX_FRAMES}, got ${describe(count)}`);
  }
  if (!Number.isFinite(frameRate) || frameRate <= 0 || frameRate > 1000) {
    throw new RangeError(`${ctx}: frameRate must be a number above 0 and at most 1000, got ${describe(frameRate)}`);
  }
  return { count, frameRate };
}

/**
 * The clip of a video source of kind `kind` (not 'frames'), by the browser's
 * decoder; in Node.js an Error saying what to pass instead.
 */
export function decodeClip(kind, source, count, frameRate, ctx) {
  if (reader === null) {
    return Promise.reject(
      new Error(
        `${ctx}: ${NAMES[kind]} needs a browser to decode it (a <video> element and a canvas); in Node.js, decode the frames yourself (e.g. with ffmpeg) and pass them as an array of {data, width, height} (RGB or RGBA bytes)`,
      ),
    );
  }
  return reader(kind, source, count, frameRate, ctx);
}

/**
 * Documented at io.readVideoFrames (web/declarations/io.d.ts).
 * @param {any} source
 * @param {{frameCount?: number, frameRate?: number}} [options]
 */
export async function readVideoFrames(source, options) {
  const ctx = 'io.readVideoFrames(source)';
  const kind = sourceKind(source, ctx);
  if (kind === null || kind === 'frames') throw notAVideo(source, ctx, false);
  const { count, frameRate } = readClipOptions(readOptions(options, ['frameCount', 'frameRate'], ctx), ctx);
  return decodeClip(kind, source, count, frameRate, ctx);
}
