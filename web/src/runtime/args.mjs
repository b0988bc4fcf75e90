// Reading arguments: every public function reads each argument exactly once,
// through these readers, into fresh local values, before it does any work.
// What a caller passes may be a Proxy, an object with getters, a typed-array
// subclass with a lying `length`, a detached or shared buffer: the readers
// never call a user getter twice, read typed arrays through the engine's own
// accessors (not through properties a subclass can override), and hand the
// rest of the library plain numbers, plain arrays and Uint8Array views.
//
// Who checks what (docs/architecture.md): these readers check JavaScript types
// and structure (TypeError), plus what JavaScript itself needs to proceed
// (a shape's element count against the data's); the core checks values and
// ranges (RangeError) and names them the same way.

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (name) => Object.getOwnPropertyDescriptor(TypedArrayPrototype, name).get;
const taTag = intrinsic(Symbol.toStringTag);
const taBuffer = intrinsic('buffer');
const taByteOffset = intrinsic('byteOffset');
const taByteLength = intrinsic('byteLength');
const taLength = intrinsic('length');
const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const sabByteLength =
  typeof SharedArrayBuffer === 'function'
    ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, 'byteLength').get
    : null;

/** PyTorch's limit on the number of dimensions. */
export const MAX_RANK = 64;
/** Largest element count of a tensor (indices stay below 2^31). */
export const MAX_NUMEL = 2 ** 31 - 1;

/** The typed array's own kind ('Float32Array', ...) or undefined for anything else (Proxies included). */
export function typedArrayKind(v) {
  return taTag.call(v);
}

function isDetached(buffer) {
  if (sabByteLength !== null) {
    try {
      sabByteLength.call(buffer);
      return false; // shared buffers cannot be detached
    } catch {
      // not a SharedArrayBuffer
    }
  }
  if (abByteLength.call(buffer) !== 0) return false;
  try {
    new Uint8Array(buffer, 0, 0);
    return false;
  } catch {
    return true;
  }
}

/**
 * The bytes of a typed array as a Uint8Array view over the same memory, read
 * through the intrinsic accessors. Throws a TypeError for a detached buffer.
 */
export function bytesOf(ta, what, ctx) {
  const buffer = taBuffer.call(ta);
  if (isDetached(buffer)) throw new TypeError(`${ctx}: ${what} is backed by a detached ArrayBuffer`);
  return new Uint8Array(buffer, taByteOffset.call(ta), taByteLength.call(ta));
}

/** True for an ArrayBuffer of any realm (read through the intrinsic accessor). */
export function isArrayBuffer(v) {
  try {
    abByteLength.call(v);
    return true;
  } catch {
    return false;
  }
}

/** A Uint8Array over a whole ArrayBuffer (TypeError if detached). */
export function bytesOfBuffer(buffer, name, ctx) {
  if (isDetached(buffer)) throw new TypeError(`${ctx}: ${name} is a detached ArrayBuffer`);
  return new Uint8Array(buffer);
}

/** Element count of a typed array, from the engine (never a subclass's `length`). */
export function lengthOf(ta) {
  return taLength.call(ta);
}

/** A short description of a value for error messages; never calls user code. */
/**
 * A name that came from outside (a file, an option key), quoted for a message
 * and cut to `max` characters: a 10 MB name does not make a 10 MB message.
 */
export function quoted(name, max = 100) {
  const s = String(name);
  return `'${s.length > max ? `${s.slice(0, max)}...' (${s.length} characters)` : `${s}'`}`;
}

/** A string from outside, cut to `max` characters (unquoted: a dtype, a format name). */
export const clipped = (s, max = 40) => (String(s).length > max ? `${String(s).slice(0, max)}...` : String(s));

export function describe(v) {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  const kind = typedArrayKind(v);
  if (kind !== undefined) return `a ${kind} of length ${taLength.call(v)}`;
  switch (typeof v) {
    case 'string':
      return `the string '${v.length > 40 ? `${v.slice(0, 40)}...` : v}'`;
    case 'number':
      return `the number ${Object.is(v, -0) ? '-0' : String(v)}`;
    case 'bigint':
      return `the bigint ${v}n`;
    case 'symbol':
      return 'a symbol';
    case 'boolean':
      return `the boolean ${v}`;
    case 'function':
      return 'a function';
    default:
      break;
  }
  try {
    if (Array.isArray(v)) return 'an array';
  } catch {
    return 'a revoked Proxy';
  }
  if (v instanceof ArrayBuffer) return 'an ArrayBuffer';
  return 'an object';
}

