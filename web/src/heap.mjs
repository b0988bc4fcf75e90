// Moving typed arrays in and out of the wasm heap: one copy each way, freed in
// `finally` so an error never leaks. The heap views are read again after every
// malloc because memory growth replaces the underlying buffer.

/** @internal Copies `data` into a fresh heap block, runs fn(address), frees it. */
export function withHeapCopy(M, data, fn) {
  const bytes = data.byteLength;
  const address = M._malloc(Math.max(bytes, 1));
  if (address === 0) throw new RangeError(`qwasm: out of wasm memory allocating ${bytes} bytes`);
  try {
    new Uint8Array(M.HEAPU8.buffer, address, bytes).set(new Uint8Array(data.buffer, data.byteOffset, bytes));
    return fn(address);
  } finally {
    M._free(address);
  }
}

// Large outputs stream through a cache-sized wasm buffer: writing 64 MB into
// wasm memory and copying it out again would cost twice the memory traffic.
const CHUNK_FLOATS = 1 << 16;

/**
 * @internal Produces n floats into `out` (a Float32Array of length n, or a new
 * JS-owned one) by calling fill(address, begin, end) on chunks of a scratch
 * buffer in wasm memory.
 */
export function streamFloatsOut(M, n, fill, out = new Float32Array(n)) {
  const chunk = Math.min(n, CHUNK_FLOATS);
  const address = M._malloc(Math.max(chunk * 4, 1));
  if (address === 0) throw new RangeError(`qwasm: out of wasm memory allocating ${chunk * 4} bytes`);
  try {
    for (let begin = 0; begin < n; begin += chunk) {
      const end = Math.min(n, begin + chunk);
      fill(address, begin, end);
      out.set(new Float32Array(M.HEAPF32.buffer, address, end - begin), begin);
    }
    return out;
  } finally {
    M._free(address);
  }
}

/** @internal A JS-owned copy of a typed view that points into wasm memory. */
export function copyView(view) {
  const Ctor = { Uint8Array, Int8Array, Int32Array, Float32Array, Float64Array }[
    Object.prototype.toString.call(view).slice(8, -1)
  ];
  return new Ctor(view);
}
