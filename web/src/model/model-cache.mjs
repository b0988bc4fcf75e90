// Cached model files (io.loadModel(url, { worker: true, cache: true }),
// io.loadModelAsync(url, { cache: true })): the file is kept in the
// browser's Cache API under its URL, and every later load revalidates it
// with its ETag (If-None-Match) or Last-Modified (If-Modified-Since): a 304
// answer reads the kept copy (no download), a 200 replaces it. Pages and
// their workers share one cache per origin, so a file the model worker
// downloaded is the page's too. Where there is no Cache API (Node.js, an
// insecure context) a load fetches as without the option. A cache that
// cannot keep the file (its quota full) leaves the load on the network, with
// a warning in the console. io.clearCache() empties it.

/** The Cache API cache qwasm keeps model files in. */
export const MODEL_CACHE = 'qwasm-models';

/** The origin's CacheStorage, or null where there is none (Node.js, an insecure context). */
function cacheStorage() {
  try {
    return typeof caches === 'object' && caches !== null ? caches : null;
  } catch {
    return null; // a sandboxed document's caches getter throws
  }
}

/** The cache, or null where it cannot be opened (no Cache API, or a SecurityError). */
async function openCache() {
  const storage = cacheStorage();
  if (storage === null) return null;
  try {
    return await storage.open(MODEL_CACHE);
  } catch {
    return null;
  }
}

/** The request headers that ask the server whether `kept` is still the file. */
function validators(kept) {
  const etag = kept.headers.get('etag');
  if (etag) return { 'If-None-Match': etag };
  const modified = kept.headers.get('last-modified');
  return modified ? { 'If-Modified-Since': modified } : null;
}

/**
 * The response for a model file at `url`: the kept copy when the server says
 * it has not changed (304), else the network's, kept as it is read.
 * `stored` settles when the new copy is kept (or could not be: warned).
 * @param {string} url
 * @param {RequestInit} init fetch's options (credentials, signal)
 * @returns {Promise<{response: Response, stored: Promise<void>}>}
 */
export async function fetchCached(url, init) {
  const cache = await openCache();
  if (cache === null) return { response: await fetch(url, init), stored: Promise.resolve() };
  const kept = await cache.match(url);
  const asking = kept === undefined ? null : validators(kept);
  let response;
  try {
    // no-store: the server, not the HTTP cache, answers the conditional request (and a 304 reaches us).
    response = await fetch(url, asking === null ? init : { ...init, headers: asking, cache: 'no-store' });
  } catch (err) {
    if (kept === undefined || init.signal?.aborted) throw err;
    console.warn(`qwasm: could not revalidate ${url} (${err?.message ?? err}); loading the kept copy`);
    return { response: kept, stored: Promise.resolve() };
  }
  if (response.status === 304 && kept !== undefined) return { response: kept, stored: Promise.resolve() };
  const keepable = response.ok && !/^text\/html\b/i.test(response.headers.get('content-type') ?? '');
  if (!keepable) return { response, stored: Promise.resolve() };
  const stored = cache.put(url, response.clone()).catch((err) => {
    console.warn(
      `qwasm: could not keep ${url} in the cache (${err?.name ?? 'Error'}: ${err?.message ?? err}); it loads from the network`,
    );
  });
  return { response, stored };
}

/** Documented at io.clearCache (web/declarations/io.d.ts). */
export async function clearCache() {
  const storage = cacheStorage();
  if (storage === null) return false;
  try {
    return await storage.delete(MODEL_CACHE);
  } catch {
    return false;
  }
}
