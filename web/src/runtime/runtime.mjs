// The one wasm module instance: an idempotent init() (memoized promise) and the
// accessor every API function uses, which throws a clear error before init().
// The platform entry (node-entry.mjs / index.browser.mjs) supplies
// `instantiate`, which loads the single-thread or the threaded variant, and
// `defaultThreads`.
import { bytesOf, bytesOfBuffer, describe, isArrayBuffer, readInteger, readOptions, typedArrayKind } from './args.mjs';
import { ISA_NAMES } from './codes.mjs';
import { checked } from './errors.mjs';
import { guardTraps, throwIfTrapped } from './trap-guard.mjs';

let platform = null;
let initPromise = null;
let initOptions = null;
/** @type {import('./bridge.mjs').Core | null} */
let wasmModule = null;
let loaded = null; // { threaded, reason }: what init() loaded, and why not threads

/** Most threads init({ numThreads }) accepts (src/qwasm/thread_pool.h). */
export const MAX_THREADS = 64;

/** A numThreads option (init's, or a model worker's): an integer 1..MAX_THREADS. */
export function readThreadCount(v, ctx) {
  const n = readInteger(v, 'numThreads', ctx);
  if (n < 1 || n > MAX_THREADS) throw new RangeError(`${ctx}: numThreads must be 1..${MAX_THREADS}, got ${n}`);
  return n;
}

/**
 * @internal
 * @param {(moduleOptions: object, factory: any, threads: number) => Promise<{module: any, threaded: boolean, reason: string}>} instantiate
 * @param {() => number} defaultThreads
 */
export function setPlatform(instantiate, defaultThreads) {
  platform = { ...platform, instantiate, defaultThreads };
}

/**
 * @internal What the model worker API needs from the platform:
 * startModelWorker() starts a worker running web/src/model/worker-host.mjs
 * (the entry sets it; inside a model worker it is not set), readLocalFile(path)
 * reads a file (Node.js), resolveObjectUrl(url) the Blob a blob: URL of this
 * thread names (Node.js, whose workers do not share them).
 * @param {{startModelWorker?: (locateFile?: (file: string) => string | URL) => any, readLocalFile?: (path: string, signal?: AbortSignal | null) => Promise<Uint8Array>, resolveObjectUrl?: (url: string) => any}} hooks
 */
export function setPlatformHooks(hooks) {
  platform = { ...platform, ...hooks };
}

/**
 * @internal A new model worker (see setPlatformHooks), or null where none can
 * be started; locateFile(name), when given, says where its script is.
 */
export function startModelWorker(locateFile) {
  return platform?.startModelWorker?.(locateFile) ?? null;
}

/** @internal Reads a file path or file: URL (Node.js), or null where there are no files. */
export function localFileReader() {
  return platform?.readLocalFile ?? null;
}

/**
 * @internal Where blob: URLs belong to the thread that made them (Node.js), a
 * function from one to its Blob (undefined when it names none); elsewhere null.
 * @returns {((url: string) => any) | null} (Node.js: its own Blob, or undefined)
 */
export function objectUrlResolver() {
  return platform?.resolveObjectUrl ?? null;
}

// _moduleFactory: the test suites load the testing builds (asserts, test-only
// entry points) through it; _poolTimeoutMs shortens the wait for a pool
// worker that never starts, for the tests of that failure. Neither is part
// of the API.
const INIT_OPTIONS = ['wasmBinary', 'locateFile', 'numThreads', '_moduleFactory', '_poolTimeoutMs'];

function readInitOptions(options) {
  const ctx = 'init(options)';
  const o = readOptions(options, INIT_OPTIONS, ctx);
  const wasmBinary = o.get('wasmBinary');
  if (wasmBinary !== undefined && !isArrayBuffer(wasmBinary) && typedArrayKind(wasmBinary) !== 'Uint8Array') {
    throw new TypeError(`${ctx}: wasmBinary must be an ArrayBuffer or a Uint8Array, got ${describe(wasmBinary)}`);
  }
  const locateFile = o.get('locateFile');
  if (locateFile !== undefined && typeof locateFile !== 'function') {
    throw new TypeError(`${ctx}: locateFile must be a function (path, prefix) => url, got ${describe(locateFile)}`);
  }
  const factory = o.get('_moduleFactory');
  if (factory !== undefined && typeof factory !== 'function')
    throw new TypeError(`${ctx}: _moduleFactory must be a function`);
  if (o.has('numThreads')) readThreadCount(o.get('numThreads'), ctx);
  return o;
}

