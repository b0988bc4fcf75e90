// The model worker's side of io.loadModel(source, { worker: true }): it
// loads the model with the qwasm it is given (the browser or the Node.js
// build; nothing is imported here, so both worker entries share this file)
// and answers the calling thread's requests one at a time.
//
// Requests: {id, op: 'load', source, options}, {id, op: 'forward' |
// 'profile', x: {data, shape}}; for the numeric suite, {id, op: 'loadFloat',
// source} (the float twin, held beside the model), {id, op:
// 'compareWeights'}, {id, op: 'compareModelOutputs', x} and {id, op:
// 'forwardFloat', x} (the float twin's output), {id, op: 'dropFloat'} (after a
// float load whose onProgress threw on the calling thread or that was
// aborted). Replies: {id, result} or {id, error: {name, message}}; while
// loading, {id, progress: [loadedBytes, totalBytes]}. {op: 'abort', target}
// is not queued: it aborts the read of the load or loadFloat request
// `target` at once (the calling thread's signal fired).
// Output tensors' buffers are transferred, not copied.
import { isOutOfMemory, OUT_OF_MEMORY } from '../runtime/errors.mjs';
import { readModelSource, throwIfAborted } from './source.mjs';

const ERROR_TYPES = new Set(['TypeError', 'RangeError', 'Error']);

function errorReply(id, err) {
  const name = ERROR_TYPES.has(err?.name) ? err.name : 'Error';
  const error = { name, message: String(err?.message ?? err) };
  return { id, error: isOutOfMemory(err) ? { ...error, kind: OUT_OF_MEMORY } : error };
}

/** What the calling thread keeps of a module: its type and, for a quantized layer, its weight's qparams. */
function describeModule(path, m) {
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

/** A forward's output as plain data: a float tensor, or a per-tensor QTensor's integers and qparams. */
function plainOutput(qwasm, out, transfer) {
  if (out instanceof qwasm.QTensor) {
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
function statsOnly(results) {
  return Object.fromEntries(
    Object.entries(results).map(([key, { float, quantized, ...stats }]) => [key, { ...stats, shape: float.shape }]),
  );
}

/**
 * Serves one model on `port` ({post(message, transfer), onMessage(handler)}).
 * @param {any} qwasm the library's namespace in this worker
 * @param {{post: (message: any, transfer: any[]) => void, onMessage: (handler: (message: any) => void) => void}} port
 * @param {((path: string, signal?: AbortSignal | null) => Promise<Uint8Array>) | null} [readLocalFile] reads file paths (Node.js)
 */
export function serveModel(qwasm, port, readLocalFile = null) {
  let model = null;
  let modelLimits = null; // the model's budget: the float twin's unless it has its own
  let floatModel = null; // the numeric suite's float twin (loadFloat)
  const reads = new Map(); // id of a load or loadFloat request -> the AbortController of its read
  // Aborts that came while their request waited in the queue (or as its reply was on its way: a few ids at most).
  const abortedEarly = new Set();
  // Reads a model source for request `id`; {op: 'abort', target: id} cancels it.
  const readFor = async (id, source, ctx) => {
    const controller = new AbortController();
    if (abortedEarly.delete(id)) controller.abort();
    reads.set(id, controller);
    try {
      const onProgress = (loaded, total) => port.post({ id, progress: [loaded, total] }, []);
      const bytes = await readModelSource(source, onProgress, ctx, readLocalFile, controller.signal);
      throwIfAborted(controller.signal);
      return bytes;
    } finally {
      reads.delete(id);
    }
  };
  const handle = async ({ id, op, source, options, x, limits }) => {
    if (op === 'load') {
      if (model !== null) throw new Error('this worker already holds a model');
      const { numThreads, maxActivationBytes, maxLiveBytes, maxWork, winograd } = options;
      await qwasm.init(numThreads === undefined ? undefined : { numThreads });
      const bytes = await readFor(id, source, 'io.loadModel(source, { worker: true })');
      model = qwasm.io.loadModel(bytes, { maxActivationBytes, maxLiveBytes, maxWork, winograd });
      modelLimits = { maxActivationBytes, maxLiveBytes, maxWork };
      return {
        result: {
          nodes: model.nodes,
          inputShape: model.inputShape,
          engine: model.engine,
          preprocessing: model.preprocessing,
          classes: model.classes,
          weightBytes: model.weightBytes(),
          modules: model.namedModules().map(([path, m]) => describeModule(path, m)),
          runtime: qwasm.runtimeInfo(),
        },
        transfer: [],
      };
    }
    if (model === null) throw new Error('no model is loaded in this worker');
    if (op === 'loadFloat') {
      const bytes = await readFor(id, source, 'WorkerModel.loadFloatModel(source)');
      // The model's budget, or the twin's own (maxActivationBytes, maxLiveBytes, maxWork).
      const next = qwasm.io.loadModel(bytes, { ...modelLimits, ...limits });
      floatModel?.dispose();
      floatModel = next;
      return { result: { modules: floatModel.namedModules().length }, transfer: [] };
    }
    if (op === 'dropFloat') {
      floatModel?.dispose();
      floatModel = null;
      return { result: null, transfer: [] };
    }
    if (op === 'compareWeights' || op === 'compareModelOutputs' || op === 'forwardFloat') {
      if (floatModel === null) throw new Error('no float model: call loadFloatModel(source) first');
      if (op === 'forwardFloat') {
        const transfer = [];
        return { result: plainOutput(qwasm, floatModel.forward(qwasm.tensor(x.data, x.shape)), transfer), transfer };
      }
      const ns = qwasm.quantization.ns;
      const results =
        op === 'compareWeights'
          ? ns.compareWeights(floatModel, model)
          : ns.compareModelOutputs(floatModel, model, qwasm.tensor(x.data, x.shape));
      return { result: statsOnly(results), transfer: [] };
    }
    const input = qwasm.tensor(x.data, x.shape);
    const transfer = [];
    if (op === 'forward') return { result: plainOutput(qwasm, model.forward(input), transfer), transfer };
    if (op === 'profile') {
      const { output, layers, peakHeapBytes } = model.profile(input);
      return { result: { output: plainOutput(qwasm, output, transfer), layers, peakHeapBytes }, transfer };
    }
    throw new Error(`unknown request ${String(op)}`);
  };
  // One request at a time, in order: a forward waits for the load before it.
  let queue = Promise.resolve();
  // The queue always stays fulfilled: a reply that cannot be posted (say, a
  // DataCloneError) is answered with that error, so no later request waits for ever.
  port.onMessage((message) => {
    if (message.op === 'abort') {
      const read = reads.get(message.target);
      if (read) read.abort();
      else abortedEarly.add(message.target);
      return;
    }
    queue = queue
      .then(() => handle(message))
      .then(({ result, transfer }) => port.post({ id: message.id, result }, transfer))
      .catch((err) => port.post(errorReply(message.id, err), []))
      .catch(() => {});
  });
}
