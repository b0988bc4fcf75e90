// Readers for tensors saved by numpy (.npy) and safetensors (.safetensors),
// so that people can bring their own PyTorch-exported weights. Both return
// float32 data in C (row-major) order and throw a clear error on a malformed
// file: the bytes are untrusted, so every size is checked against the file
// before anything is allocated. Pure JavaScript: they work before init().

import { transformsOf } from './model/description.mjs';
import { loadModelFromBytes } from './model/load.mjs';
import { readLoadOptions, withBudget } from './model/load-options.mjs';
import { readBudget } from './model/plan.mjs';
import { bytesOfInput, numelOf, parseSafetensors } from './model/safetensors.mjs';
import { WorkerModel } from './model/worker-model.mjs';
import { clipped, describe, lengthOf, MAX_NUMEL, quoted } from './runtime/args.mjs';
import { localFileReader, objectUrlResolver, startModelWorker } from './runtime/runtime.mjs';
import { tensor } from './tensors/tensor.mjs';

export { GraphModule } from './model/graph-module.mjs';
export { loadModelAsync } from './model/load.mjs';
export { clearCache } from './model/model-cache.mjs';
export { readVideoFrames } from './transforms/video-clip.mjs';
export { WorkerModel };

// NIfTI reading and writing load on first use, from their own module beside
// the glues (dist/qwasm.nifti.mjs, built from volumes/nifti.mjs by
// scripts/package.mjs): a bundler emits it as a chunk of its own, so an app
// that reads no volume does not carry it.
const nifti = () => import('../../dist/qwasm.nifti.mjs');

// What the model client (dist/qwasm.model-client.mjs, built from
// model/model-client.mjs, loaded on first use) uses of the library: what holds
// state is the library's own, never a copy in the client's bundle.
const WORKER_DEPS = Object.freeze({
  WorkerModel,
  startModelWorker,
  localFileReader,
  objectUrlResolver,
  transformsOf,
  readLoadOptions,
  withBudget,
  readBudget,
  tensor,
});

/** Documented at io.readNifti (web/declarations/io.d.ts). */
export async function readNifti(input, options) {
  return (await nifti()).readNifti(input, options);
}

/** Documented at io.writeNifti (web/declarations/io.d.ts). */
export async function writeNifti(volume, options) {
  return (await nifti()).writeNifti(volume, options);
}

/**
 * Documented at io.loadModel (web/declarations/io.d.ts).
 * @param {ArrayBuffer | ArrayBufferView} input
 * @param {{maxActivationBytes?: number, maxLiveBytes?: number, maxWork?: number, winograd?: 'auto' | boolean, worker?: boolean, onProgress?: (loaded: number, total: number | null) => void, numThreads?: number, locateFile?: (file: string) => string | URL, signal?: AbortSignal}} [options]
 * @returns {any}
 */
export function loadModel(input, options) {
  return asksForWorker(options)
    ? import('../../dist/qwasm.model-client.mjs').then((client) =>
        client.loadModelInWorker(input, options, WORKER_DEPS),
      )
    : loadModelFromBytes(input, options);
}

/**
 * options.worker === true, read without throwing: it decides which call
 * reads the options (and reports a hostile options object).
 */
function asksForWorker(options) {
  try {
    return options !== null && typeof options === 'object' && options.worker === true;
  } catch {
    return false;
  }
}

// The first few names of a list, quoted and cut short.
const listNames = (names) =>
  names.length === 0
    ? 'none'
    : `${names
        .slice(0, 10)
        .map((k) => quoted(k))
        .join(', ')}${names.length > 10 ? ` and ${names.length - 10} more` : ''}`;

// float16 bits -> number
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}

const NPY_TYPES = new Map([
  ['f4', { size: 4, read: (v, o, le) => v.getFloat32(o, le), name: 'float32' }],
  ['f8', { size: 8, read: (v, o, le) => v.getFloat64(o, le), name: 'float64' }],
  ['f2', { size: 2, read: (v, o, le) => halfToFloat(v.getUint16(o, le)), name: 'float16' }],
]);

/**
 * Documented at io.loadNpy (web/declarations/io.d.ts).
 * @param {ArrayBuffer | ArrayBufferView} input
 * @returns {import('../index.js').NpyTensor}
 */
