// Type declarations for qwasm: the source of the package's web/types/qwasm.d.mts
// and .d.cts (scripts/package.mjs copies this file into both) and of the API
// reference (npm run docs:api). Every public declaration carries TSDoc: its
// PyTorch counterpart, its units and what it throws, because editors are
// where JavaScript users read an API. Every @example runs in
// tests/js/package/dts-examples.test.mjs (its header names what examples may use
// without importing it), and each `// → value` comment there is asserted.
//
// Who owns memory: QTensor objects own wasm memory (free it with dispose());
// every typed array returned to you is a JS-owned copy, never a view into
// wasm memory.
//
// What qwasm throws: TypeError for an argument of the wrong JavaScript type or
// structure (a string where a number goes, an unknown option name), RangeError
// for a value out of range (a scale <= 0, an axis past the rank, a shape that
// does not match; wasm memory exhausted: an OutOfMemoryError, a RangeError
// with kind 'outOfMemory' and "out of memory" in its message), and Error for a
// call in the wrong state (before init(), on a disposed tensor or module, a
// model not in eval mode) or a malformed file. Every message starts with the
// call that failed, e.g. "quantizePerTensor(x, scale, zeroPoint, dtype): ...".

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

/**
 * PyTorch's memory formats: `torch.contiguous_format`, `torch.channels_last`
 * (rank 4) and `torch.channels_last_3d` (rank 5).
 */
export type MemoryFormat = 'contiguous' | 'channels_last' | 'channels_last_3d';

/**
 * The values of `torch.backends.quantized.engine` that qwasm reproduces: the
 * engine a quantized layer's arithmetic follows (see {@link quantization.setEngine}).
 */
export type QuantizedEngine = 'x86' | 'fbgemm';

/**
 * Quantized dtypes, PyTorch's names: `torch.quint8` (0..255), `torch.qint8`
 * (-128..127), `torch.qint32` and `torch.quint4x2` (0..15, two 4-bit values
 * packed per byte).
 */
export type QDType = 'quint8' | 'qint8' | 'qint32' | 'quint4x2';

/** The typed array that holds each dtype's integers (what {@link QTensor.intRepr} returns). */
export interface IntArrayOf {
  /** One byte per element, 0..255. */
  quint8: Uint8Array;
  /** One byte per element, -128..127. */
  qint8: Int8Array;
  /** Four bytes per element. */
  qint32: Int32Array;
  /** Packed: two 4-bit values per byte, low nibble first. */
  quint4x2: Uint8Array;
}

/** Schemes a QTensor can carry (PyTorch's `QTensor.qscheme()`: `torch.per_tensor_affine`, ...). */
export type TensorQScheme = 'per_tensor_affine' | 'per_channel_affine' | 'per_channel_affine_float_qparams';

/**
 * Schemes an observer can target: the tensor schemes plus the symmetric ones
 * (`torch.per_tensor_symmetric`, `torch.per_channel_symmetric`), whose
 * tensors are stored as affine with a fixed zero point.
 */
export type ObserverQScheme = TensorQScheme | 'per_tensor_symmetric' | 'per_channel_symmetric';

/**
 * A float32 tensor (PyTorch's `torch.float32` tensor): row-major data in
 * PyTorch's default layout (e.g. NCDHW). Make one with {@link tensor}, or
 * write the object literal yourself.
 */
export interface Tensor {
  /** The elements in row-major order; `data.length` is the product of `shape`. */
  data: Float32Array;
  /** Dimensions, PyTorch order (`tensor.shape`); `[]` is a scalar of one element. */
  shape: number[];
}

/** Integer data quantized elsewhere, laid out as PyTorch's `int_repr()`. */
export interface IntTensor<D extends QDType = QDType> {
  /** Uint8Array (quint8, or packed quint4x2 bytes), Int8Array (qint8) or Int32Array (qint32). */
  data: IntArrayOf[D];
  /** Dimensions, PyTorch order, in elements (not bytes, also for quint4x2). */
  shape: number[];
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
 * Builds a float tensor (`torch.tensor(data).reshape(shape)`), checking that
 * `shape` holds exactly `data.length` elements. Arrays of numbers are copied
 * into a Float32Array; a Float32Array is used as is (not copied). Pure
 * JavaScript: works before {@link init}.
 * @param data The elements in row-major order.
 * @param shape Dimensions in elements; default `[data.length]`.
 * @throws TypeError for wrong types, RangeError when shape and data disagree.
 * @example
 * ```ts
 * const x = tensor([0.5, -1, 2, 3.25, 0, 1], [2, 3]); // → { data: Float32Array(6) [ 0.5, -1, 2, 3.25, 0, 1 ], shape: [ 2, 3 ] }
 * ```
 */
export declare function tensor(data: Float32Array | number[], shape?: number[]): Tensor;

/**
 * A quantized tensor living in wasm memory, of dtype D: PyTorch's quantized
 * `torch.Tensor` (its `q_scale()`, `int_repr()`, `dequantize()`, ... in
 * camelCase). Make one with {@link quantizePerTensor},
 * {@link quantizePerChannel}, {@link makePerTensorQuantizedTensor} or
 * {@link makePerChannelQuantizedTensor}; free it with {@link QTensor.dispose}
 * (or make it inside {@link tidy}). A FinalizationRegistry frees forgotten
 * tensors eventually, but do not rely on it. Every method of a disposed
 * tensor throws an Error. QTensors have no arithmetic operators (`a + b` is
 * a TypeError): use {@link nn.quantized.functional}.
 *
 * @example
 * ```ts
 * const q = quantizePerTensor(tensor([-1, 0, 0.5, 2]), 0.1, 10, 'quint8');
 * q.qscheme();     // → 'per_tensor_affine'
 * q.qScale();      // → 0.1
 * q.qZeroPoint();  // → 10
 * q.intRepr();     // → Uint8Array(4) [ 0, 10, 15, 30 ]
 * q.dequantize();  // → { data: Float32Array(4) [ -1, 0, 0.5, 2 ], shape: [ 4 ] }
 * q.dispose();
 * ```
 */
export declare class QTensor<D extends QDType = QDType> {
  private constructor();
  /** Dimensions, PyTorch order, in elements (frozen; `tensor.shape`). */
  readonly shape: readonly number[];
  /** The quantized dtype (`tensor.dtype`: torch.quint8, ...). */
  readonly dtype: D;
  /** True after dispose(). Readable on a disposed tensor. */
  readonly disposed: boolean;
  /**
   * Number of elements (`tensor.numel()`).
   * @throws Error on a disposed tensor.
   */
  numel(): number;
  /**
   * The quantization scheme (`tensor.qscheme()`).
   * @throws Error on a disposed tensor.
   */
  qscheme(): TensorQScheme;
  /**
   * Per-tensor scale (`tensor.q_scale()`; PyTorch keeps it as a double).
   * @throws Error on per-channel or disposed tensors.
   */
  qScale(): number;
  /**
   * Per-tensor zero point (`tensor.q_zero_point()`).
   * @throws Error on per-channel or disposed tensors.
   */
  qZeroPoint(): number;
  /**
   * The quantized dimension (`tensor.q_per_channel_axis()`), 0 <= axis < rank.
   * @throws Error on per-tensor or disposed tensors.
   */
  qPerChannelAxis(): number;
  /**
   * Per-channel scales (`tensor.q_per_channel_scales()`), one per entry of
   * shape[axis]: a Float64Array, or float32 values in a Float32Array for
   * float qparams. A JS-owned copy.
   * @throws Error on per-tensor or disposed tensors.
   */
  qPerChannelScales(): Float64Array | Float32Array;
  /**
   * Per-channel zero points (`tensor.q_per_channel_zero_points()`): an
   * Int32Array, or a Float32Array for float qparams. A JS-owned copy.
   * @throws Error on per-tensor or disposed tensors.
   */
  qPerChannelZeroPoints(): Int32Array | Float32Array;
  /**
   * The stored integers (`tensor.int_repr()`), a JS-owned copy: Uint8Array
   * (quint8), Int8Array (qint8), Int32Array (qint32), or for quint4x2 the
   * packed bytes (ceil(numel / 2); element i in byte i >> 1, low nibble first).
   * @throws Error on a disposed tensor.
   */
  intRepr(): IntArrayOf[D];
  /**
   * Back to float32 (`tensor.dequantize()`) with PyTorch's formula for the
   * scheme: (q - zeroPoint) * scale. The result is JS-owned.
   * @param out A Float32Array of numel() elements to write into (like
   *   PyTorch's out=: saves allocating a fresh array for large tensors);
   *   default a new one.
   * @returns `{ data, shape }`, data being `out` when given.
   * @throws TypeError when out is not a Float32Array (or is detached),
   *   RangeError when it does not hold numel() elements, Error on a disposed tensor.
   */
  dequantize(out?: Float32Array): Tensor;
  /**
   * `tensor.view(shape)`: the same integers (shared storage) with another
   * shape of the same element count. Per channel, the channel dimension must
   * stay one dimension of the new shape. The view is a QTensor of its own:
   * dispose() it (the integers live until every view is disposed).
   * @param shape Dimensions in elements; one entry may be -1 (inferred).
   * @throws TypeError for a shape that is not an array of integers,
   *   RangeError for one that does not fit numel() (or moves the channel
   *   dimension), Error on a disposed tensor.
   */
  view(shape: number[]): QTensor<D>;
  /**
   * `tensor.stride()`: the strides PyTorch's tensor would have, in elements.
   * qwasm stores every tensor in logical order; the strides record the
   * layout PyTorch would hold it in (quantized convolutions return
   * channels-last tensors), because some PyTorch kernels round differently
   * by layout and qwasm follows them. A view takes PyTorch's view strides
   * where PyTorch could make the view, a contiguous copy's otherwise.
   * @throws Error on a disposed tensor.
   */
  stride(): number[];
  /**
   * `tensor.is_contiguous(memory_format)`; false for a format of another rank.
   * @param memoryFormat Default 'contiguous'.
   * @throws TypeError for an unknown format, Error on a disposed tensor.
   */
  isContiguous(memoryFormat?: MemoryFormat): boolean;
  /**
   * `tensor.contiguous(memory_format=...)`: the same integers and qparams
   * (shared storage) with that format's strides, so that later ops compute
   * what PyTorch's would on such a tensor. A new QTensor: dispose() it.
   * @param options memoryFormat: default 'contiguous'; 'channels_last' needs
   *   rank 4, 'channels_last_3d' rank 5.
   * @throws RangeError when the format needs another rank, TypeError for an
   *   unknown option, Error on a disposed tensor.
   */
  contiguous(options?: { memoryFormat?: MemoryFormat }): QTensor<D>;
  /**
   * Frees the wasm memory. Idempotent. (Where the runtime has
   * Symbol.dispose, `using q = ...` calls it too; not declared here so that
   * these types compile without the esnext.disposable lib.)
   */
  dispose(): void;
}

/**
 * `torch.quantize_per_tensor`:
 * q = clamp(round_half_even(x * (1 / scale)) + zeroPoint, qmin, qmax).
 * @param x The float tensor (copied into wasm memory once).
 * @param scale > 0 and finite (PyTorch accepts <= 0; qwasm refuses it).
 * @param zeroPoint An integer in the dtype's range (quint8 0..255, qint8 -128..127).
 * @param dtype The quantized dtype.
 * @returns A new QTensor; the caller owns it and must dispose() it.
 * @throws TypeError for arguments of the wrong type (x not `{data: Float32Array, shape}`,
 *   an unknown dtype), RangeError for a scale or zero point out of range or
 *   when wasm memory runs out, Error before {@link init}.
 * @example
 * ```ts
 * const q = quantizePerTensor(tensor([-1, 0, 0.5, 2]), 0.1, 10, 'quint8');
 * q.intRepr(); // → Uint8Array(4) [ 0, 10, 15, 30 ]
 * q.dispose();
 * ```
 */
export declare function quantizePerTensor<D extends QDType>(
  x: Tensor,
  scale: number,
  zeroPoint: number,
  dtype: D,
): QTensor<D>;

/**
 * `torch.quantize_per_channel`. Channel c of dimension `axis` uses scales[c]
 * and zeroPoints[c]. Integer zero points give per_channel_affine (quint8,
 * qint8, qint32); a Float32Array of zero points gives
 * per_channel_affine_float_qparams (also quint4x2), where
 * q = clamp(round(x * (1 / scale) + zeroPoint)).
 * @param x The float tensor (copied into wasm memory once).
 * @param scales shape[axis] positive finite numbers.
 * @param zeroPoints shape[axis] values: integers in the dtype's range, or a Float32Array.
 * @param axis 0 <= axis < rank (negative axes are an error, as in PyTorch).
 * @param dtype The quantized dtype.
 * @returns A new QTensor; the caller owns it and must dispose() it.
 * @throws TypeError for arguments of the wrong type, RangeError for an axis
 *   out of range, lists whose length is not shape[axis], a scale or zero
 *   point out of range, or when wasm memory runs out; Error before {@link init}.
 * @example
 * ```ts
 * // A conv weight [out 2, in 1, 1, 1, 1], one symmetric scale per output channel.
 * const w = tensor([0.5, -0.25], [2, 1, 1, 1, 1]);
 * const qw = quantizePerChannel(w, [0.5 / 127, 0.25 / 127], [0, 0], 0, 'qint8');
 * qw.qPerChannelAxis();  // → 0
 * qw.intRepr();          // → Int8Array(2) [ 127, -127 ]
 * qw.dispose();
 * ```
 */
export declare function quantizePerChannel<D extends QDType>(
  x: Tensor,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype: D,
): QTensor<D>;

/**
 * `torch._make_per_tensor_quantized_tensor`: wraps integers quantized
 * elsewhere. The dtype follows the array type unless given (quint4x2 must be
 * given, with packed bytes); the array type must be the dtype's.
 * @param intTensor The integers and their shape (elements).
 * @param scale > 0 and finite.
 * @param zeroPoint An integer in the dtype's range.
 * @param dtype The quantized dtype; must match `intTensor.data`'s array type.
 * @returns A new QTensor holding a copy of the data; dispose() it.
 * @throws TypeError when the array type does not match the dtype,
 *   RangeError when the data does not hold the shape's elements or a qparam
 *   is out of range, Error before {@link init}.
 */
export declare function makePerTensorQuantizedTensor<D extends QDType>(
  intTensor: IntTensor<D>,
  scale: number,
  zeroPoint: number,
  dtype: D,
): QTensor<D>;
/** The dtype follows the array: a Uint8Array gives quint8. */
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'quint8'>,
  scale: number,
  zeroPoint: number,
): QTensor<'quint8'>;
/** The dtype follows the array: an Int8Array gives qint8. */
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'qint8'>,
  scale: number,
  zeroPoint: number,
): QTensor<'qint8'>;
/** The dtype follows the array: an Int32Array gives qint32. */
export declare function makePerTensorQuantizedTensor(
  intTensor: IntTensor<'qint32'>,
  scale: number,
  zeroPoint: number,
): QTensor<'qint32'>;

