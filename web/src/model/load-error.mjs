// What a failed model load says, for code as well as people: every load
// failure is an Error (or TypeError / RangeError) with
//   kind   'network' | 'http' | 'not-a-model' | 'format' | 'budget' | 'worker'
//   url    the URL (or path) loaded, or 'bytes', 'Blob', 'Response', 'stream'
//   status the HTTP status, or null
//   hint   what to try, or null (also at the end of the message)
// (Running out of wasm memory keeps its own kind, 'outOfMemory', as everywhere.)
// Documented at io.LoadError (web/declarations/io.d.ts).
import { kindOf } from './source.mjs';

/** The kinds of io.LoadError, in the order the docs list them. */
export const LOAD_ERROR_KINDS = Object.freeze(['network', 'http', 'not-a-model', 'format', 'budget', 'worker']);

/**
 * A load failure: `message` (which starts with the call), with the fields
 * above; the hint is appended to the message.
 * @param {string} message
 * @param {{kind: string, url: string, status?: number | null, hint?: string | null, cause?: unknown, Type?: ErrorConstructor}} fields
 */
export function loadError(message, { kind, url, status = null, hint = null, cause, Type = Error }) {
  const error = new Type(hint === null ? message : `${message}. ${hint}`, cause === undefined ? undefined : { cause });
  return Object.assign(error, { kind, url, status, hint });
}

/** True when `error` already carries a load error's kind (or the out-of-memory kind). */
export function hasKind(error) {
  return error !== null && typeof error === 'object' && typeof error.kind === 'string';
}

/**
 * `error` with a kind: its own if it has one, else `kind`; its url, status
 * and hint filled in where missing (url: `url`). Returns error.
 */
export function withLoadFields(error, kind, url) {
  if (error === null || typeof error !== 'object') return error;
  const e = /** @type {any} */ (error);
  try {
    if (typeof e.kind !== 'string') e.kind = kind;
    if (typeof e.url !== 'string' || (e.url === 'bytes' && url !== 'bytes')) e.url = url;
    if (e.status === undefined) e.status = null;
    if (e.hint === undefined) e.hint = null;
  } catch {
    // a frozen error from the caller's own code: it reaches them unchanged
  }
  return error;
}

/** What a load error's `url` says for `source`: the URL (or path), or the kind of source. */
export function sourceName(source, absolute) {
  switch (kindOf(source)) {
    case 'url':
      return absolute ?? String(source);
    case 'response':
      return source.url || 'Response';
    case 'stream':
      return 'stream';
    case 'blob':
      return 'Blob';
    default:
      return 'bytes';
  }
}

/** The first bytes of a file, as hex and text, for a message about what came instead of a model. */
export function firstBytes(bytes) {
  const head = bytes.subarray(0, 16);
  const hex = Array.from(head.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = Array.from(head, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
  return `${hex} ("${text}")`;
}

/** True when the bytes look like an HTML page (a dev server's or an SPA's answer to a missing file). */
export function looksLikeHtml(bytes) {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  return (
    head.startsWith('<!doctype html') || head.startsWith('<html') || head.startsWith('<head') || head.startsWith('<!--')
  );
}

/** The hint for bytes that are not a model file; `contentType` when a server sent them. */
export function notAModelHint(bytes, contentType = null) {
  const served = contentType === null ? '' : ` (content-type ${contentType})`;
  if (looksLikeHtml(bytes)) {
    return `An HTML page came back${served}, not the model: check the URL (a dev server or an app's fallback answers a missing file with its index.html); it starts with ${firstBytes(bytes)}`;
  }
  return `It is ${bytes.length} bytes${served} starting with ${firstBytes(bytes)}; a qwasm model is a .safetensors file written by qwasm-export (python/qwasm_export.py)`;
}
