// Turns the bindings' {error, kind} results into thrown JavaScript errors.
// The kinds are codes (codes.mjs's ERROR_KIND, named after the class each
// becomes); out of memory becomes a RangeError with kind 'outOfMemory'
// (checked() below).
import { ERROR_KIND_NAMES } from './codes.mjs';

const ERROR_CLASSES = new Map([
  ['TypeError', TypeError],
  ['RangeError', RangeError],
  ['Error', Error],
]);

/** The `kind` of an error thrown because wasm memory ran out (the core's or a JS-side malloc). */
export const OUT_OF_MEMORY = 'outOfMemory';

/** @internal A RangeError marked as out of memory (error.kind === 'outOfMemory'). */
export function outOfMemoryError(message) {
  return Object.assign(new RangeError(message), { kind: OUT_OF_MEMORY });
}

/** @internal True when `error` reports wasm memory running out (by its kind, never its text). */
export function isOutOfMemory(error) {
  return error instanceof RangeError && /** @type {any} */ (error).kind === OUT_OF_MEMORY;
}

/**
 * @internal Returns `result`, or throws the error the core reported, prefixed with the call.
 * @template T
 * @param {T | import('./bridge.mjs').CoreError} result
 * @param {string} context
 * @returns {T}
 */
export function checked(result, context) {
  if (result !== null && typeof result === 'object' && 'error' in result && typeof result.error === 'string') {
    const message = `${context}: ${result.error}`;
    const kind = ERROR_KIND_NAMES.get(result.kind);
    if (kind === OUT_OF_MEMORY) throw outOfMemoryError(message);
    const ErrorClass = ERROR_CLASSES.get(kind) ?? Error;
    throw new ErrorClass(message);
  }
  return /** @type {T} */ (result);
}

// The call a qwasm error message starts with: "new nn.quantized.Conv3d(...): ",
// "nn.quantized.Conv3d.setWeightBias(weight, bias): ", "makePerTensorQuantizedTensor(...): ".
const INTERNAL_CALL = /^(new [\w.]+\([^)]*\)|\w+(\.\w+)*\([^)]*\)|\w+(\.\w+)+): /;

/**
 * @internal An error from a call qwasm made on the user's behalf (loading a
 * file, converting a model): its message loses that internal call's name,
 * which the user never wrote, and starts with `where` instead. Returns e.
 */
export function restate(e, where) {
  if (e instanceof Error && typeof e.message === 'string') {
    e.message = `${where}: ${e.message.replace(INTERNAL_CALL, '')}`;
  }
  return e;
}
