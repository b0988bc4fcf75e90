// Appended (--post-js) to the threaded variant's Emscripten glue; runs inside
// the glue's scope on the main thread and in every pool worker.
//
// heapU8(): the heap as a Uint8Array that is current even when another thread
// grew the memory (Module.HEAPU8 is only replaced when this thread notices).
Module['heapU8'] = GROWABLE_HEAP_U8;

// Node.js: the pool's workers must not keep the process alive once the
// script is done (they only ever wait for the next parallel loop). Node
// re-refs a worker when a 'message' listener is added, and the glue adds its
// listeners while loading the wasm into each worker, so this runs after that:
// when the runtime is ready.
if (ENVIRONMENT_IS_NODE && !ENVIRONMENT_IS_PTHREAD) {
  addOnPostRun(function () {
    PThread.unusedWorkers.concat(PThread.runningWorkers).forEach(function (worker) {
      if (worker.unref) worker.unref();
    });
  });
}

// Browsers: the calling thread takes part in every parallel loop and then
// waits (spinning, as Emscripten does on the main browser thread) for the
// pool's workers to finish theirs. The workers never wait for the main thread
// (they neither print nor call into JavaScript), so that wait is bounded by
// the loop itself, like any long synchronous call. Emscripten's one-time
// console warning about blocking on the main thread would only alarm users of
// pages that call qwasm there: it is marked as already shown.
if (!warnOnce.shown) warnOnce.shown = {};
warnOnce.shown[
  'Blocking on the main thread is very dangerous, see https://emscripten.org/docs/porting/pthreads.html#blocking-on-the-main-browser-thread'
] = 1;
