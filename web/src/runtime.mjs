// The one wasm module instance: an idempotent init() (memoized promise) and the
// accessor every API function uses, which throws a clear error before init().
// The platform entry (index.node.mjs / index.browser.mjs) supplies `instantiate`.

let platformInstantiate = null;
let initPromise = null;
let wasmModule = null;

/** @internal */
export function setPlatform(instantiate) {
  platformInstantiate = instantiate;
}

export function init(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`init(options): options must be an object, got ${describe(options)}`);
  }
  if (!initPromise) {
    initPromise = platformInstantiate(options).then(
      (m) => {
        wasmModule = m;
      },
      (err) => {
        initPromise = null; // a failed load may be retried, e.g. with another wasmBinary
        throw new Error(`qwasm: loading the WebAssembly module failed: ${err && err.message ? err.message : err}`, {
          cause: err,
        });
      },
    );
  }
  return initPromise;
}

export function isInitialized() {
  return wasmModule !== null;
}

/** @internal The Emscripten module; throws before init() has resolved. */
export function wasm() {
  if (wasmModule === null) {
    throw new Error('qwasm is not initialized: call `await init()` before using the API');
  }
  return wasmModule;
}

/** @internal A short description of a value for error messages. */
export function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) return `a ${Object.prototype.toString.call(v).slice(8, -1)} of length ${v.length}`;
  if (typeof v === 'string') return `the string '${v.length > 40 ? `${v.slice(0, 40)}...` : v}'`;
  if (typeof v === 'object') return `an object (${v.constructor ? v.constructor.name : 'no prototype'})`;
  return `${typeof v} ${String(v)}`;
}
