// Frames for a video model from what a browser can decode: a video file (any
// format the browser plays) or the camera. A clip of `count` frames is taken
// at `frameRate` frames per second (torchvision's Kinetics clips: 16 frames
// at 15 fps) from the middle of the video, or spread over the whole of a
// shorter one; each frame is read at the video's own size (the model's
// preprocessing resizes and crops it). Returns {frames: ImageData[], times}.

function once(target, event, what) {
  return new Promise((resolve, reject) => {
    const ok = () => {
      target.removeEventListener('error', bad);
      resolve();
    };
    const bad = () => {
      target.removeEventListener(event, ok);
      const code = target.error?.code;
      reject(new Error(`${what}: the browser cannot decode this video${code ? ` (media error ${code})` : ''}`));
    };
    target.addEventListener(event, ok, { once: true });
    target.addEventListener('error', bad, { once: true });
  });
}

// After 'seeked', WebKit (GStreamer) may still paint the previous frame for a
// moment on a busy machine: wait until the element has the new frame's data,
// then two animation frames (the video frame callback would be exact, but
// Chromium and Firefox do not call it for a paused seek).
async function framePresented(video) {
  if (video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) await once(video, 'loadeddata', 'decoding a frame');
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

function grab(video, canvas) {
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(video, 0, 0, canvas.width, canvas.height);
  return ctx.getImageData(0, 0, canvas.width, canvas.height);
}

/** The times (seconds) of a clip's frames: frame centres at frameRate, centred in the video. */
export function clipTimes(duration, count, frameRate) {
  const step = duration * frameRate >= count ? 1 / frameRate : duration / count;
  const start = (duration - step * count) / 2;
  return Array.from({ length: count }, (_, i) => start + (i + 0.5) * step);
}

/** A clip from a video file (a File or Blob) or URL. */
export async function framesFromVideo(source, count, frameRate = 15) {
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.preload = 'auto';
  const url = typeof source === 'string' ? source : URL.createObjectURL(source);
  try {
    video.src = url;
    await once(video, 'loadeddata', 'loading the video');
    if (!(video.duration > 0) || !Number.isFinite(video.duration) || video.videoWidth === 0) {
      throw new Error('loading the video: it has no frames or no known duration');
    }
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const times = clipTimes(video.duration, count, frameRate);
    const frames = [];
    for (const t of times) {
      video.currentTime = t;
      await once(video, 'seeked', `seeking to ${t.toFixed(2)} s`);
      await framePresented(video);
      frames.push(grab(video, canvas));
    }
    return { frames, times, duration: video.duration };
  } finally {
    video.removeAttribute('src');
    video.load();
    if (typeof source !== 'string') URL.revokeObjectURL(url);
  }
}

/** A clip from the camera (where the page may use it: https or localhost, and the user allows it). */
export async function framesFromCamera(count, frameRate = 15) {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new Error('the camera: this browser offers none to this page (it needs https or localhost)');
  }
  const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
  const video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  try {
    video.srcObject = stream;
    await video.play();
    const canvas = document.createElement('canvas');
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const frames = [];
    const times = [];
    const t0 = performance.now();
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / frameRate;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      times.push((performance.now() - t0) / 1000);
      frames.push(grab(video, canvas));
    }
    return { frames, times, duration: times[times.length - 1] };
  } finally {
    for (const track of stream.getTracks()) track.stop();
    video.srcObject = null;
  }
}
