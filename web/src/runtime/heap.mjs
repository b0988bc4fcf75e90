// Moving bytes in and out of the wasm heap: one copy each way, freed in
// `finally` so that an error never leaks. Addresses are unsigned (memory can
// reach 4 GiB; _malloc returns int32). The heap views are read again after
// every malloc because memory growth replaces the underlying buffer.
import { isOutOfMemory, outOfMemoryError } from './errors.mjs';
import { liveHandles } from './owned.mjs';

/** One allocation holds at most 2^31 - 1 bytes (src/qwasm/limits.h). */
export const MAX_BUFFER_BYTES = 2 ** 31 - 1;

function outOfMemory(ctx, what, bytes) {
  const { count, bytes: held } = liveHandles();
  const note =
    count > 0
      ? `; ${count} qwasm objects not yet disposed hold ${held} bytes: call dispose() on the ones you no longer need`
      : '';
  return outOfMemoryError(`${ctx}: out of memory: ${what} would need ${bytes} bytes of wasm memory${note}`);
}

/**
 * @internal An unsigned heap address of `bytes` bytes, or a RangeError.
 * @param {import('./bridge.mjs').EmscriptenRuntime} M
 */
export function malloc(M, bytes, what, ctx) {
  if (bytes > MAX_BUFFER_BYTES) {
    throw new RangeError(
      `${ctx}: ${what} would need ${bytes} bytes, more than the ${MAX_BUFFER_BYTES} bytes one allocation can hold`,
    );
  }
  const address = M._malloc(Math.max(bytes, 1)) >>> 0;
  if (address === 0) throw outOfMemory(ctx, what, bytes);
  return address;
}

/** @internal Rethrows a core out-of-memory error with the live-object note. */
export function noteOutOfMemory(error) {
  if (isOutOfMemory(error)) {
    const { count, bytes } = liveHandles();
    if (count > 0) {
      error.message += `; ${count} qwasm objects not yet disposed hold ${bytes} bytes: call dispose() on the ones you no longer need`;
    }
  }
  return error;
}

/**
 * @internal Copies `bytes` (a Uint8Array) into a fresh heap block, runs fn(address, byteLength), frees it.
 * @template T
 * @param {import('./bridge.mjs').EmscriptenRuntime} M
 * @param {Uint8Array} bytes
 * @param {string} what
 * @param {string} ctx
 * @param {(address: number, byteLength: number) => T} fn
 * @returns {T}
 */
export function withHeapCopy(M, bytes, what, ctx, fn) {
  const n = bytes.byteLength;
  const address = malloc(M, n, what, ctx);
  try {
    M.HEAPU8.set(bytes, address);
    return fn(address, n);
  } finally {
    M._free(address);
  }
}

/** @internal A Uint8Array view of a typed array we own (not user input). */
export function ownBytes(ta) {
  return new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength);
}

// Large outputs stream through a cache-sized wasm buffer: writing 64 MB into
// wasm memory and copying it out again would cost twice the memory traffic.
const CHUNK_FLOATS = 1 << 16;

/**
 * @internal Produces n floats into `out` (a Float32Array of length n, or a new
 * JS-owned one, or anything with a typed array's set(chunk, offset)) by
 * calling fill(address, begin, end) on chunks of a scratch buffer in wasm memory.
 * @param {import('./bridge.mjs').EmscriptenRuntime} M
 * @param {number} n
 * @param {string} ctx
 * @param {(address: number, begin: number, end: number) => void} fill
 * @param {{set(chunk: Float32Array, offset: number): void}} [out]
 */
export function streamFloatsOut(M, n, ctx, fill, out = new Float32Array(n)) {
  const chunk = Math.min(n, CHUNK_FLOATS);
  const address = malloc(M, chunk * 4, 'the output buffer', ctx);
  try {
    for (let begin = 0; begin < n; begin += chunk) {
      const end = Math.min(n, begin + chunk);
      fill(address, begin, end);
      out.set(new Float32Array(M.HEAPU8.buffer, address, end - begin), begin);
    }
    return out;
  } finally {
    M._free(address);
  }
}

/** @type {Map<string, any>} */
const VIEW_TYPES = new Map(
  /** @type {[string, any][]} */ ([
    ['Uint8Array', Uint8Array],
    ['Int8Array', Int8Array],
    ['Int32Array', Int32Array],
    ['Float32Array', Float32Array],
    ['Float64Array', Float64Array],
  ]),
);

/** @internal A JS-owned copy of a typed view that points into wasm memory. */
export function copyView(view) {
  return new (VIEW_TYPES.get(Object.prototype.toString.call(view).slice(8, -1)))(view);
}
