// The codes that cross the bridge: every number the bindings take or return
// that stands for a choice, not a quantity, by the name the JS layer uses.
// bindings/codes.h is their source of truth (it converts them); the testing
// build returns its tables (_bridgeCodes) and tests/js/package/bridge-codes.test.mjs
// checks that these equal them, and what each code does in the core.
// bridge.d.mts takes its code types from here. Maps, so that no inherited
// property ('toString', '__proto__') can pass for a name.

/**
 * @template const C
 * @param {ReadonlyArray<readonly [string, C]>} entries
 * @returns {ReadonlyMap<string, C>}
 */
const codes = (entries) => new Map(entries);

/**
 * The names of a table, by code.
 * @template C
 * @param {ReadonlyMap<string, C>} table
 * @returns {ReadonlyMap<C, string>}
 */
const namesOf = (table) => new Map([...table].map(([name, code]) => [code, name]));

/** PyTorch's quantized dtypes. */
export const DTYPE = codes([
  ['quint8', 0],
  ['qint8', 1],
  ['qint32', 2],
  ['quint4x2', 3],
]);
/** @type {ReadonlyMap<number, import('../../index.js').QDType>} */
export const DTYPE_NAMES = /** @type {any} */ (namesOf(DTYPE));

/** PyTorch's qschemes (tensors carry the first three; observers take all five). */
export const QSCHEME = codes([
  ['per_tensor_affine', 0],
  ['per_channel_affine', 1],
  ['per_channel_affine_float_qparams', 2],
  ['per_tensor_symmetric', 3],
  ['per_channel_symmetric', 4],
]);
/** @type {ReadonlyMap<number, import('../../index.js').TensorQScheme>} */
export const QSCHEME_NAMES = /** @type {any} */ (namesOf(QSCHEME));

/** The kernel family a call runs (setKernelIsa); 'auto' is the fastest the build has. */
export const ISA = codes([
  ['auto', 0],
  ['scalar', 1],
  ['wasmsimd', 2],
]);
export const ISA_NAMES = namesOf(ISA);

/** A failure's kind ({error, kind}): the JS error class it becomes (errors.mjs). */
export const ERROR_KIND = codes([
  ['TypeError', 1],
  ['RangeError', 2],
  ['Error', 3],
  ['outOfMemory', 4],
]);
export const ERROR_KIND_NAMES = namesOf(ERROR_KIND);

/** The quantized engine a layer's weights are packed under (engine.mjs). */
export const ENGINE = codes([
  ['fbgemm', 0],
  ['x86', 1],
]);

/** Whose requantization a quantized conv layer reproduces (its `backend`). */
export const BACKEND = codes([
  ['fbgemm', 0],
  ['onednn', 1],
]);
export const BACKEND_NAMES = namesOf(BACKEND);

/** The `winograd` option (winograd.mjs), by String(mode): 'false', 'auto', 'true'. */
export const WINOGRAD = codes([
  ['false', 0],
  ['auto', 1],
  ['true', 2],
]);

/** The path a quantized conv's last forward took ('' before the first). */
export const CONV_PATH = codes([
  ['', 0],
  ['direct', 1],
  ['winograd', 2],
]);
export const CONV_PATH_NAMES = namesOf(CONV_PATH);

/** A QTensor's memory format; 'channels_last' is channels_last at rank 4, channels_last_3d at rank 5. */
export const MEMORY_FORMAT = codes([
  ['contiguous', 0],
  ['channels_last', 1],
]);

/** The pooling a pool binding computes. */
export const POOL_KIND = codes([
  ['max', 0],
  ['avg', 1],
]);
