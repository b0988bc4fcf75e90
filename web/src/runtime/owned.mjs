// Embind handles owned by JS objects (QTensors, modules): freed by dispose(),
// or eventually by the FinalizationRegistry backstop if the owner is garbage
// collected first.
//
// The backstop cannot see wasm memory: a loop that drops 1 MB tensors without
// dispose() fills the wasm heap long before the JS garbage collector feels
// any pressure. So the owners are counted here, and an out-of-memory error
// says how many are alive and how many bytes they hold (heap.mjs).
const finalizer =
  typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((entry) => {
        live.count -= 1;
        live.bytes -= entry.bytes;
        if (!entry.handle.isDeleted()) entry.handle.delete();
      })
    : null;

const live = { count: 0, bytes: 0 };
const entries = new WeakMap(); // handle -> entry (for unregister)

/** @internal Owners not yet disposed or collected, and the wasm bytes they hold. */
export function liveHandles() {
  return { count: live.count, bytes: live.bytes };
}

/** @internal Tracks `handle` (holding about `bytes` of wasm memory) for `owner`, replacing (and freeing) `previous`. */
export function adopt(owner, handle, previous, bytes = 0) {
  release(owner, previous);
  if (handle) {
    const entry = { handle, bytes };
    entries.set(handle, entry);
    live.count += 1;
    live.bytes += bytes;
    if (finalizer) finalizer.register(owner, entry, entry);
  }
  return handle;
}

/** @internal Frees a handle now; returns null (for `this.#h = release(this, this.#h)`). */
export function release(owner, handle) {
  if (!handle) return null;
  const entry = entries.get(handle);
  if (entry) {
    entries.delete(handle);
    live.count -= 1;
    live.bytes -= entry.bytes;
    if (finalizer) finalizer.unregister(entry);
  }
  if (!handle.isDeleted()) handle.delete();
  return null;
}
