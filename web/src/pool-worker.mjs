// A thread of the threaded variant's pool, as an ES module worker. It takes
// the place of Emscripten's own worker script (qwasm.mt.worker.js), which
// imports the glue by a URL computed at run time, so bundlers never see it.
// This one imports the glue statically: a bundler that understands
// `new Worker(new URL('...', import.meta.url), { type: 'module' })` (Vite,
// webpack, Parcel, Next.js) bundles the worker together with its glue.
// scripts/package.mjs writes it to dist/qwasm.mt.worker.mjs, beside the glue,
// with the import below rewritten to './qwasm.mt.mjs'.
//
// The protocol is Emscripten 3.1.6's (its src/worker.js): 'load' gives the
// compiled module and the shared memory, the glue instantiates them and
// posts 'loaded'; 'run' starts a pthread on this worker.
import createQwasmModule from '../../dist/qwasm.mt.mjs';

/** @type {any} */
let Module = {};
let initializedJS = false;

const describeError = (reason) => (reason?.message ? reason.message : String(reason));

self.onmessage = (e) => {
  const d = e.data;
  try {
    if (d.cmd === 'load') {
      Module.wasmModule = d.wasmModule;
      Module.wasmMemory = d.wasmMemory;
      Module.buffer = d.wasmMemory.buffer;
      Module.ENVIRONMENT_IS_PTHREAD = true;
      Module.instantiateWasm = (imports, receiveInstance) => {
        const instance = new WebAssembly.Instance(Module.wasmModule, imports);
        receiveInstance(instance);
        Module.wasmModule = null;
        return instance.exports;
      };
      createQwasmModule(Module).then(
        (instance) => {
          Module = instance;
        },
        // Reported as an abort, which rejects init() on the calling thread
        // (wasm-loader.mjs): the glue would otherwise wait for this worker.
        (reason) =>
          postMessage({ cmd: 'onAbort', arg: `a thread pool worker could not start: ${describeError(reason)}` }),
      );
    } else if (d.cmd === 'run') {
      Module.__performance_now_clock_drift = performance.now() - d.time;
      Module.__emscripten_thread_init(d.threadInfoStruct, 0, 0, 1);
      Module.establishStackSpace();
      Module.PThread.receiveObjectTransfer(d);
      Module.PThread.threadInit();
      if (!initializedJS) {
        Module.___embind_register_native_and_builtin_types();
        initializedJS = true;
      }
      runEntryPoint(d);
    } else if (d.cmd === 'cancel') {
      if (Module._pthread_self()) Module.__emscripten_thread_exit(-1);
    } else if (d.cmd === 'processThreadQueue') {
      if (Module._pthread_self()) Module._emscripten_current_thread_process_queued_calls();
    } else if (d.cmd === 'processProxyingQueue') {
      if (Module._pthread_self()) Module._emscripten_proxy_execute_queue(d.queue);
    } else if (d.target !== 'setimmediate') {
      console.error(`qwasm pool worker: unknown command ${d.cmd}`);
    }
  } catch (ex) {
    console.error(`qwasm pool worker: ${describeError(ex)}`);
    Module.__emscripten_thread_crashed?.();
    throw ex;
  }
};

function runEntryPoint(d) {
  try {
    const result = Module.invokeEntryPoint(d.start_routine, d.arg);
    if (Module.keepRuntimeAlive()) Module.PThread.setExitStatus(result);
    else Module.__emscripten_thread_exit(result);
  } catch (ex) {
    if (ex === 'unwind') return;
    if (!(ex instanceof Module.ExitStatus)) throw ex;
    if (!Module.keepRuntimeAlive()) Module.__emscripten_thread_exit(ex.status);
  }
}
