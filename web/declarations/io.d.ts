// The io namespace: readers of .npy and .safetensors files, NIfTI-1 volumes
// (readNifti, writeNifti), and exported models (loadModel, GraphModule, WorkerModel).
import type { nn } from './nn.js';
import type { WinogradOption } from './nn-options.js';
import type { QuantizedEngine, quantization } from './quantization.js';
import type { RuntimeInfo } from './runtime.js';
import type { QTensor, Tensor } from './tensors.js';
import type { transforms } from './transforms.js';

/** A .npy tensor as read by {@link io.loadNpy}. */
export interface NpyTensor extends Tensor {
  /** The file's dtype; data is always converted to float32. */
  dtype: 'float32' | 'float64' | 'float16';
}

/** The voxel types a NIfTI-1 volume may hold (NIfTI datatype codes 2, 256, 4, 512, 8, 768, 16, 64). */
export type NiftiDatatype = 'uint8' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'float32' | 'float64';

/** A volume as {@link transforms.VolumeSegmentation} takes it: voxels, their grid and its place in the world. */
export interface NiftiImage {
  /** The voxels as stored: x fastest, then y, then z (NIfTI's order). */
  readonly data:
    | Uint8Array
    | Int8Array
    | Int16Array
    | Uint16Array
    | Int32Array
    | Uint32Array
    | Float32Array
    | Float64Array;
  /** [nx, ny, nz]: voxels per axis, each 1 to 32767. */
  readonly dims: readonly number[];
  /** Voxel (i, j, k, 1) to world millimetres: a 4x4 matrix, row by row (16 numbers, the last row 0, 0, 0, 1). */
  readonly affine: readonly number[];
  /** The header's scl_slope: when nonzero and finite, values are data * sclSlope + sclInter. */
  readonly sclSlope?: number;
  /** The header's scl_inter. */
  readonly sclInter?: number;
}

/** A NIfTI-1 volume as {@link io.readNifti} reads it (and {@link transforms.VolumeSegmentation.labels} makes one). */
export interface NiftiVolume extends NiftiImage {
  /** [nx, ny, nz]. */
  dims: number[];
  /** The voxels' type. */
  datatype: NiftiDatatype;
  /** The voxels, in this machine's byte order, x fastest. */
  data: Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;
  /** pixdim[1..3]: the voxel sizes the header states (positive). */
  pixdim: number[];
  /** The sform when sform_code > 0, else the qform when qform_code > 0, else diag(pixdim) (NIfTI-1's method 1). */
  affine: number[];
  /** sform_code (0 to 4; 0: no sform). */
  sformCode: number;
  /** The sform (srow_x, srow_y, srow_z, then 0, 0, 0, 1), or null when sform_code is 0. */
  sform: number[] | null;
  /** qform_code (0 to 4; 0: no qform). */
  qformCode: number;
  /** The qform as a matrix (nifti1_io's quaternion to matrix), or null when qform_code is 0. */
  qform: number[] | null;
  /** quatern_b, quatern_c, quatern_d. */
  quatern: number[];
  /** qoffset_x, qoffset_y, qoffset_z. */
  qoffset: number[];
  /** pixdim[0]: -1 for a left-handed qform, else 1. */
  qfac: number;
  /** scl_slope (0 or NaN: the data are the values). */
  sclSlope: number;
  /** scl_inter. */
  sclInter: number;
  /** xyzt_units as stored. */
  xyztUnits: number;
  /** The file's byte order. */
  littleEndian: boolean;
}

/** What {@link io.writeNifti} writes: data, dims and affine; a volume read by {@link io.readNifti} keeps its own qform. */
export interface NiftiWritable {
  /** uint8 (labels) or float32 voxels, x fastest. */
  readonly data: Uint8Array | Float32Array;
  /** [nx, ny, nz], each 1 to 32767. */
  readonly dims: readonly number[];
  /** Written as the sform; the qform is its quaternion unless quatern, qoffset, pixdim and qformCode are given. */
  readonly affine: readonly number[];
  /** sform_code to write (default 2, aligned). */
  readonly sformCode?: number;
  /** qform_code to write (default 2). */
  readonly qformCode?: number;
  /** The qform's quaternion (b, c, d), with qoffset, pixdim and qfac. */
  readonly quatern?: readonly number[];
  /** The qform's offsets. */
  readonly qoffset?: readonly number[];
  /** Voxel sizes (pixdim[1..3]). */
  readonly pixdim?: readonly number[];
  /** pixdim[0]. */
  readonly qfac?: number;
  /** xyzt_units (default 2: millimetres). */
  readonly xyztUnits?: number;
}

/** What {@link io.loadSafetensors} returns. */
export interface SafetensorsFile {
  /** Every tensor in the file, in header order: its name, safetensors dtype ('F32', 'I8', ...) and shape in elements. */
  tensors: {
    /** The tensor's name in the file. */
    name: string;
    /** Its safetensors dtype ('F32', 'BF16', 'I8', ...). */
    dtype: string;
    /** Its dimensions, in elements. */
    shape: number[];
  }[];
  /** The header's __metadata__ (or {}). */
  metadata: Record<string, string>;
  /**
   * Reads one float tensor (F32, F64, F16, BF16) as float32: a new JS-owned tensor.
   * @throws RangeError for an unknown name, Error for other dtypes or when
   *   the file's buffer was detached or resized since it was loaded.
   */
  get(name: string): Tensor;
}