/**
 * `torch._make_per_channel_quantized_tensor`: as
 * {@link makePerTensorQuantizedTensor}, with the qparams of
 * {@link quantizePerChannel}.
 * @param intTensor The integers and their shape (elements).
 * @param scales shape[axis] positive finite numbers.
 * @param zeroPoints shape[axis] values: integers in the dtype's range, or a Float32Array (float qparams).
 * @param axis 0 <= axis < rank.
 * @param dtype The quantized dtype; must match `intTensor.data`'s array type.
 * @returns A new QTensor holding a copy of the data; dispose() it.
 * @throws TypeError when the array type does not match the dtype,
 *   RangeError for an axis, list length or qparam out of range, Error before {@link init}.
 */
export declare function makePerChannelQuantizedTensor<D extends QDType>(
  intTensor: IntTensor<D>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
  dtype: D,
): QTensor<D>;
/** The dtype follows the array: a Uint8Array gives quint8. */
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'quint8'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'quint8'>;
/** The dtype follows the array: an Int8Array gives qint8. */
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'qint8'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'qint8'>;
/** The dtype follows the array: an Int32Array gives qint32. */
export declare function makePerChannelQuantizedTensor(
  intTensor: IntTensor<'qint32'>,
  scales: ArrayLike<number>,
  zeroPoints: ArrayLike<number> | Float32Array,
  axis: number,
): QTensor<'qint32'>;

/**
 * `torch.dequantize(q)`: the same as {@link QTensor.dequantize}`()`.
 * @returns A new JS-owned float tensor; q is not disposed.
 * @throws TypeError when q is not a QTensor, Error when it is disposed.
 */
export declare function dequantize(q: QTensor): Tensor;

/**
 * Runs fn and disposes every QTensor made while it ran, except the QTensors it
 * returns (directly, or in a returned array or plain object). fn must be
 * synchronous. A model's forward() makes one QTensor per layer: tidy frees the
 * intermediate ones. (TensorFlow.js's tf.tidy; PyTorch has no counterpart:
 * its garbage collector frees tensors.)
 * @returns What fn returned.
 * @example
 * ```ts
 * const conv = new nn.quantized.Conv3d(1, 4, 1); // weights: setWeightBias()
 * const x = tensor([0.5, -1, 2, 0.25], [1, 1, 1, 2, 2]);
 * const y = tidy(() => {
 *   const q = quantizePerTensor(x, 0.02, 128, 'quint8'); // disposed when tidy returns
 *   return conv.forward(q);                             // kept: returned
 * });
 * y.shape; // → [ 1, 4, 1, 2, 2 ]
 * ```
 */
export declare function tidy<T>(fn: () => T): T;

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

/** Options shared by the observers (PyTorch's keyword arguments in camelCase, same defaults). */
export interface ObserverOptions {
  /** Default 'quint8'. */
  dtype?: QDType;
  /** Default 'per_tensor_affine' (per-channel observers: 'per_channel_affine'). */
  qscheme?: ObserverQScheme;
  /** Halve the range (quint8 0..127, qint8 -64..63), as fbgemm needs for activations. Default false. */
  reduceRange?: boolean;
  /** Lower end of a custom range (PyTorch's quant_min); give both quantMin and quantMax or neither. The range must include 0. */
  quantMin?: number;
  /** Upper end of a custom range (PyTorch's quant_max); give both quantMin and quantMax or neither. */
  quantMax?: number;
  /** Smallest scale. Default 2^-23 (float32 epsilon), kept as float32. */
  eps?: number;
}

/** Options of the per-channel observers. */
export interface PerChannelObserverOptions extends ObserverOptions {
  /** The channel dimension (PyTorch's ch_axis); negative counts from the end, as in PyTorch. Default 0. */
  chAxis?: number;
}

/** Options of {@link quantization.HistogramObserver}. */
export interface HistogramObserverOptions extends ObserverOptions {
  /** Number of histogram bins, 1..2^24. Default 2048. */
  bins?: number;
}

/** Options of the moving-average observers. */
export interface MovingAverageOptions {
  /** c in min += c * (batch_min - min) (PyTorch's averaging_constant). Default 0.01. */
  averagingConstant?: number;
}

/**
 * What every observer has (PyTorch's `torch.ao.quantization.ObserverBase`).
 * Not exported: the observers below are the classes; `quantization.Observer`
 * names any of them. Constructing an observer needs {@link init} (the core
 * checks the options): before it, an Error.
 */
declare abstract class ObserverBase<Q> {
  /**
   * PyTorch's `with_args`: a factory that makes this observer with these
   * options each time it is called (for {@link quantization.QConfig}). The
   * options are checked now, by making one observer.
   * @throws As the constructor does, for bad options.
   */
  static withArgs<T>(
    this: new (
      options?: never,
    ) => T,
    options?: HistogramObserverOptions & PerChannelObserverOptions & MovingAverageOptions,
  ): () => T;
  /** The target dtype (PyTorch's dtype). */
  readonly dtype: QDType;
  /** The target scheme (PyTorch's qscheme). */
  readonly qscheme: ObserverQScheme;
  /** True when the range is halved (PyTorch's reduce_range). */
  readonly reduceRange: boolean;
  /** The effective lower end of the range after reduceRange (PyTorch's quant_min). */
  readonly quantMin: number;
  /** The effective upper end of the range after reduceRange (PyTorch's quant_max). */
  readonly quantMax: number;
  /** True when quantMin / quantMax were given (PyTorch's has_customized_qrange). */
  readonly hasCustomizedQRange: boolean;
  /** The smallest scale, as the float32 PyTorch keeps. */
  readonly eps: number;
  /**
   * Records the range of x and returns x (PyTorch's `forward()`). Empty
   * tensors are ignored.
   * @param x A float tensor; per channel, its rank must include chAxis.
   * @returns x itself.
   * @throws TypeError when x is not a float tensor, RangeError on NaN or
   *   +-Infinity (PyTorch would carry them into the scale; the
   *   HistogramObserver leaves infinities out, as PyTorch does) or when
   *   wasm memory runs out, Error before {@link init}.
   */
  observe(x: Tensor): Tensor;
  /**
   * PyTorch's `calculate_qparams()` on what was observed (scale 1, zero
   * point 0 before any data). Fresh arrays; yours.
   * @throws Error before {@link init}.
   */
  calculateQParams(): Q;
  /** Forgets what was observed. */
  reset(): void;
  /** PyTorch's name for reset() (`reset_min_max_vals()`). */
  resetMinMaxVals(): void;
}

/** Per-tensor qparams: numbers. */
export interface QParams {
  /** The scale (> 0). */
  scale: number;
  /** The zero point, an integer in the observer's range. */
  zeroPoint: number;
}

/** Per-channel qparams: one entry per channel. */
export interface PerChannelQParams {
  /** One scale per channel. */
  scale: Float32Array;
  /** One zero point per channel: an Int32Array, or a Float32Array for per_channel_affine_float_qparams. */
  zeroPoint: Int32Array | Float32Array;
}

/**
 * PyTorch's `torch.ao.quantization` namespace: the observers, QConfig and the
 * eager-mode flow (fuseModules, prepare, calibrate with forward(), convert),
 * and the quantized engine (`torch.backends.quantized.engine`).
 */
export declare namespace quantization {
  /**
   * Running min/max of everything observed
   * (`torch.ao.quantization.MinMaxObserver`).
   * @example
   * ```ts
   * const obs = new quantization.MinMaxObserver({ dtype: 'quint8' });
   * obs.observe(tensor([-1, 0, 3]));
   * obs.calculateQParams(); // → { scale: 0.01568627543747425, zeroPoint: 64 }
   * ```
   */
  class MinMaxObserver extends ObserverBase<QParams> {
    #private;
    /**
     * @throws TypeError for an unknown option or one of the wrong type (or
     *   only one of quantMin / quantMax), RangeError for a value out of
     *   range (a scheme the dtype cannot use, a range without 0), Error before {@link init}.
     */
    constructor(options?: ObserverOptions);
    /** The smallest value observed; Infinity before the first observe(). */
    readonly minVal: number;
    /** The largest value observed; -Infinity before the first observe(). */
    readonly maxVal: number;
  }

