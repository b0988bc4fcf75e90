// What both platforms do once they have the wasm bytes: check that the engine
// can run them, compile them (so that a bad file is a clear error, not an
// Emscripten abort printed to the console), and hand the compiled module to
// Emscripten's glue through its instantiateWasm hook (the glue then never
// fetches or reads anything itself).

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid
// only where WebAssembly SIMD128 is (the probe wasm-feature-detect uses).
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, 0x03, 0x02, 0x01, 0x00,
  0x0a, 0x0a, 0x01, 0x08, 0x00, 0x41, 0x00, 0xfd, 0x0f, 0xfd, 0x62, 0x0b,
]);

const SUPPORTED =
  'qwasm needs WebAssembly with SIMD128: Chrome/Edge 91+, Firefox 89+, Safari 16.4+ (iOS 16.4+), Node.js 18+';

/** Throws a clear Error when this engine cannot run qwasm's wasm. */
export function requireWasmSimd() {
  if (typeof WebAssembly !== 'object' || WebAssembly === null) {
    throw new Error(
      `this JavaScript engine has no WebAssembly (disabled, e.g. by Safari's Lockdown Mode or a jitless Node.js); ${SUPPORTED}`,
    );
  }
  if (!WebAssembly.validate(SIMD_PROBE)) {
    throw new Error(`this engine's WebAssembly has no SIMD128; ${SUPPORTED}`);
  }
}

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

function describeStart(bytes) {
  const head = Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = String.fromCharCode(...bytes.subarray(0, 16)).replace(/[^\x20-\x7e]/g, '.');
  return `it starts with ${head} ("${text}")`;
}

/**
 * Compiles the wasm. `source` says where the bytes came from, and `remedy`
 * what the user can do instead; both go into the error.
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @param {string} source
 * @param {string} remedy
 */
export async function compileWasm(bytes, source, remedy) {
  if (bytes.length < 8 || WASM_MAGIC.some((b, i) => bytes[i] !== b)) {
    const looksHtml = bytes[0] === 0x3c; // '<'
    const what = looksHtml ? ': an HTML page, probably a server or dev-server fallback for a missing file' : '';
    throw new Error(
      `${source} is not a WebAssembly file (${bytes.length} bytes; ${describeStart(bytes)})${what}. ${remedy}`.trim(),
    );
  }
  try {
    return await WebAssembly.compile(bytes);
  } catch (err) {
    const message = err?.message ?? String(err);
    const csp = /content security policy|unsafe-eval|CSP/i.test(message)
      ? " The page's Content-Security-Policy forbids compiling WebAssembly: add 'wasm-unsafe-eval' to its script-src."
      : '';
    throw new Error(`compiling ${source} failed: ${message}.${csp}`, { cause: err });
  }
}

/** True when `compiled` is the threaded variant (it imports its shared memory; the single-thread one owns its memory). */
export function isThreadedWasm(compiled) {
  return WebAssembly.Module.imports(compiled).some((i) => i.kind === 'memory');
}

/**
 * True in a Firefox (Gecko) worker. There, a worker that constructs workers
 * (the threaded variant's pool) can block for ever inside `new Worker()`:
 * measured in Firefox ESR 153 with no qwasm code at all: a module worker
 * constructing three workers hung in 2 of 40 page loads on an idle 2-core
 * machine and 4 of 40 with three busy loops beside it
 * (scripts/repro/firefox-nested-workers.mjs); 0 of 40 in Chromium, and never
 * on a Firefox page. A hung worker cannot be recovered from inside (it is
 * blocked in the constructor), so qwasm does not start threads there.
 */
export function isFirefoxWorker(scope = globalThis) {
  const inWorker = typeof scope.WorkerGlobalScope === 'function' && scope instanceof scope.WorkerGlobalScope;
  return inWorker && /\bFirefox\//.test(scope.navigator?.userAgent ?? '');
}

/**
 * Why this engine cannot run the threaded variant, or '' when it can:
 * threads need SharedArrayBuffer and shared WebAssembly memory, which
 * browsers give only to cross-origin isolated pages and workers (COOP/COEP),
 * and a Firefox worker cannot safely start the pool (isFirefoxWorker).
 */
export function threadsUnavailable() {
  if (isFirefoxWorker()) {
    return 'Firefox can hang when a worker starts workers, so in a Firefox worker qwasm runs on one thread (threads run on Firefox pages)';
  }
  if (globalThis.crossOriginIsolated === false) {
    return 'the page is not cross-origin isolated (serve it with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)';
  }
  if (typeof SharedArrayBuffer !== 'function') return 'this engine has no SharedArrayBuffer';
  try {
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
  } catch {
    return 'this engine has no shared WebAssembly memory';
  }
  return '';
}

/**
 * Runs Emscripten's glue on an already compiled module; resolves to the
 * glue's Module once its runtime is initialized. `moduleArg` adds settings
 * (the threaded variant's pool size and worker factory); `timeoutMs`, when
 * given, bounds the wait (the threaded variant waits for its pool workers).
 * @param {(moduleArg: object) => Promise<any>} createModule
 * @param {WebAssembly.Module} compiled
 * @param {object} [moduleArg]
 * @param {number} [timeoutMs]
 */
export function instantiateGlue(createModule, compiled, moduleArg = {}, timeoutMs = 0) {
  let fail = (_err) => {};
  const failed = new Promise((_resolve, reject) => {
    fail = reject;
  });
  let timer;
  if (timeoutMs > 0) {
    timer = setTimeout(
      () =>
        fail(
          new Error(
            `the thread pool's workers did not start within ${timeoutMs / 1000} s (a worker's script hangs, or the engine is starved)`,
          ),
        ),
      timeoutMs,
    );
  }
  // The glue makes this object its Module, so its PThread (the threaded
  // variant's pool) is reachable here to stop the workers after a failure.
  const settings = {
    ...moduleArg,
    instantiateWasm(imports, receiveInstance) {
      WebAssembly.instantiate(compiled, imports).then(
        (instance) => receiveInstance(instance, compiled),
        (err) => fail(new Error(`instantiating the WebAssembly module failed: ${err?.message ?? err}`, { cause: err })),
      );
      return {}; // asynchronous: the glue waits for receiveInstance
    },
    // An abort before the runtime is ready, or a pool worker that failed to
    // load or start (the glue as edited by scripts/package.mjs, and the pool
    // worker scripts, report those as aborts): the glue itself would keep
    // waiting for that worker.
    onAbort: (what) => fail(new Error(String(what))),
  };
  return Promise.race([Promise.resolve().then(() => createModule(settings)), failed]).then(
    (module) => {
      clearTimeout(timer);
      return module;
    },
    (err) => {
      clearTimeout(timer);
      settings.PThread?.terminateAllThreads();
      throw err;
    },
  );
}
