// io.WorkerModel: the class of a model loaded in a worker
// (io.loadModel(source, { worker: true })). Its methods live in
// worker-model-client.mjs, which loads on first use: a bundle that never loads
// a model in a worker leaves them (and the worker's host) out; an instance is
// still an io.WorkerModel.

/** Documented at io.WorkerModel (web/declarations/io.d.ts). */
export class WorkerModel {
  /**
   * @internal The other side: serves one model on `port`, in a model worker
   * (worker-host.mjs). The Node.js model worker reaches it in the package's
   * build beside it (model-worker.node.mjs); the browser's bundles its own.
   * Loaded on use, so that a page's or an app worker's bundle leaves the host
   * out (a port queues the messages that arrive before it listens).
   * @param {import('./worker-protocol.mjs').HostPort} port
   */
  static _serve(port) {
    return import('./worker-host.mjs').then((host) => host.serveModel(port));
  }
}
