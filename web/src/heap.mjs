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

/** @internal Allocates n floats, runs fn(address), returns a JS-owned copy. */
export function withHeapFloatOutput(M, n, fn) {
  const address = M._malloc(Math.max(n * 4, 1));
  if (address === 0) throw new RangeError(`qwasm: out of wasm memory allocating ${n * 4} bytes`);
  try {
    fn(address);
    return new Float32Array(M.HEAPF32.buffer, address, n).slice();
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
