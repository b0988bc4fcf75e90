// Tensors: the float tensor, the dtypes and schemes, QTensor, and the
// functions that quantize, wrap and dequantize (torch.quantize_per_tensor, ...).

/**
 * PyTorch's memory formats: `torch.contiguous_format`, `torch.channels_last`
 * (rank 4) and `torch.channels_last_3d` (rank 5).
 */
export type MemoryFormat = 'contiguous' | 'channels_last' | 'channels_last_3d';

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

// In a declaration file every top-level declaration is exported unless the
// file says export {}: only what is marked export above leaves this file.
export {};
