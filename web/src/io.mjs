// Readers for tensors saved by numpy (.npy) and safetensors (.safetensors),
// so that people can bring their own PyTorch-exported weights. Both return
// float32 data in C (row-major) order and throw a clear error on a malformed
// file. Pure JavaScript: they work before init().
import { describe } from './runtime.mjs';

function bytesOf(input, ctx) {
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(`${ctx}: expected an ArrayBuffer or Uint8Array of the file's bytes, got ${describe(input)}`);
}

function numelOf(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

// float16 / bfloat16 bits -> number
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

const NPY_TYPES = {
  f4: { size: 4, read: (v, o, le) => v.getFloat32(o, le), name: 'float32' },
  f8: { size: 8, read: (v, o, le) => v.getFloat64(o, le), name: 'float64' },
  f2: { size: 2, read: (v, o, le) => halfToFloat(v.getUint16(o, le)), name: 'float16' },
};

/**
 * Reads a .npy file (format versions 1-3) holding float32, float64 or float16
 * data in C order; either byte order. Returns {data: Float32Array, shape, dtype}
 * where dtype is the file's ('float32' | 'float64' | 'float16').
 */
export function loadNpy(input) {
  const ctx = 'io.loadNpy';
  const bytes = bytesOf(input, ctx);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || !magic.every((b, i) => bytes[i] === b)) {
    throw new Error(`${ctx}: not a .npy file (it does not start with the \\x93NUMPY magic)`);
  }
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`${ctx}: unsupported .npy format version ${major}.${bytes[7]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : bytes.length >= 12 ? view.getUint32(8, true) : Infinity;
  const headerStart = major === 1 ? 10 : 12;
  if (headerStart + headerLen > bytes.length) {
    throw new Error(`${ctx}: truncated file: the header says ${headerLen} bytes but only ${bytes.length - headerStart} follow`);
  }
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(headerStart, headerStart + headerLen));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeMatch = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeMatch) throw new Error(`${ctx}: malformed header: ${JSON.stringify(header.trim())}`);
  const order = descr[1][0];
  const type = NPY_TYPES[descr[1].slice(1)];
  if (!type || !'<>|='.includes(order)) {
    throw new Error(`${ctx}: unsupported dtype '${descr[1]}': expected float32 ('<f4'), float64 ('<f8') or float16 ('<f2')`);
  }
  if (fortran[1] === 'True') throw new Error(`${ctx}: Fortran-order arrays are not supported; save with np.ascontiguousarray(a)`);
  const dims = shapeMatch[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (!dims.every((d) => /^\d+$/.test(d))) throw new Error(`${ctx}: malformed shape (${shapeMatch[1]})`);
  const shape = dims.map(Number);
  const n = numelOf(shape);
  const dataStart = headerStart + headerLen;
  const need = n * type.size;
  if (bytes.length - dataStart < need) {
    throw new Error(`${ctx}: truncated data: shape [${shape.join(', ')}] of ${type.name} needs ${need} bytes, the file has ${bytes.length - dataStart}`);
  }
  const littleEndian = order !== '>';
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = type.read(view, dataStart + i * type.size, littleEndian);
  return { data, shape, dtype: type.name };
}

const ST_TYPES = {
  F32: { size: 4, read: (v, o) => v.getFloat32(o, true) },
  F64: { size: 8, read: (v, o) => v.getFloat64(o, true) },
  F16: { size: 2, read: (v, o) => halfToFloat(v.getUint16(o, true)) },
  BF16: { size: 2, read: (v, o) => new Float32Array(new Uint32Array([v.getUint16(o, true) << 16]).buffer)[0] },
};

/**
 * Reads a .safetensors file. Returns {tensors: [{name, dtype, shape}],
 * metadata, get(name) -> {data: Float32Array, shape}}; float tensors (F32,
 * F64, F16, BF16) can be read, others are listed but refused by get().
 */
export function loadSafetensors(input) {
  const ctx = 'io.loadSafetensors';
  const bytes = bytesOf(input, ctx);
  if (bytes.length < 8) throw new Error(`${ctx}: not a .safetensors file: ${bytes.length} bytes, the header size alone takes 8`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerSize = Number(view.getBigUint64(0, true));
  if (headerSize > bytes.length - 8) {
    throw new Error(`${ctx}: malformed file: header size ${headerSize} exceeds the ${bytes.length - 8} bytes that follow`);
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
  const tensors = [];
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const ok = info && typeof info.dtype === 'string' && Array.isArray(info.shape) && Array.isArray(info.data_offsets)
      && info.shape.every((d) => Number.isInteger(d) && d >= 0) && info.data_offsets.length === 2
      && info.data_offsets.every((d) => Number.isInteger(d) && d >= 0);
    if (!ok) throw new Error(`${ctx}: malformed entry for tensor '${name}': ${JSON.stringify(info)}`);
    const [begin, end] = info.data_offsets;
    if (begin > end || end > dataLength) {
      throw new Error(`${ctx}: tensor '${name}' has data_offsets [${begin}, ${end}] outside the ${dataLength} data bytes`);
    }
    const type = ST_TYPES[info.dtype];
    if (type && end - begin !== numelOf(info.shape) * type.size) {
      throw new Error(`${ctx}: tensor '${name}' (${info.dtype} [${info.shape.join(', ')}]) needs ${numelOf(info.shape) * type.size} bytes, its offsets span ${end - begin}`);
    }
    tensors.push({ name, dtype: info.dtype, shape: info.shape.slice(), begin, end });
  }
  return {
    tensors: tensors.map(({ name, dtype, shape }) => ({ name, dtype, shape: shape.slice() })),
    metadata: header.__metadata__ ?? {},
    get(name) {
      const t = tensors.find((e) => e.name === name);
      if (!t) throw new RangeError(`${ctx}: no tensor named '${name}'; the file has ${tensors.map((e) => `'${e.name}'`).join(', ') || 'none'}`);
      const type = ST_TYPES[t.dtype];
      if (!type) throw new Error(`${ctx}: tensor '${name}' is ${t.dtype}; only F32, F64, F16 and BF16 can be read as float`);
      const n = numelOf(t.shape);
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = type.read(view, dataStart + t.begin + i * type.size);
      return { data, shape: t.shape.slice() };
    },
  };
}
