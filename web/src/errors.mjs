// Turns the bindings' {error, kind} results into thrown JavaScript errors.
const ERROR_CLASSES = { TypeError, RangeError, Error };

/** @internal Returns `result`, or throws the error the core reported. */
export function checked(result, context) {
  if (result !== null && typeof result === 'object' && typeof result.error === 'string') {
    const ErrorClass = ERROR_CLASSES[result.kind] || Error;
    throw new ErrorClass(`${context}: ${result.error}`);
  }
  return result;
}