  /**
   * Moving-average min/max
   * (`torch.ao.quantization.MovingAverageMinMaxObserver`): the first batch
   * sets the range, each later one moves it by averagingConstant.
   */
  class MovingAverageMinMaxObserver extends ObserverBase<QParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: ObserverOptions & MovingAverageOptions);
    /** c in min += c * (batch_min - min). */
    readonly averagingConstant: number;
    /** The running minimum; Infinity before the first observe(). */
    readonly minVal: number;
    /** The running maximum; -Infinity before the first observe(). */
    readonly maxVal: number;
  }

  /**
   * Per-channel min/max along chAxis
   * (`torch.ao.quantization.PerChannelMinMaxObserver`), the default weight
   * observer of from_float (qint8, per_channel_symmetric).
   * @example
   * ```ts
   * const w = tensor([0.5, -0.25, 1, 2], [2, 2]);
   * const obs = new quantization.PerChannelMinMaxObserver({ dtype: 'qint8', qscheme: 'per_channel_symmetric' });
   * obs.observe(w);
   * // One per row: the scale is the row's largest |w| / 127.5, the zero point 0.
   * const { scale, zeroPoint } = obs.calculateQParams();
   * scale;     // → Float32Array(2) [ 0.003921568859368563, 0.01568627543747425 ]
   * zeroPoint; // → Int32Array(2) [ 0, 0 ]
   * const qw = quantizePerChannel(w, scale, zeroPoint, obs.chAxis, 'qint8');
   * qw.intRepr(); // → Int8Array(4) [ 127, -64, 64, 127 ]
   * ```
   */
  class PerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: PerChannelObserverOptions);
    /** The channel dimension, as given (may be negative). */
    readonly chAxis: number;
    /** The minimum of each channel: a copy; empty before the first observe(). */
    readonly minVal: Float32Array;
    /** The maximum of each channel: a copy; empty before the first observe(). */
    readonly maxVal: Float32Array;
  }

  /** Per-channel moving-average min/max (`torch.ao.quantization.MovingAveragePerChannelMinMaxObserver`). */
  class MovingAveragePerChannelMinMaxObserver extends ObserverBase<PerChannelQParams> {
    #private;
    /** @throws As {@link MinMaxObserver}'s constructor. */
    constructor(options?: PerChannelObserverOptions & MovingAverageOptions);
    /** The channel dimension, as given (may be negative). */
    readonly chAxis: number;
    /** c in min += c * (batch_min - min). */
    readonly averagingConstant: number;
    /** The running minimum of each channel: a copy; empty before the first observe(). */
    readonly minVal: Float32Array;
    /** The running maximum of each channel: a copy; empty before the first observe(). */
    readonly maxVal: Float32Array;
  }

  /**
   * `torch.ao.quantization.HistogramObserver`, PyTorch's default activation
   * observer: a running histogram (re-binned as the range grows) and an
   * L2-minimising search for the range to quantize, bit for bit PyTorch's.
   * Per tensor only. Infinite values are left out, as PyTorch does; NaN is a
   * RangeError.
   * @example
   * ```ts
   * const obs = new quantization.HistogramObserver({ reduceRange: true });
   * for (const batch of [tensor([-1, 0, 2.5, 0.5]), tensor([0.25, 3, -0.5, 1])]) obs.observe(batch);
   * obs.calculateQParams(); // → { scale: 0.031480684876441956, zeroPoint: 32 }
   * ```
   */
  class HistogramObserver extends ObserverBase<QParams> {
    #private;
    /**
     * @throws RangeError for bins outside 1..2^24, and as {@link MinMaxObserver}'s constructor.
     */
    constructor(options?: HistogramObserverOptions);
    /** Number of bins (default 2048). */
    readonly bins: number;
    /** The smallest finite value observed; Infinity before the first observe(). */
    readonly minVal: number;
    /** The largest finite value observed; -Infinity before the first observe(). */
    readonly maxVal: number;
    /** The running histogram over [minVal, maxVal]: a copy, bins counts (zeros before any data). */
    readonly histogram: Float32Array;
  }

  /**
   * `torch.ao.quantization.QConfig(activation, weight)`: the observer
   * factories {@link prepare} and {@link convert} use. Set it on a module as
   * `model.qconfig`.
   */
  class QConfig {
    #private;
    /**
     * @param options activation and weight: observer factories
     *   (`Observer.withArgs(...)`) or observer classes (PyTorch's
     *   `QConfig(activation=MinMaxObserver, ...)`: made with their default
     *   options), called once per observed module.
     * @throws TypeError when either is not a function or class.
     */
    constructor(options: {
      activation: (() => Observer) | (new () => Observer);
      weight: (() => Observer) | (new () => Observer);
    });
    /** Makes the observer of each observed output (a class given to the constructor comes back as a factory). */
    readonly activation: () => Observer;
    /** Makes the observer of each weight (qint8; a class given to the constructor comes back as a factory). */
    readonly weight: () => Observer;
  }

  /**
   * `torch.ao.quantization.get_default_qconfig(backend)`, PyTorch 2.15's
   * definitions: HistogramObserver activations (reduceRange on 'x86' and
   * 'fbgemm'), and per-channel symmetric qint8 weights (per-tensor for
   * 'qnnpack').
   * @param backend Default 'x86'.
   * @throws TypeError for another backend name.
   */
  function getDefaultQConfig(backend?: 'x86' | 'fbgemm' | 'qnnpack' | 'onednn'): QConfig;

  /**
   * `torch.backends.quantized.engine = name`: the engine quantized layers are
   * packed for from now on ('x86', the default as in PyTorch on x86 CPUs, or
   * 'fbgemm'). Under 'x86' a convolution with symmetric weights and groups
   * <= 100 gives the numbers PyTorch's oneDNN path gives on a CPU with
   * AVX-512 VNNI; everything else FBGEMM's.
   * @throws TypeError for another name.
   */
  function setEngine(name: QuantizedEngine): void;
  /** `torch.backends.quantized.engine`: the engine in force. */
  function getEngine(): QuantizedEngine;
  /** The engines qwasm reproduces (`torch.backends.quantized.supported_engines`, the ones qwasm has). */
  const supportedEngines: readonly QuantizedEngine[];
  /**
   * The Winograd option of every quantized convolution built from now on
   * (constructor, fromFloat, convert, io.loadModel) whose options do not
   * name one. Default 'auto'. (qwasm's own: PyTorch has no Winograd path.)
   * @throws TypeError for a value other than 'auto', true or false.
   */
  function setWinograd(mode: WinogradOption): void;
  /** The default {@link setWinograd} set. */
  function getWinograd(): WinogradOption;

  /**
   * `torch.ao.quantization.QuantStub`: marks where the quantized region
   * starts: the identity until {@link convert} makes it a
   * {@link nn.quantized.Quantize}.
   */
  class QuantStub extends nn.Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }
  /**
   * `torch.ao.quantization.DeQuantStub`: marks where the quantized region
   * ends: the identity until {@link convert} makes it a
   * {@link nn.quantized.DeQuantize}.
   */
  class DeQuantStub extends nn.Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }

  /**
   * `torch.ao.quantization.fuse_modules`: fuses each group of module paths
   * (['conv', 'bn', 'relu'], or a list of groups) in place and returns the
   * model. Conv + BatchNorm (+ ReLU) needs eval mode and folds the BatchNorm
   * into the weights bit for bit as PyTorch does; Conv + ReLU and Linear +
   * ReLU make the nn.intrinsic modules; the other slots become nn.Identity.
   * Always in place (a JavaScript module cannot be deep-copied).
   * @param modulesToFuse Dotted module paths ('layer1.0.conv1'), one group or a list of groups.
   * @throws TypeError for a model that is not an nn.Module or paths that are
   *   not dotted names, RangeError when a BatchNorm does not match its conv,
   *   Error for a missing submodule, a sequence PyTorch has no fuser for, or
   *   a BatchNorm fold in training mode.
   * @example
   * ```ts
   * const model = new nn.Sequential({
   *   conv1: new nn.Conv3d(3, 8, 3), bn1: new nn.BatchNorm3d(8), relu1: new nn.ReLU(),
   *   conv2: new nn.Conv3d(8, 8, 1), relu2: new nn.ReLU(),
   * });
   * model.eval();
   * quantization.fuseModules(model, [['conv1', 'bn1', 'relu1'], ['conv2', 'relu2']]);
   * model.children().map((m) => m.constructor.name); // → [ 'ConvReLU3d', 'Identity', 'Identity', 'ConvReLU3d', 'Identity' ]
   * ```
   */
  function fuseModules<M extends nn.Module>(
    model: M,
    modulesToFuse: string[] | string[][],
    options?: { inplace?: true },
  ): M;

  /**
   * `torch.ao.quantization.prepare`: in place, propagates each module's
   * `qconfig` to its children and attaches observers where PyTorch does (a
   * QuantStub's output, each Conv / Linear and fused ConvReLU / LinearReLU
   * output, each FloatFunctional's result). Run calibration data through
   * model.forward(x), then {@link convert}(model).
   * @throws TypeError for a model that is not an nn.Module or a qconfig
   *   that is not a QConfig, Error for unfused BatchNorm under a qconfig
   *   (fuse it first: {@link fuseModules}), a model already prepared, or
   *   one with nothing to observe.
   * @example
   * ```ts
   * const fc = new nn.Linear(3, 2);
   * fc.weight = tensor([0.5, -1, 0.25, 1, 0.5, -0.5], [2, 3]);
   * const model = new nn.Sequential(new quantization.QuantStub(), fc, new quantization.DeQuantStub());
   * model.eval();
   * model.qconfig = quantization.getDefaultQConfig('x86');
   * quantization.prepare(model);
   * for (const x of [tensor([0.5, -1, 2]), tensor([1, 0.25, -0.5])]) model.forward(x);
   * quantization.convert(model);
   * const y = model.forward(tensor([0.5, 1, -1])); // quantized arithmetic, PyTorch's integers
   * model[1] instanceof nn.quantized.Linear; // → true
   * ```
   */
  function prepare<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /**
   * `torch.ao.quantization.convert`: in place, swaps each observed module for
   * its quantized twin (QuantStub -> nn.quantized.Quantize, DeQuantStub ->
   * nn.quantized.DeQuantize, Conv3d -> nn.quantized.Conv3d, ConvReLU3d ->
   * nn.intrinsic.quantized.ConvReLU3d, FloatFunctional -> QFunctional, ...)
   * with the qparams its observers calibrated, and disposes the float modules
   * it replaced.
   * @throws TypeError for a model that is not an nn.Module, Error when the
   *   model was not prepared (and RangeError, as the quantized modules'
   *   constructors, for qparams out of range).
   */
  function convert<M extends nn.Module>(model: M, options?: { inplace?: true }): M;

  /** Any observer. */
  type Observer =
    | MinMaxObserver
    | MovingAverageMinMaxObserver
    | PerChannelMinMaxObserver
    | MovingAveragePerChannelMinMaxObserver
    | HistogramObserver;

  /**
   * PyTorch's eager numeric suite (`torch.ao.ns._numeric_suite`): where int8
   * loses accuracy, layer by layer. Layers are paired as PyTorch pairs them,
   * so the keys are PyTorch's state-dict and logger keys.
   */
  namespace ns {
    /** One float tensor against its quantized twin (dequantized). */
    interface Comparison {
      /** The float model's key this entry was paired with (PyTorch's `_find_match`). */
      floatKey: string;
      /** The float tensor. */
      float: Tensor;
      /** The quantized tensor, dequantized. */
      quantized: Tensor;
      /** `compute_sqnr(float, quantized)` in dB; Infinity when they are equal. */
      sqnr: number;
      /** The largest |float - quantized|. */
      maxAbsError: number;
    }
    /** A weight: also per output channel (axis 0). */
    interface WeightComparison extends Comparison {
      /** The same along the output channels (axis 0 of a conv or linear weight). */
      perChannel: {
        /** Each channel's SQNR in dB. */
        sqnr: number[];
        /** Each channel's largest |float - quantized|. */
        maxAbsError: number[];
      };
    }
    /** A module's output. */
    interface OutputComparison extends Comparison {
      /** The share of elements more than one quantization step apart; null for a float output. */
      offByMoreThanOneStep: number | null;
    }
    /**
     * `torch.ao.ns.fx.utils.compute_sqnr`: 20 log10(‖x‖ / ‖x − y‖) in dB
     * (Infinity when y equals x). QTensors are dequantized.
     * @throws TypeError for an argument that is not a tensor, RangeError for shapes that differ.
     * @example
     * ```ts
     * quantization.ns.computeSqnr(tensor([3, 4]), tensor([3, 4.5])); // → 20
     * ```
     */
    function computeSqnr(x: Tensor | QTensor, y: Tensor | QTensor): number;
    /**
     * `torch.ao.ns._numeric_suite.compare_weights`: each quantized weight
     * with the float weight it came from, keyed by the quantized model's
     * state-dict key (`'layer1.0.conv1.0.weight'`, `'fc._packed_params._packed_params'`).
     * The models: qwasm modules (build the float model twice: `convert` works
     * in place), or a float model and its quantized twin exported from
     * PyTorch and loaded with {@link io.loadModel}.
     * @throws TypeError for a model that is not a module, RangeError for a pair of different sizes.
     * @example
     * ```ts
     * const floatModel = io.loadModel(await readFile('r3d_18_float.qwasm.safetensors'));
     * const int8Model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
     * const [worst] = Object.entries(quantization.ns.compareWeights(floatModel, int8Model))
     *   .sort(([, a], [, b]) => a.sqnr - b.sqnr); // the weight int8 hurts most
     * worst[0]; // → 'layer4.0.conv2.0.weight'
     * ```
     */
    function compareWeights(floatModel: nn.Module, quantizedModel: nn.Module): Record<string, WeightComparison>;
    /**
     * `torch.ao.ns._numeric_suite.compare_model_outputs`: runs both models on
     * `x` and pairs the outputs of the modules PyTorch logs (QuantStub /
     * Quantize, convs, linears, fused modules, FloatFunctional ops,
     * BatchNorm, ReLU6; not a float DeQuantStub), keyed by the quantized
     * model's `'<path>.stats'`.
     * @throws TypeError for a model that is not a module; a model's own error (named) when it cannot run x.
     */
    function compareModelOutputs(
      floatModel: nn.Module,
      quantizedModel: nn.Module,
      x: Tensor,
    ): Record<string, OutputComparison>;
  }
}

// The observers at the top level too (the same classes).
export import MinMaxObserver = quantization.MinMaxObserver;
export import MovingAverageMinMaxObserver = quantization.MovingAverageMinMaxObserver;
export import PerChannelMinMaxObserver = quantization.PerChannelMinMaxObserver;
export import MovingAveragePerChannelMinMaxObserver = quantization.MovingAveragePerChannelMinMaxObserver;
export import HistogramObserver = quantization.HistogramObserver;

/**
 * Padding as PyTorch takes it, in elements: one int for every side, one per
 * spatial dimension, 'same' (output size = input size; stride 1 only) or
 * 'valid' (no padding).
 */
export type Padding = number | number[] | 'same' | 'valid';

/** Constructor options of the convolution modules (PyTorch's keyword arguments, camelCase). */
export interface ConvOptions {
  /** Elements between window starts, per spatial dimension or one for all. Default 1. */
  stride?: number | number[];
  /** Default 0. 'same' pads d * (k - 1) in total, the odd one at the end. */
  padding?: Padding;
  /** Elements between kernel taps. Default 1. */
  dilation?: number | number[];
  /** Default 1; must divide both channel counts. groups == in == out is depthwise. */
  groups?: number;
  /** Default true. */
  bias?: boolean;
  /** Only 'zeros' (the default) is supported (PyTorch's padding_mode). */
  paddingMode?: 'zeros';
}

