// Browser / worker entry (ESM): the browser platform (platform.browser.mjs)
// and the model worker, which io.loadModel(source, { worker: true }) starts
// (web/src/model-worker.mjs, bundled into dist/ by scripts/package.mjs).
// `new Worker(new URL(<file>, import.meta.url), { type: 'module' })` is the
// pattern Vite, webpack, Parcel and Next.js follow to bundle a worker.
import './runtime/platform.browser.mjs';
import { setTransformsFactory } from './model/description.mjs';
import { browserWorkerPort, locatedUrl } from './model/worker-model.mjs';
import { setPlatformHooks } from './runtime/runtime.mjs';
import { transformFromRecord } from './transforms/from-record.mjs';
import { setVideoReader } from './transforms/video-clip.mjs';

setPlatformHooks({
  startModelWorker: (locateFile) => {
    if (!locateFile) {
      // The pattern bundlers follow, alone (a second new URL of the file would make them copy it as an asset).
      const worker = new Worker(new URL('../../dist/qwasm.model-worker.mjs', import.meta.url), { type: 'module' });
      return browserWorkerPort(worker, 'qwasm.model-worker.mjs');
    }
    const script = locatedUrl(locateFile, 'qwasm.model-worker.mjs');
    return browserWorkerPort(new Worker(script, { type: 'module' }), script);
  },
});

// A model's transforms() (the model worker's own bundle leaves the transforms out).
setTransformsFactory(transformFromRecord);
// Video files, elements and streams decoded by the browser (io.readVideoFrames, classifyVideo); Node.js has no decoder.
// Imported when a video is first read: a bundler puts the decoder in a chunk of its own, out of an app's first load.
setVideoReader(async (...args) => (await import('./transforms/video-decode.mjs')).readVideo(...args));

export * from './api.mjs';
