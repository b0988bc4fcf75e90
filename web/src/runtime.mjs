// The one wasm module instance: an idempotent init() (memoized promise) and the
// accessor every API function uses, which throws a clear error before init().
// The platform entry (platform.node.cjs / index.browser.mjs) supplies `instantiate`.
import { bytesOf, bytesOfBuffer, describe, isArrayBuffer, readOptions, typedArrayKind } from './args.mjs';

let platformInstantiate = null;
let initPromise = null;
let initOptions = null;
let wasmModule = null;

/** @internal */
export function setPlatform(instantiate) {
  platformInstantiate = instantiate;
}

// _moduleFactory: the test suites load the testing build (asserts, test-only
// entry points) through it; it is not part of the API.
const INIT_OPTIONS = ['wasmBinary', 'locateFile', '_moduleFactory'];

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
  return o;
}

function sameOptions(a, b) {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/**
 * Loads the WebAssembly module once. Every call returns the same promise; a
 * later call may omit the options, but passing different ones is an Error
 * (qwasm loads one module per page, worker or process). A failed load can be
 * retried, with the same or other options.
 */
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
  initOptions = o;
  initPromise = Promise.resolve()
    .then(() => platformInstantiate(moduleOptions, o.get('_moduleFactory')))
    .then(
      (m) => {
        wasmModule = m;
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

/** @internal The Emscripten module; throws (naming the call `ctx`) before init() has resolved. */
export function wasm(ctx = 'qwasm') {
  if (wasmModule === null) {
    throw new Error(`${ctx}: qwasm is not initialized: call \`await init()\` before using the API`);
  }
  return wasmModule;
}
