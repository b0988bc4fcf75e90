// Where a model's bytes come from, for io.loadModelAsync and the model
// worker: a URL (fetched, streamed), a Response, a ReadableStream of bytes,
// a Blob or File, or the bytes themselves. onProgress(loadedBytes,
// totalBytes) follows the download; totalBytes is null when the source does
// not say (no Content-Length, a bare stream).
import { bytesOf, bytesOfBuffer, describe, isArrayBuffer, lengthOf, typedArrayKind } from '../runtime/args.mjs';

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

/**
 * Reads the stream to its end, calling onProgress after each chunk. Chunks
 * are kept until the end and copied once into the result. An abort of
 * `signal` cancels the stream (a stalled read too) and rejects with its reason.
 * @param {ReadableStream<Uint8Array>} stream
 * @param {number | null} total
 * @param {AbortSignal | null} signal
 */
async function readStream(stream, total, onProgress, ctx, signal) {
  if (stream.locked) throw new TypeError(`${ctx}: the stream is locked (another reader is reading it)`);
  throwIfAborted(signal);
  const reader = stream.getReader();
  const aborted = whenAborted(signal);
  const chunks = [];
  let loaded = 0;
  try {
    onProgress?.(0, total);
    for (;;) {
      let next;
      try {
        next = await (signal === null ? reader.read() : Promise.race([reader.read(), aborted.promise]));
      } catch (err) {
        throwIfAborted(signal);
        throw new Error(`${ctx}: reading the source failed (${err?.message ?? describe(err)})`, { cause: err });
      }
      throwIfAborted(signal); // an abort between two chunks
      if (next.done) break;
      const value = next.value;
      if (typedArrayKind(value) !== 'Uint8Array') {
        throw new TypeError(`${ctx}: the stream gave ${describe(value)}; it must give Uint8Array chunks`);
      }
      loaded += lengthOf(value);
      if (loaded > MAX_MODEL_BYTES) {
        throw new RangeError(`${ctx}: the model is over ${MAX_MODEL_BYTES} bytes (4 GiB), more than wasm32 can hold`);
      }
      chunks.push(bytesOf(value, 'a chunk', ctx));
      onProgress?.(loaded, total);
    }
  } catch (err) {
    // Whatever stopped the read (a bad chunk, the size limit, onProgress
    // throwing, a network error, an abort): the stream is released, not left open.
    reader.cancel(err).catch(() => {});
    throw err;
  } finally {
    aborted.done();
  }
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

async function readResponse(response, onProgress, ctx, what, signal) {
  if (!response.ok) {
    const status = [response.status, response.statusText].filter(Boolean).join(' ');
    throw new Error(`${ctx}: fetching ${what} failed: HTTP ${status}`);
  }
  if (response.bodyUsed || response.body?.locked) {
    throw new TypeError(`${ctx}: the Response's body was already read (or is being read)`);
  }
  const length = Number(response.headers.get('content-length'));
  // A compressed transfer reports the compressed length: the bytes read can exceed it.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = Number.isSafeInteger(length) && length > 0 && !encoded ? length : null;
  if (response.body === null) return new Uint8Array(0);
  return readStream(response.body, total, onProgress, ctx, signal);
}

/**
 * The model file's bytes, from any source kind (see above). readLocalFile
 * reads a path or file: URL (Node.js); elsewhere it is null.
 * @param {any} source
 * @param {((loaded: number, total: number | null) => void) | undefined} onProgress
 * @param {string} ctx
 * @param {((path: string, signal?: AbortSignal | null) => Promise<Uint8Array>) | null} readLocalFile
 * @param {AbortSignal | null} [signal] cancels the read: it rejects with the signal's reason
 * @returns {Promise<Uint8Array>}
 */
export async function readModelSource(source, onProgress, ctx, readLocalFile, signal = null) {
  throwIfAborted(signal);
  const kind = kindOf(source);
  if (kind === 'bytes') {
    // Through the intrinsic accessors: a detached buffer is a TypeError naming the call.
    const bytes = isArrayBuffer(source) ? bytesOfBuffer(source, 'bytes', ctx) : bytesOf(source, 'bytes', ctx);
    onProgress?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  if (kind === 'response') return readResponse(source, onProgress, ctx, source.url || 'the Response', signal);
  if (kind === 'blob') return readStream(source.stream(), source.size, onProgress, ctx, signal);
  if (kind === 'stream') return readStream(source, null, onProgress, ctx, signal);
  if (kind !== 'url') throw sourceError(source, ctx);
  const url = absoluteUrl(source);
  if (url === null || url.startsWith('file:')) {
    // Node.js: a path or a file: URL, read from disk.
    const path = url ?? String(source);
    if (readLocalFile === null) {
      throw new TypeError(
        `${ctx}: ${JSON.stringify(path.slice(0, 200))} is not a URL; file paths are read in Node.js only`,
      );
    }
    let bytes;
    try {
      bytes = await readLocalFile(path, signal);
    } catch (err) {
      throwIfAborted(signal); // the signal's reason, not the file system's AbortError
      throw new Error(`${ctx}: reading ${path} failed (${err?.code ?? err?.message ?? err})`, { cause: err });
    }
    throwIfAborted(signal);
    onProgress?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  let response;
  try {
    response = await fetch(
      url,
      signal === null ? { credentials: 'same-origin' } : { credentials: 'same-origin', signal },
    );
  } catch (err) {
    throwIfAborted(signal);
    throw new Error(`${ctx}: fetching ${url} failed (${err?.message ?? err})`, { cause: err });
  }
  return readResponse(response, onProgress, ctx, url, signal);
}
