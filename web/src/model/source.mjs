// Where a model's bytes come from, for io.loadModelAsync and the model
// worker: a URL (fetched, streamed), a Response, a ReadableStream of bytes,
// a Blob or File, or the bytes themselves. onProgress(loadedBytes,
// totalBytes) follows the download; totalBytes is null when the source does
// not say (no Content-Length, a bare stream).
import { describe, isArrayBuffer, typedArrayKind } from '../runtime/args.mjs';

/** Most bytes a model file may have: the largest wasm32 heap. */
export const MAX_MODEL_BYTES = 2 ** 32;

const isUrl = (s) => s instanceof URL || typeof s === 'string';
const isResponse = (s) => typeof Response === 'function' && s instanceof Response;
const isStream = (s) => typeof ReadableStream === 'function' && s instanceof ReadableStream;
const isBlob = (s) => typeof Blob === 'function' && s instanceof Blob;
const isBytes = (s) => isArrayBuffer(s) || typedArrayKind(s) !== undefined;

/**
 * Which kind of source `source` is ('url', 'response', 'stream', 'blob',
 * 'bytes'), or null for anything else, a revoked Proxy included (instanceof
 * on one throws).
 */
export function kindOf(source) {
  try {
    if (isUrl(source)) return 'url';
    if (isBytes(source)) return 'bytes';
    if (isResponse(source)) return 'response';
    if (isStream(source)) return 'stream';
    if (isBlob(source)) return 'blob';
  } catch {
    // a revoked Proxy, or a getter that throws
  }
  return null;
}

/**
 * The `signal` option of a load: undefined (none) or an AbortSignal; null
 * when absent.
 * @returns {AbortSignal | null}
 */
export function readSignal(signal, ctx) {
  if (signal === undefined) return null;
  if (typeof AbortSignal !== 'function' || !(signal instanceof AbortSignal)) {
    throw new TypeError(
      `${ctx}: signal must be an AbortSignal (e.g. AbortSignal.timeout(ms) or an AbortController's), got ${describe(signal)}`,
    );
  }
  return signal;
}

/** True when `source` is one of the kinds readModelSource takes. */
export function isModelSource(source) {
  return kindOf(source) !== null;
}

export function sourceError(source, ctx) {
  return new TypeError(
    `${ctx}: source must be a URL (string or URL), a Response, a ReadableStream, a Blob or the file's bytes (ArrayBuffer or typed array), got ${describe(source)}`,
  );
}

/** A URL string as fetch() takes it: relative ones against the page (or worker) location. */
export function absoluteUrl(source) {
  const base = globalThis.location?.href;
  try {
    return base === undefined ? new URL(String(source)).href : new URL(String(source), base).href;
  } catch {
    return null; // not a URL here (in Node.js: a file path)
  }
}

/**
 * Rejects with `signal`'s reason once it is aborted (an AbortError
 * DOMException unless abort(reason) gave another); a null signal never
 * aborts. The caller removes the listener with `done()`.
 * @param {AbortSignal | null} signal
 */
export function whenAborted(signal) {
  if (signal === null) return { promise: new Promise(() => {}), done: () => {} };
  let onAbort = () => {};
  const promise = new Promise((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => {}); // observed by whoever races it
  return { promise, done: () => signal.removeEventListener('abort', onAbort) };
}

/** Throws `signal`'s reason when it is aborted. */
export function throwIfAborted(signal) {
  if (signal?.aborted) throw signal.reason;
}