function sameOptions(a, b) {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/** Documented at init (web/declarations/runtime.d.ts). */
export function init(options) {
  const o = readInitOptions(options);
  if (initPromise) {
    if (o.size > 0 && !sameOptions(o, initOptions)) {
      throw new Error(
        'init(options): qwasm is already initialized (or initializing) with other options; ' +
          'it loads one module per page, worker or process, so pass the options to the first init() only',
      );
    }
    return initPromise;
  }
  const moduleOptions = {};
  if (o.has('wasmBinary')) {
    // A copy, taken now: the caller may reuse its buffer while the module compiles.
    const binary = o.get('wasmBinary');
    const bytes = isArrayBuffer(binary)
      ? bytesOfBuffer(binary, 'wasmBinary', 'init(options)')
      : bytesOf(binary, 'wasmBinary', 'init(options)');
    moduleOptions.wasmBinary = bytes.slice();
  }
  if (o.has('locateFile')) moduleOptions.locateFile = o.get('locateFile');
  if (o.has('_poolTimeoutMs'))
    moduleOptions.poolTimeoutMs = readInteger(o.get('_poolTimeoutMs'), '_poolTimeoutMs', 'init(options)');
  initOptions = o;
  const threads = o.has('numThreads') ? o.get('numThreads') : platform.defaultThreads();
  initPromise = Promise.resolve()
    .then(() => platform.instantiate(moduleOptions, o.get('_moduleFactory'), threads))
    .then(
      ({ module, threaded, reason }) => {
        // The threaded variant's glue created threads - 1 pool workers; the
        // core's thread pool now takes them (src/qwasm/thread_pool.h).
        const core = guardTraps(/** @type {import('./bridge.mjs').Core} */ (module));
        if (threaded) {
          try {
            checked(core._startThreads(threads), 'init(options)');
          } catch (err) {
            initPromise = null; // as for any failed load: init() may be retried
            initOptions = null;
            throw err;
          }
        }
        wasmModule = core;
        loaded = { threaded, reason };
      },
      (err) => {
        initPromise = null; // a failed load may be retried, e.g. with another wasmBinary
        initOptions = null;
        throw new Error(`qwasm: loading the WebAssembly module failed: ${err?.message ? err.message : err}`, {
          cause: err,
        });
      },
    );
  return initPromise;
}

/** True once init() has resolved. */
export function isInitialized() {
  return wasmModule !== null;
}

/**
 * @internal The Emscripten module; throws (naming the call `ctx`) before init() has resolved.
 * @returns {import('./bridge.mjs').Core}
 */
export function wasm(ctx = 'qwasm') {
  if (wasmModule === null) {
    throw new Error(`${ctx}: qwasm is not initialized: call \`await init()\` before using the API`);
  }
  throwIfTrapped(ctx);
  return wasmModule;
}

/** Documented at runtimeInfo (web/declarations/runtime.d.ts). */
export function runtimeInfo() {
  const M = wasm('runtimeInfo()');
  /** @type {{variant: 'threads' | 'single-thread', numThreads: number, maxThreads: number, isa: 'scalar' | 'wasmsimd', threadsUnavailable?: string}} */
  const info = {
    variant: loaded.threaded ? 'threads' : 'single-thread',
    numThreads: M._numThreads(),
    maxThreads: M._maxThreads(),
    isa: /** @type {any} */ (ISA_NAMES.get(M._bestIsa())),
  };
  if (loaded.reason) info.threadsUnavailable = loaded.reason;
  return info;
}

/** The threads each parallel loop uses (torch.get_num_threads()). */
export function getNumThreads() {
  return wasm('getNumThreads()')._numThreads();
}

/** Documented at setNumThreads (web/declarations/runtime.d.ts). */
export function setNumThreads(n) {
  const ctx = 'setNumThreads(n)';
  const M = wasm(ctx);
  const threads = readInteger(n, 'n', ctx);
  checked(M._setNumThreads(threads), ctx);
}
