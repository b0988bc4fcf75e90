// Browser / worker entry (ESM): the browser platform (platform.browser.mjs)
// and the model worker, which io.loadModel(source, { worker: true }) starts.
// `new Worker(new URL(<file>, import.meta.url), { type: 'module' })` is the
// pattern Vite, webpack, Parcel and Next.js follow to bundle a worker.
import './platform.browser.mjs';
import { browserWorkerPort } from './model/worker-model.mjs';
import { setPlatformHooks } from './runtime.mjs';

setPlatformHooks({
  startModelWorker: () =>
    browserWorkerPort(new Worker(new URL('./model/model-worker.mjs', import.meta.url), { type: 'module' })),
});

export * from './api.mjs';
