// Embind handles owned by JS objects (QTensors, modules): freed by dispose(),
// or eventually by the FinalizationRegistry backstop if the owner is garbage
// collected first.
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((handle) => {
        if (!handle.isDeleted()) handle.delete();
      })
    : null;

/** @internal Tracks `handle` for `owner`, replacing (and freeing) `previous`. */
export function adopt(owner, handle, previous) {
  release(owner, previous);
  if (finalizer && handle) finalizer.register(owner, handle, handle);
  return handle;
}

/** @internal Frees a handle now; returns null (for `this.#h = release(this, this.#h)`). */
export function release(owner, handle) {
  if (!handle) return null;
  if (finalizer) finalizer.unregister(handle);
  if (!handle.isDeleted()) handle.delete();
  return null;
}