/**
 * The exact integer Winograd option of the quantized convolutions: 'auto'
 * (the default: transformed weights packed, and used, where it pays), true
 * (wherever the shape allows: stride 1, dilation 1, groups 1, each kernel
 * extent 3 or 1) or false (never). The output bytes are the same either way;
 * the option trades memory (packed weight bytes) for speed. qwasm's own:
 * PyTorch has no such option.
 */
export type WinogradOption = 'auto' | boolean;

/** Constructor options of the quantized convolutions. */
export interface QuantizedConvOptions extends ConvOptions {
  /** Default: {@link quantization.getWinograd}() ('auto' unless changed). */
  winograd?: WinogradOption;
}

/** Constructor options of the linear modules. */
export interface LinearOptions {
  /** Default true. */
  bias?: boolean;
}

/**
 * `torch.nn.Parameter`: a float tensor a module owns. In-place edits of
 * `data` take effect in the module's next forward() and in fromFloat();
 * assigning `data` copies the new values (a Float32Array of the same
 * length: otherwise a TypeError or RangeError).
 */
export interface Parameter {
  /** The values, row-major; edit in place or assign a Float32Array of the same length. */
  data: Float32Array;
  /** Dimensions, PyTorch order (frozen). */
  readonly shape: readonly number[];
}

/** What the float conv / linear modules share (not exported: use nn.Conv3d etc.). */
declare abstract class FloatModule extends nn.Module {
  /** Input channels (Linear: inFeatures). */
  readonly inChannels: number;
  /** Output channels (Linear: outFeatures). */
  readonly outChannels: number;
  /** Channel groups (1 for Linear). */
  readonly groups: number;
  /**
   * PyTorch's weight shape, e.g. [out, in / groups, kD, kH, kW] for Conv3d,
   * [out, in] for Linear. Assigning a tensor of that shape copies it
   * (TypeError for another type, RangeError for another shape).
   */
  get weight(): Parameter;
  /** Copies w's values (its shape must be the weight's). */
  set weight(w: Tensor | Parameter);
  /** [outChannels], or null without bias. Assigning a tensor copies it. */
  get bias(): Parameter | null;
  /** Copies b's values ([outChannels]); null removes the bias. */
  set bias(b: Tensor | Parameter | null);
  /**
   * y = conv(x) + bias (Linear: x W^T + b), float32 as PyTorch computes it.
   * @param x Conv3d: [N, C, D, H, W]; Conv2d: [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures].
   * @returns A new JS-owned tensor.
   * @throws TypeError when x is not a float tensor, RangeError for a shape
   *   the module cannot take (rank, channels, an empty output) or when wasm
   *   memory runs out, Error after dispose().
   */
  forward(x: Tensor): Tensor;
  /** Scratch bytes of the last forward() beyond input, output and weights. */
  lastScratchBytes(): number;
  /** Frees the packed copy of the weights. */
  dispose(): void;
}

/** A float convolution's geometry; K is one number per spatial dimension. */
declare abstract class FloatConv<K extends number[]> extends FloatModule {
  /** Kernel extents in elements, PyTorch's tuple (Conv1d: [k]): a fresh array. */
  readonly kernelSize: K;
  /** Stride in elements per spatial dimension: a fresh array. */
  readonly stride: K;
  /** Dilation in elements per spatial dimension: a fresh array. */
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
}

/** What the quantized modules share (not exported: use nn.quantized.Conv3d etc.). */
declare abstract class QuantizedModule extends nn.Module {
  /** Input channels (Linear: inFeatures). */
  readonly inChannels: number;
  /** Output channels (Linear: outFeatures). */
  readonly outChannels: number;
  /** Channel groups (1 for Linear). */
  readonly groups: number;
  /**
   * Output scale (PyTorch's module.scale; > 0 and finite). Default 1.
   * Assigning checks it: TypeError for a non-number, RangeError out of range.
   */
  scale: number;
  /** Output zero point (PyTorch's module.zero_point), an integer in 0..255. Default 0. Assigning checks it. */
  zeroPoint: number;
  /** True after dispose(). */
  readonly disposed: boolean;
  /**
   * Whose arithmetic the layer reproduces, fixed when its weights are set
   * (constructor, setWeightBias, fromFloat) under the engine in force then
   * ({@link quantization.setEngine}): 'onednn' for a convolution under 'x86' with
   * symmetric weights and groups <= 100 (PyTorch's routing), else 'fbgemm'.
   */
  readonly backend: 'onednn' | 'fbgemm';
  /**
   * PyTorch's `set_weight_bias(w, b)`: qint8 weight of the module's weight
   * shape, per tensor or per channel on axis 0, and a float bias of
   * outChannels elements (or null). Both are copied (the weight into the
   * kernel's packed layout): the caller still owns and disposes `weight`.
   * @throws TypeError for a weight that is not a qint8 QTensor or a bias of
   *   the wrong type, RangeError for a weight shape or bias length that does
   *   not fit the module or when wasm memory runs out, Error after dispose().
   */
  setWeightBias(weight: QTensor<'qint8'>, bias: Float32Array | Tensor | null): void;
  /**
   * The quantized weight (PyTorch's `weight()`): a new QTensor with the
   * module's integers and qparams (rebuilt from the packed weights); the
   * caller disposes it.
   * @throws Error after dispose().
   */
  weight(): QTensor<'qint8'>;
  /**
   * A copy of the bias, or null (PyTorch's `bias()`).
   * @throws Error after dispose().
   */
  bias(): Float32Array | null;
  /**
   * The quantized layer on x, with PyTorch's integers for the module's backend.
   * @param x A quint8 per_tensor_affine QTensor (Conv3d: [N, C, D, H, W];
   *   Conv2d: [N, C, H, W]; Conv1d: [N, C, L]; Linear: [..., inFeatures]).
   * @returns A new quint8 QTensor with the module's scale and zero point
   *   (convolutions: channels-last strides, as PyTorch's); the caller owns it.
   * @throws TypeError when x is not a quint8 per_tensor_affine QTensor,
   *   RangeError for a shape the module cannot take (rank, channels, an
   *   empty output) or when wasm memory runs out, Error when x or the module
   *   is disposed.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  /** Bytes of the packed weights in wasm memory. @throws Error after dispose(). */
  packedWeightBytes(): number;
  /** Scratch bytes of the last forward() beyond input, output and packed weights. @throws Error after dispose(). */
  lastScratchBytes(): number;
  /** Frees the packed weights. Idempotent; forward() then throws an Error. */
  dispose(): void;
}

/** A quantized convolution's geometry; K is one number per spatial dimension. */
declare abstract class QuantizedConv<K extends number[]> extends QuantizedModule {
  /** Kernel extents in elements, PyTorch's tuple (Conv1d: [k]): a fresh array. */
  readonly kernelSize: K;
  /** Stride in elements per spatial dimension: a fresh array. */
  readonly stride: K;
  /** Dilation in elements per spatial dimension: a fresh array. */
  readonly dilation: K;
  /** As given to the constructor. */
  readonly padding: Padding;
  /** The Winograd option the module was built with. */
  readonly winograd: WinogradOption;
  /** Bytes of the Winograd-transformed weights among packedWeightBytes() (0 when none are held). */
  winogradWeightBytes(): number;
  /**
   * The arithmetic the last forward() ran: 'winograd' or 'direct' ('' before
   * the first). A layer holding Winograd weights still runs direct when the
   * input's zero point could overflow the transform's accumulators, or (auto)
   * when the output is too small to pay.
   */
  lastPath(): 'winograd' | 'direct' | '';
  /** The GEMM or conv micro-kernel the last forward() ran (a registry name), or ''. */
  lastKernel(): string;
}

/** The weight observer fromFloat may use: a qint8 observer (checked when called). */
export type WeightObserver = quantization.Observer;

/**
 * Options of fromFloat (PyTorch's `from_float`): the output qparams come from
 * an activation observer or are given, never both.
 */
export type FromFloatOptions = {
  /** Quantizes the weight; must be qint8. Default PerChannelMinMaxObserver(qint8, per_channel_symmetric, chAxis 0). */
  weightObserver?: WeightObserver;
  /** Convolutions only: the quantized module's Winograd option (default {@link quantization.getWinograd}()). */
  winograd?: WinogradOption;
} & (
  | {
      /** A per-tensor observer that saw the float module's outputs during calibration. */
      activationObserver:
        | quantization.MinMaxObserver
        | quantization.MovingAverageMinMaxObserver
        | quantization.HistogramObserver;
      /** Not with activationObserver. */
      outputScale?: undefined;
      /** Not with activationObserver. */
      outputZeroPoint?: undefined;
    }
  | {
      /** The output scale, directly (> 0). */
      outputScale: number;
      /** The output zero point, directly (0..255). */
      outputZeroPoint: number;
      /** Not with outputScale / outputZeroPoint. */
      activationObserver?: undefined;
    }
);

/** A fused float module: the module then ReLU (not exported: use nn.intrinsic.ConvReLU3d etc.). */
declare abstract class FusedModule<M extends FloatModule> extends nn.Module {
  /** The wrapped conv or linear module (PyTorch: self[0]). */
  readonly 0: M;
  /** The ReLU (PyTorch: self[1]). */
  readonly 1: nn.ReLU;
  /**
   * relu(module(x)), in one kernel pass.
   * @returns A new JS-owned tensor.
   * @throws As the wrapped module's forward().
   */
  forward(x: Tensor): Tensor;
  /** Disposes the wrapped module. */
  dispose(): void;
}

/** Options of nn.BatchNorm1d/2d/3d (PyTorch's names and defaults). */
export interface BatchNormOptions {
  /** Added to the variance. Default 1e-5; finite and >= 0. */
  eps?: number;
  /** Default 0.1 (kept for PyTorch compatibility; qwasm does not train). */
  momentum?: number;
  /** Default true: learnable weight and bias. */
  affine?: boolean;
  /** Only true (the default): normalization uses the running statistics. */
  trackRunningStats?: true;
}

/** What nn.BatchNorm1d/2d/3d share (not exported). */
declare abstract class BatchNormModule extends nn.Module {
  /** Channels (C). */
  readonly numFeatures: number;
  /** Added to the variance. */
  readonly eps: number;
  /** As given (unused: qwasm does not train). */
  readonly momentum: number;
  /** True when the module has weight and bias. */
  readonly affine: boolean;
  /** [numFeatures] (default ones), or null without affine. Assigning a tensor copies it. */
  get weight(): Parameter | null;
  /** Copies w's values ([numFeatures]). @throws TypeError without affine. */
  set weight(w: Tensor | Parameter);
  /** [numFeatures] (default zeros), or null without affine. Assigning a tensor copies it. */
  get bias(): Parameter | null;
  /** Copies b's values ([numFeatures]). @throws TypeError without affine. */
  set bias(b: Tensor | Parameter);
  /** [numFeatures], default zeros. Assigning a tensor copies it. */
  get runningMean(): Parameter;
  /** Copies v's values ([numFeatures]). */
  set runningMean(v: Tensor | Parameter);
  /** [numFeatures], default ones. Assigning a tensor copies it. */
  get runningVar(): Parameter;
  /** Copies v's values ([numFeatures]). */
  set runningVar(v: Tensor | Parameter);
  /**
   * Eval mode only: (x - runningMean) / sqrt(runningVar + eps) * weight + bias per channel.
   * @returns A new JS-owned tensor.
   * @throws Error in training mode (call eval()), RangeError for a rank or
   *   channel count the module cannot take.
   */
  forward(x: Tensor): Tensor;
}

/** Options of nn.MaxPool1d/2d/3d (PyTorch's keyword arguments). */
export interface MaxPoolOptions {
  /** Elements between windows. Default kernelSize. */
  stride?: number | number[] | null;
  /** Implicit -Infinity padding in elements. Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Elements between taps. Default 1. */
  dilation?: number | number[];
  /** Round the output size up rather than down. Default false. */
  ceilMode?: boolean;
  /** Only false (the default). */
  returnIndices?: false;
}

/** Options of nn.AvgPool1d/2d/3d. */
export interface AvgPoolOptions {
  /** Elements between windows. Default kernelSize. */
  stride?: number | number[] | null;
  /** Implicit zero padding in elements. Default 0; at most half the kernel. */
  padding?: number | number[];
  /** Round the output size up rather than down. Default false. */
  ceilMode?: boolean;
  /** Default true: padding counts in the divisor. */
  countIncludePad?: boolean;
  /** 2d and 3d: divide by this instead (non-zero). */
  divisorOverride?: number | null;
}

/**
 * What the pooling modules share. On a float tensor they compute in float;
 * on a quint8 QTensor they run PyTorch's quantized kernel, whose formula
 * depends on the input's layout (QTensor.stride()): PyTorch's integers, the
 * input's qparams kept.
 */