/**
 * Readers for tensors and models exported from numpy / PyTorch. loadNpy and
 * loadSafetensors are pure JavaScript (usable before init()); the returned
 * data is JS-owned. Malformed files throw an Error that says what is wrong.
 */
export declare namespace io {
  /**
   * Reads a .npy file (`numpy.save`; versions 1-3), float32 / float64 /
   * float16, C order, either byte order, as float32.
   * @param bytes The whole file.
   * @throws TypeError when bytes is not an ArrayBuffer or typed array, Error
   *   for a malformed or truncated file, another dtype or Fortran order,
   *   RangeError for a shape of more than 2^31 - 1 elements.
   * @example
   * ```ts
   * const w = io.loadNpy(await readFile('weight.npy')); // { data: Float32Array, shape, dtype }
   * w.dtype; // → 'float32'
   * w.shape; // → [ 8, 3, 3, 3, 3 ]
   * ```
   */
  function loadNpy(bytes: ArrayBuffer | Uint8Array): NpyTensor;
  /**
   * Reads a .safetensors file (`safetensors.torch.save_file`): the list of
   * tensors now, each float tensor's data on {@link SafetensorsFile.get}.
   * @param bytes The whole file; get() reads it later, so do not detach or resize it.
   * @throws TypeError when bytes is not an ArrayBuffer or typed array, Error
   *   for a malformed or truncated file.
   */
  function loadSafetensors(bytes: ArrayBuffer | Uint8Array): SafetensorsFile;
  /**
   * Reads a single-file NIfTI-1 volume (.nii, or .nii.gz: gzip is detected
   * and decompressed with the platform's DecompressionStream), either byte
   * order. The header is checked as untrusted input: sizeof_hdr, the magic,
   * dim (3-D, or more dimensions of size 1), datatype and bitpix, pixdim,
   * vox_offset, the sform and qform, scl_slope / scl_inter, and the size it
   * declares against the bytes present and `maxBytes`; a gzipped file is
   * decompressed only up to that size. Pure JavaScript: works before init().
   * @param input The whole file (its bytes, or a Blob such as a dropped File), or a URL to fetch.
   * @param options `maxBytes`: the largest file (after decompression) to read; default and at most 2^31 - 1.
   * @throws TypeError for an input that is not bytes, a Blob (a File) or a URL; Error naming
   *   the field for a NIfTI-2 file, a .hdr/.img pair, an Analyze header, a
   *   time series, another datatype (by name), or a truncated file;
   *   RangeError for a declared size above maxBytes.
   * @example
   * ```ts
   * const volume = await io.readNifti(await readFile('lps_uint8.nii'));
   * volume.dims; // → [ 10, 8, 6 ]
   * volume.datatype; // → 'uint8'
   * ```
   */
  function readNifti(
    input: ArrayBuffer | ArrayBufferView | Blob | string | URL,
    options?: { maxBytes?: number },
  ): Promise<NiftiVolume>;
  /**
   * Writes a NIfTI-1 file (little-endian, vox_offset 352, scl_slope 0):
   * uint8 labels or float32 values, the affine in the sform, the qform the
   * volume's own (a volume from {@link io.readNifti} or
   * {@link transforms.VolumeSegmentation.labels}) or the affine's quaternion.
   * @param options `gzip: true` for .nii.gz (the platform's CompressionStream).
   * @throws TypeError for data other than Uint8Array / Float32Array, dims or
   *   an affine of the wrong form; RangeError for data of another length, an
   *   affine whose last row is not 0, 0, 0, 1 or that is singular.
   * @example
   * ```ts
   * const labels = { data: new Uint8Array(8).fill(2), dims: [2, 2, 2], affine: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] };
   * const bytes = await io.writeNifti(labels, { gzip: true }); // a .nii.gz
   * (await io.readNifti(bytes)).data[0]; // → 2
   * ```
   */
  function writeNifti(volume: NiftiWritable, options?: { gzip?: boolean }): Promise<Uint8Array>;
  /**
   * A clip's frames from a video, decoded by the browser: `frameCount`
   * frames (default 16) at `frameRate` frames per second (default 15) from
   * the middle of a file (torchvision's Kinetics clips; a shorter video is
   * spread over evenly), each at the video's own size; from a `MediaStream`,
   * the next `frameCount` frames, live, `1 / frameRate` s apart (its tracks
   * keep running). What {@link classifyVideo} samples; the frames go to
   * {@link transforms.VideoClassification.forward} or
   * {@link io.WorkerModel.preprocess}. Browsers only: Node.js has no video decoder.
   * @param source An `HTMLVideoElement` (its source is read by a `<video>` of
   *   qwasm's own: the element's playback is left alone), a `File` or `Blob`
   *   of a video file, a video's URL (read whole when its server answers no
   *   Range requests: the browser cannot seek in it then), or a `MediaStream`.
   * @returns A promise of `{frames, times, duration}`: the frames (RGBA
   *   `ImageData`), each one's time in seconds (from the start of a file,
   *   from the first frame of a stream), and the video's duration (a stream: the last frame's time).
   * @throws Rejects with a TypeError for a source of another kind or an
   *   unknown option; RangeError for a frameCount outside 1..4096 or a
   *   frameRate not above 0 (at most 1000); Error for a video the browser
   *   cannot decode (naming the step), one with no frames or no known
   *   duration, pixels it may not read (a cross-origin video without CORS),
   *   an element with no source, a stream with no video track, and in Node.js.
   */
  function readVideoFrames(
    source: HTMLVideoElement | Blob | MediaStream | string | URL,
    options?: { frameCount?: number; frameRate?: number },
  ): Promise<{
    /** The frames, in time order. */
    frames: ImageData[];
    /** Each frame's time, in seconds. */
    times: number[];
    /** The video's duration in seconds (a stream: the last frame's time). */
    duration: number;
  }>;
  /**
   * A model written by python/qwasm_export.py (a PyTorch model converted by
   * the eager flow, or a float one, traced by torch.fx), built into qwasm
   * modules on this thread: the counterpart of loading a
   * `torch.fx.GraphModule`. The file is checked as untrusted input. The
   * caller disposes the model.
   * @param bytes The whole file.
   * @param options The budget of one forward and the Winograd option; see {@link io.LoadModelOptions}.
   * @throws TypeError for an option of the wrong type, an option only the
   *   worker takes (numThreads, locateFile, onProgress), or a source that is
   *   not bytes (use loadModelAsync or worker: true); RangeError for a
   *   budget that is not > 0; Error before {@link init}, and an
   *   {@link io.LoadError} naming what is wrong with the file (not a model,
   *   format version, a tensor's dtype or shape, a module's attributes, the
   *   graph), or the node that would go over the budget on the input shape
   *   the file declares.
   * @example
   * ```ts
   * await init();
   * const model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
   * const clip = new Float32Array(3 * 16 * 112 * 112); // [N, C, T, H, W]: 16 frames of 112 x 112
   * const y = model.forward(tensor(clip, [1, 3, 16, 112, 112])); // a float tensor: the model ends with DeQuantStub
   * y.shape; // → [ 1, 400 ]
   * model.dispose();
   * ```
   */
  function loadModel<Output extends Tensor | QTensor = Tensor | QTensor>(
    bytes: ArrayBuffer | Uint8Array,
    options?: LoadModelOptions & { worker?: false; onProgress?: never; signal?: never; cache?: never },
  ): GraphModule<Output>;
  /**
   * The model loaded and run in a dedicated worker the library starts (a
   * module worker in browsers, worker_threads in Node.js), so the calling
   * thread never blocks on it. A URL is downloaded by the worker (a path is
   * read from disk in Node.js); a Response, stream or Blob is read here
   * without blocking and handed over; bytes are copied once. Threads run in
   * the worker where the page allows (cross-origin isolated; not in Firefox
   * workers). Does not need init() on the calling thread: the worker runs its own.
   * @param source Where the model's bytes come from; see {@link io.ModelSource}.
   * @param options As the synchronous form's, plus the worker's; see {@link io.WorkerLoadOptions}.
   * @returns A promise of the {@link io.WorkerModel}; dispose() it to end the worker.
   * @throws Nothing synchronously: every error, a bad option included, is a
   *   rejection (TypeError, RangeError or Error as for the synchronous form);
   *   a failed load is an {@link io.LoadError} (its kind, URL, HTTP status
   *   and a hint).
   * @example
   * ```ts
   * const model = await io.loadModel('r3d_18.qwasm.safetensors', {
   *   worker: true,
   *   onProgress: (loaded, total) => console.log(`${loaded} / ${total ?? '?'} bytes`),
   * });
   * const clip = new Float32Array(3 * 16 * 112 * 112);
   * const out = await model.forward(tensor(clip, [1, 3, 16, 112, 112]));
   * out.shape; // → [ 1, 400 ]
   * // clip's buffer went to the worker (transferred, not copied):
   * clip.byteLength; // → 0
   * model.dispose();
   * ```
   */
  function loadModel(
    source: ModelSource,
    options: LoadModelOptions & WorkerLoadOptions & { worker: true },
  ): Promise<WorkerModel>;
  /**
   * The model loaded on this thread without blocking on its download (for
   * code that runs in its own worker): building it then takes one task, as
   * loadModel does. Needs init().
   * @param source Where the model's bytes come from; see {@link io.ModelSource}.
   * @returns A promise of the {@link io.GraphModule}; the caller disposes it.
   * @throws Rejects as {@link io.loadModel} does (TypeError for worker: true,
   *   which only loadModel takes); a failed load is an {@link io.LoadError}.
   */
  function loadModelAsync<Output extends Tensor | QTensor = Tensor | QTensor>(
    source: ModelSource,
    options?: LoadModelOptions & Pick<WorkerLoadOptions, 'onProgress' | 'signal' | 'cache'>,
  ): Promise<GraphModule<Output>>;
  /**
   * Empties the cache that `cache: true` loads keep model files in (the
   * origin's Cache API cache 'qwasm-models', shared by the page and its
   * workers).
   * @returns A promise of true when there was a cache to delete, false
   *   otherwise (none yet, or no Cache API: Node.js, an insecure context).
   * @example
   * ```ts
   * await io.clearCache(); // the next cache: true load downloads again
   * ```
   */
  function clearCache(): Promise<boolean>;