/**
 * Throws a TypeError naming the argument when v is a revoked Proxy, on which
 * every operation would throw an engine error without context.
 */
export function checkNotRevoked(v, name, ctx) {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return;
  try {
    Array.isArray(v);
  } catch {
    throw new TypeError(`${ctx}: ${name} is a revoked Proxy`);
  }
}

// Array.isArray, false for a revoked Proxy (which throws there).
function isArray(v) {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

/** A number (any value, NaN included); TypeError for anything else. */
export function readNumber(v, name, ctx) {
  if (typeof v !== 'number') throw new TypeError(`${ctx}: ${name} must be a number, got ${describe(v)}`);
  return v;
}

/** An integer-valued number; TypeError otherwise (ranges are the core's to check). */
export function readInteger(v, name, ctx) {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TypeError(`${ctx}: ${name} must be an integer, got ${describe(v)}`);
  }
  return v;
}

export function readBoolean(v, name, ctx) {
  if (typeof v !== 'boolean') throw new TypeError(`${ctx}: ${name} must be a boolean, got ${describe(v)}`);
  return v;
}

/** One of the keys of `choices` (a Map); returns the mapped value. */
export function readChoice(v, choices, name, ctx) {
  if (typeof v !== 'string' || !choices.has(v)) {
    const list = [...choices.keys()].map((k) => `'${k}'`).join(', ');
    throw new TypeError(`${ctx}: ${name} must be one of ${list}, got ${describe(v)}`);
  }
  return choices.get(v);
}

/**
 * An options object read once: returns a Map of the own enumerable properties
 * that are not undefined. Unknown names are a TypeError (a misspelt option
 * silently ignored is a bug the user never sees).
 */
export function readOptions(options, allowed, ctx) {
  if (options === undefined) return new Map();
  checkNotRevoked(options, 'options', ctx);
  if (options === null || typeof options !== 'object' || typedArrayKind(options) !== undefined) {
    throw new TypeError(`${ctx}: options must be an object, got ${describe(options)}`);
  }
  const out = new Map();
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new TypeError(
        `${ctx}: unknown option ${quoted(key)} (expected ${allowed.map((k) => `'${k}'`).join(', ')})`,
      );
    }
    const value = options[key];
    if (value !== undefined) out.set(key, value);
  }
  return out;
}

/** An option's value, or `fallback` when the option is absent (null is a value, not an absence). */
export function option(options, key, fallback) {
  return options.has(key) ? options.get(key) : fallback;
}

/**
 * A list of up to `maxLength` numbers (a plain array, or a typed array), read
 * once into a fresh array. Holes and non-numbers are TypeErrors.
 */
export function readNumberList(v, name, ctx, maxLength = Infinity) {
  checkNotRevoked(v, name, ctx);
  const kind = typedArrayKind(v);
  if (kind !== undefined) {
    if (kind === 'BigInt64Array' || kind === 'BigUint64Array') {
      throw new TypeError(`${ctx}: ${name} must hold numbers, got a ${kind}`);
    }
    const n = taLength.call(v);
    if (n > maxLength) throw new RangeError(`${ctx}: ${name} has ${n} entries, at most ${maxLength} allowed`);
    return Array.from(readTyped(v, name, ctx));
  }
  if (!Array.isArray(v)) throw new TypeError(`${ctx}: ${name} must be an array of numbers, got ${describe(v)}`);
  const n = v.length;
  if (typeof n !== 'number' || !(n >= 0) || n > maxLength) {
    throw new RangeError(`${ctx}: ${name} has ${n} entries, at most ${maxLength} allowed`);
  }
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const x = v[i];
    if (typeof x !== 'number') throw new TypeError(`${ctx}: ${name}[${i}] must be a number, got ${describe(x)}`);
    out[i] = x;
  }
  return out;
}

/** @type {Map<string, any>} */
const TYPED_ARRAYS = new Map(
  /** @type {[string, any][]} */ ([
    ['Int8Array', Int8Array],
    ['Uint8Array', Uint8Array],
    ['Uint8ClampedArray', Uint8ClampedArray],
    ['Int16Array', Int16Array],
    ['Uint16Array', Uint16Array],
    ['Int32Array', Int32Array],
    ['Uint32Array', Uint32Array],
    ['Float32Array', Float32Array],
    ['Float64Array', Float64Array],
  ]),
);

