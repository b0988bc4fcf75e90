// The ports of a model worker: how the calling thread talks to the worker it
// started (a browser module worker, a Node.js worker_thread), and where
// locateFile says its script is. The entries use them to start one.
import { describe } from '../runtime/args.mjs';

/** @typedef {import('./worker-protocol.mjs').CallerPort} CallerPort */

const CTX = 'io.loadModel(source, { worker: true })';

/** Where locateFile(name) says the model worker's script is (a URL or a string). */
export function locatedUrl(locateFile, name) {
  const located = locateFile(name);
  if (typeof located !== 'string' && !(located instanceof URL)) {
    throw new TypeError(`${CTX}: locateFile('${name}') must return a URL or a string, got ${describe(located)}`);
  }
  return String(located);
}

/**
 * A browser Worker as the port WorkerModel talks through.
 * @returns {CallerPort}
 */
export function browserWorkerPort(worker) {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => {
      worker.onmessage = (e) => handler(e.data);
    },
    onError: (handler) => {
      worker.onerror = (e) => {
        e.preventDefault();
        handler(
          e.message ||
            'its script did not load or run (an HTTP error, a MIME type that is not JavaScript, a syntax error or a Content-Security-Policy)',
        );
      };
    },
    busy: () => {},
    idle: () => {},
    terminate: () => worker.terminate(),
  };
}

/**
 * A Node.js worker_threads Worker as the port; it lets the process exit while no request is pending.
 * @returns {CallerPort}
 */
export function nodeWorkerPort(worker) {
  worker.unref();
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    onMessage: (handler) => worker.on('message', handler),
    onError: (handler) => {
      worker.on('error', (err) => handler(err?.message ?? String(err)));
      worker.on('exit', (code) => handler(`it exited (code ${code})`));
    },
    busy: () => worker.ref(),
    idle: () => worker.unref(),
    terminate: () => worker.terminate(),
  };
}
