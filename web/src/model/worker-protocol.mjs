// The model worker's protocol, declared once: the messages between a
// WorkerModel (worker-model.mjs, the calling thread) and the worker serving
// its model (worker-host.mjs). Both sides import these types (tsc --checkJs
// checks each request they post or handle against them) and the few helpers
// below (a request's check, an error's reply and its rejection).
//
// Request<T> is {type: T, id, payload: Requests[T]['payload']}; the worker
// answers it, in the order the requests came, with {id, result:
// Requests[T]['result']} or {id, error}, while it reads a model source
// with {id, progress: [loadedBytes, totalBytes]}, and while it runs a forward
// that asked for it (options.progress) with {id, progress: [done, total]}
// (GraphModule.forward's onProgress, in work units). One message skips the
// queue and has no reply: {type: 'abort', target}, which stops the read of
// the load or loadFloat request `target` at once (the calling thread's signal
// fired). Anything else the worker receives (not an object, an unknown type,
// no integer id, a payload without its type's fields) is answered with a
// TypeError saying why (id null when it has none), and the queue goes on.
import { isOutOfMemory, OUT_OF_MEMORY } from '../runtime/errors.mjs';

/**
 * A model source as sent: a URL (or, in Node.js, a path) or a Blob the worker
 * reads itself, or bytes read on the calling thread.
 * @typedef {string | Blob | Uint8Array} SentSource
 */

/** @typedef {{data: Float32Array, shape: number[]}} FloatInput */

/** A video frame as sent: RGB or RGBA bytes (transforms.VideoClassification's forward checks it). @typedef {{data: Uint8Array | Uint8ClampedArray, width: number, height: number}} SentFrame */

/** transforms.VideoClassification's options, as the worker builds the transform from them. @typedef {{cropSize: any, resizeSize: any, mean?: any, std?: any, interpolation?: any}} SentTransform */

/**
 * A forward's output as plain data: a float tensor, or a per-tensor
 * QTensor's integers and qparams (a model without a final DeQuantStub).
 * @typedef {{dtype: 'float32', data: Float32Array, shape: number[]}
 *   | {dtype: string, data: Int8Array | Uint8Array | Int32Array, shape: number[], scale: number, zeroPoint: number}} PlainOutput
 */

/**
 * What the calling thread keeps of a module: its type and, for a quantized
 * layer, its weight's qparams.
 * @typedef {{path: string, type: string, backend?: string, scale?: number, zeroPoint?: number,
 *   weight?: {shape: number[], dtype: string, qscheme: string, axis: number | null, scales: number[], zeroPoints: number[]}}} ModuleSummary
 */

/**
 * What a WorkerModel keeps of its model, read once at load.
 * @typedef {{nodes: any[], inputShape: number[] | null, engine: string, preprocessing: any, classes: string[] | null,
 *   weightBytes: {packed: number, winograd: number}, modules: ModuleSummary[],
 *   runtime: ReturnType<typeof import('../runtime/runtime.mjs').runtimeInfo>}} ModelSummary
 */

/** quantization.ns's results without their tensors (which stay in the worker): the statistics per key. @typedef {Record<string, Record<string, any>>} NsStatistics */

/**
 * Every request, by type: what it carries and what it is answered with. The
 * model options were read and checked by the public call that made the
 * request (load-options.mjs); the worker builds from them as they are.
 * @typedef {{
 *   load: {payload: {source: SentSource, options: import('./load-options.mjs').ModelOptions}, result: ModelSummary},
 *   loadFloat: {payload: {source: SentSource, options: import('./load-options.mjs').ModelOptions}, result: {modules: number}},
 *   dropFloat: {payload: {}, result: null},
 *   forward: {payload: {x: FloatInput, options?: {maxMemoryBytes?: number, progress?: boolean}}, result: PlainOutput},
 *   profile: {payload: {x: FloatInput}, result: {output: PlainOutput, layers: any[], peakHeapBytes: number}},
 *   forwardFloat: {payload: {x: FloatInput}, result: PlainOutput},
 *   compareWeights: {payload: {}, result: NsStatistics},
 *   heap: {payload: {}, result: {inUse: number, highWater: number}},
 *   compareModelOutputs: {payload: {x: FloatInput}, result: NsStatistics},
 *   preprocess: {payload: {frames: SentFrame[], transform: SentTransform}, result: FloatInput},
 * }} Requests
 */

/** @typedef {keyof Requests} RequestType */

/**
 * A request of type T (every type when T is not given: the union).
 * @template {RequestType} [T=RequestType]
 * @typedef {{[K in T]: {type: K, id: number, payload: Requests[K]['payload']}}[T]} Request
 */

/** @typedef {{type: 'abort', target: number}} AbortMessage */

/** What the calling thread posts: a request, or an abort. @typedef {Request | AbortMessage} ToWorker */

/** An error as it crosses: its class's name, its message, and `kind` for an out-of-memory one or a load error (with its url, status and hint). @typedef {{name: 'TypeError' | 'RangeError' | 'Error', message: string, kind?: string, url?: string | null, status?: number | null, hint?: string | null}} ErrorData */