  /**
   * What went wrong in a failed load, for code to branch on:
   * - `'network'`: the bytes could not be fetched or read (offline, no
   *   server, a CORS or CSP refusal; in Node.js, no file at the path);
   * - `'http'`: the server answered with an HTTP error (`status`);
   * - `'not-a-model'`: the bytes are not a qwasm model (an HTML page a dev
   *   server or an app's fallback sent for a wrong URL, a text file, a
   *   .safetensors file of something else);
   * - `'format'`: a qwasm model this version cannot read, or a damaged one;
   * - `'budget'`: the model goes over the load's budget (or 4 GiB);
   * - `'worker'`: the model worker could not start or failed (its script did
   *   not load: see `locateFile`).
   */
  type LoadErrorKind = 'network' | 'http' | 'not-a-model' | 'format' | 'budget' | 'worker';

  /**
   * The error (an Error, TypeError or RangeError) a failed
   * {@link io.loadModel}, {@link io.loadModelAsync} or
   * {@link io.WorkerModel.loadFloatModel} throws or rejects with; a wrong
   * argument is a plain TypeError, an abort the signal's reason, and wasm
   * memory running out a RangeError of kind `'outOfMemory'`. The message
   * names the call and ends with the hint.
   * @example
   * ```ts
   * try {
   *   await io.loadModel('/models/typo.qwasm.safetensors', { worker: true });
   * } catch (e) {
   *   const err = e as io.LoadError;
   *   if (err.kind === 'http' && err.status === 404) console.log(`no model at ${err.url}`);
   * }
   * ```
   */
  interface LoadError extends Error {
    /** What went wrong; see {@link io.LoadErrorKind}. */
    kind: LoadErrorKind;
    /** The URL (or Node.js path) loaded, or what the source was: `'bytes'`, `'Blob'`, `'Response'`, `'stream'`. */
    url: string;
    /** The HTTP status of the answer, or null (not fetched, or no answer). */
    status: number | null;
    /** What to try (also at the end of the message), or null. */
    hint: string | null;
  }