export function loadNpy(input) {
  const ctx = 'io.loadNpy(bytes)';
  const bytes = bytesOfInput(input, ctx);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || !magic.every((b, i) => bytes[i] === b)) {
    throw new Error(`${ctx}: not a .npy file (it does not start with the \\x93NUMPY magic)`);
  }
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`${ctx}: unsupported .npy format version ${major}.${bytes[7]}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerStart = major === 1 ? 10 : 12;
  if (headerStart > bytes.length) throw new Error(`${ctx}: truncated file: the header length is cut off`);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerStart + headerLen > bytes.length) {
    throw new Error(
      `${ctx}: truncated file: the header says ${headerLen} bytes but only ${bytes.length - headerStart} follow`,
    );
  }
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(
    bytes.subarray(headerStart, headerStart + headerLen),
  );
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header);
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header);
  const shapeMatch = /'shape'\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shapeMatch)
    throw new Error(`${ctx}: malformed header: ${JSON.stringify(header.trim().slice(0, 200))}`);
  const order = descr[1][0];
  const type = NPY_TYPES.get(descr[1].slice(1));
  if (type === undefined || !'<>|='.includes(order) || order === undefined) {
    throw new Error(
      `${ctx}: unsupported dtype ${quoted(descr[1])}: expected float32 ('<f4'), float64 ('<f8') or float16 ('<f2')`,
    );
  }
  if (fortran[1] === 'True')
    throw new Error(`${ctx}: Fortran-order arrays are not supported; save with np.ascontiguousarray(a)`);
  const dims = shapeMatch[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (dims.length > 64 || !dims.every((d) => /^\d{1,15}$/.test(d)))
    throw new Error(`${ctx}: malformed shape (${shapeMatch[1].slice(0, 100)})`);
  const shape = dims.map(Number);
  const n = numelOf(shape);
  if (n < 0) throw new RangeError(`${ctx}: shape [${shape.join(', ')}] holds more than ${MAX_NUMEL} elements`);
  const dataStart = headerStart + headerLen;
  const need = n * type.size;
  if (bytes.length - dataStart < need) {
    throw new Error(
      `${ctx}: truncated data: shape [${shape.join(', ')}] of ${type.name} needs ${need} bytes, the file has ${bytes.length - dataStart}`,
    );
  }
  const littleEndian = order !== '>';
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = type.read(view, dataStart + i * type.size, littleEndian);
  return { data, shape, dtype: /** @type {'float32' | 'float64' | 'float16'} */ (type.name) };
}

const ST_FLOAT_TYPES = new Map([
  ['F32', { size: 4, read: (v, o) => v.getFloat32(o, true) }],
  ['F64', { size: 8, read: (v, o) => v.getFloat64(o, true) }],
  ['F16', { size: 2, read: (v, o) => halfToFloat(v.getUint16(o, true)) }],
  ['BF16', { size: 2, read: (v, o) => new Float32Array(new Uint32Array([v.getUint16(o, true) << 16]).buffer)[0] }],
]);
/**
 * Documented at io.loadSafetensors (web/declarations/io.d.ts).
 * @param {ArrayBuffer | ArrayBufferView} input
 * @returns {import('../index.js').SafetensorsFile}
 */
export function loadSafetensors(input) {
  const ctx = 'io.loadSafetensors(bytes)';
  const { bytes, view, dataStart, tensors, metadata } = parseSafetensors(bytesOfInput(input, ctx), ctx);
  const fileLength = bytes.byteLength;
  return {
    tensors: [...tensors].map(([name, { dtype, shape }]) => ({ name, dtype, shape: shape.slice() })),
    metadata,
    get(name) {
      // get() reads the caller's buffer lazily: it must still be the one loaded.
      if (lengthOf(bytes) !== fileLength) {
        throw new Error(`${ctx}.get(name): the file's buffer was detached or resized since io.loadSafetensors read it`);
      }
      const t = typeof name === 'string' ? tensors.get(name) : undefined;
      if (t === undefined) {
        throw new RangeError(
          `${ctx}.get(name): no tensor named ${typeof name === 'string' ? quoted(name) : describe(name)}; the file has ${listNames([...tensors.keys()])}`,
        );
      }
      const type = ST_FLOAT_TYPES.get(t.dtype);
      if (type === undefined)
        throw new Error(
          `${ctx}.get(name): tensor ${quoted(name)} is ${clipped(t.dtype)}; only F32, F64, F16 and BF16 can be read as float`,
        );
      const n = (t.end - t.begin) / type.size;
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = type.read(view, dataStart + t.begin + i * type.size);
      return { data, shape: t.shape.slice() };
    },
  };
}