declare abstract class Pool extends nn.Module {
  /**
   * Pools a float tensor.
   * @returns A new JS-owned tensor.
   * @throws TypeError for another argument, RangeError for a shape the pool cannot take.
   */
  forward(x: Tensor): Tensor;
  /**
   * Pools a quint8 QTensor with PyTorch's quantized kernel.
   * @returns A new QTensor with x's qparams; the caller disposes it.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}
/** What the max and average pools share (not exported). */
declare abstract class MaxPool extends Pool {
  /** Window extents in elements, one per spatial dimension. */
  readonly kernelSize: number[];
  /** Elements between windows, one per spatial dimension. */
  readonly stride: number[];
  /** Padding in elements, one per spatial dimension. */
  readonly padding: number[];
  /** True when the output size is rounded up. */
  readonly ceilMode: boolean;
}
/** What the average pools share (not exported). */
declare abstract class AvgPool extends MaxPool {}
/** What the adaptive pools share (not exported). */
declare abstract class AdaptivePool extends nn.Module {
  /** The output's spatial size in elements; null entries keep the input's size. */
  readonly outputSize: (number | null)[];
}
/** What the adaptive average pools share (not exported). */
declare abstract class AdaptiveAvgPool extends AdaptivePool {
  /**
   * Pools a float tensor.
   * @returns A new JS-owned tensor.
   */
  forward(x: Tensor): Tensor;
  /**
   * Pools a quint8 QTensor with PyTorch's quantized kernel.
   * @returns A new QTensor with x's qparams; the caller disposes it.
   */
  forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
}

/**
 * PyTorch's module namespaces: `torch.nn` (float modules), `nn.intrinsic`
 * (fused float modules), `nn.quantized` and `nn.intrinsic.quantized`
 * (`torch.ao.nn.quantized`, `torch.ao.nn.intrinsic.quantized`). Modules that
 * hold wasm memory (packed weights) are freed by {@link nn.Module.dispose}.
 */
export declare namespace nn {
  /**
   * `torch.nn.Module`: subclass it, assign child modules as properties in the
   * constructor (in the order PyTorch would register them), write forward().
   * A module's children are its own enumerable properties holding modules.
   * @example
   * ```ts
   * class Block extends nn.Module {
   *   quant = new quantization.QuantStub();
   *   conv = new nn.Conv3d(3, 8, 3, { padding: 1 });
   *   relu = new nn.ReLU();
   *   dequant = new quantization.DeQuantStub();
   *   forward(x: Tensor): Tensor {
   *     return this.dequant.forward(this.relu.forward(this.conv.forward(this.quant.forward(x))));
   *   }
   * }
   * const block = new Block().eval();
   * block.forward(tensor(new Float32Array(3 * 4 * 4 * 4), [1, 3, 4, 4, 4])).shape; // → [ 1, 8, 4, 4, 4 ]
   * ```
   */
  class Module {
    /** True in training mode (the default), false after eval(). */
    readonly training: boolean;
    /** Set before {@link quantization.prepare}: this module's QConfig (inherited by its children); null leaves it float. */
    qconfig?: quantization.QConfig | null;
    /** Training mode on this module and every descendant (`module.train(mode)`); default true. Returns this. */
    train(mode?: boolean): this;
    /** `module.eval()`: train(false). Returns this. */
    eval(): this;
    /** [name, module] of each direct child, in assignment order (`named_children()`). */
    namedChildren(): [string, Module][];
    /** Each direct child, in assignment order (`children()`). */
    children(): Module[];
    /**
     * [path, module] for this module (prefix, default '') and every descendant,
     * depth first, each module once (`named_modules()`: 'layer1.0.conv').
     * @throws TypeError when prefix is not a string, Error for a module that holds one of its ancestors.
     */
    namedModules(prefix?: string): [string, Module][];
    /** This module and every descendant, depth first (`modules()`). */
    modules(): Module[];
    /**
     * The descendant at a dotted path (`get_submodule('layer1.0.conv1')`); '' is this module.
     * @throws TypeError when target is not a string, Error naming the missing part.
     */
    getSubmodule(target: string): Module;
    /**
     * fn on every descendant, then this module (`apply(fn)`). Returns this.
     * @throws TypeError when fn is not a function.
     */
    apply(fn: (m: Module) => void): this;
    /**
     * The computation (subclasses define it).
     * @throws Error on nn.Module itself: a subclass defines forward.
     */
    forward(x: unknown): unknown;
    /** Frees the wasm memory of every descendant (packed weights). Idempotent. */
    dispose(): void;
  }

  /** `torch.nn.Sequential`: the modules run in order; children '0', '1', ... or the given names. */
  class Sequential extends Module {
    #private;
    /** @throws TypeError for an argument that is not an nn.Module. */
    constructor(...modules: Module[]);
    /** @throws TypeError for a name with '.', or one that would hide a property of Sequential. */
    constructor(modules: Record<string, Module> | Map<string, Module>);
    /** Number of child modules. */
    readonly length: number;
    /** The child at that position. */
    readonly [index: number]: Module;
    /** Each child's forward() on the previous one's output. */
    forward(x: unknown): unknown;
  }

  /** `torch.nn.Identity`: returns its input. */
  class Identity extends Module {
    #private;
    /** Returns x unchanged. */
    forward<T>(x: T): T;
  }

  /** `torch.nn.Flatten(start_dim=1, end_dim=-1)`: a float tensor shares its data; a QTensor gives a view (dispose it). */
  class Flatten extends Module {
    #private;
    /** @param startDim Default 1. @param endDim Default -1 (negative counts from the end). */
    constructor(startDim?: number, endDim?: number);
    /** The first dimension flattened. */
    readonly startDim: number;
    /** The last dimension flattened. */
    readonly endDim: number;
    /**
     * x with dimensions startDim..endDim merged; shares x's data.
     * @throws RangeError for dims out of range for x's rank, or startDim after endDim.
     */
    forward(x: Tensor): Tensor;
    /** A view of q (QTensor.view): a new QTensor over the same integers; dispose it. */
    forward<D extends QDType>(x: QTensor<D>): QTensor<D>;
  }

  /** `torch.nn.Dropout(p=0.5)`: the identity in eval mode; in training mode (float tensors) zeroes with probability p and scales by 1 / (1 - p). */
  class Dropout extends Module {
    #private;
    /**
     * @param p Probability of an element being zeroed, 0..1. Default 0.5.
     * @throws RangeError for p outside 0..1.
     */
    constructor(p?: number, options?: { inplace?: boolean });
    /** Probability of an element being zeroed. */
    readonly p: number;
    /** @throws Error on a QTensor in training mode (call eval()). */
    forward<T extends Tensor | QTensor>(x: T): T;
  }

  /** `torch.nn.BatchNorm1d` ([N, C] or [N, C, L]), eval mode. */
  class BatchNorm1d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** `torch.nn.BatchNorm2d` ([N, C, H, W]), eval mode. */
  class BatchNorm2d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }
  /** `torch.nn.BatchNorm3d` ([N, C, D, H, W]), eval mode. */
  class BatchNorm3d extends BatchNormModule {
    #private;
    /** @param numFeatures C, 1..2^24. @throws TypeError or RangeError for bad numFeatures or options. */
    constructor(numFeatures: number, options?: BatchNormOptions);
  }

  /** `torch.nn.Conv1d` (float32, WASM SIMD): input [N, C, L]. */
  class Conv1d extends FloatConv<[number]> {
    #private;
    /**
     * Weight and bias start as PyTorch's reset_parameters draws them,
     * uniform in ±1/sqrt(fan_in) (from Math.random: assign `weight` and
     * `bias`, or load a model, for values of your own).
     * @throws TypeError for arguments of the wrong type, RangeError for
     *   geometry out of range (groups not dividing the channels, 'same' with a stride).
     */
    constructor(inChannels: number, outChannels: number, kernelSize: number | [number], options?: ConvOptions);
  }
  /** `torch.nn.Conv2d` (float32, WASM SIMD): input [N, C, H, W]. */
  class Conv2d extends FloatConv<[number, number]> {
    #private;
    /** @throws As {@link nn.Conv1d}'s constructor. */
    constructor(inChannels: number, outChannels: number, kernelSize: number | [number, number], options?: ConvOptions);
  }
  /** `torch.nn.Conv3d` (float32, WASM SIMD): input [N, C, D, H, W]. */
  class Conv3d extends FloatConv<[number, number, number]> {
    #private;
    /** @throws As {@link nn.Conv1d}'s constructor. */
    constructor(
      inChannels: number,
      outChannels: number,
      kernelSize: number | [number, number, number],
      options?: ConvOptions,
    );
  }
  /** `torch.nn.Linear` (float32, WASM SIMD): y = x W^T + b over the last dimension. */
  class Linear extends FloatModule {
    #private;
    /** @throws TypeError or RangeError for feature counts that are not positive integers. */
    constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
    /** Input features (the last dimension of x). */
    readonly inFeatures: number;
    /** Output features. */
    readonly outFeatures: number;
  }
  /** `torch.nn.ReLU`: max(x, 0). */
  class ReLU extends Module {
    #private;
    /** max(x, 0) on a float tensor, keeping -0 as PyTorch does; a new JS-owned tensor. */
    forward(x: Tensor): Tensor;
    /** max(q, zeroPoint): PyTorch's quantized relu; the qparams stay. A new QTensor. */
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /**
   * `torch.nn.ReLU6`: clamp to [0, 6]. On a quint8 QTensor the bounds are
   * quantized with its qparams, which stay (prepare() attaches no observer:
   * PyTorch attaches one, but its quantized ReLU6 ignores it).
   */
  class ReLU6 extends Hardtanh {
    constructor(options?: { inplace?: boolean });
  }
  /** `torch.nn.Hardtanh(min_val=-1, max_val=1)`: clamp; on a quint8 QTensor with its own qparams. */
  class Hardtanh extends Module {
    #private;
    /** @throws RangeError unless minVal < maxVal. */
    constructor(minVal?: number, maxVal?: number, options?: { inplace?: boolean });
    /** The lower bound (default -1). */
    readonly minVal: number;
    /** The upper bound (default 1). */
    readonly maxVal: number;
    /** clamp(x, minVal, maxVal); a new JS-owned tensor. */
    forward(x: Tensor): Tensor;
    /** The bounds quantized with x's qparams, which stay; a new QTensor. */
    forward(x: QTensor<'quint8'>): QTensor<'quint8'>;
  }