  /** Where a model's bytes come from: a URL (or a path in Node.js), a Response, a byte stream, a Blob or File, or the bytes. */
  type ModelSource = string | URL | Response | ReadableStream<Uint8Array> | Blob | ArrayBuffer | Uint8Array;

  /** The options only a loading from a source takes (io.loadModel with worker: true; onProgress and signal also io.loadModelAsync). */
  interface WorkerLoadOptions {
    /**
     * Follows the download, in bytes: totalBytes is null when the source does
     * not say (no Content-Length, a bare stream).
     */
    onProgress?: (loadedBytes: number, totalBytes: number | null) => void;
    /**
     * Cancels the load: when it aborts, the load rejects with its reason (an
     * AbortError DOMException unless abort(reason) gave another) and
     * everything the load took is freed (a worker it started is ended). A
     * stalled download only ends this way: `AbortSignal.timeout(ms)` gives up
     * after ms milliseconds (a TimeoutError DOMException).
     */
    signal?: AbortSignal;
    /** The worker's init({ numThreads }), 1..64. Default: init()'s default there. */
    numThreads?: number;
    /**
     * Keeps a URL's file in the browser's Cache API (the cache
     * 'qwasm-models', under the URL) and revalidates it on every later load
     * with its ETag or Last-Modified: unchanged (HTTP 304), nothing is
     * downloaded; changed, the new file replaces it. A cache that cannot keep
     * the file (its quota full) leaves the load on the network, with a
     * warning in the console; offline, the kept copy loads. Ignored for other
     * sources and where there is no Cache API (Node.js). Default false.
     * {@link io.clearCache} empties it.
     */
    cache?: boolean;
    /**
     * Where the model worker's script is (qwasm.model-worker.mjs; .cjs in
     * Node.js), for bundlers that do not emit it (esbuild, Rollup: copy
     * node_modules/qwasm/dist/ and point here); the worker finds its wasm
     * beside itself.
     */
    locateFile?: (file: string) => string | URL;
  }

  /**
   * A forward's answer from a worker: a float tensor, or a quantized
   * output's integers and qparams (the QTensor stays in the worker, which
   * frees it).
   */
  type WorkerOutput =
    | Tensor
    | {
        /** The QTensor's dtype. */
        dtype: 'quint8' | 'qint8';
        /** Its integers ({@link QTensor.intRepr}). */
        data: Uint8Array | Int8Array;
        /** Its dimensions, in elements. */
        shape: number[];
        /** Its scale. */
        scale: number;
        /** Its zero point. */
        zeroPoint: number;
      };

