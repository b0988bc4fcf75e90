// io.loadModel(source, { worker: true }): the model is loaded and run in a
// dedicated worker the library starts (a module worker in browsers,
// worker_threads in Node.js), so a page's main thread only posts requests
// and receives results. The worker is worker-host.mjs; WorkerModel
// (worker-model.mjs's class, its methods here) is its handle here. Their
// messages are worker-protocol.mjs's. It is bundled on its own beside the
// glues (dist/qwasm.model-client.mjs, by scripts/package.mjs) with the
// source reader (source-read.mjs) and loaded on first use (io.mjs,
// load.mjs), so that an app that loads no model by URL or in a worker does
// not carry it. What holds state (the runtime's platform hooks, the load
// options' defaults, the WorkerModel class itself) comes in from the
// library as `deps` (io.mjs WORKER_DEPS), never a copy of its own.
import { bytesOf, describe, isArrayBuffer, readOptions } from '../runtime/args.mjs';
import { loadError, sourceName, withLoadFields } from './load-error.mjs';
import { absoluteUrl, isModelSource, kindOf, readSignal, sourceError, throwIfAborted } from './source.mjs';
import { readModelSource } from './source-read.mjs';
import { rejectionOf } from './worker-protocol.mjs';

export { readModelSource };

/**
 * The library's own functions and class this module uses (io.mjs WORKER_DEPS).
 * @type {any}
 */
let deps = null;

/**
 * @typedef {import('./worker-protocol.mjs').Requests} Requests
 * @typedef {import('./worker-protocol.mjs').RequestType} RequestType
 * @typedef {import('./worker-protocol.mjs').CallerPort} CallerPort
 * @typedef {import('./load-options.mjs').ModelOptions} ModelOptions
 */

const CTX = 'io.loadModel(source, { worker: true })';
const TENSOR_CTX = 'tensor(data, shape): ';

/**
 * A float tensor's data for postMessage: its own buffer when it may be
 * transferred, else one copy. Read through the intrinsic accessors (bytesOf):
 * an object's own `buffer` or `byteOffset` cannot redirect what is sent or
 * detached, and a detached buffer is a TypeError.
 */
function transferable(data, transfer, ctx) {
  const bytes = bytesOf(data, 'x.data', ctx);
  // (isArrayBuffer, not instanceof: another realm's buffer is one too; a SharedArrayBuffer cannot be transferred.)
  const whole = bytes.byteOffset === 0 && isArrayBuffer(bytes.buffer) && bytes.byteLength === bytes.buffer.byteLength;
  if (whole && transfer) return new Float32Array(bytes.buffer);
  const copy = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(copy.buffer).set(bytes);
  return copy;
}

/** @type {any} made once, from the library's WorkerModel (an instance is an io.WorkerModel) */
let Client = null;

