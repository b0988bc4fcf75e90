// Readers of a model file's JSON values: each checks one value's type and
// range and throws a FormatError naming where it is in the file.
import { describe, quoted } from '../runtime/args.mjs';

export const MAX_NAME = 1000;

/** The file does not follow the format (io.loadModel reports it with its context). */
export class FormatError extends Error {}

export const fail = (msg) => {
  throw new FormatError(msg);
};

/** A name from the file, quoted (and cut short) for a message. */
export const quote = (v) => (typeof v === 'string' ? quoted(v) : describe(v));
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
export const isName = (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_NAME;

/** Refuses a string over MAX_NAME as what it is (a name too long), before any other check calls it something else. */
export function checkNameLength(v, what) {
  if (typeof v === 'string' && v.length > MAX_NAME) {
    fail(`${what} ${quote(v)} is longer than the ${MAX_NAME} characters a name may have`);
  }
}

export function readInt(v, what, lo, hi) {
  if (!Number.isSafeInteger(v) || v < lo || v > hi)
    fail(`${what} must be an integer in ${lo}..${hi}, got ${describe(v)}`);
  return v;
}

export function readInts(v, what, length, lo, hi) {
  if (!Array.isArray(v) || v.length !== length)
    fail(`${what} must be a list of ${length} integers, got ${describe(v)}`);
  return v.map((x, i) => readInt(x, `${what}[${i}]`, lo, hi));
}

export function readFloat(v, what) {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${what} must be a finite number, got ${describe(v)}`);
  return v;
}

export function readBool(v, what) {
  if (typeof v !== 'boolean') fail(`${what} must be true or false, got ${describe(v)}`);
  return v;
}

// An attribute this reader does not know would be ignored, and the model
// would run as something other than what was written: refused.
export function onlyKeys(obj, allowed, what) {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra !== undefined) fail(`${what} has an unknown attribute ${quote(extra)}`);
}

/** The largest channel count, kernel extent, stride, padding or dilation a module entry may give. */
export const CONV_GEOMETRY = 2 ** 31 - 1;

/** A module entry's `dims`: 1, 2 or 3 (Conv1d / 2d / 3d, pools, BatchNorm). */
export const readDims = (m, what) => readInt(m.dims, `${what}.dims`, 1, 3);
