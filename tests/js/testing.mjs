// The library's ES module sources on the testing build of the wasm
// (build/wasm/qwasm.testing.*: asserts on, plus the test-only entry points:
// the naive reference, allocation fault injection, the peak microbenchmark).
// Suites that need those import this instead of the package entry.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as qwasm from '../../web/src/node-entry.mjs';
import { wasm } from '../../web/src/runtime/runtime.mjs';
import { qtensorHandle } from '../../web/src/tensors/qtensor.mjs';

const require = createRequire(import.meta.url);

/** Initializes the library on the testing build (idempotent). */
export function initTesting() {
  return qwasm.init({
    _moduleFactory: require('../../build/wasm/qwasm.testing.js'),
    wasmBinary: readFileSync(new URL('../../build/wasm/qwasm.testing.wasm', import.meta.url)),
  });
}

/** The Emscripten module (after initTesting). */
export const M = () => wasm();

/** The Embind handle of a QTensor. */
export const handle = (q) => qtensorHandle(q, 'test');

/** Copies a typed array into the wasm heap, runs fn(address), frees it. */
export function withCopy(data, fn) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const address = M()._malloc(Math.max(bytes.length, 1)) >>> 0;
  try {
    M().HEAPU8.set(bytes, address);
    return fn(address);
  } finally {
    M()._free(address);
  }
}

export { qwasm };
