// Defence in depth against a WebAssembly trap. No input is meant to reach one
// (the core validates and returns a Status; the fuzzers fail on any trap), but
// a trap that did happen unwinds past every C++ destructor and leaves the C
// stack pointer where the trapping call had moved it: heap blocks leak, and
// after a few thousand traps the instance returns garbage or runs out of
// memory. So the first trap poisons the instance: that call throws an Error
// that says so, and so does every later call, instead of computing on
// corrupted memory. The remedy is a new instance (reload the page, restart the
// worker or the process).

let trapped = null; // the first trap's message, once one has happened

/** An Emscripten abort or a wasm trap: both surface as WebAssembly.RuntimeError. */
function isTrap(e) {
  return typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError;
}

function poisonedError(where) {
  return new Error(
    `${where}: qwasm's WebAssembly instance trapped earlier (${trapped}) and its memory may be inconsistent, ` +
      'so it refuses further calls; reload the page, or restart the worker or process, for a new instance',
  );
}

function guarded(fn, name) {
  const wrapper = function (...args) {
    if (trapped !== null) throw poisonedError(name);
    try {
      return fn.apply(this, args);
    } catch (e) {
      if (!isTrap(e)) throw e;
      trapped = `${name}: ${e.message}`;
      throw new Error(
        `${name}: qwasm's WebAssembly instance trapped (${e.message}); this is a bug in qwasm, please report it ` +
          'with the call that caused it. The instance refuses further calls: reload the page, or restart the ' +
          'worker or process, for a new instance',
        { cause: e },
      );
    }
  };
  // Embind's arity (tests/js/package/bridge.test.mjs checks it against bridge.d.mts).
  if ('argCount' in fn) wrapper.argCount = fn.argCount;
  return wrapper;
}

// Embind's registrations (names starting with '_'), and the methods of its
// classes, which live on their prototypes.
function wrapOwnFunctions(target, skip) {
  for (const name of Object.getOwnPropertyNames(target)) {
    if (skip(name)) continue;
    const d = Object.getOwnPropertyDescriptor(target, name);
    if (!d || typeof d.value !== 'function' || !d.writable) continue;
    target[name] = guarded(d.value, name);
  }
}

/**
 * @internal Wraps every function the core exports (and its classes' methods)
 * so that a trap poisons the instance; returns the same module object.
 * @template T
 * @param {T} core
 * @returns {T}
 */
export function guardTraps(core) {
  const m = /** @type {any} */ (core);
  for (const name of Object.getOwnPropertyNames(m)) {
    if (!name.startsWith('_')) continue;
    const value = m[name];
    if (typeof value !== 'function') continue;
    // An Embind class: its prototype carries the methods. The constructor
    // itself stays (Embind checks `new` by its prototype); the core's
    // functions create the instances.
    if (value.prototype && Object.getOwnPropertyNames(value.prototype).length > 1) {
      wrapOwnFunctions(value.prototype, (n) => n === 'constructor');
      continue;
    }
    m[name] = guarded(value, name);
  }
  return core;
}

/** @internal Throws the poisoned-instance Error (naming `where`) after a trap. */
export function throwIfTrapped(where) {
  if (trapped !== null) throw poisonedError(where);
}
