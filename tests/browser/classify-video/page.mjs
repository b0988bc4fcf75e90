// classifyVideo on a page, with a model in the library's worker: a Blob of
// the committed clip (tests/golden/clip.webm), the same clip in a <video>
// element, and a MediaStream (a canvas's captureStream, redrawn with a
// counter) sampled live; io.readVideoFrames of each, whose frames the Node.js
// side preprocesses and runs itself. Also what a file that is no video and a
// <video> without a source answer. Reports all of it (frames as base64).
import * as Q from '../../../web/src/index.browser.mjs';

const params = new URLSearchParams(location.search);

async function report(value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'classify-video', value }) });
}

function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
const plainFrames = (frames) => frames.map((f) => ({ width: f.width, height: f.height, b64: base64(f.data) }));
const message = (promise) =>
  promise.then(
    () => 'resolved',
    (e) => e.message,
  );

// A canvas redrawn 60 times a second with its frame number as a grey level: a live stream.
function liveCanvas() {
  const canvas = document.getElementById('canvas');
  const c2d = canvas.getContext('2d');
  let n = 0;
  const draw = () => {
    c2d.fillStyle = `rgb(${n % 256}, ${(n * 3) % 256}, 90)`;
    c2d.fillRect(0, 0, canvas.width, canvas.height);
    n++;
  };
  draw();
  const timer = setInterval(draw, 1000 / 60);
  return { stream: canvas.captureStream(30), stop: () => clearInterval(timer) };
}

try {
  const model = await Q.io.loadModel(params.get('model'), { worker: true });
  const blob = await (await fetch('/tests/golden/clip.webm')).blob();
  const fromBlob = await Q.classifyVideo(model, blob, { topk: 5 });
  const blobClip = await Q.io.readVideoFrames(blob);
  // The frames read here, classified as they are: a second decode of the same
  // clip may differ from classifyVideo's own in a few pixels.
  const fromBlobFrames = await Q.classifyVideo(model, blobClip.frames, { topk: 5 });
  const video = document.getElementById('video');
  const fromElement = await Q.classifyVideo(model, video, { topk: 5 });
  const elementClip = await Q.io.readVideoFrames(video);
  const fromElementFrames = await Q.classifyVideo(model, elementClip.frames, { topk: 5 });
  const elementLeftAlone = { paused: video.paused, currentTime: video.currentTime };
  const live = liveCanvas();
  let fromStream;
  let streamClip;
  try {
    fromStream = await Q.classifyVideo(model, live.stream, { topk: 400 });
    streamClip = await Q.io.readVideoFrames(live.stream, { frameCount: 16, frameRate: 15 });
  } finally {
    live.stop();
  }
  const notVideo = await message(Q.classifyVideo(model, new Blob(['not a video at all'], { type: 'video/webm' })));
  const noSource = await message(Q.classifyVideo(model, document.createElement('video')));
  const silent = new MediaStream();
  const noTrack = await message(Q.classifyVideo(model, silent));
  model.dispose();
  await report({
    fromBlob,
    fromBlobFrames,
    fromElement,
    fromElementFrames,
    fromStream,
    blobClip: { times: blobClip.times, duration: blobClip.duration, frames: plainFrames(blobClip.frames) },
    elementClip: { times: elementClip.times, frames: plainFrames(elementClip.frames) },
    elementLeftAlone,
    streamClip: {
      times: streamClip.times,
      frames: streamClip.frames.map((f) => ({
        width: f.width,
        height: f.height,
        first: Array.from(f.data.subarray(0, 4)),
      })),
      trackLive: live.stream.getVideoTracks()[0].readyState,
    },
    notVideo,
    noSource,
    noTrack,
  });
} catch (e) {
  await report({ error: `${e?.message ?? e}\n${e?.stack ?? ''}` });
}
