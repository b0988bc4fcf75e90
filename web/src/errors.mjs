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
