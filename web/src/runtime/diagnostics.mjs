import { wasm } from './runtime.mjs';

/** Bytes of wasm heap currently allocated by qwasm, exact up to 4 GiB (for leak checks). */
export function heapInUse() {
  return wasm('heapInUse()')._heapInUse();
}

/** Documented at heapHighWater (web/declarations/runtime.d.ts). */
export function heapHighWater() {
  return wasm('heapHighWater()')._heapHighWater();
}