  /** A module of a model in a worker, as read at load. */
  interface WorkerModule {
    /** Its PyTorch path ('layer1.0.conv1.0'). */
    readonly path: string;
    /** Its class name (ConvReLU3d, Quantize, Identity, ...). */
    readonly type: string;
    /** A quantized convolution's backend (see nn.quantized.Conv3d's backend). */
    readonly backend?: 'fbgemm' | 'onednn';
    /** A quantized module's output scale. */
    readonly scale?: number;
    /** A quantized module's output zero point. */
    readonly zeroPoint?: number;
    /** A quantized layer's weight: its qparams (scales and zero points per channel along axis, or one of each). */
    readonly weight?: {
      /** PyTorch's weight shape, in elements. */
      shape: number[];
      /** Always qint8. */
      dtype: 'qint8';
      /** The weight's TensorQScheme. */
      qscheme: string;
      /** The channel axis, or null per tensor. */
      axis: number | null;
      /** One per channel (one per tensor). */
      scales: number[];
      /** One per channel (one per tensor). */
      zeroPoints: number[];
    };
  }

  /**
   * A model loaded in a worker by {@link io.loadModel}(source, { worker: true }).
   * forward and profile return Promises; dispose() ends the worker (pending
   * requests reject).
   */
  class WorkerModel {
    #private;
    private constructor();
    /** The graph's nodes, as {@link io.GraphModule.nodes}. */
    readonly nodes: GraphNode[];
    /** The example input's shape the model was exported with (elements), or null. */
    readonly inputShape: number[] | null;
    /** The quantized engine the model was converted under. */
    readonly engine: QuantizedEngine;
    /** Every module of the model, with its qparams. */
    readonly modules: WorkerModule[];
    /** {@link io.GraphModule.preprocessing}: read once at load. */
    readonly preprocessing: transforms.VideoClassificationOptions | transforms.VolumeSegmentationOptions | null;
    /** {@link io.GraphModule.classes}: read once at load. */
    readonly classes: readonly string[] | null;
    /**
     * {@link io.GraphModule.transforms}, run on the calling thread (frames
     * stay here; the input goes to the worker). To keep the calling thread
     * free (16 frames of 320x240 take 0.1-0.2 s), use
     * {@link io.WorkerModel.preprocess} instead.
     * @throws Error when the file records no preprocessing.
     */
    transforms(): transforms.VideoClassification | transforms.VolumeSegmentation;
    /**
     * The model's input from video frames, made in the worker:
     * `transforms().forward(frames)` there, the same bytes, without spending
     * the calling thread's time. Pass the result to forward() (or profile(),
     * forwardFloat()).
     * @param frames As {@link transforms.VideoClassification.forward}'s; copied
     *   to the worker, or with `transfer: true` their buffers handed over
     *   (detached here, as forward's x).
     * @param options transform: a {@link transforms.VideoClassification} (or
     *   its options) to use instead of the file's record (needed when it
     *   records none); transfer: default false.
     * @returns A promise of the float input [1, 3, T, cropH, cropW] (JS-owned).
     * @throws Rejects with an Error when the file records no video
     *   preprocessing and no transform is given; with a TypeError for frames
     *   that are not an array of objects, a transfer that is not a boolean or
     *   a transform that is not an object; and with the transform's own
     *   errors ({@link transforms.VideoClassification}'s constructor and forward), naming this call.
     * @example
     * ```ts
     * const model = await io.loadModel('r3d_18.qwasm.safetensors', { worker: true });
     * const black = { data: new Uint8Array(320 * 240 * 3), width: 320, height: 240 };
     * const x = await model.preprocess(Array(16).fill(black)); // made in the worker
     * x.shape; // → [ 1, 3, 16, 112, 112 ]
     * (await model.forward(x)).shape; // → [ 1, 400 ]
     * model.dispose();
     * ```
     */
    preprocess(
      frames: readonly transforms.Frame[],
      options?: {
        transform?: transforms.VideoClassification | transforms.VideoClassificationOptions;
        transfer?: boolean;
      },
    ): Promise<Tensor>;
    /** runtimeInfo() inside the worker. */
    readonly runtime: RuntimeInfo;
    /** {@link io.GraphModule.weightBytes} in the worker: packed weight bytes and their Winograd share. */
    weightBytes(): {
      /** Bytes of packed weights in wasm memory. */
      packed: number;
      /** Bytes of the Winograd layers' int8 weights among them (transformed per call, in scratch memory). */
      winograd: number;
    };
    /**
     * {@link io.GraphModule.forward} in the worker.
     * @param x The input; its buffer is transferred to the worker (detached
     *   here) unless transfer is false (then copied once); a view into a
     *   larger buffer is always copied.
     * @param options transfer: default true; maxMemoryBytes: as
     *   {@link io.GraphModule.forward}'s, in the worker; onProgress: as
     *   {@link io.ForwardOptions}'s, called here as the worker reports (what
     *   it throws rejects the forward; the worker finishes the run).
     * @returns A promise of the output (JS-owned).
     * @throws Rejects with a TypeError for an x that is not a float tensor
     *   or a transfer that is not a boolean, with the worker's error as
     *   GraphModule.forward would throw it, and with an Error after dispose().
     */
    forward(
      x: Tensor,
      options?: { transfer?: boolean; maxMemoryBytes?: number; onProgress?: (progress: ForwardProgress) => void },
    ): Promise<WorkerOutput>;
    /**
     * {@link io.GraphModule.profile} in the worker.
     * @throws Rejects as forward() does.
     */
    profile(
      x: Tensor,
      options?: { transfer?: boolean },
    ): Promise<{
      /** What forward(x) resolves to. */
      output: WorkerOutput;
      /** One entry per node run, as {@link io.GraphModule.profile}'s. */
      layers: ReturnType<GraphModule['profile']>['layers'];
      /** The largest heapBytes of the run, in bytes. */
      peakHeapBytes: number;
    }>;
    /**
     * Loads this model's float twin into the same worker, for the numeric
     * suite below: the float model exported from the PyTorch model this one
     * was quantized from (`export(float_model, ...)`). A second call replaces it.
     * @param source As {@link io.loadModel}'s (bytes are copied).
     * @param options onProgress(loadedBytes, totalBytes) while a URL downloads;
     *   signal cancels the load (it rejects with the signal's reason, and the
     *   worker drops the twin it was loading; the model stays); the twin's
     *   budget, maxActivationBytes and maxWork, is the model's (the options
     *   it was loaded with) unless given here.
     * @throws Rejects with the loader's error (a file that is not a model, a
     *   twin over its budget), the signal's reason, and after dispose().
     */
    loadFloatModel(
      source: ModelSource,
      options?: Pick<LoadModelOptions, 'maxActivationBytes' | 'maxLiveBytes' | 'maxWork'> & {
        onProgress?: (loaded: number, total: number) => void;
        signal?: AbortSignal;
      },
    ): Promise<void>;
    /**
     * The worker's wasm heap, as {@link heapInUse} and {@link heapHighWater}
     * give it there: the bytes in use now, and the most it has held at once
     * since the worker started (it only grows). A forward's peak is at most
     * `inUse` before it plus the growth of `highWater`.
     * @example
     * ```ts
     * const model = await io.loadModel('r3d_18.qwasm.safetensors', { worker: true });
     * const before = await model.heap();
     * await model.forward(tensor(new Float32Array(3 * 8 * 112 * 112), [1, 3, 8, 112, 112]));
     * const after = await model.heap();
     * after.highWater > before.inUse; // → true
     * after.inUse === before.inUse; // → true
     * model.dispose();
     * ```
     */
    heap(): Promise<{
      /** Bytes of wasm heap in use in the worker now. */
      inUse: number;
      /** The most bytes the worker's wasm heap has held at once. */
      highWater: number;
    }>;
    /**
     * {@link quantization.ns.compareWeights}(float twin, this model) in the
     * worker: each entry's statistics and shape (the tensors stay in the worker).
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}.
     */
    compareWeights(): Promise<Record<string, WorkerComparison<quantization.ns.WeightComparison>>>;
    /**
     * {@link quantization.ns.compareModelOutputs}(float twin, this model, x)
     * in the worker: each entry's statistics and shape. x as in forward().
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}, and as forward() does.
     */
    compareModelOutputs(
      x: Tensor,
      options?: { transfer?: boolean },
    ): Promise<Record<string, WorkerComparison<quantization.ns.OutputComparison>>>;
    /**
     * The float twin's forward(x) in the worker, to set its output beside
     * this model's (e.g. top-5 classes, float against int8). x as in forward().
     * @returns A promise of the float twin's output.
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}, and as forward() does.
     */
    forwardFloat(x: Tensor, options?: { transfer?: boolean }): Promise<WorkerOutput>;
    /** Ends the worker and frees everything it held; pending requests reject. Idempotent. */
    dispose(): void;
  }

