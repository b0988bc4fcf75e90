// A clip's frames from what a browser can decode (the browser entry hands
// this to video-clip.mjs): a video file or URL (any format the browser
// plays), an HTMLVideoElement's source, or a MediaStream (a camera). A file
// is read by a <video> element of qwasm's own, seeking to each frame's time
// (video-clip.mjs clipTimes: 16 frames at 15 fps from the middle); a stream
// is sampled live, one frame every 1 / frameRate s. Each frame is read at the
// video's own size through a canvas (ImageData, RGBA): the model's
// preprocessing resizes and crops it.
import { clipTimes } from './video-clip.mjs';

function once(target, event, what, ctx) {
  return new Promise((resolve, reject) => {
    const ok = () => {
      target.removeEventListener('error', bad);
      resolve();
    };
    const bad = () => {
      target.removeEventListener(event, ok);
      const code = target.error?.code;
      reject(new Error(`${ctx}: ${what}: the browser cannot decode this video${code ? ` (media error ${code})` : ''}`));
    };
    target.addEventListener(event, ok, { once: true });
    target.addEventListener('error', bad, { once: true });
  });
}

// After 'seeked', WebKit (GStreamer) may still paint the previous frame for a
// moment on a busy machine: wait until the element has the new frame's data,
// then two animation frames (the video frame callback would be exact, but
// Chromium and Firefox do not call it for a paused seek).
async function framePresented(video, ctx) {
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await once(video, 'loadeddata', 'decoding a frame', ctx);
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

function grab(video, canvas, ctx) {
  const c2d = canvas.getContext('2d', { willReadFrequently: true });
  c2d.drawImage(video, 0, 0, canvas.width, canvas.height);
  try {
    return c2d.getImageData(0, 0, canvas.width, canvas.height);
  } catch (e) {
    // A cross-origin video taints the canvas: its pixels cannot be read.
    throw new Error(
      `${ctx}: the video's pixels cannot be read (${e?.name ?? 'SecurityError'}): it is cross-origin without CORS; serve it with Access-Control-Allow-Origin and set crossOrigin = 'anonymous' on the <video>`,
      { cause: e },
    );
  }
}

const sameBytes = (a, b) => a.data.length === b.data.length && a.data.every((v, i) => v === b.data[i]);

// A paused video's frame, read until two reads an animation frame apart agree
// (at most 8 reads): on a busy machine the previous frame can still be painted
// after 'seeked' and two animation frames, and two reads of the same clip must
// give the same pixels.
async function settledGrab(video, canvas, ctx) {
  let frame = grab(video, canvas, ctx);
  for (let i = 0; i < 7; i++) {
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const again = grab(video, canvas, ctx);
    if (sameBytes(frame, again)) return again;
    frame = again;
  }
  return frame;
}

function canvasFor(video) {
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  return canvas;
}

function seekable(video) {
  const ranges = video.seekable;
  return ranges.length > 0 && ranges.end(ranges.length - 1) > 0;
}

async function fetchWhole(url, crossOrigin, ctx) {
  let response;
  try {
    response = await fetch(url, { credentials: crossOrigin === 'use-credentials' ? 'include' : 'same-origin' });
  } catch (e) {
    throw new Error(`${ctx}: reading ${url} (its server cannot seek in it: no Range requests): ${e?.message ?? e}`, {
      cause: e,
    });
  }
  if (!response.ok) throw new Error(`${ctx}: reading ${url}: HTTP ${response.status}`);
  return response.blob();
}

/** A clip from a video file (a Blob or File) or URL, sampled by seeking. */
async function framesFromFile(source, count, frameRate, ctx, crossOrigin = null) {
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  if (crossOrigin !== null) video.crossOrigin = crossOrigin;
  const owned = typeof source !== 'string' && !(source instanceof URL); // a Blob: its object URL is ours to revoke
  const url = owned ? URL.createObjectURL(source) : String(source);
  try {
    video.src = url;
    await once(video, 'loadeddata', 'loading the video', ctx);
    if (!(video.duration > 0) || !Number.isFinite(video.duration) || video.videoWidth === 0) {
      throw new Error(`${ctx}: loading the video: it has no frames or no known duration`);
    }
    // A server that answers no Range requests gives a video the browser cannot seek in (every seek lands
    // on the first frame): read such a URL whole, and its clip from memory, as a Blob's.
    if (!owned && !seekable(video))
      return framesFromFile(await fetchWhole(url, crossOrigin, ctx), count, frameRate, ctx);
    const canvas = canvasFor(video);
    const times = clipTimes(video.duration, count, frameRate);
    const frames = [];
    for (const t of times) {
      video.currentTime = t;
      await once(video, 'seeked', `seeking to ${t.toFixed(2)} s`, ctx);
      await framePresented(video, ctx);
      frames.push(await settledGrab(video, canvas, ctx));
    }
    return { frames, times, duration: video.duration };
  } finally {
    video.removeAttribute('src');
    video.load();
    if (owned) URL.revokeObjectURL(url);
  }
}

/** A clip sampled live from a stream: `count` frames, 1 / frameRate s apart, from now. Its tracks keep running. */
async function framesFromStream(stream, count, frameRate, ctx) {
  if (stream.getVideoTracks().length === 0) throw new Error(`${ctx}: the MediaStream has no video track`);
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  try {
    video.srcObject = stream;
    await video.play();
    if (video.videoWidth === 0) await once(video, 'resize', 'starting the stream', ctx);
    const canvas = canvasFor(video);
    const frames = [];
    const times = [];
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / frameRate;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      times.push((performance.now() - t0) / 1000);
      frames.push(grab(video, canvas, ctx));
    }
    return { frames, times, duration: times[times.length - 1] };
  } finally {
    video.pause();
    video.srcObject = null;
  }
}

/** An element's clip: from its stream or its file, read by a video element of our own (its playback is left alone). */
function framesFromElement(element, count, frameRate, ctx) {
  const object = element.srcObject;
  if (object instanceof MediaStream) return framesFromStream(object, count, frameRate, ctx);
  if (object instanceof Blob) return framesFromFile(object, count, frameRate, ctx);
  const src = element.currentSrc || element.src;
  if (!src) throw new Error(`${ctx}: the <video> element has no source (no src and no srcObject)`);
  return framesFromFile(src, count, frameRate, ctx, element.crossOrigin);
}

/**
 * The browser's video reader (video-clip.mjs setVideoReader).
 * @type {import('./video-clip.mjs').VideoReader}
 */
export async function readVideo(kind, source, count, frameRate, ctx) {
  if (kind === 'stream') return framesFromStream(source, count, frameRate, ctx);
  if (kind === 'element') return framesFromElement(source, count, frameRate, ctx);
  return framesFromFile(source, count, frameRate, ctx);
}
