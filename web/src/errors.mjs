// Turns the bindings' {error, kind} results into thrown JavaScript errors.
const ERROR_CLASSES = new Map([
  [1, TypeError],
  [2, RangeError],
  [3, Error],
]);

/** @internal Returns `result`, or throws the error the core reported, prefixed with the call. */
export function checked(result, context) {
  if (result !== null && typeof result === 'object' && typeof result.error === 'string') {
    const ErrorClass = ERROR_CLASSES.get(result.kind) ?? Error;
    throw new ErrorClass(`${context}: ${result.error}`);
  }
  return result;
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
