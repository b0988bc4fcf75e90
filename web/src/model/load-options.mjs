// io.loadModel's and io.loadModelAsync's options, read and checked once, at
// the public call, into one frozen object. Its `model` part is plain data:
// it is what buildModel consumes on this thread and what a load request
// carries to the model worker (worker-protocol.mjs), which builds from it
// without reading any option again.
import { describe, readOptions } from '../runtime/args.mjs';
import { readThreadCount } from '../runtime/runtime.mjs';
import { winogradOption } from '../runtime/winograd.mjs';
import { DEFAULT_LIMITS, readBudget } from './plan.mjs';
import { readSignal } from './source.mjs';

/**
 * The planner's limits (plan.mjs): each a number > 0, Infinity for none.
 * @typedef {Readonly<{maxActivationBytes: number, maxLiveBytes: number, maxWork: number}>} Budget
 */

/**
 * How a model is built and run, checked: its budget, its quantized
 * convolutions' Winograd mode (the caller's setWinograd default when the
 * option is absent), and a model worker's thread count (null: init()'s
 * default), and whether a URL's file is kept in the Cache API (cache). Structured-clonable.
 * @typedef {Readonly<{budget: Budget, winograd: import('../runtime/winograd.mjs').WinogradMode, numThreads: number | null, cache: boolean}>} ModelOptions
 */

/** @typedef {(loadedBytes: number, totalBytes: number | null) => void} ProgressCallback */

/**
 * Every option of a load: `model` crosses to the worker; the rest stays on
 * the calling thread (functions and an AbortSignal cannot be cloned).
 * @typedef {Readonly<{
 *   model: ModelOptions,
 *   worker: boolean,
 *   onProgress: ProgressCallback | undefined,
 *   locateFile: ((file: string) => string | URL) | undefined,
 *   signal: AbortSignal | null,
 * }>} LoadOptions
 */

const KEYS = [
  'maxActivationBytes',
  'maxLiveBytes',
  'maxWork',
  'winograd',
  'worker',
  'onProgress',
  'numThreads',
  'locateFile',
  'signal',
  'cache',
];

/**
 * io.loadModel's options (and io.loadModelAsync's): the budget, the quantized
 * convolutions' winograd option, and for loading off the calling thread:
 * worker, onProgress, the worker's numThreads and locateFile, and signal.
 * @returns {LoadOptions}
 */
export function readLoadOptions(options, ctx) {
  const o = readOptions(options, KEYS, ctx);
  const budget = Object.freeze({ ...DEFAULT_LIMITS, ...readBudget(o, ctx) });
  const worker = o.get('worker') ?? false;
  if (typeof worker !== 'boolean') throw new TypeError(`${ctx}: worker must be a boolean, got ${describe(worker)}`);
  const onProgress = o.get('onProgress');
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(
      `${ctx}: onProgress must be a function (loadedBytes, totalBytes) => void, got ${describe(onProgress)}`,
    );
  }
  let numThreads = null;
  if (o.has('numThreads')) {
    numThreads = readThreadCount(o.get('numThreads'), ctx);
    if (!worker)
      throw new TypeError(
        `${ctx}: numThreads is the model worker's (worker: true); init({ numThreads }) sets this thread's`,
      );
  }
  const locateFile = o.get('locateFile');
  if (locateFile !== undefined) {
    if (typeof locateFile !== 'function') {
      throw new TypeError(`${ctx}: locateFile must be a function (file) => url, got ${describe(locateFile)}`);
    }
    if (!worker) throw new TypeError(`${ctx}: locateFile finds the model worker (worker: true)`);
  }
  const winograd = winogradOption(o, ctx);
  const cache = o.get('cache') ?? false;
  if (typeof cache !== 'boolean') throw new TypeError(`${ctx}: cache must be a boolean, got ${describe(cache)}`);
  return Object.freeze({
    model: Object.freeze({ budget, winograd, numThreads, cache }),
    worker,
    onProgress,
    locateFile,
    signal: readSignal(o.get('signal'), ctx),
  });
}

/**
 * `model` with some of its budget's limits replaced (a float twin's own, read
 * by WorkerModel.loadFloatModel).
 * @param {ModelOptions} model
 * @param {Partial<Budget>} limits
 * @returns {ModelOptions}
 */
export function withBudget(model, limits) {
  return Object.freeze({ ...model, budget: Object.freeze({ ...model.budget, ...limits }) });
}
