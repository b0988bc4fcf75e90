// init() and the runtime it loads: threads, the kernel family, the heap,
// and the error out of wasm memory.

/**
 * The RangeError qwasm throws when wasm memory runs out (a core allocation,
 * a copy into the heap, or a model worker's): test `kind`, not the message.
 * The heap is back where it was before the call; dispose() what you no
 * longer need and retry.
 * @example
 * ```ts
 * const clip = tensor(new Float32Array(3 * 16 * 112 * 112), [1, 3, 16, 112, 112]);
 * try {
 *   const q = qwasm.quantizePerTensor(clip, 0.1, 0, 'quint8');
 *   q.dispose();
 * } catch (e) {
 *   if (!(e instanceof RangeError && (e as qwasm.OutOfMemoryError).kind === 'outOfMemory')) throw e;
 *   // Out of wasm memory: dispose() tensors you no longer need, then try again.
 * }
 * ```
 */
export interface OutOfMemoryError extends RangeError {
  /** Always 'outOfMemory'. */
  kind: 'outOfMemory';
}

/** Options of {@link init}. */
export interface InitOptions {
  /** The wasm bytes, when you load them yourself (copied when init() is called). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /**
   * Where the wasm is: called with 'qwasm.wasm' and the default directory,
   * returns the URL to fetch (browsers, workers) or the file path or file:
   * URL to read (Node.js). Default: dist/qwasm.wasm beside the package's code.
   */
  locateFile?: (path: string, prefix: string) => string | URL;
  /**
   * Threads for parallel loops (1..64), the calling thread included. More
   * than 1 loads the threaded variant (qwasm.mt.wasm, with its glue and
   * worker script from dist/) where threads can run: always in Node.js; in
   * browsers only on cross-origin isolated pages and workers (COOP/COEP),
   * except Firefox workers (a Firefox worker that starts workers can hang).
   * Elsewhere qwasm runs single-threaded, without error, and runtimeInfo()
   * says why. Default: Node.js, the cores (os.availableParallelism()) up to 8;
   * browsers, navigator.hardwareConcurrency up to 8 when cross-origin
   * isolated, else 1. With wasmBinary, the bytes decide the variant.
   */
  numThreads?: number;
}

/** What init() loaded ({@link runtimeInfo}). */
export interface RuntimeInfo {
  /** 'threads': qwasm.mt.wasm with a thread pool; 'single-thread': qwasm.wasm. */
  variant: 'threads' | 'single-thread';
  /** Threads each parallel loop uses ({@link setNumThreads}). */
  numThreads: number;
  /** Threads init() started (the most setNumThreads accepts). */
  maxThreads: number;
  /** The fastest kernel family this runtime has (what {@link setKernelIsa}('auto') picks). */
  isa: 'scalar' | 'wasmsimd';
  /** Present when more than one thread was asked for but none run: why. */
  threadsUnavailable?: string;
}

/**
 * Loads and instantiates the WebAssembly module. Every call returns the same
 * promise; a later call may omit the options, but passing different ones is an
 * Error (one module per page, worker or process). Every other function but
 * {@link tensor}, {@link io.loadNpy} and {@link io.loadSafetensors} throws an
 * Error ("qwasm is not initialized") until it has resolved.
 *
 * @param options Where the wasm is and how many threads to start; see {@link InitOptions}.
 * @returns A promise that resolves once the module is ready.
 * @throws TypeError for an option of the wrong type or an unknown option
 *   name, RangeError for numThreads outside 1..64, Error when called again
 *   with other options (all thrown synchronously).
 *   A failed load rejects with an Error that names what was tried and what to
 *   do (its `cause` is the original error); init() can then be retried.
 * @example
 * ```ts
 * import { init, runtimeInfo } from 'qwasm';
 *
 * await init({ numThreads: 4 });
 * // In Node.js (browsers run threads only on cross-origin isolated pages):
 * runtimeInfo(); // → { variant: 'threads', numThreads: 4, maxThreads: 4, isa: 'wasmsimd' }
 * ```
 */
export declare function init(options?: InitOptions): Promise<void>;

/** True once {@link init} has resolved. Never throws. */
export declare function isInitialized(): boolean;

/**
 * What {@link init} loaded: the variant, the threads and the kernel family
 * (and why not threads, if so).
 * @throws Error before init() has resolved.
 */
export declare function runtimeInfo(): RuntimeInfo;

/**
 * Threads each parallel loop uses (`torch.get_num_threads()`).
 * @throws Error before init() has resolved.
 */
export declare function getNumThreads(): number;

/**
 * Threads each parallel loop uses from now on (`torch.set_num_threads()`,
 * but it cannot start more threads than init() did). Results are
 * bit-identical for every thread count.
 * @param n An integer in 1..runtimeInfo().maxThreads.
 * @throws TypeError when n is not an integer, RangeError outside
 *   1..maxThreads, Error before init() has resolved.
 */
export declare function setNumThreads(n: number): void;

/**
 * Chooses the kernel family from now on (benchmarks and equivalence tests
 * switch it; the results are the same bytes either way).
 * @param name 'auto' (default: the fastest available), 'scalar' or 'wasmsimd'.
 * @throws TypeError when name is not a string, RangeError for another name.
 */
export declare function setKernelIsa(name: 'auto' | 'scalar' | 'wasmsimd'): void;

/**
 * The kernel family in use.
 * @throws Error before {@link init} has resolved (under 'auto').
 */
export declare function kernelIsa(): 'scalar' | 'wasmsimd';

/**
 * Bytes of wasm heap allocated right now (leak checks: compare before and
 * after, with every QTensor and module disposed).
 * @throws Error before {@link init} has resolved.
 */
export declare function heapInUse(): number;

/**
 * The most bytes of wasm heap malloc has held at once since init (its
 * footprint's high-water mark, up to 4 GiB; no free lowers it). A forward's
 * peak is at most heapInUse() before it plus the growth of this mark.
 * @throws Error before {@link init} has resolved.
 */
export declare function heapHighWater(): number;

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