/** The WorkerModel a worker load resolves to: io.WorkerModel with its methods. */
function clientClass() {
  if (Client !== null) return Client;
  /** Documented at io.WorkerModel (web/declarations/io.d.ts). */
  Client = class WorkerModel extends deps.WorkerModel {
    /** @type {CallerPort} */
    #port;
    #pending = new Map(); // id -> {resolve, reject, onProgress, ctx, type}
    #nextId = 1;
    /** @type {import('./worker-protocol.mjs').ModelSummary | null} */
    #info = null;
    /** @type {ModelOptions | null} the options the model was loaded with (its float twin's, but for its own budget) */
    #options = null;
    #dead = null; // why no request can be made any more

    /**
     * @internal Made by io.loadModel(source, { worker: true }).
     * @param {CallerPort} port
     */
    constructor(port) {
      super();
      this.#port = port;
      port.onMessage((m) => this.#receive(m));
      port.onError((why) => this.#fail(`the model worker failed: ${why}`, workerHint(port, this.#info === null)));
    }

    /** @param {import('./worker-protocol.mjs').FromWorker} message */
    #receive(message) {
      const id = message.id;
      const p = this.#pending.get(id);
      if (p === undefined) return;
      if ('progress' in message) {
        const onProgress = p.onProgress; // called as a function: `this` is not qwasm's record
        try {
          onProgress?.(message.progress[0], message.progress[1]);
        } catch (err) {
          // As when it throws during a read on this thread: the load fails with that error.
          this.#pending.delete(id);
          p.reject(err);
          if (p.type === 'forward') {
            // The forward rejects with it; the worker finishes the run, its answer finds no request.
            if (this.#pending.size === 0) this.#port.idle();
          } else if (p.type !== 'loadFloat') this.#fail('the load failed: onProgress threw');
          else {
            // The model stays; the float twin the worker goes on loading is dropped after it (requests run in order).
            if (this.#pending.size === 0) this.#port.idle();
            this.#dropFloat();
          }
        }
        return;
      }
      this.#pending.delete(id);
      if (this.#pending.size === 0) this.#port.idle();
      if ('error' in message) p.reject(rejectionOf(message.error, p.ctx));
      else p.resolve(message.result);
    }

    /** Ends the worker; pending requests reject with `why` (a load error of kind 'worker' when `hint` is given). */
    #fail(why, hint) {
      if (this.#dead !== null) return;
      this.#dead = why;
      this.#port.terminate();
      for (const p of this.#pending.values()) {
        const message = `${p.ctx}: ${why}`;
        p.reject(hint === undefined ? new Error(message) : loadError(message, { kind: 'worker', url: 'bytes', hint }));
      }
      this.#pending.clear();
    }

    /**
     * Posts the request `type` as request `id`.
     * @template {RequestType} T
     * @param {number} id
     * @param {T} type
     * @param {Requests[T]['payload']} payload
     * @param {Transferable[]} [transfer]
     */
    #send(id, type, payload, transfer = []) {
      this.#port.post(/** @type {import('./worker-protocol.mjs').Request} */ ({ type, id, payload }), transfer);
    }

    /** Asks the worker to drop its float twin, without waiting (its answer finds no pending request). */
    #dropFloat() {
      this.#send(this.#nextId++, 'dropFloat', {});
    }

    /**
     * The request `type` for the call `ctx`: resolves with the worker's result,
     * rejects with its error (naming ctx), or with the signal's reason.
     * @template {RequestType} T
     * @param {string} ctx
     * @param {T} type
     * @param {Requests[T]['payload']} payload
     * @param {Transferable[]} [transfer]
     * @param {((loaded: number, total: number | null) => void) | undefined} [onProgress]
     * @param {AbortSignal | null} [signal]
     * @returns {Promise<Requests[T]['result']>}
     */
    #request(ctx, type, payload, transfer = [], onProgress = undefined, signal = null) {
      if (this.#dead !== null) return Promise.reject(new Error(`${ctx}: ${this.#dead}`));
      if (signal?.aborted) return Promise.reject(signal.reason);
      const id = this.#nextId++;
      const request = new Promise((resolve, reject) => {
        this.#pending.set(id, { resolve, reject, onProgress, ctx, type });
        this.#port.busy();
        try {
          this.#send(id, type, payload, transfer);
        } catch (err) {
          // Not sent (a buffer that cannot be transferred): nothing will answer it.
          this.#pending.delete(id);
          if (this.#pending.size === 0) this.#port.idle();
          reject(new TypeError(`${ctx}: ${err?.message ?? err}`, { cause: err }));
        }
      });
      if (signal === null) return request;
      const onAbort = () => this.#abort(id, signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const settled = () => signal.removeEventListener('abort', onAbort);
      request.then(settled, settled);
      return request;
    }

    // The load request `id` rejects with `reason` now. The model's own load ends
    // the worker (everything it held goes with it); a float twin's load is
    // stopped in the worker and the twin dropped after it (as when its
    // onProgress throws), the model staying.
    #abort(id, reason) {
      const p = this.#pending.get(id);
      if (p === undefined) return; // already answered
      this.#pending.delete(id);
      p.reject(reason);
      if (p.type === 'load') {
        this.#fail('the load was aborted');
        return;
      }
      if (this.#pending.size === 0) this.#port.idle();
      this.#port.post({ type: 'abort', target: id }, []);
      this.#dropFloat();
    }

    /**
     * @internal Loads the model (loadModelInWorker).
     * @param {import('./worker-protocol.mjs').SentSource} source
     * @param {ModelOptions} options
     */
    async _load(source, options, onProgress, transfer, signal = null) {
      const info = await this.#request(CTX, 'load', { source, options }, transfer, onProgress, signal);
      // Read-only, as GraphModule's (they arrive as structured clones, which are not frozen).
      for (const key of ['preprocessing', 'classes']) deepFreeze(info[key]);
      this.#info = info;
      this.#options = options;
    }

    #input(x, options, ctx, extra = []) {
      const read = readOptions(options, ['transfer', ...extra], ctx);
      const transfer = read.get('transfer') ?? true;
      if (typeof transfer !== 'boolean')
        throw new TypeError(`${ctx}: transfer must be a boolean, got ${describe(transfer)}`);
      if (x === null || typeof x !== 'object')
        throw new TypeError(`${ctx}: x must be a float tensor {data, shape}, got ${describe(x)}`);
      let t;
      try {
        t = deps.tensor(x.data, x.shape);
      } catch (err) {
        // tensor() throws TypeErrors and RangeErrors naming itself: they name this call instead.
        // Anything else came from the caller's own code (a getter, a Proxy) and reaches them
        // unchanged, as README's Errors section says (a GraphModule's forward does the same).
        const ours = (err instanceof TypeError || err instanceof RangeError) && err.message.startsWith(TENSOR_CTX);
        if (!ours) throw err;
        const Type = err instanceof RangeError ? RangeError : TypeError;
        throw new Type(`${ctx}: ${err.message.slice(TENSOR_CTX.length)}`);
      }
      const data = transferable(t.data, transfer, ctx);
      return { x: { data, shape: t.shape }, transfer: [data.buffer], read };
    }

    /**
     * The request `type` on the input x (read as #input reads it); a bad x, like every error, is a rejection.
     * @template {'forward' | 'profile' | 'forwardFloat' | 'compareModelOutputs'} T
     * @param {T} type
     * @returns {Promise<Requests[T]['result']>}
     */
    #requestOn(x, options, type, ctx) {
      try {
        const { x: input, transfer } = this.#input(x, options, ctx);
        return this.#request(ctx, type, { x: input }, transfer);
      } catch (err) {
        return Promise.reject(err);
      }
    }

    /** Documented at io.WorkerModel.forward (web/declarations/io.d.ts). */
    forward(x, options) {
      const ctx = 'WorkerModel.forward(x)';
      try {
        const { x: input, transfer, read } = this.#input(x, options, ctx, ['maxMemoryBytes', 'onProgress']);
        // Checked by GraphModule.forward in the worker; a number crosses as itself.
        const maxMemoryBytes = read.get('maxMemoryBytes');
        if (maxMemoryBytes !== undefined && typeof maxMemoryBytes !== 'number') {
          throw new TypeError(`${ctx}: maxMemoryBytes must be a number, got ${describe(maxMemoryBytes)}`);
        }
        // onProgress stays here: the worker is asked to report, and its reports call it.
        const onProgress = read.get('onProgress');
        if (onProgress !== undefined && typeof onProgress !== 'function') {
          throw new TypeError(`${ctx}: onProgress must be a function, got ${describe(onProgress)}`);
        }
        /** @type {{maxMemoryBytes?: number, progress?: boolean}} */
        const sent = maxMemoryBytes === undefined ? {} : { maxMemoryBytes };
        if (onProgress !== undefined) sent.progress = true;
        const relay = onProgress === undefined ? undefined : (done, total) => onProgress({ done, total });
        return this.#request(ctx, 'forward', { x: input, options: sent }, transfer, relay).then(plainResult);
      } catch (err) {
        return Promise.reject(err);
      }
    }

    /** forward(x), timed node by node in the worker: {output, layers, peakHeapBytes} (GraphModule.profile). */
    profile(x, options) {
      return this.#requestOn(x, options, 'profile', 'WorkerModel.profile(x)').then((r) => ({
        ...r,
        output: plainResult(r.output),
      }));
    }

    /** Documented at io.WorkerModel.loadFloatModel (web/declarations/io.d.ts). */
    loadFloatModel(source, options) {
      const ctx = 'WorkerModel.loadFloatModel(source)';
      try {
        const o = readOptions(options, ['onProgress', 'signal', 'maxActivationBytes', 'maxLiveBytes', 'maxWork'], ctx);
        const onProgress = o.get('onProgress');
        if (onProgress !== undefined && typeof onProgress !== 'function')
          throw new TypeError(`${ctx}: onProgress must be a function, got ${describe(onProgress)}`);
        // The model's options, but for the twin's own budget where it has one.
        const twin = deps.withBudget(this.#options, deps.readBudget(o, ctx));
        const signal = readSignal(o.get('signal'), ctx);
        throwIfAborted(signal);
        return forWorker(source, onProgress, ctx, signal).then(({ sent, transfer, workerProgress }) =>
          this.#request(ctx, 'loadFloat', { source: sent, options: twin }, transfer, workerProgress, signal).then(
            () => undefined,
          ),
        );
      } catch (err) {
        return Promise.reject(err);
      }
    }

    /** Documented at io.WorkerModel.heap (web/declarations/io.d.ts). */
    heap() {
      return this.#request('WorkerModel.heap()', 'heap', {});
    }

    /** quantization.ns.compareWeights(float twin, this model), in the worker: the statistics per key (no tensors). */
    compareWeights() {
      return this.#request('WorkerModel.compareWeights()', 'compareWeights', {});
    }

    /** Documented at io.WorkerModel.compareModelOutputs (web/declarations/io.d.ts). */
    compareModelOutputs(x, options) {
      return this.#requestOn(x, options, 'compareModelOutputs', 'WorkerModel.compareModelOutputs(x)');
    }

    /** Documented at io.WorkerModel.forwardFloat (web/declarations/io.d.ts). */
    forwardFloat(x, options) {
      return this.#requestOn(x, options, 'forwardFloat', 'WorkerModel.forwardFloat(x)').then(plainResult);
    }

    /** GraphModule.preprocessing: the recorded VideoClassification options, or null. */
    get preprocessing() {
      return this.#info.preprocessing;
    }

    /** GraphModule.classes: the output's class names, or null. */
    get classes() {
      return this.#info.classes;
    }

    /** GraphModule.transforms(): a transforms.VideoClassification, run on this thread (frames are not sent). */
    transforms() {
      return deps.transformsOf(this.#info.preprocessing, 'WorkerModel.transforms()');
    }

    /** Documented at io.WorkerModel.preprocess (web/declarations/io.d.ts). */
    preprocess(frames, options) {
      const ctx = 'WorkerModel.preprocess(frames)';
      try {
        const o = readOptions(options, ['transform', 'transfer'], ctx);
        const transfer = o.get('transfer') ?? false;
        if (typeof transfer !== 'boolean')
          throw new TypeError(`${ctx}: transfer must be a boolean, got ${describe(transfer)}`);
        const sent = sentFrames(frames, transfer, ctx);
        const payload = { frames: sent.frames, transform: sentTransform(o, this.#info, ctx) };
        return this.#request(ctx, 'preprocess', payload, sent.transfer).then((x) => deps.tensor(x.data, x.shape));
      } catch (err) {
        return Promise.reject(err);
      }
    }

    /** The graph's nodes, as GraphModule.nodes. */
    get nodes() {
      return this.#info.nodes;
    }

    /** The example input's shape the model was exported with, or null. */
    get inputShape() {
      return this.#info.inputShape === null ? null : [...this.#info.inputShape];
    }

    /** The quantized engine the model was converted under ('x86' or 'fbgemm'). */
    get engine() {
      return this.#info.engine;
    }

    /** Documented at io.WorkerModel.modules (web/declarations/io.d.ts). */
    get modules() {
      return this.#info.modules;
    }

    /** runtimeInfo() inside the worker: the variant and threads it runs with. */
    get runtime() {
      return { ...this.#info.runtime };
    }

    /** GraphModule.weightBytes(): {packed, winograd}. */
    weightBytes() {
      return { ...this.#info.weightBytes };
    }

    /** Ends the worker (and frees everything it held); pending requests reject. */
    dispose() {
      this.#fail('the model was disposed');
    }
  };
  return Client;
}

/**
 * What to try when the model worker fails: before the model loaded, its
 * script most likely did not load (a bundler that did not emit it); after,
 * it ran out of memory or was ended.
 * @returns {string | null}
 */
function workerHint(port, loading) {
  if (!loading) return null;
  const script = port.script ?? 'qwasm.model-worker.mjs';
  return (
    `If its script (${script}) did not load: a bundler that does not emit it (esbuild, Rollup) needs ` +
    "node_modules/qwasm/dist/ copied and io.loadModel(url, { worker: true, locateFile: (file) => '/qwasm/' + file })"
  );
}

function deepFreeze(value) {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const TRANSFORM_KEYS = ['cropSize', 'resizeSize', 'mean', 'std', 'interpolation'];

/**
 * The transform's options for the worker (which checks them as the
 * constructor does): options.transform (a transforms.VideoClassification or
 * its options), else the model file's record.
 */
function sentTransform(o, info, ctx) {
  const given = o.get('transform');
  if (given === undefined) {
    const p = info.preprocessing;
    if (p === null || p.cropSize === undefined) {
      throw new Error(
        `${ctx}: the model file records ${p === null ? 'no preprocessing' : "a volume's preprocessing (VolumeSegmentation), not a video's"}; pass { transform: new transforms.VideoClassification({ cropSize, resizeSize }) }`,
      );
    }
    return { ...p };
  }
  if (given === null || typeof given !== 'object') {
    throw new TypeError(
      `${ctx}: transform must be a transforms.VideoClassification or its options, got ${describe(given)}`,
    );
  }
  // Its options read once, as plain values (a VideoClassification's own fields are these).
  const out = {};
  for (const key of TRANSFORM_KEYS) {
    const v = given[key];
    if (v !== undefined) out[key] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

/**
 * Frames for postMessage, {frames, transfer}: each {data, width, height} read
 * once (the worker's transform checks them); with transfer, each buffer once.
 */
function sentFrames(frames, transfer, ctx) {
  if (!Array.isArray(frames)) throw new TypeError(`${ctx}: frames must be an array of frames, got ${describe(frames)}`);
  const buffers = new Set();
  const sent = frames.map((f, t) => {
    if (f === null || typeof f !== 'object')
      throw new TypeError(`${ctx}: frames[${t}] must be {data, width, height} (e.g. an ImageData), got ${describe(f)}`);
    const { data, width, height } = f;
    if (transfer && ArrayBuffer.isView(data)) {
      const bytes = bytesOf(data, `frames[${t}].data`, ctx);
      if (isArrayBuffer(bytes.buffer)) buffers.add(bytes.buffer);
    }
    return { data, width, height };
  });
  return { frames: sent, transfer: [...buffers] };
}

function plainResult(out) {
  return out.dtype === 'float32' ? deps.tensor(out.data, out.shape) : out;
}

/**
 * A model source on its way to the worker: {sent, transfer, workerProgress}.
 * A URL (or, in Node.js, a path) or a Blob / File is sent as it is and read by
 * the worker itself, off this thread (a large File read here would end in one
 * long task gathering its chunks), the worker reporting the progress
 * (workerProgress: onProgress). Anything else is read here, without
 * blocking, and handed over: bytes read here are transferred, bytes the
 * caller passed are copied once (they stay theirs).
 */
async function forWorker(source, onProgress, ctx, signal) {
  const kind = kindOf(source);
  if (kind === 'url') {
    const url = absoluteUrl(source) ?? String(source);
    // Node.js: a blob: URL names a Blob of this thread only (the worker could not fetch it): send the Blob.
    const resolve = url.startsWith('blob:') ? deps.objectUrlResolver() : null;
    if (resolve === null) return { sent: url, transfer: [], workerProgress: onProgress };
    const blob = resolve(url);
    if (blob === undefined) {
      throw new Error(
        `${ctx}: ${url} names no Blob (it was revoked, or made with URL.createObjectURL in another thread)`,
      );
    }
    return { sent: blob, transfer: [], workerProgress: onProgress };
  }
  if (kind === 'blob') return { sent: source, transfer: [], workerProgress: onProgress };
  const read = await readModelSource(source, onProgress, ctx, deps.localFileReader(), signal);
  const whole = read.byteOffset === 0 && read.byteLength === read.buffer.byteLength;
  const sent = kind !== 'bytes' && whole ? read : read.slice();
  return { sent, transfer: [sent.buffer], workerProgress: undefined };
}

/**
 * io.loadModel(source, { worker: true }) (io.mjs): starts a model worker and
 * loads `source` in it. The options are read once, here (load-options.mjs);
 * their `model` part is sent as it is. An abort of signal ends the worker and
 * rejects with its reason; locateFile(name) says where the model worker's
 * script is, for bundlers that do not emit it (the worker finds the rest
 * beside itself). Every error, a bad option too, is a rejection.
 * @returns {Promise<any>}
 */
export async function loadModelInWorker(source, options, injected) {
  deps = injected;
  const { model: modelOptions, onProgress, locateFile, signal } = deps.readLoadOptions(options, CTX);
  if (!isModelSource(source)) throw sourceError(source, CTX);
  throwIfAborted(signal); // no worker is started
  let port;
  const name = sourceName(source, absoluteUrl(source));
  try {
    port = deps.startModelWorker(locateFile);
  } catch (err) {
    // A locateFile that throws or returns what Worker cannot start (Node.js: not an absolute path).
    throw loadError(`${CTX}: the model worker could not be started (${err?.message ?? describe(err)})`, {
      kind: 'worker',
      url: name,
      cause: err,
    });
  }
  if (port === null) {
    throw loadError(`${CTX}: no model worker can be started here`, {
      kind: 'worker',
      url: name,
      hint: 'Inside a model worker, use io.loadModelAsync',
    });
  }
  const model = new (clientClass())(port);
  try {
    const { sent, transfer, workerProgress } = await forWorker(source, onProgress, CTX, signal);
    await model._load(sent, modelOptions, workerProgress, transfer, signal);
    return model;
  } catch (err) {
    model.dispose();
    // The worker names bytes it was handed as 'bytes': they came from `source`.
    throw typeof err?.kind === 'string' ? withLoadFields(err, err.kind, name) : err;
  }
}
