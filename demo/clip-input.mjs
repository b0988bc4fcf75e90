// The Model view's input: a synthetic clip, or one sampled from a video file
// or the camera by the library (io.readVideoFrames: 16 frames at 15 fps from
// the middle, as torchvision's Kinetics clips; the camera live) and
// preprocessed in the model's worker as its file records
// (model.preprocess(frames): torchvision's VideoClassification, e.g. resize
// to 128x171, crop 112x112, Kinetics mean and std); and the top-5 classes of
// an output, int8 (classifyVideo's for a video) beside float.
import * as qwasm from 'qwasm';
import { onFileChosen } from './file-input.mjs';
import { syntheticClip } from './random.mjs';
import { top5 } from './top5.mjs';

const $ = (id) => document.getElementById(id);
const FRAME_RATE = 15; // torchvision's Kinetics clips: 16 frames at 15 fps
const SAMPLE_VIDEO = new URL('../tests/golden/clip.webm', import.meta.url);
const FILMSTRIP_HEIGHT = 112; // pixels of each filmstrip frame (CSS shows them at 56)

// The clip chosen: synthetic, or a video's / the camera's frames (sampled again when a model wants another count).
const clip = { kind: 'synthetic', name: 'the synthetic clip', video: null, frames: null, times: null };
let synthetic = null; // {key, clip}: the synthetic clip of the last shape

/**
 * How frames become this model's input: its recorded preprocessing (transform null: the worker reads the
 * file's record), else torchvision's Kinetics recipe scaled to its input.
 */
export function transformFor(model) {
  if (model.preprocessing?.cropSize !== undefined) {
    return { transform: null, cropSize: model.preprocessing.cropSize, how: "the file's preprocessing" };
  }
  if (model.preprocessing !== null)
    throw new Error("this model's file records a volume's preprocessing, not a video's");
  if (model.inputShape === null) {
    throw new Error(
      'this model file records neither its preprocessing nor its input shape: export it with preprocessing=',
    );
  }
  const [, , , h, w] = model.inputShape;
  const resizeSize = [Math.round((h * 128) / 112), Math.round((w * 171) / 112)];
  return {
    transform: new qwasm.transforms.VideoClassification({ cropSize: [h, w], resizeSize }),
    cropSize: [h, w],
    how: 'Kinetics-400 normalisation (the file records no preprocessing)',
  };
}

function frameCount(model) {
  return model.inputShape?.[2] ?? 16;
}

/**
 * The model's input for the chosen clip, a sentence saying what it is, and for a video's clip its frames and
 * the transform they take (null: the file's).
 */
export async function clipInput(model) {
  const shape = model.inputShape ?? [1, 3, 16, 112, 112];
  if (clip.kind === 'synthetic') {
    // Built once per shape (600k values: tens of ms on the page's thread), copied for each run (the worker takes its buffer).
    const key = shape.join(',');
    if (synthetic?.key !== key) synthetic = { key, clip: syntheticClip(shape) };
    return { x: { data: synthetic.clip.data.slice(), shape }, caption: 'the synthetic clip', frames: null };
  }
  if (shape.length !== 5)
    throw new Error(`this model's input is [${shape.join(', ')}], not a video clip (N, C, T, H, W)`);
  const count = frameCount(model);
  if (count < 1) throw new Error(`this model's input has ${count} frames`);
  let { name, frames, times } = clip;
  if (frames === null || frames.length !== count) {
    if (clip.kind === 'camera') throw new Error('the camera clip has another frame count: record it again');
    const video = clip.video;
    ({ frames, times } = await qwasm.io.readVideoFrames(video, { frameCount: count, frameRate: FRAME_RATE }));
    // Kept only if this is still the chosen clip (another may have been chosen meanwhile).
    if (clip.video === video) {
      Object.assign(clip, { frames, times });
      drawFilmstrip();
    }
  }
  const { transform, cropSize, how } = transformFor(model);
  const { width, height } = frames[0];
  const [ch, cw] = cropSize;
  // Preprocessed in the model's worker: the page's thread only decoded the frames.
  const x = await model.preprocess(frames, transform === null ? {} : { transform });
  return {
    x,
    frames,
    transform,
    caption: `${name}: ${count} frames of ${width}x${height} at ${times.map((t) => t.toFixed(2)).join(', ')} s, resized and cropped to ${cw}x${ch} with ${how}`,
  };
}

