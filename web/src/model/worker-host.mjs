// The model worker's side of io.loadModel(source, { worker: true }): it
// serves one model (and, for the numeric suite, its float twin) to the
// WorkerModel that started the worker, answering its requests one at a time,
// in order, by a table keyed by request type. The messages are
// worker-protocol.mjs's. Output tensors' buffers are transferred, not copied.
//
// This module is part of the library the worker runs: the browser's model
// worker bundles it (model-worker.mjs); the Node.js one reaches it in the
// package's build beside it (model-worker.node.mjs, io.WorkerModel._serve).
import { compareModelOutputs, compareWeights } from '../quantization/ns.mjs';
import { heapHighWater, heapInUse } from '../runtime/diagnostics.mjs';
import { init, localFileReader, runtimeInfo } from '../runtime/runtime.mjs';
import { QTensor } from '../tensors/qtensor.mjs';
import { tensor } from '../tensors/tensor.mjs';
import { VideoClassification } from '../transforms/video-classification.mjs';
import { buildModel } from './load.mjs';
import { sourceName } from './load-error.mjs';
import { throwIfAborted } from './source.mjs';
import { readModelSource } from './source-read.mjs';
import { errorReply, isAbort, malformedRequest } from './worker-protocol.mjs';

/**
 * @typedef {import('./worker-protocol.mjs').Requests} Requests
 * @typedef {import('./worker-protocol.mjs').RequestType} RequestType
 * @typedef {import('./graph-module.mjs').GraphModule} GraphModule
 */

/**
 * What the worker holds, and how it reads a model source for request `id`.
 * @typedef {{model: GraphModule | null, floatModel: GraphModule | null,
 *   read: (id: number, source: import('./worker-protocol.mjs').SentSource, ctx: string, cache?: boolean) => Promise<Uint8Array>}} WorkerState
 */

/**
 * A request's handler: its result, and the buffers to transfer with it.
 * @template {RequestType} T
 * @typedef {(payload: Requests[T]['payload'], worker: WorkerState, id: number,
 *   port: import('./worker-protocol.mjs').HostPort) => Promise<Answer<T>> | Answer<T>} Handler
 */
/** @template {RequestType} T @typedef {{result: Requests[T]['result'], transfer: Transferable[]}} Answer */

// The calls the loads answer for: their errors name them (WorkerModel keeps a message that does).
const LOAD_CTX = 'io.loadModel(source, { worker: true })';
const LOAD_FLOAT_CTX = 'WorkerModel.loadFloatModel(source)';

/** The model, or why none can be used yet. */
function modelOf(worker) {
  if (worker.model === null) throw new Error('no model is loaded in this worker');
  return worker.model;
}

/** The float twin (after the model), or why none can be used. */
function floatModelOf(worker) {
  modelOf(worker);
  if (worker.floatModel === null) throw new Error('no float model: call loadFloatModel(source) first');
  return worker.floatModel;
}

const inputOf = (x) => tensor(x.data, x.shape);
/**
 * An answer with nothing to transfer.
 * @template R
 * @param {R} result
 * @returns {{result: R, transfer: Transferable[]}}
 */
const plain = (result) => ({ result, transfer: [] });

/** @type {{[T in RequestType]: Handler<T>}} */
const HANDLERS = {
  async load({ source, options }, worker, id) {
    if (worker.model !== null) throw new Error('this worker already holds a model');
    await init(options.numThreads === null ? undefined : { numThreads: options.numThreads });
    const bytes = await worker.read(id, source, LOAD_CTX, options.cache);
    worker.model = buildModel(bytes, options, LOAD_CTX, sourceName(source));
    return plain(summaryOf(worker.model));
  },
  async loadFloat({ source, options }, worker, id) {
    modelOf(worker);
    const bytes = await worker.read(id, source, LOAD_FLOAT_CTX, options.cache);
    const next = buildModel(bytes, options, LOAD_FLOAT_CTX, sourceName(source));
    worker.floatModel?.dispose();
    worker.floatModel = next;
    return plain({ modules: next.namedModules().length });
  },
  dropFloat(_, worker) {
    modelOf(worker);
    worker.floatModel?.dispose();
    worker.floatModel = null;
    return plain(null);
  },
  forward({ x, options }, worker, id, port) {
    const transfer = [];
    // GraphModule.forward reads (and checks) the options: only maxMemoryBytes crosses, when given,
    // and progress: true when the caller passed onProgress (reported as {id, progress: [done, total]}).
    const o = options !== null && typeof options === 'object' ? options : {};
    /** @type {{maxMemoryBytes?: number, onProgress?: (p: {done: number, total: number}) => void}} */
    const run = {};
    if (o.maxMemoryBytes !== undefined) run.maxMemoryBytes = o.maxMemoryBytes;
    if (o.progress === true) run.onProgress = ({ done, total }) => port.post({ id, progress: [done, total] }, []);
    return { result: plainOutput(modelOf(worker).forward(inputOf(x), run), transfer), transfer };
  },
  profile({ x }, worker) {
    const { output, layers, peakHeapBytes } = modelOf(worker).profile(inputOf(x));
    const transfer = [];
    return { result: { output: plainOutput(output, transfer), layers, peakHeapBytes }, transfer };
  },
  forwardFloat({ x }, worker) {
    const transfer = [];
    return { result: plainOutput(floatModelOf(worker).forward(inputOf(x)), transfer), transfer };
  },
  heap(_, worker) {
    modelOf(worker);
    return plain({ inUse: heapInUse(), highWater: heapHighWater() });
  },
  compareWeights(_, worker) {
    return plain(statisticsOf(compareWeights(floatModelOf(worker), worker.model)));
  },
  compareModelOutputs({ x }, worker) {
    return plain(statisticsOf(compareModelOutputs(floatModelOf(worker), worker.model, inputOf(x))));
  },
  // The model's input from video frames, made here so that the calling thread does not spend the
  // transform's time (0.1-0.2 s for 16 frames of 320x240); the caller chose the options.
  preprocess({ frames, transform }, worker) {
    modelOf(worker);
    const x = new VideoClassification(transform).forward(frames);
    return { result: { data: x.data, shape: x.shape }, transfer: [x.data.buffer] };
  },
};

