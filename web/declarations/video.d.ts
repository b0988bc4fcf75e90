// classifyVideo: one call from a video (a file, an element, a camera's
// stream, or decoded frames) to its most likely classes.
import type { io } from './io.js';
import type { transforms } from './transforms.js';

/**
 * A video as {@link classifyVideo} and {@link io.readVideoFrames} take it. In
 * a browser: an `HTMLVideoElement` (its `src` or `srcObject`, read by a
 * `<video>` of qwasm's own, so the element's playback is left alone), a
 * `File` or `Blob` of a video file in any format the browser plays, a
 * video's URL, or a `MediaStream` (a camera's, `getUserMedia`; its tracks
 * keep running). Everywhere, and the only kind in Node.js (which has no video
 * decoder): the frames themselves, `{data, width, height}` RGB or RGBA bytes
 * (an `ImageData` fits), as the clip to classify.
 */
export type VideoSource = HTMLVideoElement | Blob | MediaStream | string | URL | readonly transforms.Frame[];

/** Options of {@link classifyVideo}. */
export interface ClassifyVideoOptions {
  /** How many classes to return, the most likely first: an integer of at least 1 (default 5); all of them when it exceeds their number. */
  readonly topk?: number;
  /** The clip's frames: default the model's input depth (`inputShape[2]`), else 16. Not used for a frames source (the clip as given). */
  readonly frameCount?: number;
  /** The clip's frames per second (above 0, at most 1000): default 15, torchvision's Kinetics clips. Not used for a frames source. */
  readonly frameRate?: number;
  /** The preprocessing: default the model file's record (`model.preprocessing`); needed for a file that records none. */
  readonly transform?: transforms.VideoClassification | transforms.VideoClassificationOptions;
}

/** One class of {@link classifyVideo}'s answer. */
export interface VideoClass {
  /** The class's name from the model file's metadata (`export(..., classes=)`), or `'class <index>'` for a file that records none. */
  label: string;
  /** Its softmax probability over all of the model's outputs, computed in float64 (0 to 1; all of them sum to 1). */
  probability: number;
  /** Its output index. */
  index: number;
}

/**
 * One call from a video to its labels, as transformers.js's
 * `pipeline('video-classification')`: the clip is sampled as torchvision's
 * Kinetics clips are made (`frameCount` frames, 16 for r3d_18, at
 * `frameRate` 15 fps from the middle of a file, or spread over the whole of
 * a shorter one; from a `MediaStream`, live: the next `frameCount` frames
 * `1 / frameRate` s apart, about a second), each frame at the video's own
 * size; preprocessed as the model file records
 * ({@link transforms.VideoClassification}); run; and the output's softmax
 * gives the `topk` most likely classes, named as the file's metadata names
 * them (`classes`). With an {@link io.WorkerModel}, the preprocessing and the
 * forward run in its worker ({@link io.WorkerModel.preprocess}): the calling
 * thread only decodes the video. The answer equals the steps done by hand:
 * `model.transforms().forward(frames)`, `model.forward(x)`, a softmax.
 * @param model A model from {@link io.loadModel}, on this thread or in a worker,
 *   whose output is one clip's class scores ([1, classes]).
 * @param source The video: see {@link VideoSource}.
 * @returns A promise of the `topk` classes, most likely first (ties by index).
 * @throws Rejects with a TypeError for a model that is not an io.GraphModule or
 *   io.WorkerModel, a source of another kind, an unknown option or a transform
 *   that is not an object; RangeError for a topk that is not an integer of at
 *   least 1, or a frameCount or frameRate out of range; Error for a model file
 *   that records no video preprocessing (without `transform`), an output
 *   that is not [1, classes], a video the browser cannot decode or whose
 *   pixels it may not read (cross-origin without CORS), a video element with no source, a stream
 *   without a video track, and for a source other than frames in Node.js;
 *   and with the model's own errors, as its transform and forward throw them.
 * @example
 * ```ts
 * const model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
 * // In Node.js the frames come from any decoder; here 16 grey 320x240 frames
 * const grey = { data: new Uint8Array(320 * 240 * 3).fill(128), width: 320, height: 240 };
 * const top = await classifyVideo(model, Array(16).fill(grey), { topk: 3 });
 * top.length; // → 3
 * top[0].label === model.classes?.[top[0].index]; // → true
 * top[0].probability >= top[1].probability; // → true
 * model.dispose();
 * ```
 */
export declare function classifyVideo(
  model: io.GraphModule | io.WorkerModel,
  source: VideoSource,
  options?: ClassifyVideoOptions,
): Promise<VideoClass[]>;

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
