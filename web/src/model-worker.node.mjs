// The Node.js model worker (worker_threads), bundled by scripts/package.mjs
// into dist/qwasm.model-worker.cjs: it requires the package's own Node.js
// build beside it in dist/ (one qwasm per thread), which serves one model
// (worker-host.mjs, reached as io.WorkerModel._serve) and reads file paths.
import { parentPort } from 'node:worker_threads';

// @ts-expect-error: dist/qwasm.cjs, beside the bundled worker (kept external by scripts/package.mjs)
const qwasm = require('./qwasm.cjs');

qwasm.io.WorkerModel._serve({
  post: (message, transfer) => parentPort?.postMessage(message, transfer),
  onMessage: (handler) => parentPort?.on('message', handler),
});
