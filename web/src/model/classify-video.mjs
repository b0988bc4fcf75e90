// classifyVideo(model, source, options): one call from a video to its labels.
// The clip is sampled as torchvision's Kinetics clips are (video-clip.mjs: 16
// frames, or the model's input depth, at 15 fps from the middle; a stream
// live; frames as given), preprocessed as the model file records
// (transforms.VideoClassification) and run; the output's softmax, in
// float64, gives the top k classes named by the file's class names. With a
// WorkerModel, both the preprocessing and the forward run in its worker
// (WorkerModel.preprocess): the calling thread only decodes the video.
import { describe, readOptions } from '../runtime/args.mjs';
import { QTensor } from '../tensors/qtensor.mjs';
import { VideoClassification } from '../transforms/video-classification.mjs';
import { decodeClip, notAVideo, readClipOptions, sourceKind } from '../transforms/video-clip.mjs';
import { GraphModule } from './graph-module.mjs';
import { WorkerModel } from './worker-model.mjs';

const CTX = 'classifyVideo(model, source)';
const OPTIONS = ['topk', 'frameCount', 'frameRate', 'transform'];

/** The VideoClassification options to preprocess with: options.transform, else the file's record. */
function transformOptions(model, given) {
  if (given !== undefined) {
    if (given === null || typeof given !== 'object') {
      throw new TypeError(
        `${CTX}: transform must be a transforms.VideoClassification or its options, got ${describe(given)}`,
      );
    }
    return given;
  }
  const p = model.preprocessing;
  if (p === null) {
    throw new Error(
      `${CTX}: the model file records no preprocessing; export it with qwasm_export.export(..., preprocessing=weights.transforms()), or pass { transform: new transforms.VideoClassification({ cropSize, resizeSize }) }`,
    );
  }
  if (p.cropSize === undefined) {
    throw new Error(
      `${CTX}: the model file records ${p.orientation ? 'a VolumeSegmentation' : 'another'} preprocessing, not a video's (VideoClassification)`,
    );
  }
  return p;
}

/** @returns {boolean} (not `instanceof` inline: tsc would narrow `model` to the base classes, which declare no methods) */
const isA = (Class, v) => v instanceof Class;

/** The output's scores as float: a float tensor's data, a quantized output's dequantized integers. */
function scoresOf(out) {
  if (out instanceof QTensor) {
    try {
      return out.dequantize().data;
    } finally {
      out.dispose();
    }
  }
  if ('scale' in out) return Array.from(out.data, (v) => (v - out.zeroPoint) * out.scale);
  return out.data;
}

/**
 * Documented at classifyVideo (web/declarations/video.d.ts).
 * @param {any} model
 * @param {any} source
 * @param {{topk?: number, frameCount?: number, frameRate?: number, transform?: any}} [options]
 * @returns {Promise<{label: string, probability: number, index: number}[]>}
 */
export async function classifyVideo(model, source, options) {
  // (The WorkerModel class here is the library's base: its methods come with the model client.)
  const inWorker = isA(WorkerModel, model);
  if (!inWorker && !isA(GraphModule, model)) {
    throw new TypeError(
      `${CTX}: model must be an io.GraphModule or io.WorkerModel (io.loadModel's), got ${describe(model)}`,
    );
  }
  const o = readOptions(options, OPTIONS, CTX);
  const topk = o.get('topk') ?? 5;
  if (typeof topk !== 'number') throw new TypeError(`${CTX}: topk must be a number, got ${describe(topk)}`);
  if (!Number.isInteger(topk) || topk < 1) {
    throw new RangeError(`${CTX}: topk must be an integer of at least 1, got ${describe(topk)}`);
  }
  const kind = sourceKind(source, CTX);
  if (kind === null) throw notAVideo(source, CTX, true);
  const shape = model.inputShape;
  const { count, frameRate } = readClipOptions(o, CTX, shape?.length === 5 ? shape[2] : undefined);
  const transform = transformOptions(model, o.get('transform'));
  // Decoded frames are ours (their buffers go to the worker); a caller's frames stay theirs (copied).
  const frames = kind === 'frames' ? source : (await decodeClip(kind, source, count, frameRate, CTX)).frames;
  let scores;
  let shapeOut;
  if (inWorker) {
    const x = await model.preprocess(frames, { transform, transfer: kind !== 'frames' });
    const out = await model.forward(x);
    scores = scoresOf(out);
    shapeOut = out.shape;
  } else {
    const t = transform instanceof VideoClassification ? transform : new VideoClassification(transform);
    const out = model.forward(t.forward(frames));
    shapeOut = [...out.shape];
    scores = scoresOf(out);
  }
  if (!(shapeOut.length === 1 || (shapeOut.length === 2 && shapeOut[0] === 1))) {
    throw new Error(
      `${CTX}: the model's output is [${shapeOut.join(', ')}], not one clip's class scores ([1, classes])`,
    );
  }
  return topClasses(scores, model.classes, topk);
}

/** The k most likely classes of one clip's scores (logits): softmax in float64, highest first, ties by index. */
export function topClasses(scores, classes, k) {
  let max = Number.NEGATIVE_INFINITY; // (not Math.max(...scores): a large output overflows the call stack)
  for (const v of scores) if (v > max) max = v;
  const exp = Array.from(scores, (v) => Math.exp(v - max));
  let sum = 0;
  for (const e of exp) sum += e;
  return exp
    .map((e, index) => ({ label: classes?.[index] ?? `class ${index}`, probability: e / sum, index }))
    .sort((a, b) => b.probability - a.probability || a.index - b.index)
    .slice(0, k);
}
