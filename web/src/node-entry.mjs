// The Node.js build's entry, bundled by scripts/package.mjs into dist/qwasm.cjs:
// one CommonJS module that `require('qwasm')` loads synchronously and that the
// ES module entry (index.node.mjs) re-exports, so that import and require
// share one instance.

import { setTransformsFactory } from './model/description.mjs';
import { serveModel } from './model/worker-host.mjs';
import { locatedUrl, nodeWorkerPort, WorkerModel } from './model/worker-model.mjs';
import {
  defaultThreads,
  loadGlue,
  loadThreadedGlue,
  MT_WASM,
  readLocalFile,
  readWasm,
  resolveObjectUrl,
  startModelWorkerThread,
  threadedFilesMissing,
} from './runtime/platform.node.cjs';
import { setPlatform, setPlatformHooks } from './runtime/runtime.mjs';
import {
  compileWasm,
  instantiateGlue,
  isThreadedWasm,
  requireWasmSimd,
  threadsUnavailable,
} from './runtime/wasm-loader.mjs';
import { transformFromRecord } from './transforms/from-record.mjs';

// Node.js always has threads; the threaded variant is loaded when more than
// one thread is asked for (the default: the cores, at most 8) and its files
// are in place. With wasmBinary, the bytes decide the variant.
setPlatform(async (options, factory, threads) => {
  requireWasmSimd();
  let reason = threads > 1 ? threadsUnavailable() || (factory ? '' : threadedFilesMissing()) : '';
  const wantThreaded = threads > 1 && !reason;
  const { bytes, source, remedy } = options.wasmBinary
    ? { bytes: options.wasmBinary, source: 'the wasmBinary passed to init()', remedy: '' }
    : readWasm(options.locateFile, wantThreaded ? MT_WASM : undefined);
  const compiled = await compileWasm(bytes, source, remedy);
  const threaded = isThreadedWasm(compiled);
  if (threads > 1 && !threaded && !reason) {
    reason = `${source} is the single-thread build (qwasm.wasm); threads need ${MT_WASM}`;
  }
  if (!threaded) return { module: await instantiateGlue(factory ?? loadGlue(), compiled), threaded, reason };
  const module = await instantiateGlue(factory ?? loadThreadedGlue(), compiled, {
    qwasmWorkers: Math.max(1, threads - 1), // the glue's pool: a worker per thread besides the caller
  });
  return { module, threaded, reason };
}, defaultThreads);

setPlatformHooks({
  startModelWorker: (locateFile) => {
    const script = locateFile ? locatedUrl(locateFile, 'qwasm.model-worker.cjs') : undefined;
    return nodeWorkerPort(startModelWorkerThread(script), script);
  },
  readLocalFile,
  resolveObjectUrl,
});

// A model's transforms() (the browser model worker's bundle leaves VolumeSegmentation out).
setTransformsFactory(transformFromRecord);
// What the Node.js model worker serves with (model-worker.node.mjs, through this build).
WorkerModel._serve = serveModel;

export * from './api.mjs';
