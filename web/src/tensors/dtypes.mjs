// The names of dtypes and schemes, and the codes the core knows them by
// (src/qwasm/dtype.h). Maps, so that no inherited property ('toString',
// '__proto__') can pass for a name.

/** dtype name -> code */
export const DTYPES = new Map([
  ['quint8', 0],
  ['qint8', 1],
  ['qint32', 2],
  ['quint4x2', 3],
]);
/** dtype code -> name */
/** @type {Map<number, import('../../index.js').QDType>} */
export const DTYPE_NAMES = new Map([...DTYPES].map(([k, v]) => [v, /** @type {any} */ (k)]));

/** qscheme name -> code */
export const QSCHEMES = new Map([
  ['per_tensor_affine', 0],
  ['per_channel_affine', 1],
  ['per_channel_affine_float_qparams', 2],
  ['per_tensor_symmetric', 3],
  ['per_channel_symmetric', 4],
]);
/** @type {Map<number, import('../../index.js').TensorQScheme>} */
export const QSCHEME_NAMES = new Map([...QSCHEMES].map(([k, v]) => [v, /** @type {any} */ (k)]));
