// An esbuild bundle that does not tell init() where the wasm is: init() must
// reject with an Error naming the URL it tried and what to do, in the page
// and in a worker.
import * as qwasm from 'qwasm';
import { report, runInWorker } from '../report.mjs';

qwasm.init().then(
  () => report('page', { error: 'init() resolved without its wasm' }),
  (e) => report('page', { message: e.message }),
);
runInWorker(new Worker(new URL('./missing-worker.js', import.meta.url), { type: 'module' }), null);