// The elements of a (non-BigInt) typed array, through a fresh copy of its
// bytes: a shared buffer can change under us, so copy once, then read.
function readTyped(v, name, ctx) {
  const bytes = new Uint8Array(bytesOf(v, name, ctx));
  return new (TYPED_ARRAYS.get(typedArrayKind(v)))(bytes.buffer);
}

/**
 * A shape: an array of at most 64 non-negative integers whose product is at
 * most 2^31 - 1. Returns a fresh array and the element count.
 */
export function readShape(v, ctx, name = 'shape') {
  checkNotRevoked(v, name, ctx);
  if (!Array.isArray(v)) throw new TypeError(`${ctx}: ${name} must be an array of integers, got ${describe(v)}`);
  const rank = v.length;
  if (rank > MAX_RANK) throw new RangeError(`${ctx}: ${name} has ${rank} dimensions, at most ${MAX_RANK} allowed`);
  const shape = new Array(rank);
  let numel = 1;
  for (let i = 0; i < rank; i++) {
    const d = v[i];
    if (typeof d !== 'number' || !Number.isInteger(d)) {
      throw new TypeError(`${ctx}: ${name}[${i}] must be an integer, got ${describe(d)}`);
    }
    if (d < 0) throw new RangeError(`${ctx}: ${name}[${i}] must be >= 0, got ${d}`);
    if (d > MAX_NUMEL)
      throw new RangeError(`${ctx}: ${name}[${i}] is ${d}; a dimension holds at most ${MAX_NUMEL} elements`);
    shape[i] = d;
    numel *= d;
  }
  if (numel > MAX_NUMEL && !shape.includes(0)) {
    throw new RangeError(`${ctx}: ${name} [${shape.join(', ')}] holds more than ${MAX_NUMEL} elements`);
  }
  return { shape, numel: shape.includes(0) ? 0 : numel };
}

// True for a QTensor: qtensor.mjs (which imports this module) installs its
// brand check, which runs no code of the caller's.
let isQTensorBrand = (_v) => false;

/** @internal Called once by qtensor.mjs. */
export function setQTensorCheck(check) {
  isQTensorBrand = check;
}

/**
 * A float tensor {data: Float32Array, shape}: both properties read once, the
 * shape copied and checked. Returns {data, shape, numel}; take the bytes with
 * tensorBytes() right before copying them, after every other argument has
 * been read (a getter of another argument could detach or shrink the data's
 * buffer in between).
 */
export function readFloatTensor(x, ctx, name = 'x') {
  checkNotRevoked(x, name, ctx);
  if (isQTensorBrand(x)) {
    throw new TypeError(
      `${ctx}: ${name} must be a float tensor {data: Float32Array, shape: number[]}, got a QTensor: call ${name}.dequantize() first for its float values`,
    );
  }
  if (x === null || typeof x !== 'object' || typedArrayKind(x) !== undefined || isArray(x)) {
    throw new TypeError(
      `${ctx}: ${name} must be a float tensor {data: Float32Array, shape: number[]}, got ${describe(x)}`,
    );
  }
  const data = x.data;
  const shapeValue = x.shape;
  if (typedArrayKind(data) !== 'Float32Array') {
    throw new TypeError(`${ctx}: ${name}.data must be a Float32Array, got ${describe(data)}`);
  }
  const { shape, numel } = readShape(shapeValue, ctx, `${name}.shape`);
  return { name, data, shape, numel };
}

/**
 * The bytes of a tensor read by readFloatTensor (or readIntTensor), checked
 * against its shape now: a Uint8Array view to copy at once.
 */
export function tensorBytes(t, ctx, elementBytes = 4) {
  const bytes = bytesOf(t.data, `${t.name}.data`, ctx);
  if (elementBytes === 4 && bytes.byteLength !== t.numel * 4) {
    throw new RangeError(
      `${ctx}: ${t.name}.shape [${t.shape.join(', ')}] holds ${t.numel} elements but ${t.name}.data has ${bytes.byteLength / 4}`,
    );
  }
  return bytes;
}

/** The largest dimension of a shape: a bound for any per-channel list's length. */
export function largestDim(shape) {
  return shape.reduce((a, b) => Math.max(a, b), 1);
}
