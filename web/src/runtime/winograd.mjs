// The quantized convolutions' exact integer Winograd option (docs/winograd.md):
// 'auto' (transformed weights packed, and used, where it pays), true
// (wherever the shape allows) or false (never). The output bytes are the same
// on either path; the option trades memory for speed. A module takes it from
// its constructor's options (fromFloat's, io.loadModel's), else from
// quantization.setWinograd's default, when its weights are packed.
import { describe } from './args.mjs';
import { WINOGRAD } from './codes.mjs';

// The mode is the option's own value from the call that reads it to the
// bridge: winogradCode(mode) is the one conversion to the core's code.

/** @typedef {'auto' | boolean} WinogradMode */

/** The option's values. */
export const WINOGRAD_MODES = Object.freeze(['auto', true, false]);

/** @type {WinogradMode} */
let current = 'auto';

/**
 * @internal Checks a `winograd` option: 'auto', true or false.
 * @returns {WinogradMode}
 */
export function readWinograd(v, ctx) {
  if (!WINOGRAD_MODES.includes(v)) {
    throw new TypeError(`${ctx}: winograd must be 'auto', true or false, got ${describe(v)}`);
  }
  return v;
}

/**
 * @internal The `winograd` option of an options Map (args.mjs readOptions):
 * checked, or setWinograd's default when it is absent.
 * @param {Map<string, any>} options
 * @returns {WinogradMode}
 */
export function winogradOption(options, ctx) {
  return options.has('winograd') ? readWinograd(options.get('winograd'), ctx) : current;
}

/** The default of every quantized convolution built from now on whose options do not name one. */
export function setWinograd(mode) {
  current = readWinograd(mode, 'quantization.setWinograd(mode)');
}

/**
 * The default setWinograd set ('auto' unless changed).
 * @returns {WinogradMode}
 */
export function getWinograd() {
  return current;
}

/**
 * @internal The core's code of a mode (codes.mjs's WINOGRAD, by String(mode)), for the bridge only.
 * @param {WinogradMode} mode
 */
export const winogradCode = (mode) => WINOGRAD.get(String(mode));
