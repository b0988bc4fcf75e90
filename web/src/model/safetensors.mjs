// The .safetensors container, read defensively: the header is checked
// against the file (every tensor's dtype, shape and byte range) before
// anything is read or allocated. Internal: io.loadSafetensors and
// io.loadModel build on it.
import {
  bytesOf,
  bytesOfBuffer,
  checkNotRevoked,
  describe,
  MAX_NUMEL,
  quoted,
  typedArrayKind,
} from '../runtime/args.mjs';

/** The bytes of an ArrayBuffer or typed array argument. */
export function bytesOfInput(input, ctx) {
  checkNotRevoked(input, 'bytes', ctx);
  if (input instanceof ArrayBuffer) return bytesOfBuffer(input, 'bytes', ctx);
  if (typedArrayKind(input) !== undefined) return bytesOf(input, 'bytes', ctx);
  throw new TypeError(`${ctx}: expected an ArrayBuffer or a typed array of the file's bytes, got ${describe(input)}`);
}

// Element count of a shape of non-negative safe integers, or -1 if above MAX_NUMEL.
export function numelOf(shape) {
  let n = 1;
  for (const d of shape) n *= d;
  return shape.includes(0) ? 0 : n > MAX_NUMEL ? -1 : n;
}

// Every dtype safetensors defines, with its element size (checked against the offsets).
const ST_SIZES = new Map([
  ['BOOL', 1],
  ['U8', 1],
  ['I8', 1],
  ['F8_E5M2', 1],
  ['F8_E4M3', 1],
  ['I16', 2],
  ['U16', 2],
  ['F16', 2],
  ['BF16', 2],
  ['I32', 4],
  ['U32', 4],
  ['F32', 4],
  ['I64', 8],
  ['U64', 8],
  ['F64', 8],
]);

// The start of a JSON value for a message (a value nested past the stack's
// depth cannot be printed: its type is named instead).
function preview(v) {
  try {
    return JSON.stringify(v).slice(0, 200);
  } catch {
    return describe(v);
  }
}

const isIndex = (d) => Number.isSafeInteger(d) && d >= 0;

/**
 * The checked header of a .safetensors file: tensors (name ->
 * {dtype, shape, begin, end}, offsets into the data section), metadata, and
 * where the data starts. Shared by loadSafetensors and loadModel.
 * @param {Uint8Array} bytes
 * @param {string} ctx
 */
export function parseSafetensors(bytes, ctx) {
  if (bytes.length < 8)
    throw new Error(`${ctx}: not a .safetensors file: ${bytes.length} bytes, the header size alone takes 8`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = Number(view.getBigUint64(0, true));
  if (headerSize > bytes.length - 8) {
    throw new Error(
      `${ctx}: malformed file: header size ${headerSize} exceeds the ${bytes.length - 8} bytes that follow`,
    );
  }
  let header;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerSize)));
  } catch (e) {
    throw new Error(`${ctx}: malformed header (not JSON): ${e.message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    throw new Error(`${ctx}: malformed header: expected a JSON object`);
  }
  const dataStart = 8 + headerSize;
  const dataLength = bytes.length - dataStart;
  const tensors = new Map();
  /** @type {Record<string, string>} */
  let metadata = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') {
      const ok =
        info !== null &&
        typeof info === 'object' &&
        !Array.isArray(info) &&
        Object.values(info).every((v) => typeof v === 'string');
      if (!ok) throw new Error(`${ctx}: malformed __metadata__: expected an object of strings`);
      metadata = Object.assign(Object.create(null), info);
      continue;
    }
    const ok =
      info !== null &&
      typeof info === 'object' &&
      typeof info.dtype === 'string' &&
      Array.isArray(info.shape) &&
      Array.isArray(info.data_offsets) &&
      info.shape.length <= 64 &&
      info.shape.every(isIndex) &&
      info.data_offsets.length === 2 &&
      info.data_offsets.every(isIndex);
    if (!ok) throw new Error(`${ctx}: malformed entry for tensor ${quoted(name)}: ${preview(info)}`);
    // A dtype newer than this reader is listed (get() refuses it); its size is unknown.
    const size = ST_SIZES.get(info.dtype);
    const [begin, end] = info.data_offsets;
    if (begin > end || end > dataLength) {
      throw new Error(
        `${ctx}: tensor ${quoted(name)} has data_offsets [${begin}, ${end}] outside the ${dataLength} data bytes`,
      );
    }
    const n = numelOf(info.shape);
    if (n < 0 || (size !== undefined && end - begin !== n * size)) {
      throw new Error(
        `${ctx}: tensor ${quoted(name)} (${info.dtype} [${info.shape.join(', ')}]) needs ${n < 0 ? 'too many' : n * size} bytes, its offsets span ${end - begin}`,
      );
    }
    tensors.set(name, { dtype: info.dtype, shape: info.shape.slice(), begin, end });
  }
  return { bytes, view, dataStart, tensors, metadata };
}
