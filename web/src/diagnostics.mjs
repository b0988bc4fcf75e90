import { wasm } from './runtime.mjs';

/** Bytes of wasm heap currently allocated by qwasm (for leak checks). */
export function heapInUse() {
  return wasm()._heapInUse();
}
