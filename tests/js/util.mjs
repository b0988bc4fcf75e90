// Shared by the Jest suites: golden file decoding, bit-exact comparisons and a
// seeded generator (seed printed; replay with QWASM_SEED=<n>).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  int64: BigInt64Array,
  int32: Int32Array,
  int8: Int8Array,
  uint8: Uint8Array,
};

export function loadGolden(name) {
  return JSON.parse(readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8'));
}

/** {dtype, shape, b64} -> typed array (int64 becomes a Float64Array of exact integers). */
export function decode(a) {
  const bytes = Buffer.from(a.b64, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const arr = new ARRAYS[a.dtype](copy.buffer);
  return a.dtype === 'int64' ? Float64Array.from(arr, Number) : arr;
}

/**
 * count bytes from the LCG x = (1103515245 x + 12345) mod 2^31, byte = x >> 16:
 * large golden inputs are stored as a seed (lcg_bytes in tests/golden/generators/memory_formats.py).
 */
export function lcgBytes(seed, count) {
  const out = new Uint8Array(count);
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = Number((1103515245n * BigInt(x) + 12345n) & 0x7fffffffn);
    out[i] = (x >> 16) & 0xff;
  }
  return out;
}

/** First index where two float arrays differ in bits, or -1. NaN payloads count. */
export function firstBitDifference(a, b, { anyNaN = false } = {}) {
  if (a.length !== b.length) return -2;
  const bits = a.BYTES_PER_ELEMENT === 8 ? BigUint64Array : Uint32Array;
  const ua = new bits(a.buffer, a.byteOffset, a.length);
  const ub = new bits(b.buffer, b.byteOffset, b.length);
  // anyNaN: a NaN matches any NaN (IEEE arithmetic leaves a NaN's sign and payload open; wasm canonicalizes them).
  for (let i = 0; i < ua.length; i++)
    if (ua[i] !== ub[i] && !(anyNaN && Number.isNaN(a[i]) && Number.isNaN(b[i]))) return i;
  return -1;
}

export function firstDifference(a, b) {
  if (a.length !== b.length) return -2;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

export function seed() {
  const s = process.env.QWASM_SEED ? Number(process.env.QWASM_SEED) : Math.floor(Math.random() * 2 ** 31);
  return s;
}

/** A seeded generator for test data (the demo's mulberry32). */
export { mulberry32 as rng } from '../../demo/random.mjs';

/** Runs thunk and checks it throws exactly ErrorClass with `fragment` in the message. */
export function expectThrows(thunk, ErrorClass, fragment) {
  let error;
  try {
    thunk();
  } catch (e) {
    error = e;
  }
  expect(error).toBeDefined();
  expect(error.constructor).toBe(ErrorClass);
  expect(error.message).toContain(fragment);
}

/** Runs every thunk, swallowing the errors they are meant to throw. */
export function runAll(cases) {
  for (const [, thunk] of cases) {
    try {
      thunk();
    } catch {
      // expected
    }
  }
}

/**
 * init() for the golden suites. By default the package as users get it (in
 * Node.js: the threaded variant with the default thread count). With
 * QWASM_TEST_THREADS=n (scripts/test-all runs the goldens with 1, 3 and 4),
 * the threaded testing build at n threads with fine-grained tasks, so that
 * even small cases are split among the threads: every golden must then give
 * the same bits at every thread count. The quantized engine is the one the
 * golden file was generated under (its `engine`: 'fbgemm' or 'x86').
 */
export function initGolden(qwasm, golden) {
  // QWASM_TEST_WINOGRAD=on / off: every quantized convolution the suite
  // builds takes the Winograd path wherever its shape allows / never
  // (scripts/test-all runs the golden suites both ways; unset: 'auto').
  const winograd = { on: true, off: false }[process.env.QWASM_TEST_WINOGRAD ?? ''];
  const engine = () => {
    if (golden !== undefined) qwasm.quantization.setEngine(golden.engine);
    if (winograd !== undefined) {
      qwasm.quantization.setWinograd(winograd);
      console.log(`[qwasm] golden suite with winograd ${winograd}`);
    }
  };
  const threads = process.env.QWASM_TEST_THREADS;
  // A suite of several golden files sets each one's engine on the module its first file loaded.
  if (qwasm.isInitialized()) return Promise.resolve().then(engine);
  if (!threads) return qwasm.init().then(engine);
  const require = createRequire(import.meta.url);
  const factory = require('../../build/wasm/qwasm.testing.mt.js');
  return qwasm
    .init({
      numThreads: Number(threads),
      wasmBinary: readFileSync(new URL('../../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
      _moduleFactory: (moduleArg) =>
        factory(moduleArg).then((M) => {
          M._setFineGrainedTasks(true);
          return M;
        }),
    })
    .then(() => {
      const info = qwasm.runtimeInfo();
      if (info.variant !== 'threads' || info.numThreads !== Number(threads)) {
        throw new Error(`QWASM_TEST_THREADS=${threads} but qwasm runs ${JSON.stringify(info)}`);
      }
      console.log(`[qwasm] golden suite at ${threads} threads, fine-grained tasks`);
      engine();
    });
}

/** A conv golden case's quint8 input (x_int with a_scale, a_zero_point) as a QTensor the caller disposes. */
export function goldenInput(qwasm, c) {
  return qwasm.makePerTensorQuantizedTensor({ data: decode(c.x_int), shape: c.x_int.shape }, c.a_scale, c.a_zero_point);
}
