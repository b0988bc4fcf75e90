// The Node.js model worker (worker_threads), bundled by scripts/package.mjs
// into dist/qwasm.model-worker.cjs: it requires the package's own Node.js
// build beside it in dist/ (one qwasm per thread) and serves one model.
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { serveModel } from './model/worker-host.mjs';

// @ts-expect-error: dist/qwasm.cjs, beside the bundled worker (kept external by scripts/package.mjs)
const qwasm = require('./qwasm.cjs');

serveModel(
  qwasm,
  {
    post: (message, transfer) => parentPort?.postMessage(message, transfer),
    onMessage: (handler) => parentPort?.on('message', handler),
  },
  async (path, signal) =>
    new Uint8Array(await readFile(path.startsWith('file:') ? new URL(path) : path, signal ? { signal } : undefined)),
);