/**
 * What the worker posts: a result, an error, or a read's progress.
 * @typedef {{id: number | null, result: any} | {id: number | null, error: ErrorData}
 *   | {id: number, progress: [number, number | null]}} FromWorker
 */

/**
 * The calling thread's side of a worker (browserWorkerPort, nodeWorkerPort).
 * busy / idle keep a Node.js process alive while a request is pending.
 * @typedef {{post: (message: ToWorker, transfer: Transferable[]) => void, onMessage: (handler: (message: FromWorker) => void) => void,
 *   onError: (handler: (why: string) => void) => void, busy: () => void, idle: () => void, terminate: () => void, script?: string}} CallerPort
 */

/** The worker's side (the worker entries'). @typedef {{post: (message: FromWorker, transfer: Transferable[]) => void, onMessage: (handler: (message: unknown) => void) => void}} HostPort */

/**
 * Each request type's payload fields, checked in every request the worker
 * receives (tsc checks this table against Requests: every type, and only
 * fields of its payload).
 * @type {{[T in RequestType]: (keyof Requests[T]['payload'])[]}}
 */
const PAYLOAD_FIELDS = {
  load: ['source', 'options'],
  loadFloat: ['source', 'options'],
  dropFloat: [],
  forward: ['x'], // options (maxMemoryBytes, progress) may be left out
  profile: ['x'],
  forwardFloat: ['x'],
  compareWeights: [],
  heap: [],
  compareModelOutputs: ['x'],
  preprocess: ['frames', 'transform'],
};

/** @returns {v is Record<string, any>} */
const isObject = (v) => v !== null && typeof v === 'object';

/**
 * Why `message` is not a request of this protocol (a sentence), or null when
 * it is one: an object with a known type, an integer id and a payload with
 * its type's fields. (The values are checked where they are used.)
 * @param {unknown} message
 * @returns {string | null}
 */
export function malformedRequest(message) {
  if (!isObject(message)) return `a request must be an object, got ${typeof message}`;
  const { type, id, payload } = message;
  if (type === 'abort') return 'an abort needs the integer id of its target';
  if (typeof type !== 'string' || !Object.hasOwn(PAYLOAD_FIELDS, type)) {
    return `unknown request type ${typeof type === 'string' ? `'${type.slice(0, 40)}'` : typeof type} (expected ${Object.keys(PAYLOAD_FIELDS).join(', ')})`;
  }
  if (!Number.isSafeInteger(id)) return `a ${type} request needs an integer id`;
  if (!isObject(payload)) return `a ${type} request needs a payload object`;
  const missing = PAYLOAD_FIELDS[type].filter(
    (field) => !isObject(payload[field]) && typeof payload[field] !== 'string',
  );
  if (missing.length > 0) return `a ${type} request's payload has no ${missing.join(' or ')}`;
  return null;
}

/**
 * True for the one message that is not a request: an abort of request `target`.
 * @param {unknown} message
 * @returns {message is AbortMessage}
 */
export function isAbort(message) {
  return isObject(message) && message.type === 'abort' && Number.isSafeInteger(message.target);
}

const ERROR_NAMES = new Set(['TypeError', 'RangeError', 'Error']);

/**
 * The reply to request `id` that failed with `err`: its class (TypeError,
 * RangeError, else Error) and message, and kind for an out-of-memory error.
 * @returns {FromWorker}
 */
export function errorReply(id, err) {
  const name = ERROR_NAMES.has(err?.name) ? err.name : 'Error';
  /** @type {ErrorData} */
  const error = { name, message: String(err?.message ?? err) };
  if (isOutOfMemory(err)) error.kind = OUT_OF_MEMORY;
  // A load error's fields (load-error.mjs), as the thread that asked gets them.
  else if (typeof err?.kind === 'string') {
    Object.assign(error, { kind: err.kind, url: err.url ?? null, status: err.status ?? null, hint: err.hint ?? null });
  }
  return { id, error };
}

/**
 * The rejection of a request the worker answered with `error`, naming the
 * call `ctx` that made it: the worker's message names its own call
 * (io.loadModel(bytes), GraphModule.forward(x)), which this one replaces.
 * @param {ErrorData} error
 * @param {string} ctx
 */
export function rejectionOf(error, ctx) {
  const Type = error.name === 'TypeError' ? TypeError : error.name === 'RangeError' ? RangeError : Error;
  const m = error.message;
  const rejection = new Type(m.startsWith(`${ctx}: `) ? m : `${ctx}: ${m.replace(/^[\w.]+\([^)]*\): /, '')}`);
  if (error.kind === OUT_OF_MEMORY) Object.assign(rejection, { kind: OUT_OF_MEMORY });
  else if (typeof error.kind === 'string') {
    Object.assign(rejection, { kind: error.kind, url: error.url, status: error.status, hint: error.hint });
  }
  return rejection;
}