/** @returns {import('./worker-protocol.mjs').ModelSummary} */
function summaryOf(model) {
  return {
    nodes: model.nodes,
    inputShape: model.inputShape,
    engine: model.engine,
    preprocessing: model.preprocessing,
    classes: model.classes,
    weightBytes: model.weightBytes(),
    modules: model.namedModules().map(([path, m]) => describeModule(path, m)),
    runtime: runtimeInfo(),
  };
}

/** @returns {import('./worker-protocol.mjs').ModuleSummary} */
function describeModule(path, m) {
  /** @type {import('./worker-protocol.mjs').ModuleSummary} */
  const entry = { path, type: m.constructor.name };
  if (typeof m.backend === 'string') entry.backend = m.backend;
  if (typeof m.scale === 'number') entry.scale = m.scale;
  if (typeof m.zeroPoint === 'number') entry.zeroPoint = m.zeroPoint;
  if (typeof m.weight === 'function' && typeof m.scale === 'number') {
    const w = m.weight();
    try {
      const perTensor = w.qscheme() === 'per_tensor_affine';
      entry.weight = {
        shape: [...w.shape],
        dtype: w.dtype,
        qscheme: w.qscheme(),
        axis: perTensor ? null : w.qPerChannelAxis(),
        scales: perTensor ? [w.qScale()] : Array.from(w.qPerChannelScales()),
        zeroPoints: perTensor ? [w.qZeroPoint()] : Array.from(w.qPerChannelZeroPoints()),
      };
    } finally {
      w.dispose();
    }
  }
  return entry;
}

/**
 * A forward's output as plain data: a float tensor, or a per-tensor QTensor's integers and qparams.
 * @returns {import('./worker-protocol.mjs').PlainOutput}
 */
function plainOutput(out, transfer) {
  if (out instanceof QTensor) {
    try {
      const data = out.intRepr();
      transfer.push(data.buffer);
      return { dtype: out.dtype, data, shape: [...out.shape], scale: out.qScale(), zeroPoint: out.qZeroPoint() };
    } finally {
      out.dispose();
    }
  }
  // A float tensor: its data is JS-owned and may be a view of a larger buffer.
  const data =
    out.data.byteOffset === 0 && out.data.byteLength === out.data.buffer.byteLength ? out.data : out.data.slice();
  transfer.push(data.buffer);
  return { dtype: 'float32', data, shape: [...out.shape] };
}

/** quantization.ns's results without their tensors (which stay in the worker): the statistics per key. */
function statisticsOf(results) {
  return Object.fromEntries(
    Object.entries(results).map(([key, { float, quantized, ...stats }]) => [key, { ...stats, shape: float.shape }]),
  );
}

/**
 * @internal Serves one model on `port`, the worker's side of its messages
 * (the worker entries call it once).
 * @param {import('./worker-protocol.mjs').HostPort} port
 */
export function serveModel(port) {
  const reads = new Map(); // id of a load or loadFloat request -> the AbortController of its read
  // Aborts that came while their request waited in the queue (or as its reply was on its way: a few ids at most).
  const abortedEarly = new Set();
  /** @type {WorkerState} */
  const worker = {
    model: null,
    floatModel: null,
    // Reads a model source for request `id`; {type: 'abort', target: id} cancels it.
    async read(id, source, ctx, cache = false) {
      const controller = new AbortController();
      if (abortedEarly.delete(id)) controller.abort();
      reads.set(id, controller);
      try {
        const onProgress = (loaded, total) => port.post({ id, progress: [loaded, total] }, []);
        const bytes = await readModelSource(source, onProgress, ctx, localFileReader(), controller.signal, cache);
        throwIfAborted(controller.signal);
        return bytes;
      } finally {
        reads.delete(id);
      }
    },
  };
  // Answers one request. A reply that cannot be posted (say, a DataCloneError)
  // is answered with that error, so no later request waits for ever.
  const answer = async (message) => {
    const id = Number.isSafeInteger(message?.id) ? message.id : null;
    try {
      const malformed = malformedRequest(message);
      if (malformed !== null) throw new TypeError(`the model worker got a malformed request: ${malformed}`);
      const handler = /** @type {Handler<any>} */ (HANDLERS[message.type]);
      const { result, transfer } = await handler(message.payload, worker, id, port);
      port.post({ id, result }, transfer);
    } catch (err) {
      port.post(errorReply(id, err), []);
    }
  };
  // One request at a time, in order: a forward waits for the load before it.
  // The queue always stays fulfilled.
  let queue = Promise.resolve();
  port.onMessage((message) => {
    if (isAbort(message)) {
      const read = reads.get(message.target);
      if (read) read.abort();
      else abortedEarly.add(message.target);
      return;
    }
    queue = queue.then(() => answer(message)).catch(() => {});
  });
}
