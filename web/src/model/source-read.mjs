// Reading a model file from its source (a URL, a Response, a stream, a Blob
// or the bytes), with progress and abort: what the async loads run
// (loadModelAsync, a worker load). Apart from source.mjs's checks, so that a
// bundle that never loads a model by URL can split it off (loaded on use).

import { bytesOf, bytesOfBuffer, describe, isArrayBuffer, lengthOf, typedArrayKind } from '../runtime/args.mjs';
import { loadError, looksLikeHtml, notAModelHint, sourceName } from './load-error.mjs';
import { fetchCached } from './model-cache.mjs';
import { absoluteUrl, kindOf, MAX_MODEL_BYTES, sourceError, throwIfAborted, whenAborted } from './source.mjs';

/**
 * Reads the stream to its end, calling onProgress after each chunk. Chunks
 * are kept until the end and copied once into the result. An abort of
 * `signal` cancels the stream (a stalled read too) and rejects with its reason.
 * @param {ReadableStream<Uint8Array>} stream
 * @param {number | null} total
 * @param {AbortSignal | null} signal
 */
async function readStream(stream, total, onProgress, ctx, signal, name) {
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
        const what = name === 'stream' || name === 'Blob' ? 'the source' : name;
        throw loadError(`${ctx}: reading ${what} failed (${err?.message ?? describe(err)})`, {
          kind: 'network',
          url: name,
          cause: err,
        });
      }
      throwIfAborted(signal); // an abort between two chunks
      if (next.done) break;
      const value = next.value;
      if (typedArrayKind(value) !== 'Uint8Array') {
        throw new TypeError(`${ctx}: the stream gave ${describe(value)}; it must give Uint8Array chunks`);
      }
      loaded += lengthOf(value);
      if (loaded > MAX_MODEL_BYTES) {
        throw loadError(`${ctx}: the model is over ${MAX_MODEL_BYTES} bytes (4 GiB), more than wasm32 can hold`, {
          kind: 'budget',
          url: name,
          Type: RangeError,
        });
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
    throw loadError(`${ctx}: fetching ${what} failed: HTTP ${status}`, {
      kind: 'http',
      url: what,
      status: response.status,
      hint: response.status === 404 ? 'Check the URL: the server has no file there' : null,
    });
  }
  if (response.bodyUsed || response.body?.locked) {
    throw new TypeError(`${ctx}: the Response's body was already read (or is being read)`);
  }
  const length = Number(response.headers.get('content-length'));
  // A compressed transfer reports the compressed length: the bytes read can exceed it.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  const total = Number.isSafeInteger(length) && length > 0 && !encoded ? length : null;
  if (response.body === null) return new Uint8Array(0);
  const bytes = await readStream(response.body, total, onProgress, ctx, signal, what);
  // A dev server or an app's fallback answers a missing file with its HTML page (HTTP 200).
  const contentType = response.headers.get('content-type');
  if (looksLikeHtml(bytes) || /^text\/html\b/i.test(contentType ?? '')) {
    throw loadError(`${ctx}: ${what} is not a model file (HTTP ${response.status})`, {
      kind: 'not-a-model',
      url: what,
      status: response.status,
      hint: notAModelHint(bytes, contentType),
    });
  }
  return bytes;
}

/**
 * The model file's bytes, from any source kind (see above). readLocalFile
 * reads a path or file: URL (Node.js); elsewhere it is null.
 * @param {any} source
 * @param {((loaded: number, total: number | null) => void) | undefined} onProgress
 * @param {string} ctx
 * @param {((path: string, signal?: AbortSignal | null) => Promise<Uint8Array>) | null} readLocalFile
 * @param {AbortSignal | null} [signal] cancels the read: it rejects with the signal's reason
 * @param {boolean} [cache] a URL's file is kept in the Cache API and revalidated (model-cache.mjs)
 * @returns {Promise<Uint8Array>}
 */
export async function readModelSource(source, onProgress, ctx, readLocalFile, signal = null, cache = false) {
  throwIfAborted(signal);
  const kind = kindOf(source);
  if (kind === 'bytes') {
    // Through the intrinsic accessors: a detached buffer is a TypeError naming the call.
    const bytes = isArrayBuffer(source) ? bytesOfBuffer(source, 'bytes', ctx) : bytesOf(source, 'bytes', ctx);
    onProgress?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  if (kind === 'response') return readResponse(source, onProgress, ctx, source.url || 'the Response', signal);
  if (kind === 'blob') return readStream(source.stream(), source.size, onProgress, ctx, signal, sourceName(source));
  if (kind === 'stream') return readStream(source, null, onProgress, ctx, signal, sourceName(source));
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
      throw loadError(`${ctx}: reading ${path} failed (${err?.code ?? err?.message ?? err})`, {
        kind: 'network',
        url: path,
        hint: err?.code === 'ENOENT' ? 'Check the path: there is no file there' : null,
        cause: err,
      });
    }
    throwIfAborted(signal);
    onProgress?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  let response;
  let stored = Promise.resolve();
  try {
    /** @type {RequestInit} */
    const init = signal === null ? { credentials: 'same-origin' } : { credentials: 'same-origin', signal };
    if (cache) ({ response, stored } = await fetchCached(url, init));
    else response = await fetch(url, init);
  } catch (err) {
    throwIfAborted(signal);
    throw loadError(`${ctx}: fetching ${url} failed (${err?.message ?? err})`, {
      kind: 'network',
      url,
      hint: 'The server did not answer (offline, a wrong host, or a CORS or Content-Security-Policy refusal: see the console)',
      cause: err,
    });
  }
  const bytes = await readResponse(response, onProgress, ctx, url, signal);
  await stored; // kept before the load ends: a next load finds it
  return bytes;
}