function drawFilmstrip() {
  const strip = $('m-filmstrip');
  strip.replaceChildren();
  if (clip.frames === null) return;
  // Each frame drawn at filmstrip size (a 4K frame's full-size canvas would hold 33 MB).
  const full = document.createElement('canvas');
  full.width = clip.frames[0].width;
  full.height = clip.frames[0].height;
  for (const [i, f] of clip.frames.entries()) {
    full.getContext('2d').putImageData(f, 0, 0);
    const canvas = document.createElement('canvas');
    canvas.height = Math.min(FILMSTRIP_HEIGHT, f.height);
    canvas.width = Math.max(1, Math.round((f.width * canvas.height) / f.height));
    canvas.getContext('2d').drawImage(full, 0, 0, canvas.width, canvas.height);
    canvas.title = `frame ${i} at ${clip.times[i].toFixed(2)} s`;
    strip.append(canvas);
  }
}

function setClip(next, model) {
  Object.assign(clip, { video: null, frames: null, times: null }, next);
  drawFilmstrip();
  $('m-clip-caption').textContent = `Input: ${clip.name}${clip.frames ? ` (${clip.frames.length} frames)` : ''}.`;
  $('m-top5').hidden = true;
  return model;
}

/**
 * Fills the top-5 table: int8 (always: classifyVideo's classes for a video, else the output's) and float
 * (when the float twin ran).
 */
export function showTop5(int8, float, classes, classified = null) {
  const a = classified?.map((c) => ({ index: c.index, name: c.label, p: c.probability })) ?? top5(int8, classes);
  const b = float === null ? null : top5(float, classes);
  const body = $('m-top5').tBodies[0];
  body.replaceChildren();
  for (let r = 0; r < 5 && r < a.length; r++) {
    const tr = body.insertRow();
    const cells = [String(r + 1), a[r].name, a[r].p.toFixed(4)];
    cells.push(b ? b[r].name : '', b ? b[r].p.toFixed(4) : '');
    for (const c of cells) tr.insertCell().textContent = c;
    tr.dataset.int8 = String(a[r].index);
    if (b) tr.dataset.float = String(b[r].index);
  }
  $('m-top5').hidden = false;
  return { int8: a, float: b };
}

/** A clip recorded from the camera (where the page may use it: https or localhost, and the user allows it). */
async function cameraClip(count, onStatus) {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new Error('the camera: this browser offers none to this page (it needs https or localhost)');
  }
  const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
  try {
    onStatus('Recording the camera…');
    return await qwasm.io.readVideoFrames(stream, { frameCount: count, frameRate: FRAME_RATE });
  } finally {
    for (const track of stream.getTracks()) track.stop();
  }
}

/** Wires the clip controls; `onClip` runs after a new clip is chosen (the view runs the model on it). */
export function setupClipInput({ currentModel, onClip, onError, onStatus }) {
  let latest = 0; // the newest choice wins over one still reading its frames
  const choose = async (kind, source, name) => {
    const ticket = ++latest;
    const model = currentModel();
    try {
      onError('');
      const count = model ? frameCount(model) : 16;
      let next = { kind, name };
      if (kind === 'video') {
        onStatus(`Reading frames of ${name}…`);
        next = {
          kind,
          name,
          video: source,
          ...(await qwasm.io.readVideoFrames(source, { frameCount: count, frameRate: FRAME_RATE })),
        };
      } else if (kind === 'camera') {
        next = { kind, name, ...(await cameraClip(count, onStatus)) };
      }
      if (ticket !== latest) return;
      setClip(next, model);
      onStatus(`Input: ${clip.name}.`);
      if (model) await onClip();
    } catch (e) {
      if (ticket !== latest) return;
      onError(e.message);
      onStatus('');
    }
  };
  onFileChosen($('m-video-file'), $('m-video-drop'), (file) => choose('video', file, file.name));
  $('m-camera').addEventListener('click', () => choose('camera', null, 'the camera'));
  // A 3.2 s generated clip (tests/golden/clip.webm), fetched whole and read from memory like a dropped file.
  $('m-sample-video').addEventListener('click', () =>
    fetch(SAMPLE_VIDEO)
      .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(`the sample video: HTTP ${r.status}`))))
      .then((blob) => choose('video', blob, 'the sample video (generated)'))
      .catch((e) => onError(e.message)),
  );
  $('m-synthetic').addEventListener('click', () => choose('synthetic', null, 'the synthetic clip'));
  return { clip, choose };
}
