// classifyVideo(model, source, options) in Node.js, where the source is
// decoded frames: the answer is the steps done by hand (the file's
// transform, the model's forward) through a softmax computed here another
// way, with the file's own class names; topk; the errors for a bad model,
// source, option, or a file without what it needs. With a WorkerModel the
// frames are preprocessed in the worker (WorkerModel.preprocess): the calling
// thread's transform is never called, and the answer is the same to the bit.
// The browser's sources (a <video>, a Blob, a MediaStream) are
// tests/browser/classify-video.test.mjs's.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, KINETICS_8X8 } from '../model-files.mjs';

const { io, transforms, classifyVideo } = qwasm;
const R3D = new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url);
const r3dBytes = readFileSync(R3D);

/** `count` RGB frames of width x height, a cheap hash of (t, i) per byte: no two frames alike. */
function frames(count, width, height, seed = 1) {
  return Array.from({ length: count }, (_, t) => {
    const data = new Uint8Array(width * height * 3);
    for (let i = 0; i < data.length; i++) data[i] = Math.imul(i + 1, 2654435761 + t * 40503 + seed) >>> 24;
    return { data, width, height };
  });
}

/** Each output's softmax probability, computed as 1 / sum_j exp(l_j - l_i) (not classifyVideo's max-shifted sum). */
function probabilities(logits) {
  const l = Array.from(logits);
  return l.map((li) => 1 / l.reduce((s, lj) => s + Math.exp(lj - li), 0));
}

/** The k most probable outputs, by hand: [{index, p}], highest first, ties by index. */
function expectedTop(logits, k) {
  return probabilities(logits)
    .map((p, index) => ({ index, p }))
    .sort((a, b) => b.p - a.p || a.index - b.index)
    .slice(0, k);
}

// A tiny classifier: the clip's mean per channel as its 3 class scores ([1, 3]).
const pool = { type: 'AdaptiveAvgPool', dims: 3, output_size: [1, 1, 1] };
const flatten = { type: 'Flatten', start_dim: 1, end_dim: -1 };
const tiny = (metadata, modules = [pool, flatten]) => io.loadModel(chainModel([1, 3, 2, 8, 8], modules, {}, metadata));

// r3d_18 (an eighth of its widths) takes any number of frames: 4 of 160x120 keep each forward short.
let r3d;
let clip;
let logits; // r3d's output on clip, by hand: the file's transform, then the forward
let all; // classifyVideo(r3d, clip, { topk: 400 })
beforeAll(async () => {
  await qwasm.init();
  r3d = io.loadModel(r3dBytes);
  clip = frames(4, 160, 120);
  logits = r3d.forward(r3d.transforms().forward(clip)).data;
  all = await classifyVideo(r3d, clip, { topk: 400 });
}, 60_000);
afterAll(() => r3d?.dispose());