  /** A numeric-suite entry from a worker: its statistics and the compared tensors' shape, not the tensors. */
  type WorkerComparison<C> = Omit<C, 'float' | 'quantized'> & {
    /** The compared tensors' shape. */
    shape: number[];
  };

  /**
   * Options of {@link io.GraphModule.forward}. maxMemoryBytes bounds the
   * memory one forward holds besides its input x and its returned output:
   * a graph that is one chain of nodes local along depth (Conv3d and
   * ConvReLU3d, quantized or float, with depth stride 1; Quantize,
   * DeQuantize, ReLU, BatchNorm3d, Identity, dequantize, arithmetic with a
   * number, argmax / softmax over the channels) runs in chunks of depth slices, the largest chunk whose
   * memory model fits (per conv a line buffer of its reach plus a chunk of
   * input slices; the largest conv window, in JS and in wasm, with the
   * conv's scratch and its output chunk; the input chunk): docs/architecture.md,
   * "Depth streaming". The output's bytes are the untiled run's. Any other
   * graph runs untiled with maxMemoryBytes as its maxLiveBytes and
   * maxActivationBytes. Without maxMemoryBytes, a graph that streams is
   * streamed within the load budget's maxLiveBytes when its untiled run
   * would go over the load budget's memory limits.
   */
  interface ForwardOptions {
    /** A positive integer: bytes of memory (wasm heap and JS arrays) the forward may hold at once. */
    maxMemoryBytes?: number;
    /**
     * Called as the forward goes, with the work done so far and the whole
     * run's work ({@link io.ForwardProgress}): after each node of an untiled
     * run, after each call of a streamed one; its last call has done equal
     * to total. What it throws ends the forward (the error reaches the
     * caller as it was thrown).
     */
    onProgress?: (progress: ForwardProgress) => void;
  }