  /** `torch.nn.MaxPool1d` ([N, C, L] or [C, L]). */
  class MaxPool1d extends MaxPool {
    /** @param kernelSize Window extent in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number], options?: MaxPoolOptions);
  }
  /** `torch.nn.MaxPool2d` ([N, C, H, W] or [C, H, W]). */
  class MaxPool2d extends MaxPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number], options?: MaxPoolOptions);
  }
  /** `torch.nn.MaxPool3d` ([N, C, D, H, W]; float also [C, D, H, W]). */
  class MaxPool3d extends MaxPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number, number], options?: MaxPoolOptions);
  }
  /** `torch.nn.AvgPool1d` ([N, C, L] or [C, L]). */
  class AvgPool1d extends AvgPool {
    /** @param kernelSize Window extent in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number], options?: Omit<AvgPoolOptions, 'divisorOverride'>);
  }
  /** `torch.nn.AvgPool2d` ([N, C, H, W] or [C, H, W]). */
  class AvgPool2d extends AvgPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number], options?: AvgPoolOptions);
  }
  /** `torch.nn.AvgPool3d` ([N, C, D, H, W]; float also [C, D, H, W]). */
  class AvgPool3d extends AvgPool {
    /** @param kernelSize Window extents in elements. @throws TypeError or RangeError for bad sizes or options. */
    constructor(kernelSize: number | [number, number, number], options?: AvgPoolOptions);
  }
  /** `torch.nn.AdaptiveAvgPool1d(output_size)`. */
  class AdaptiveAvgPool1d extends AdaptiveAvgPool {
    /** @param outputSize The output length in elements, or null to keep the input's. */
    constructor(outputSize: number | [number | null]);
  }
  /** `torch.nn.AdaptiveAvgPool2d(output_size)`; null keeps that input size. */
  class AdaptiveAvgPool2d extends AdaptiveAvgPool {
    /** @param outputSize The output's [H, W] in elements (one number for both). */
    constructor(outputSize: number | [number | null, number | null]);
  }
  /** `torch.nn.AdaptiveAvgPool3d(output_size)`; null keeps that input size. */
  class AdaptiveAvgPool3d extends AdaptiveAvgPool {
    /** @param outputSize The output's [D, H, W] in elements (one number for all). */
    constructor(outputSize: number | [number | null, number | null, number | null]);
  }
  /** `torch.nn.AdaptiveMaxPool1d`: float tensors only (PyTorch has no quantized kernel; a QTensor is a TypeError). */
  class AdaptiveMaxPool1d extends AdaptivePool {
    /** @param outputSize The output length in elements, or null to keep the input's. */
    constructor(outputSize: number | [number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }
  /** `torch.nn.AdaptiveMaxPool2d`: float tensors only. */
  class AdaptiveMaxPool2d extends AdaptivePool {
    /** @param outputSize The output's [H, W] in elements (one number for both). */
    constructor(outputSize: number | [number | null, number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }
  /** `torch.nn.AdaptiveMaxPool3d`: float tensors only. */
  class AdaptiveMaxPool3d extends AdaptivePool {
    /** @param outputSize The output's [D, H, W] in elements (one number for all). */
    constructor(outputSize: number | [number | null, number | null, number | null]);
    /** @returns A new JS-owned tensor. @throws TypeError for a QTensor. */
    forward(x: Tensor): Tensor;
  }

  /**
   * `torch.ao.nn.intrinsic`: fused float modules (the module then ReLU, in
   * one kernel pass). {@link quantization.fuseModules} makes them;
   * {@link quantization.convert} turns them into nn.intrinsic.quantized's.
   */
  namespace intrinsic {
    /** `torch.ao.nn.intrinsic.ConvReLU1d`: conv then ReLU. */
    class ConvReLU1d extends FusedModule<nn.Conv1d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv1d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv1d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.ConvReLU2d`: conv then ReLU. */
    class ConvReLU2d extends FusedModule<nn.Conv2d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv2d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv2d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.ConvReLU3d`: conv then ReLU. */
    class ConvReLU3d extends FusedModule<nn.Conv3d> {
      #private;
      /** @throws TypeError when conv is not an nn.Conv3d or relu not an nn.ReLU. */
      constructor(conv: nn.Conv3d, relu?: nn.ReLU);
    }
    /** `torch.ao.nn.intrinsic.LinearReLU`: linear then ReLU. */
    class LinearReLU extends FusedModule<nn.Linear> {
      #private;
      /** @throws TypeError when linear is not an nn.Linear or relu not an nn.ReLU. */
      constructor(linear: nn.Linear, relu?: nn.ReLU);
    }

    /** `torch.ao.nn.intrinsic.quantized`: quint8 in, qint8 weights packed once, ReLU fused, quint8 out. */
    namespace quantized {
      /** `torch.ao.nn.intrinsic.quantized.ConvReLU1d`: input [N, C, L]. */
      class ConvReLU1d extends QuantizedConv<[number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU1d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU1d, options: FromFloatOptions): ConvReLU1d;
      }
      /** `torch.ao.nn.intrinsic.quantized.ConvReLU2d`: input [N, C, H, W]. */
      class ConvReLU2d extends QuantizedConv<[number, number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number, number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU2d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU2d, options: FromFloatOptions): ConvReLU2d;
      }
      /**
       * `torch.ao.nn.intrinsic.quantized.ConvReLU3d`: the quantized 3-D
       * convolution with ReLU fused, input [N, C, D, H, W].
       * @example
       * ```ts
       * await init();
       * const conv = new nn.intrinsic.quantized.ConvReLU3d(3, 8, 3, { padding: 1 });
       * const weights = Float32Array.from({ length: 8 * 3 * 27 }, (_, i) => ((i % 7) - 3) / 30); // in [-0.1, 0.1]
       * const scales = new Array(8).fill(0.1 / 127); // per output channel: its largest |weight| / 127
       * const w = quantizePerChannel(tensor(weights, [8, 3, 3, 3, 3]), scales, new Int32Array(8), 0, 'qint8');
       * conv.setWeightBias(w, new Float32Array(8)); // copied: w is still yours
       * w.dispose();
       * conv.scale = 0.05; // the output's qparams
       * conv.zeroPoint = 0;
       * const clip = Float32Array.from({ length: 3 * 8 * 16 * 16 }, (_, i) => Math.sin(i)); // [N, C, T, H, W]
       * const x = quantizePerTensor(tensor(clip, [1, 3, 8, 16, 16]), 0.02, 128, 'quint8');
       * const y = conv.forward(x);
       * y.shape;    // → [ 1, 8, 8, 16, 16 ]
       * // Channels-last strides, as PyTorch's quantized conv returns:
       * y.stride(); // → [ 16384, 1, 2048, 128, 8 ]
       * x.dispose();
       * y.dispose();
       * conv.dispose();
       * ```
       */
      class ConvReLU3d extends QuantizedConv<[number, number, number]> {
        #private;
        /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
        constructor(
          inChannels: number,
          outChannels: number,
          kernelSize: number | [number, number, number],
          options?: QuantizedConvOptions,
        );
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.ConvReLU3d.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.ConvReLU3d, options: FromFloatOptions): ConvReLU3d;
      }
      /** `torch.ao.nn.intrinsic.quantized.LinearReLU`: input [..., inFeatures]. */
      class LinearReLU extends QuantizedModule {
        #private;
        /** @throws As {@link nn.quantized.Linear}'s constructor. */
        constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
        /** Input features (the last dimension of x). */
        readonly inFeatures: number;
        /** Output features. */
        readonly outFeatures: number;
        /**
         * PyTorch's `from_float`: quantizes a calibrated nn.intrinsic.LinearReLU.
         * @throws As {@link nn.quantized.Conv3d.fromFloat}.
         */
        static fromFloat(mod: nn.intrinsic.LinearReLU, options: FromFloatOptions): LinearReLU;
      }
    }
  }

  /** `torch.ao.nn.quantized`: quint8 in, qint8 weights packed once, quint8 out. */
  namespace quantized {
    /**
     * PyTorch's quantized element-wise ops on quint8 per-tensor QTensors
     * (`torch.ops.quantized.add` etc.), with PyTorch's integers: the output of
     * add / mul / cat is requantized to (scale, zeroPoint); the others keep
     * or derive their qparams as PyTorch does. add and mul broadcast. Each
     * returns a new QTensor the caller disposes, and throws a TypeError for
     * an input that is not a quint8 per_tensor_affine QTensor, a RangeError
     * for qparams out of range or shapes that do not broadcast, an Error for
     * a disposed input.
     */
    namespace functional {
      /** `torch.ops.quantized.add(a, b, scale, zero_point)`: a + b requantized to (scale, zeroPoint). */
      function add(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_relu`: relu(a + b) requantized to (scale, zeroPoint). */
      function addRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul`: a * b requantized to (scale, zeroPoint). */
      function mul(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_relu`: relu(a * b) requantized to (scale, zeroPoint). */
      function mulRelu(a: QTensor<'quint8'>, b: QTensor<'quint8'>, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_scalar`: the same integers with the zero point shifted by round(c / scale) (requantized only if it leaves 0..255). */
      function addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_scalar`: the same integers with the scale times |c| (c < 0 mirrors them; c = 0 gives zeros, scale 1). */
      function mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.cat`: concatenation along dim (negative counts from the end), every input requantized to (scale, zeroPoint); 1..4096 tensors. */
      function cat(tensors: QTensor<'quint8'>[], dim: number, scale: number, zeroPoint: number): QTensor<'quint8'>;
      /** `torch.relu` on a quantized tensor: max(q, zeroPoint), the qparams kept. */
      function relu(x: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.relu6` (`torch.ops.quantized.relu6`): clamp to [0, 6] quantized with x's qparams, which stay. */
      function relu6(x: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.hardtanh(x, min_val=-1, max_val=1)`: the bounds quantized with x's qparams, which stay. */
      function hardtanh(x: QTensor<'quint8'>, minVal?: number, maxVal?: number): QTensor<'quint8'>;
      /** `torch.ao.nn.quantized.functional.clamp(x, min, max)`: either bound may be undefined; x's qparams stay. */
      function clamp(x: QTensor<'quint8'>, min?: number, max?: number): QTensor<'quint8'>;
    }

    /**
     * `torch.ao.nn.quantized.FloatFunctional`: the float arithmetic a model's
     * forward() writes (skip connections, concatenations), as a module so
     * that prepare() can observe its results and convert() make it a
     * QFunctional. Float tensors broadcast. Each method returns a new
     * JS-owned tensor; shapes that do not broadcast are a RangeError.
     */
    class FloatFunctional extends Module {
      /** The observer prepare() installed (PyTorch's activation_post_process), or null. */
      activationPostProcess: quantization.Observer | null;
      /** x + y (observed). */
      add(x: Tensor, y: Tensor): Tensor;
      /** relu(x + y) (observed). */
      addRelu(x: Tensor, y: Tensor): Tensor;
      /** x * y (observed). */
      mul(x: Tensor, y: Tensor): Tensor;
      /** Concatenation along dim (default 0; negative counts from the end), observed. */
      cat(tensors: Tensor[], dim?: number): Tensor;
      /** x + c. Not observed (as in PyTorch). */
      addScalar(x: Tensor, c: number): Tensor;
      /** x * c. Not observed (as in PyTorch). */
      mulScalar(x: Tensor, c: number): Tensor;
      /** @throws Error: use the methods. */
      forward(): never;
    }

    /**
     * `torch.ao.nn.quantized.QFunctional`: FloatFunctional after convert(),
     * with its observer's qparams. The methods are
     * {@link nn.quantized.functional}'s with this module's scale and zero point.
     */
    class QFunctional extends Module {
      #private;
      /** Output scale (> 0). */
      scale: number;
      /** Output zero point (0..255). */
      zeroPoint: number;
      /** `torch.ops.quantized.add` with this module's qparams. */
      add(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_relu` with this module's qparams. */
      addRelu(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul` with this module's qparams. */
      mul(x: QTensor<'quint8'>, y: QTensor<'quint8'>): QTensor<'quint8'>;
      /** `torch.ops.quantized.cat` along dim (default 0) with this module's qparams. */
      cat(tensors: QTensor<'quint8'>[], dim?: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.add_scalar` (keeps or derives its qparams). */
      addScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** `torch.ops.quantized.mul_scalar` (keeps or derives its qparams). */
      mulScalar(x: QTensor<'quint8'>, c: number): QTensor<'quint8'>;
      /** @throws Error: use the methods. */
      forward(): never;
      /**
       * PyTorch's `QFunctional.from_float`: the qparams of mod's observer
       * (scale 1, zero point 0 when it has none).
       * @throws TypeError when mod is not a FloatFunctional.
       */
      static fromFloat(mod: FloatFunctional): QFunctional;
    }

    /** `torch.ao.nn.quantized.Quantize`: forward(x) = quantizePerTensor(x, scale, zeroPoint, dtype). convert() makes it from a QuantStub. */
    class Quantize extends Module {
      #private;
      /**
       * @param dtype Default 'quint8'.
       * @throws As {@link quantizePerTensor} for the qparams and dtype.
       */
      constructor(scale: number, zeroPoint: number, dtype?: QDType);
      /** The output scale. */
      readonly scale: number;
      /** The output zero point. */
      readonly zeroPoint: number;
      /** The output dtype. */
      readonly dtype: QDType;
      /** {@link quantizePerTensor}(x, scale, zeroPoint, dtype): a new QTensor the caller disposes. */
      forward(x: Tensor): QTensor;
    }
    /** `torch.ao.nn.quantized.DeQuantize`: forward(q) = q.dequantize(). convert() makes it from a DeQuantStub. */
    class DeQuantize extends Module {
      #private;
      /** q.dequantize(): a new JS-owned tensor (q is not disposed). */
      forward(q: QTensor): Tensor;
    }
    /** `torch.ao.nn.quantized.Conv1d`: input [N, C, L]. */
    class Conv1d extends QuantizedConv<[number]> {
      #private;
      /**
       * The weight starts as PyTorch's: all-zero qint8 (scale 1, zero point
       * 0), zero bias; set it with setWeightBias or make the module with fromFloat.
       * @throws TypeError for arguments of the wrong type, RangeError for
       *   geometry out of range (groups not dividing the channels, 'same'
       *   with a stride), Error before {@link init}.
       */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv1d.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Conv1d, options: FromFloatOptions): Conv1d;
    }
    /** `torch.ao.nn.quantized.Conv2d`: input [N, C, H, W]. */
    class Conv2d extends QuantizedConv<[number, number]> {
      #private;
      /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number, number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv2d.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Conv2d, options: FromFloatOptions): Conv2d;
    }
    /** `torch.ao.nn.quantized.Conv3d`: input [N, C, D, H, W]. */
    class Conv3d extends QuantizedConv<[number, number, number]> {
      #private;
      /** @throws As {@link nn.quantized.Conv1d}'s constructor. */
      constructor(
        inChannels: number,
        outChannels: number,
        kernelSize: number | [number, number, number],
        options?: QuantizedConvOptions,
      );
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Conv3d's weight with
       * options.weightObserver and takes the output qparams from
       * options.activationObserver or outputScale / outputZeroPoint.
       * @throws TypeError when mod is not an nn.Conv3d, for an observer that
       *   is not qint8 (weight) or per tensor (activation), or for both kinds
       *   of output qparams; Error when neither is given; RangeError for
       *   output qparams out of range.
       * @example
       * ```ts
       * const float = new nn.Conv3d(2, 4, 3, { padding: 1, bias: false });
       * float.weight = tensor(Float32Array.from({ length: 4 * 2 * 27 }, (_, i) => Math.sin(i) / 10), [4, 2, 3, 3, 3]);
       * const act = new quantization.HistogramObserver({ reduceRange: true });
       * act.observe(float.forward(tensor(Float32Array.from({ length: 2 * 4 * 4 * 4 }, (_, i) => Math.cos(i)), [1, 2, 4, 4, 4])));
       * const q = nn.quantized.Conv3d.fromFloat(float, { activationObserver: act });
       * q.scale; // → 0.023098010569810867
       * ```
       */
      static fromFloat(mod: nn.Conv3d, options: FromFloatOptions): Conv3d;
    }
    /** `torch.ao.nn.quantized.Linear`: input [..., inFeatures]. */
    class Linear extends QuantizedModule {
      #private;
      /**
       * The weight starts all-zero (scale 1, zero point 0), as PyTorch's.
       * @throws TypeError or RangeError for feature counts that are not positive integers, Error before {@link init}.
       */
      constructor(inFeatures: number, outFeatures: number, options?: LinearOptions);
      /** Input features (the last dimension of x). */
      readonly inFeatures: number;
      /** Output features. */
      readonly outFeatures: number;
      /**
       * PyTorch's `from_float`: quantizes a calibrated nn.Linear.
       * @throws As {@link nn.quantized.Conv3d.fromFloat}.
       */
      static fromFloat(mod: nn.Linear, options: FromFloatOptions): Linear;
    }
  }
}

/** A .npy tensor as read by {@link io.loadNpy}. */
export interface NpyTensor extends Tensor {
  /** The file's dtype; data is always converted to float32. */
  dtype: 'float32' | 'float64' | 'float16';
}

/** What {@link io.loadSafetensors} returns. */
export interface SafetensorsFile {
  /** Every tensor in the file, in header order: its name, safetensors dtype ('F32', 'I8', ...) and shape in elements. */
  tensors: {
    /** The tensor's name in the file. */
    name: string;
    /** Its safetensors dtype ('F32', 'BF16', 'I8', ...). */
    dtype: string;
    /** Its dimensions, in elements. */
    shape: number[];
  }[];
  /** The header's __metadata__ (or {}). */
  metadata: Record<string, string>;
  /**
   * Reads one float tensor (F32, F64, F16, BF16) as float32: a new JS-owned tensor.
   * @throws RangeError for an unknown name, Error for other dtypes or when
   *   the file's buffer was detached or resized since it was loaded.
   */
  get(name: string): Tensor;
}

/**
 * torchvision's preprocessing presets (`torchvision.transforms._presets`),
 * giving a model's input the numbers torchvision gives.
 */
export declare namespace transforms {
  /** {@link transforms.VideoClassification}'s options; torchvision's names, camelCased. */
  interface VideoClassificationOptions {
    /** The crop, [height, width] or one side for both (pixels); the model's input height and width. */
    readonly cropSize: number | readonly number[];
    /** The resize before the crop: [height, width], or [shorter side] keeping the aspect ratio (pixels). */
    readonly resizeSize: number | readonly number[];
    /** Mean per RGB channel (3 values, or 1 for all), on the [0, 1] scale. Default Kinetics-400's {@link transforms.KINETICS_MEAN}. */
    readonly mean?: readonly number[];
    /** Standard deviation per RGB channel (3 values, or 1 for all; nonzero). Default Kinetics-400's {@link transforms.KINETICS_STD}. */
    readonly std?: readonly number[];
    /** Only 'bilinear' (torchvision's video presets; antialias off, as they have it). */
    readonly interpolation?: 'bilinear';
  }
  /** A video frame: RGB or RGBA bytes, row by row (an ImageData from a canvas fits; alpha is ignored). */
  interface Frame {
    /** width * height * 3 (RGB) or * 4 (RGBA) bytes. */
    readonly data: Uint8Array | Uint8ClampedArray;
    /** Pixels. */
    readonly width: number;
    /** Pixels. */
    readonly height: number;
  }
  /** torchvision's Kinetics-400 mean: [0.43216, 0.394666, 0.37645]. */
  const KINETICS_MEAN: readonly number[];
  /** torchvision's Kinetics-400 standard deviation: [0.22803, 0.22145, 0.216989]. */
  const KINETICS_STD: readonly number[];
  /**
   * `torchvision.transforms._presets.VideoClassification` (what
   * `R3D_18_Weights.KINETICS400_V1.transforms()` returns): each frame resized
   * (bilinear, no antialias, in float32 as PyTorch's generic CPU kernel, then
   * rounded to uint8), center-cropped (zero padding when the crop is larger),
   * scaled to [0, 1] and normalised; the frames stacked as [1, C, T, H, W].
   * Pure JavaScript: works before init().
   * @throws TypeError for options of the wrong type, a missing cropSize or
   *   resizeSize, or another interpolation; RangeError for sizes outside
   *   1..16384, non-finite means, a std of 0, or a mean or std of other than 1 or 3 values.
   * @example
   * ```ts
   * const t = new transforms.VideoClassification({ cropSize: [112, 112], resizeSize: [128, 171] });
   * // RGB (or RGBA) bytes of any one size: here two black 320x240 frames
   * const black = { data: new Uint8Array(320 * 240 * 3), width: 320, height: 240 };
   * const x = t.forward([black, black]);
   * x.shape; // → [ 1, 3, 2, 112, 112 ]
   * // black: (0 - 0.43216) / 0.22803 in float32
   * x.data[0]; // → -1.8951891660690308
   * ```
   */
  class VideoClassification {
    constructor(options: VideoClassificationOptions);
    /** [height, width] of the crop. */
    readonly cropSize: readonly number[];
    /** As given: [height, width] or [shorter side]. */
    readonly resizeSize: readonly number[];
    /** Per-channel mean, as given. */
    readonly mean: readonly number[];
    /** Per-channel standard deviation, as given. */
    readonly std: readonly number[];
    /** Always 'bilinear'. */
    readonly interpolation: 'bilinear';
    /**
     * The model's input from `frames` (T frames of one size).
     * @returns A float tensor [1, 3, T, cropH, cropW] (JS-owned).
     * @throws TypeError for frames that are not {data, width, height} with
     *   Uint8Array or Uint8ClampedArray data (or a revoked Proxy);
     *   RangeError for no frames or more than 4096, sides outside 1..16384 or
     *   frames above 2^26 pixels, data of neither 3 nor 4 bytes per pixel,
     *   or frames of two sizes.
     */
    forward(frames: readonly Frame[]): Tensor;
    /** The options as the exporter writes them (torchvision's snake_case names). */
    toJSON(): {
      /** The preset's name. */
      transform: 'VideoClassification';
      /** cropSize. */
      crop_size: number[];
      /** resizeSize. */
      resize_size: number[];
      /** mean. */
      mean: number[];
      /** std. */
      std: number[];
      /** interpolation. */
      interpolation: 'bilinear';
    };
  }
}

/**
 * Readers for tensors and models exported from numpy / PyTorch. loadNpy and
 * loadSafetensors are pure JavaScript (usable before init()); the returned
 * data is JS-owned. Malformed files throw an Error that says what is wrong.
 */
export declare namespace io {
  /**
   * Reads a .npy file (`numpy.save`; versions 1-3), float32 / float64 /
   * float16, C order, either byte order, as float32.
   * @param bytes The whole file.
   * @throws TypeError when bytes is not an ArrayBuffer or typed array, Error
   *   for a malformed or truncated file, another dtype or Fortran order,
   *   RangeError for a shape of more than 2^31 - 1 elements.
   * @example
   * ```ts
   * const w = io.loadNpy(await readFile('weight.npy')); // { data: Float32Array, shape, dtype }
   * w.dtype; // → 'float32'
   * w.shape; // → [ 8, 3, 3, 3, 3 ]
   * ```
   */
  function loadNpy(bytes: ArrayBuffer | Uint8Array): NpyTensor;
  /**
   * Reads a .safetensors file (`safetensors.torch.save_file`): the list of
   * tensors now, each float tensor's data on {@link SafetensorsFile.get}.
   * @param bytes The whole file; get() reads it later, so do not detach or resize it.
   * @throws TypeError when bytes is not an ArrayBuffer or typed array, Error
   *   for a malformed or truncated file.
   */
  function loadSafetensors(bytes: ArrayBuffer | Uint8Array): SafetensorsFile;
  /**
   * A model written by python/qwasm_export.py (a PyTorch model converted by
   * the eager flow, or a float one, traced by torch.fx), built into qwasm
   * modules on this thread: the counterpart of loading a
   * `torch.fx.GraphModule`. The file is checked as untrusted input. The
   * caller disposes the model.
   * @param bytes The whole file.
   * @param options The budget of one forward and the Winograd option; see {@link io.LoadModelOptions}.
   * @throws TypeError for an option of the wrong type, an option only the
   *   worker takes (numThreads, locateFile, onProgress), or a source that is
   *   not bytes (use loadModelAsync or worker: true); RangeError for a
   *   budget that is not > 0; Error before {@link init}, and an Error naming
   *   what is wrong with the file (format version, a tensor's dtype or
   *   shape, a module's attributes, the graph), or the node that would go
   *   over the budget on the input shape the file declares.
   * @example
   * ```ts
   * await init();
   * const model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
   * const clip = new Float32Array(3 * 16 * 112 * 112); // [N, C, T, H, W]: 16 frames of 112 x 112
   * const y = model.forward(tensor(clip, [1, 3, 16, 112, 112])); // a float tensor: the model ends with DeQuantStub
   * y.shape; // → [ 1, 400 ]
   * model.dispose();
   * ```
   */
  function loadModel(
    bytes: ArrayBuffer | Uint8Array,
    options?: LoadModelOptions & { worker?: false; onProgress?: never; signal?: never },
  ): GraphModule;
  /**
   * The model loaded and run in a dedicated worker the library starts (a
   * module worker in browsers, worker_threads in Node.js), so the calling
   * thread never blocks on it. A URL is downloaded by the worker (a path is
   * read from disk in Node.js); a Response, stream or Blob is read here
   * without blocking and handed over; bytes are copied once. Threads run in
   * the worker where the page allows (cross-origin isolated; not in Firefox
   * workers). Does not need init() on the calling thread: the worker runs its own.
   * @param source Where the model's bytes come from; see {@link io.ModelSource}.
   * @param options As the synchronous form's, plus the worker's; see {@link io.WorkerLoadOptions}.
   * @returns A promise of the {@link io.WorkerModel}; dispose() it to end the worker.
   * @throws Nothing synchronously: every error, a bad option included, is a
   *   rejection (TypeError, RangeError or Error as for the synchronous form;
   *   Error when no worker can be started or the download fails).
   * @example
   * ```ts
   * const model = await io.loadModel('r3d_18.qwasm.safetensors', {
   *   worker: true,
   *   onProgress: (loaded, total) => console.log(`${loaded} / ${total ?? '?'} bytes`),
   * });
   * const clip = new Float32Array(3 * 16 * 112 * 112);
   * const out = await model.forward(tensor(clip, [1, 3, 16, 112, 112]));
   * out.shape; // → [ 1, 400 ]
   * // clip's buffer went to the worker (transferred, not copied):
   * clip.byteLength; // → 0
   * model.dispose();
   * ```
   */
  function loadModel(
    source: ModelSource,
    options: LoadModelOptions & WorkerLoadOptions & { worker: true },
  ): Promise<WorkerModel>;
  /**
   * The model loaded on this thread without blocking on its download (for
   * code that runs in its own worker): building it then takes one task, as
   * loadModel does. Needs init().
   * @param source Where the model's bytes come from; see {@link io.ModelSource}.
   * @returns A promise of the {@link io.GraphModule}; the caller disposes it.
   * @throws Rejects as {@link io.loadModel} does (TypeError for worker: true,
   *   which only loadModel takes), and with an Error when the download fails.
   */
  function loadModelAsync(
    source: ModelSource,
    options?: LoadModelOptions & Pick<WorkerLoadOptions, 'onProgress' | 'signal'>,
  ): Promise<GraphModule>;

  /** Where a model's bytes come from: a URL (or a path in Node.js), a Response, a byte stream, a Blob or File, or the bytes. */
  type ModelSource = string | URL | Response | ReadableStream<Uint8Array> | Blob | ArrayBuffer | Uint8Array;

  /** The options only a loading from a source takes (io.loadModel with worker: true; onProgress and signal also io.loadModelAsync). */
  interface WorkerLoadOptions {
    /**
     * Follows the download, in bytes: totalBytes is null when the source does
     * not say (no Content-Length, a bare stream).
     */
    onProgress?: (loadedBytes: number, totalBytes: number | null) => void;
    /**
     * Cancels the load: when it aborts, the load rejects with its reason (an
     * AbortError DOMException unless abort(reason) gave another) and
     * everything the load took is freed (a worker it started is ended). A
     * stalled download only ends this way: `AbortSignal.timeout(ms)` gives up
     * after ms milliseconds (a TimeoutError DOMException).
     */
    signal?: AbortSignal;
    /** The worker's init({ numThreads }), 1..64. Default: init()'s default there. */
    numThreads?: number;
    /**
     * Where the model worker's script is (qwasm.model-worker.mjs; .cjs in
     * Node.js), for bundlers that do not emit it (esbuild, Rollup: copy
     * node_modules/qwasm/dist/ and point here); the worker finds its wasm
     * beside itself.
     */
    locateFile?: (file: string) => string | URL;
  }

  /**
   * A forward's answer from a worker: a float tensor, or a quantized
   * output's integers and qparams (the QTensor stays in the worker, which
   * frees it).
   */
  type WorkerOutput =
    | Tensor
    | {
        /** The QTensor's dtype. */
        dtype: 'quint8' | 'qint8';
        /** Its integers ({@link QTensor.intRepr}). */
        data: Uint8Array | Int8Array;
        /** Its dimensions, in elements. */
        shape: number[];
        /** Its scale. */
        scale: number;
        /** Its zero point. */
        zeroPoint: number;
      };

  /** A module of a model in a worker, as read at load. */
  interface WorkerModule {
    /** Its PyTorch path ('layer1.0.conv1.0'). */
    readonly path: string;
    /** Its class name (ConvReLU3d, Quantize, Identity, ...). */
    readonly type: string;
    /** A quantized convolution's backend (see nn.quantized.Conv3d's backend). */
    readonly backend?: 'fbgemm' | 'onednn';
    /** A quantized module's output scale. */
    readonly scale?: number;
    /** A quantized module's output zero point. */
    readonly zeroPoint?: number;
    /** A quantized layer's weight: its qparams (scales and zero points per channel along axis, or one of each). */
    readonly weight?: {
      /** PyTorch's weight shape, in elements. */
      shape: number[];
      /** Always qint8. */
      dtype: 'qint8';
      /** The weight's TensorQScheme. */
      qscheme: string;
      /** The channel axis, or null per tensor. */
      axis: number | null;
      /** One per channel (one per tensor). */
      scales: number[];
      /** One per channel (one per tensor). */
      zeroPoints: number[];
    };
  }

  /**
   * A model loaded in a worker by {@link io.loadModel}(source, { worker: true }).
   * forward and profile return Promises; dispose() ends the worker (pending
   * requests reject).
   */
  class WorkerModel {
    #private;
    private constructor();
    /** The graph's nodes, as {@link io.GraphModule.nodes}. */
    readonly nodes: GraphNode[];
    /** The example input's shape the model was exported with (elements), or null. */
    readonly inputShape: number[] | null;
    /** The quantized engine the model was converted under. */
    readonly engine: QuantizedEngine;
    /** Every module of the model, with its qparams. */
    readonly modules: WorkerModule[];
    /** {@link io.GraphModule.preprocessing}: read once at load. */
    readonly preprocessing: transforms.VideoClassificationOptions | null;
    /** {@link io.GraphModule.classes}: read once at load. */
    readonly classes: readonly string[] | null;
    /**
     * {@link io.GraphModule.transforms}, run on the calling thread (frames stay here; the input goes to the worker).
     * @throws Error when the file records no preprocessing.
     */
    transforms(): transforms.VideoClassification;
    /** runtimeInfo() inside the worker. */
    readonly runtime: RuntimeInfo;
    /** {@link io.GraphModule.weightBytes} in the worker: packed weight bytes and their Winograd share. */
    weightBytes(): {
      /** Bytes of packed weights in wasm memory. */
      packed: number;
      /** Bytes of Winograd-transformed weights among them. */
      winograd: number;
    };
    /**
     * {@link io.GraphModule.forward} in the worker.
     * @param x The input; its buffer is transferred to the worker (detached
     *   here) unless transfer is false (then copied once); a view into a
     *   larger buffer is always copied.
     * @param options transfer: default true.
     * @returns A promise of the output (JS-owned).
     * @throws Rejects with a TypeError for an x that is not a float tensor
     *   or a transfer that is not a boolean, with the worker's error as
     *   GraphModule.forward would throw it, and with an Error after dispose().
     */
    forward(x: Tensor, options?: { transfer?: boolean }): Promise<WorkerOutput>;
    /**
     * {@link io.GraphModule.profile} in the worker.
     * @throws Rejects as forward() does.
     */
    profile(
      x: Tensor,
      options?: { transfer?: boolean },
    ): Promise<{
      /** What forward(x) resolves to. */
      output: WorkerOutput;
      /** One entry per node run, as {@link io.GraphModule.profile}'s. */
      layers: ReturnType<GraphModule['profile']>['layers'];
      /** The largest heapBytes of the run, in bytes. */
      peakHeapBytes: number;
    }>;
    /**
     * Loads this model's float twin into the same worker, for the numeric
     * suite below: the float model exported from the PyTorch model this one
     * was quantized from (`export(float_model, ...)`). A second call replaces it.
     * @param source As {@link io.loadModel}'s (bytes are copied).
     * @param options onProgress(loadedBytes, totalBytes) while a URL downloads;
     *   signal cancels the load (it rejects with the signal's reason, and the
     *   worker drops the twin it was loading; the model stays); the twin's
     *   budget, maxActivationBytes and maxWork, is the model's (the options
     *   it was loaded with) unless given here.
     * @throws Rejects with the loader's error (a file that is not a model, a
     *   twin over its budget), the signal's reason, and after dispose().
     */
    loadFloatModel(
      source: ModelSource,
      options?: Pick<LoadModelOptions, 'maxActivationBytes' | 'maxLiveBytes' | 'maxWork'> & {
        onProgress?: (loaded: number, total: number) => void;
        signal?: AbortSignal;
      },
    ): Promise<void>;
    /**
     * {@link quantization.ns.compareWeights}(float twin, this model) in the
     * worker: each entry's statistics and shape (the tensors stay in the worker).
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}.
     */
    compareWeights(): Promise<Record<string, WorkerComparison<quantization.ns.WeightComparison>>>;
    /**
     * {@link quantization.ns.compareModelOutputs}(float twin, this model, x)
     * in the worker: each entry's statistics and shape. x as in forward().
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}, and as forward() does.
     */
    compareModelOutputs(
      x: Tensor,
      options?: { transfer?: boolean },
    ): Promise<Record<string, WorkerComparison<quantization.ns.OutputComparison>>>;
    /**
     * The float twin's forward(x) in the worker, to set its output beside
     * this model's (e.g. top-5 classes, float against int8). x as in forward().
     * @returns A promise of the float twin's output.
     * @throws Rejects before {@link io.WorkerModel.loadFloatModel}, and as forward() does.
     */
    forwardFloat(x: Tensor, options?: { transfer?: boolean }): Promise<WorkerOutput>;
    /** Ends the worker and frees everything it held; pending requests reject. Idempotent. */
    dispose(): void;
  }

  /** A numeric-suite entry from a worker: its statistics and the compared tensors' shape, not the tensors. */
  type WorkerComparison<C> = Omit<C, 'float' | 'quantized'> & {
    /** The compared tensors' shape. */
    shape: number[];
  };

  /** The budget of one forward of a loaded model; forward() checks each node against it before running it. */
  interface LoadModelOptions {
    /** Bytes of one node's output or scratch. Default 2^28 (256 MiB); Infinity for no limit. */
    maxActivationBytes?: number;
    /**
     * Bytes one forward holds at once: the values later nodes still read, plus
     * a node's output and its scratch (a convolution's padded input, as the
     * core allocates it). Default 2^30 (1 GiB); Infinity for no limit.
     */
    maxLiveBytes?: number;
    /**
     * Work of one forward, in quantized-conv multiply-adds: every node kind is
     * charged by its measured time (a float element-wise op or a pool's window
     * element counts many; see docs/model-budget.md), so the default bounds a
     * forward near 25 s on one thread. Default 5e11; Infinity for no limit.
     */
    maxWork?: number;
    /** Every quantized convolution's Winograd option. Default {@link quantization.getWinograd}() ('auto' unless changed). */
    winograd?: WinogradOption;
  }

  /** A graph argument: a reference to another node's output, a constant, or a list of those. */
  type NodeArgument =
    | {
        /** The name of the node whose output this is. */
        readonly node: string;
      }
    | number
    | boolean
    | string
    | null
    | readonly NodeArgument[];

  /** What a node produces; null where it is not known (before a run, or not a tensor's property). */
  interface NodeOutput {
    /** quint8 for a QTensor, float32 for a float tensor. */
    readonly dtype: 'quint8' | 'float32';
    /** Dimensions in elements. */
    readonly shape: readonly number[] | null;
    /** A QTensor's scale. */
    readonly scale: number | null;
    /** A QTensor's zero point. */
    readonly zeroPoint: number | null;
  }

  /** One node of a loaded graph, as `torch.fx.Node` has it (frozen). */
  interface GraphNode {
    /** The node's unique name (torch.fx's node.name). */
    readonly name: string;
    /** placeholder, call_module, call_function, call_method or output. */
    readonly op: string;
    /** The module path, function or method name; undefined for placeholder and output. */
    readonly target: string | undefined;
    /** Positional arguments (torch.fx's node.args). */
    readonly args: readonly NodeArgument[];
    /** Keyword arguments (torch.fx's node.kwargs). */
    readonly kwargs: { readonly [name: string]: NodeArgument };
    /** Its output on the input shape the file declares (null if the file declares none). */
    readonly output: NodeOutput | null;
  }

  /**
   * A loaded model (`torch.fx.GraphModule`): its modules at their PyTorch
   * paths (namedModules(), getSubmodule('layer1.0.conv1.0')), and the
   * exported graph, which forward() runs node by node. Intermediate
   * QTensors are disposed as soon as they are last used.
   */
  class GraphModule extends nn.Module {
    #private;
    private constructor();
    /** The shape of the example input the model was exported with (elements; informative), or null. */
    readonly inputShape: number[] | null;
    /** The quantized engine the model was converted under in PyTorch ('fbgemm' for files of format version 1). */
    readonly engine: QuantizedEngine;
    /** The graph's nodes in execution order, with their arguments and (planned) outputs. */
    readonly nodes: GraphNode[];
    /**
     * How the input is made from video frames, as the exporter recorded it
     * (`export(..., preprocessing=weights.transforms())`), or null.
     */
    readonly preprocessing: transforms.VideoClassificationOptions | null;
    /** The output's class names the exporter recorded (`export(..., classes=weights.meta["categories"])`), or null. */
    readonly classes: readonly string[] | null;
    /**
     * The recorded preprocessing as a transform, as torchvision's
     * `weights.transforms()`.
     * @throws Error when the file records none.
     * @example
     * ```ts
     * const model = io.loadModel(await readFile('r3d_18.qwasm.safetensors'));
     * model.classes?.length; // → 400
     * // 16 frames, e.g. ImageData from a <canvas> (RGBA); here mid-grey 171x128 frames
     * const frames = Array.from({ length: 16 }, () => ({ data: new Uint8ClampedArray(171 * 128 * 4).fill(128), width: 171, height: 128 }));
     * const x = model.transforms().forward(frames);
     * x.shape; // → [ 1, 3, 16, 112, 112 ]
     * const logits = model.forward(x) as Tensor;
     * logits.shape; // → [ 1, 400 ]
     * model.dispose();
     * ```
     */
    transforms(): transforms.VideoClassification;
    /**
     * The PyTorch model's forward.
     * @param x A float tensor, the PyTorch model's input.
     * @returns A float tensor when the model ends with a DeQuantStub (or a
     *   QTensor the caller disposes when it does not).
     * @throws An Error naming the node that failed, or the node that would go
     *   over the budget ({@link io.LoadModelOptions}) on this input's shape;
     *   TypeError or RangeError as that node's module throws them.
     */
    forward(x: Tensor): Tensor | QTensor;
    /**
     * For pipelines: q enters where the QuantStub's output would, and the
     * result is the QTensor the final DeQuantStub would have read (the caller
     * disposes it).
     * @throws TypeError when q is not a QTensor, Error if the input does not
     *   go through one QuantStub, and as forward().
     */
    forwardQuantized(q: QTensor<'quint8'>): QTensor;
    /** Bytes of the quantized modules' packed weights in wasm memory, and the Winograd-transformed share of them. */
    weightBytes(): {
      /** Bytes of packed weights in wasm memory. */
      packed: number;
      /** Bytes of Winograd-transformed weights among them. */
      winograd: number;
    };
    /**
     * forward(x), timed node by node. heapBytes: the wasm heap after the node
     * plus its convolution's scratch; peakHeapBytes: their maximum (one
     * forward's high-water mark); outputBytes: the size of the node's output.
     * @throws As forward().
     */
    profile(x: Tensor): {
      /** What forward(x) returns. */
      output: Tensor | QTensor;
      /** One entry per node run, in order. */
      layers: {
        /** The node's name. */
        name: string;
        /** The node's op. */
        op: string;
        /** The node's target. */
        target: string | undefined;
        /** A quantized convolution's arithmetic in this run; null for other nodes. */
        path: 'winograd' | 'direct' | null;
        /** Milliseconds the node took (performance.now()). */
        ms: number;
        /** The work the node was charged against the load's maxWork (quantized-conv multiply-adds). */
        work: number;
        /** Bytes of wasm heap in use after the node, plus its scratch. */
        heapBytes: number;
        /** Bytes of the node's output. */
        outputBytes: number;
        /** What the node produced in this run (its qparams included). */
        output: NodeOutput | null;
      }[];
      /** The largest heapBytes of the run (bytes), the heap before it included. */
      peakHeapBytes: number;
    };
  }
}

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above is public.
export {};