describe('on this thread (a GraphModule)', () => {
  test("the top 5 are the file's transform, the forward and a softmax, named by the file's metadata", async () => {
    const got = await classifyVideo(r3d, clip);
    const want = expectedTop(logits, 5);
    // The class names as the file stores them (its safetensors metadata), not through the model.
    const names = JSON.parse(io.loadSafetensors(r3dBytes).metadata.classes);
    expect(names).toHaveLength(400);
    expect(got.map((c) => [c.index, c.label])).toEqual(want.map((w) => [w.index, names[w.index]]));
    for (const [i, c] of got.entries()) expect(Math.abs(c.probability - want[i].p)).toBeLessThan(1e-12);
    expect(Object.keys(got[0]).sort()).toEqual(['index', 'label', 'probability']);
    expect(got).toEqual(all.slice(0, 5));
  }, 30_000);

  test('topk: all 400 (their probabilities sum to 1, highest first), more than there are is all of them, 1 is the top', async () => {
    expect(all).toHaveLength(400);
    expect(Math.abs(all.reduce((s, c) => s + c.probability, 0) - 1)).toBeLessThan(1e-12);
    expect(new Set(all.map((c) => c.index)).size).toBe(400);
    for (let i = 1; i < all.length; i++) expect(all[i - 1].probability).toBeGreaterThanOrEqual(all[i].probability);
    expect(all.map((c) => c.index)).toEqual(expectedTop(logits, 400).map((w) => w.index));
    expect(await classifyVideo(r3d, clip, { topk: 1000 })).toEqual(all);
    expect(await classifyVideo(r3d, clip.slice(0, 1), { topk: 1 })).toHaveLength(1);
  }, 30_000);

  test('the frames are the clip as given: frameCount and frameRate sample a video, not frames', async () => {
    const two = clip.slice(0, 2);
    const got = await classifyVideo(r3d, two, { topk: 3, frameCount: 16, frameRate: 30 });
    const want = expectedTop(r3d.forward(r3d.transforms().forward(two)).data, 3);
    expect(got.map((c) => c.index)).toEqual(want.map((w) => w.index));
  }, 30_000);

  test("options.transform for a file that records no preprocessing; labels 'class <i>' without class names", async () => {
    const m = tiny({});
    await expect(classifyVideo(m, frames(2, 20, 16))).rejects.toThrow(
      /^classifyVideo\(model, source\): the model file records no preprocessing; export it with .*preprocessing=weights\.transforms\(\).*, or pass \{ transform: /,
    );
    const transform = new transforms.VideoClassification({ cropSize: 8, resizeSize: [10, 12] });
    const two = frames(2, 20, 16);
    const got = await classifyVideo(m, two, { transform });
    const logits = m.forward(transform.forward(two)).data;
    expect(got.map((c) => [c.label, c.index])).toEqual(
      expectedTop(logits, 3).map((w) => [`class ${w.index}`, w.index]),
    );
    // Its options do as well as the transform.
    expect(await classifyVideo(m, two, { transform: { cropSize: 8, resizeSize: [10, 12] } })).toEqual(got);
    m.dispose();
  });

  test('a file with its preprocessing and classes, whose output is not [1, classes], is refused after the run', async () => {
    const named = tiny({ preprocessing: JSON.stringify(KINETICS_8X8), classes: JSON.stringify(['r', 'g', 'b']) });
    const top = await classifyVideo(named, frames(2, 20, 16), { topk: 3 });
    expect(top.map((c) => c.label).sort()).toEqual(['b', 'g', 'r']);
    named.dispose();
    const unpooled = tiny({ preprocessing: JSON.stringify(KINETICS_8X8) }, [pool]);
    await expect(classifyVideo(unpooled, frames(2, 20, 16))).rejects.toThrow(
      "classifyVideo(model, source): the model's output is [1, 3, 1, 1, 1], not one clip's class scores ([1, classes])",
    );
    unpooled.dispose();
  });

  const badCalls = [
    [
      'a model that is not one',
      () => classifyVideo({ forward() {} }, clip),
      TypeError,
      /model must be an io\.GraphModule or io\.WorkerModel/,
    ],
    ['no model', () => classifyVideo(null, clip), TypeError, /model must be .*, got null/],
    [
      'a source that is a number',
      () => classifyVideo(r3d, 42),
      TypeError,
      /source must be an HTMLVideoElement, a File or Blob of a video, a MediaStream \(a camera\), a video's URL or an array of frames .*got the number 42/,
    ],
    [
      'a source that is a float tensor',
      () => classifyVideo(r3d, { data: new Float32Array(4), shape: [4] }),
      TypeError,
      /source must be .*got an object/,
    ],
    [
      'topk 0',
      () => classifyVideo(r3d, clip, { topk: 0 }),
      RangeError,
      /topk must be an integer of at least 1, got the number 0/,
    ],
    [
      'topk 2.5',
      () => classifyVideo(r3d, clip, { topk: 2.5 }),
      RangeError,
      /topk must be an integer of at least 1, got the number 2.5/,
    ],
    [
      'topk as a string',
      () => classifyVideo(r3d, clip, { topk: '5' }),
      TypeError,
      /topk must be a number, got the string '5'/,
    ],
    [
      'a frameRate as a string',
      () => classifyVideo(r3d, clip, { frameRate: '15' }),
      TypeError,
      /frameRate must be a number, got the string '15'/,
    ],
    ['topk NaN', () => classifyVideo(r3d, clip, { topk: Number.NaN }), RangeError, /got the number NaN/],
    [
      'an unknown option',
      () => classifyVideo(r3d, clip, { top_k: 5 }),
      TypeError,
      /unknown option 'top_k' \(expected 'topk', 'frameCount', 'frameRate', 'transform'\)/,
    ],
    [
      'frameCount 0',
      () => classifyVideo(r3d, clip, { frameCount: 0 }),
      RangeError,
      /frameCount must be an integer from 1 to 4096/,
    ],
    [
      'frameRate -1',
      () => classifyVideo(r3d, clip, { frameRate: -1 }),
      RangeError,
      /frameRate must be a number above 0/,
    ],
    [
      'a transform that is a string',
      () => classifyVideo(r3d, clip, { transform: 'kinetics' }),
      TypeError,
      /transform must be a transforms\.VideoClassification or its options/,
    ],
    [
      'no frames',
      () => classifyVideo(r3d, []),
      RangeError,
      /^VideoClassification\.forward\(frames\): frames must hold 1 to 4096 frames/,
    ],
    [
      'a frame of Float32 data',
      () => classifyVideo(r3d, [{ data: new Float32Array(12), width: 2, height: 2 }]),
      TypeError,
      /frames\[0\]\.data must be a Uint8Array or Uint8ClampedArray/,
    ],
    // Node.js decodes no video: what to pass instead.
    [
      'a Blob in Node.js',
      () => classifyVideo(r3d, new Blob([new Uint8Array(8)])),
      Error,
      /^classifyVideo\(model, source\): a Blob \(a video file\) needs a browser to decode it .*; in Node\.js, decode the frames yourself \(e\.g\. with ffmpeg\) and pass them as an array of \{data, width, height\}/,
    ],
    ['a URL in Node.js', () => classifyVideo(r3d, 'clip.webm'), Error, /a video's URL needs a browser to decode it/],
  ];
  test.each(badCalls)('%s is a rejection that says so', async (_, call, Type, message) => {
    const error = await call().then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toMatch(message);
  });

  test('a volume model is not a video one', async () => {
    const volume = io.loadModel(
      readFileSync(new URL('../../../demo/data/meshnet-brain.qwasm.safetensors', import.meta.url)),
    );
    await expect(classifyVideo(volume, clip)).rejects.toThrow(
      /^classifyVideo\(model, source\): the model file records a VolumeSegmentation preprocessing, not a video's/,
    );
    volume.dispose();
  });
});

test('io.readVideoFrames: Node.js has no video decoder, and frames are not a video', async () => {
  await expect(io.readVideoFrames(new Blob([new Uint8Array(8)]))).rejects.toThrow(
    /^io\.readVideoFrames\(source\): a Blob \(a video file\) needs a browser to decode it/,
  );
  await expect(io.readVideoFrames(clip)).rejects.toThrow(TypeError);
  await expect(io.readVideoFrames('clip.webm', { frameRate: 0 })).rejects.toThrow(RangeError);
});

describe('in the model worker (a WorkerModel)', () => {
  let worker;
  beforeAll(async () => {
    worker = await io.loadModel(R3D, { worker: true });
  }, 60_000);
  afterAll(() => worker?.dispose());

  // While `run` runs, this thread's VideoClassification.forward throws (and counts its calls).
  async function withoutTransformHere(run) {
    const proto = transforms.VideoClassification.prototype;
    const original = proto.forward;
    let calls = 0;
    proto.forward = () => {
      calls++;
      throw new Error('the transform ran on the calling thread');
    };
    try {
      return { result: await run(), calls };
    } finally {
      proto.forward = original;
    }
  }

  test('the frames are preprocessed and run in the worker: the same answer to the bit, no transform here', async () => {
    // The spy works: on this thread the transform is called, and fails.
    const here = await withoutTransformHere(() => classifyVideo(r3d, clip).catch((e) => e.message));
    expect(here).toEqual({ result: 'the transform ran on the calling thread', calls: 1 });
    const { result, calls } = await withoutTransformHere(() => classifyVideo(worker, clip, { topk: 400 }));
    expect(calls).toBe(0);
    expect(result).toEqual(all);
    // The caller's frames were copied, not transferred.
    expect(clip.every((f) => f.data.length === 160 * 120 * 3)).toBe(true);
  }, 30_000);

  test('WorkerModel.preprocess is transforms().forward(frames) made in the worker, byte for byte', async () => {
    const want = r3d.transforms().forward(clip);
    const { result: x, calls } = await withoutTransformHere(() => worker.preprocess(clip));
    expect(calls).toBe(0);
    expect(x.shape).toEqual([1, 3, 4, 112, 112]);
    expect(Buffer.from(x.data.buffer).equals(Buffer.from(want.data.buffer))).toBe(true);
    // transfer: true hands the frames' buffers over (detached here).
    const mine = frames(2, 40, 30, 7);
    const own = new transforms.VideoClassification({ cropSize: 8, resizeSize: 10 });
    const small = own.forward(mine);
    const y = await worker.preprocess(mine, { transfer: true, transform: own });
    expect(y.shape).toEqual([1, 3, 2, 8, 8]);
    expect(Array.from(y.data)).toEqual(Array.from(small.data));
    expect(mine.map((f) => f.data.length)).toEqual([0, 0]);
  }, 30_000);

  test("WorkerModel.preprocess's errors name it", async () => {
    await expect(worker.preprocess([])).rejects.toThrow(
      /^WorkerModel\.preprocess\(frames\): frames must hold 1 to 4096 frames/,
    );
    await expect(worker.preprocess('frames')).rejects.toThrow(
      /^WorkerModel\.preprocess\(frames\): frames must be an array/,
    );
    await expect(worker.preprocess(clip, { transfer: 1 })).rejects.toThrow(TypeError);
    await expect(worker.preprocess(clip, { transform: { cropSize: 0, resizeSize: 8 } })).rejects.toThrow(
      /^WorkerModel\.preprocess\(frames\): .*cropSize must hold integers from 1 to 16384/,
    );
    const bare = await io.loadModel(chainModel([1, 3, 2, 8, 8], [pool, flatten]), { worker: true });
    await expect(bare.preprocess(clip)).rejects.toThrow(
      /^WorkerModel\.preprocess\(frames\): the model file records no preprocessing; pass \{ transform: /,
    );
    await expect(classifyVideo(bare, clip)).rejects.toThrow(
      /^classifyVideo\(model, source\): the model file records no preprocessing/,
    );
    bare.dispose();
  }, 30_000);
});
