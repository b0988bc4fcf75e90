// io.WorkerModel, the class of a model loaded in a worker
// (io.loadModel(source, { worker: true })), and the ports the entries start a
// model worker with. Its methods come with the model client
// (model-client.mjs, loaded on first use; an instance is still an
// io.WorkerModel).
import { describe } from '../runtime/args.mjs';

/** @typedef {import('./worker-protocol.mjs').CallerPort} CallerPort */

const CTX = 'io.loadModel(source, { worker: true })';

/** Documented at io.WorkerModel (web/declarations/io.d.ts). */
export class WorkerModel {
  /**
   * @internal The other side: serves one model on a port, in a model worker
   * (worker-host.mjs's serveModel). The Node.js entry sets it (node-entry.mjs):
   * the Node.js model worker reaches it in the package's build beside it
   * (model-worker.node.mjs); the browser's model worker bundles its own, so
   * the browser entry leaves the host out of a page's bundle.
   * @type {((port: import('./worker-protocol.mjs').HostPort) => void) | null}
   */
  static _serve = null;
}

/** Where locateFile(name) says the model worker's script is (a URL or a string). */
export function locatedUrl(locateFile, name) {
  const located = locateFile(name);
  if (typeof located !== 'string' && !(located instanceof URL)) {
    throw new TypeError(`${CTX}: locateFile('${name}') must return a URL or a string, got ${describe(located)}`);
  }
  return String(located);
}

/**
 * A browser Worker as the port WorkerModel talks through; `script` names its script in a load error's hint.
 * @returns {CallerPort}
 */
export function browserWorkerPort(worker, script) {
  return {
    script, // the worker's script URL, for a load error's hint
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
export function nodeWorkerPort(worker, script) {
  worker.unref();
  return {
    script, // the worker's script as locateFile gave it, for a load error's hint
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