  /**
   * A forward's progress: done of total work units, the multiply-adds the
   * load budget charges (io.LoadModelOptions' maxWork), so done / total is
   * the fraction done (nodes when the planner prices none of them). done
   * never decreases and never passes total.
   */
  interface ForwardProgress {
    /** The work done so far, from 0 to total. */
    done: number;
    /** The whole forward's work (the same in every call of one forward). */
    total: number;
  }

  /** What {@link io.GraphModule.depthStreamPlan} tells. */
  interface DepthStreamPlan {
    /** Whether the graph streams along depth on this input. */
    streamable: boolean;
    /** Why it does not (the first node that does not), or null. */
    reason: string | null;
    /** Depth slices per chunk under the budget; 0 when the graph does not stream or the budget cannot hold one. */
    depthChunk: number;
    /** The memory model's bytes at depthChunk, or null when depthChunk is 0. */
    bytes: number | null;
    /** The memory model's bytes at one slice per chunk (the least maxMemoryBytes that streams), or null. */
    minBytes: number | null;
  }

  /** The budget of one forward of a loaded model; forward() checks each node against it before running it. */
  interface LoadModelOptions {
    /** Bytes of one node's output or scratch. Default 2^28 (256 MiB); Infinity for no limit. */
    maxActivationBytes?: number;
    /**
     * Bytes one forward holds at once: the values later nodes still read, plus
     * a node's output and its scratch (a convolution's padded input, as the
     * core allocates it). Default 2^30 (1 GiB); Infinity for no limit.
     */
    maxLiveBytes?: number;
    /**
     * Work of one forward, in quantized-conv multiply-adds: every node kind is
     * charged by its measured time (a float element-wise op or a pool's window
     * element counts many; see docs/model-budget.md), so the default bounds a
     * forward near 25 s on one thread. Default 5e11; Infinity for no limit.
     */
    maxWork?: number;
    /** Every quantized convolution's Winograd option. Default {@link quantization.getWinograd}() ('auto' unless changed). */
    winograd?: WinogradOption;
  }

  /** A graph argument: a reference to another node's output, a constant, or a list of those. */
  type NodeArgument =
    | {
        /** The name of the node whose output this is. */
        readonly node: string;
      }
    | number
    | boolean
    | string
    | null
    | readonly NodeArgument[];

  /** What a node produces; null where it is not known (before a run, or not a tensor's property). */
  interface NodeOutput {
    /** quint8 for a QTensor, float32 for a float tensor. */
    readonly dtype: 'quint8' | 'float32';
    /** Dimensions in elements. */
    readonly shape: readonly number[] | null;
    /** A QTensor's scale. */
    readonly scale: number | null;
    /** A QTensor's zero point. */
    readonly zeroPoint: number | null;
  }

  /** One node of a loaded graph, as `torch.fx.Node` has it (frozen). */
  interface GraphNode {
    /** The node's unique name (torch.fx's node.name). */
    readonly name: string;
    /** placeholder, call_module, call_function, call_method or output. */
    readonly op: string;
    /** The module path, function or method name; undefined for placeholder and output. */
    readonly target: string | undefined;
    /** Positional arguments (torch.fx's node.args). */
    readonly args: readonly NodeArgument[];
    /** Keyword arguments (torch.fx's node.kwargs). */
    readonly kwargs: { readonly [name: string]: NodeArgument };
    /** Its output on the input shape the file declares (null if the file declares none). */
    readonly output: NodeOutput | null;
  }

  /**
   * A loaded model (`torch.fx.GraphModule`): its modules at their PyTorch
   * paths (namedModules(), getSubmodule('layer1.0.conv1.0')), and the
   * exported graph, which forward() runs node by node. Intermediate
   * QTensors are disposed as soon as they are last used.
   *
   * `Output` is what forward() returns: a float {@link Tensor} for a model
   * that ends with a DeQuantStub (or a float model), a {@link QTensor} for
   * one that does not. Say which when loading, once, instead of narrowing
   * every output: `io.loadModel<Tensor>(bytes)`; the default is either.
   */
  class GraphModule<Output extends Tensor | QTensor = Tensor | QTensor> extends nn.Module {
    #private;
    private constructor();
    /** The shape of the example input the model was exported with (elements; informative), or null. */
    readonly inputShape: number[] | null;
    /** The quantized engine the model was converted under in PyTorch ('fbgemm' for files of format version 1). */
    readonly engine: QuantizedEngine;
    /** The graph's nodes in execution order, with their arguments and (planned) outputs. */
    readonly nodes: GraphNode[];
    /**
     * How the input is made, as the exporter recorded it: from video frames
     * (`export(..., preprocessing=weights.transforms())`), or from a NIfTI
     * volume (`preprocessing=qwasm_volume.RECORD`: options with an
     * `orientation`), or null.
     */
    readonly preprocessing: transforms.VideoClassificationOptions | transforms.VolumeSegmentationOptions | null;
    /** The output's class names the exporter recorded (`export(..., classes=weights.meta["categories"])`), or null. */
    readonly classes: readonly string[] | null;
    /**
     * The recorded preprocessing as a transform, as torchvision's
     * `weights.transforms()`: a {@link transforms.VideoClassification}, or a
     * {@link transforms.VolumeSegmentation} for a segmentation model.
     * @throws Error when the file records none.
     * @example
     * ```ts
     * const model = io.loadModel<Tensor>(await readFile('r3d_18.qwasm.safetensors'));
     * model.classes?.length; // → 400
     * // 16 frames, e.g. ImageData from a <canvas> (RGBA); here mid-grey 171x128 frames
     * const frames = Array.from({ length: 16 }, () => ({ data: new Uint8ClampedArray(171 * 128 * 4).fill(128), width: 171, height: 128 }));
     * const t = model.transforms();
     * if (!(t instanceof transforms.VideoClassification)) throw new Error('not a video model');
     * const x = t.forward(frames);
     * x.shape; // → [ 1, 3, 16, 112, 112 ]
     * const logits = model.forward(x); // a Tensor: io.loadModel<Tensor> said so
     * logits.shape; // → [ 1, 400 ]
     * model.dispose();
     * ```
     */
    transforms(): transforms.VideoClassification | transforms.VolumeSegmentation;
    /**
     * The PyTorch model's forward.
     * @param x A float tensor, the PyTorch model's input.
     * @returns A float tensor when the model ends with a DeQuantStub (or a
     *   QTensor the caller disposes when it does not).
     * @param options maxMemoryBytes: run within this many bytes of memory
     *   by streaming along depth ({@link io.ForwardOptions}); the output's
     *   bytes are the untiled run's. onProgress: called with
     *   {done, total} work units as the run goes. Without it, a graph that streams, on an
     *   input whose untiled run would go over the load budget's
     *   maxActivationBytes or maxLiveBytes (but not its maxWork), streams
     *   within maxLiveBytes instead of being refused.
     * @throws An Error naming the node that failed, or the node that would go
     *   over the budget ({@link io.LoadModelOptions}) on this input's shape;
     *   TypeError or RangeError as that node's module throws them; a
     *   RangeError when maxMemoryBytes is not a positive integer or cannot
     *   hold the streamed run (one depth slice per chunk), and an Error
     *   naming maxMemoryBytes when a graph that cannot stream would go over it.
     */
    forward(x: Tensor, options?: ForwardOptions): Output;
    /**
     * How forward(x, { maxMemoryBytes }) would run an input of `inputShape`:
     * whether the graph streams along depth (and why not), the depth chunk
     * the budget allows (0: none), the memory model's bytes at that chunk
     * and at one slice per chunk. Without maxMemoryBytes: the largest chunk
     * (the whole depth).
     * @throws An Error when the input's work is over the load budget's maxWork.
     */
    depthStreamPlan(inputShape: number[], options?: Pick<ForwardOptions, 'maxMemoryBytes'>): DepthStreamPlan;
    /**
     * For pipelines: q enters where the QuantStub's output would, and the
     * result is the QTensor the final DeQuantStub would have read (the caller
     * disposes it).
     * @throws TypeError when q is not a QTensor, Error if the input does not
     *   go through one QuantStub, and as forward().
     */
    forwardQuantized(q: QTensor<'quint8'>): QTensor;
    /** Bytes of the quantized modules' packed weights in wasm memory, and the Winograd-transformed share of them. */
    weightBytes(): {
      /** Bytes of packed weights in wasm memory. */
      packed: number;
      /** Bytes of the Winograd layers' int8 weights among them (transformed per call, in scratch memory). */
      winograd: number;
    };
    /**
     * forward(x), timed node by node. heapBytes: the wasm heap after the node
     * plus its convolution's scratch; peakHeapBytes: their maximum (one
     * forward's high-water mark); outputBytes: the size of the node's output.
     * @throws As forward().
     */
    profile(x: Tensor): {
      /** What forward(x) returns. */
      output: Output;
      /** One entry per node run, in order. */
      layers: {
        /** The node's name. */
        name: string;
        /** The node's op. */
        op: string;
        /** The node's target. */
        target: string | undefined;
        /** A quantized convolution's arithmetic in this run; null for other nodes. */
        path: 'winograd' | 'direct' | null;
        /** Milliseconds the node took (performance.now()). */
        ms: number;
        /** The work the node was charged against the load's maxWork (quantized-conv multiply-adds). */
        work: number;
        /** Bytes of wasm heap in use after the node, plus its scratch. */
        heapBytes: number;
        /** Bytes of the node's output. */
        outputBytes: number;
        /** What the node produced in this run (its qparams included). */
        output: NodeOutput | null;
      }[];
      /** The largest heapBytes of the run (bytes), the heap before it included. */
      peakHeapBytes: number;
    };
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
