// NIfTI-1 volumes in and out (io.readNifti / io.writeNifti): single-file
// NIfTI-1 (.nii), gzipped or not (.nii.gz, through the platform's
// DecompressionStream / CompressionStream). The header is untrusted input:
// every field the data depends on is checked, and every size in checked
// arithmetic against the bytes present before anything is allocated; a
// gzipped file is decompressed only up to the size its header declares.
// Pure JavaScript: works before init(), in Node.js and in browsers.

import { bytesOf, bytesOfBuffer, checkNotRevoked, describe, readOptions, typedArrayKind } from '../runtime/args.mjs';
import { affineToQuatern, qformMatrix, sformMatrix } from './geometry.mjs';

const HEADER_BYTES = 348;
/** The data of a single-file NIfTI-1 starts after the header and the 4 extension-flag bytes. */
const MIN_VOX_OFFSET = 352;
/** The largest file qwasm reads by default (bytes after decompression); options.maxBytes lowers it. */
export const MAX_NIFTI_BYTES = 2 ** 31 - 1;

// NIfTI-1 datatype codes: the ones a volume may hold, and the names of the others (refused by name).
const DATATYPES = new Map([
  [2, { name: 'uint8', bytes: 1, array: Uint8Array }],
  [4, { name: 'int16', bytes: 2, array: Int16Array }],
  [8, { name: 'int32', bytes: 4, array: Int32Array }],
  [16, { name: 'float32', bytes: 4, array: Float32Array }],
  [64, { name: 'float64', bytes: 8, array: Float64Array }],
  [256, { name: 'int8', bytes: 1, array: Int8Array }],
  [512, { name: 'uint16', bytes: 2, array: Uint16Array }],
  [768, { name: 'uint32', bytes: 4, array: Uint32Array }],
]);
const REFUSED_DATATYPES = new Map([
  [0, 'unknown (0)'],
  [1, 'binary (1)'],
  [32, 'complex64 (32)'],
  [128, 'RGB24 (128)'],
  [255, 'all (255)'],
  [1024, 'int64 (1024)'],
  [1280, 'uint64 (1280)'],
  [1536, 'float128 (1536)'],
  [1792, 'complex128 (1792)'],
  [2048, 'complex256 (2048)'],
  [2304, 'RGBA32 (2304)'],
]);
const CODE_OF = new Map([...DATATYPES].map(([code, t]) => [t.name, code]));

const hostLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The bytes of the argument (ArrayBuffer or typed array), or of the URL fetched. */
async function inputBytes(input, ctx) {
  checkNotRevoked(input, 'input', ctx);
  if (typeof input === 'string' || input instanceof URL) {
    let response;
    try {
      response = await fetch(input);
    } catch (e) {
      // Node.js fetches no file paths: the caller reads the file and passes its bytes
      throw new Error(
        `${ctx}: could not fetch ${String(input).slice(0, 200)} (${e?.message ?? e}); pass a file's bytes instead`,
      );
    }
    if (!response.ok) throw new Error(`${ctx}: fetching ${String(input)} gave HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  }
  if (input instanceof ArrayBuffer) return bytesOfBuffer(input, 'input', ctx);
  if (typedArrayKind(input) !== undefined) return bytesOf(input, 'input', ctx);
  // A dropped or chosen file (File is a Blob): its size is known before it is read.
  if (typeof Blob === 'function' && input instanceof Blob) {
    if (input.size > MAX_NIFTI_BYTES)
      throw new RangeError(`${ctx}: the file is ${input.size} bytes, more than ${MAX_NIFTI_BYTES} can be read`);
    return new Uint8Array(await input.arrayBuffer());
  }
  throw new TypeError(
    `${ctx}: expected the file's bytes (ArrayBuffer or typed array), a Blob or File, or a URL, got ${describe(input)}`,
  );
}

const isGzip = (b) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

/**
 * The first `limit(header)` bytes of a gzip stream: chunks are kept until the
 * header is in, then only up to the size it declares; the rest of the stream
 * is never decompressed, so a gzip bomb costs no more than the header says.
 */
async function gunzipBounded(bytes, limitOf, ctx) {
  if (typeof DecompressionStream !== 'function') {
    throw new Error(`${ctx}: this engine has no DecompressionStream: decompress the .nii.gz first`);
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const chunks = [];
  let have = 0;
  let limit = -1;
  try {
    for (;;) {
      let next;
      try {
        next = await reader.read();
      } catch (e) {
        throw new Error(`${ctx}: the gzip stream is corrupt or truncated (${e?.message ?? e})`);
      }
      if (next.done) break;
      const chunk = next.value;
      const room = limit < 0 ? chunk.length : Math.min(chunk.length, limit - have);
      chunks.push(room === chunk.length ? chunk : chunk.subarray(0, room));
      have += room;
      if (limit < 0 && have >= HEADER_BYTES) limit = limitOf(concat(chunks, have).subarray(0, HEADER_BYTES));
      if (limit >= 0 && have >= limit) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return concat(chunks, have);
}

function concat(chunks, total) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  chunks.length = 0;
  chunks.push(out);
  return out;
}

const magicOf = (b, at, n) => String.fromCharCode(...b.subarray(at, at + n));

/**
 * The header's fields, checked; `available` is how many bytes the file holds
 * (Infinity while a gzip stream is still being read). Every error names the field.
 */
function parseHeader(b, available, maxBytes, ctx) {
  if (b.length < 4) throw new Error(`${ctx}: not a NIfTI file: ${b.length} bytes, a NIfTI-1 header has 348`);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const sizeLE = view.getInt32(0, true);
  const sizeBE = view.getInt32(0, false);
  if (sizeLE === 540 || sizeBE === 540) {
    throw new Error(
      `${ctx}: this is a NIfTI-2 file (sizeof_hdr 540); qwasm reads NIfTI-1: convert it (e.g. nibabel.Nifti1Image(img.dataobj, img.affine))`,
    );
  }
  if (sizeLE !== HEADER_BYTES && sizeBE !== HEADER_BYTES) {
    throw new Error(
      `${ctx}: not a NIfTI-1 file: sizeof_hdr is ${sizeLE} (little-endian) / ${sizeBE} (big-endian), not 348`,
    );
  }
  if (b.length < HEADER_BYTES) throw new Error(`${ctx}: truncated file: ${b.length} bytes, the header alone has 348`);
  const le = sizeLE === HEADER_BYTES;
  const magic = magicOf(b, 344, 4);
  if (magic === 'ni1\0') {
    throw new Error(
      `${ctx}: this is the header of a .hdr/.img pair (magic 'ni1'); qwasm reads single-file NIfTI-1 (.nii): convert the pair (e.g. nibabel.save(nibabel.load('x.hdr'), 'x.nii'))`,
    );
  }
  if (magic !== 'n+1\0') {
    throw new Error(
      `${ctx}: not a NIfTI-1 file: the magic is ${JSON.stringify(magic)}, not 'n+1' (an Analyze 7.5 header has none); convert it to .nii`,
    );
  }
  const i16 = (at) => view.getInt16(at, le);
  const f32 = (at) => view.getFloat32(at, le);
  const dim = Array.from({ length: 8 }, (_, i) => i16(40 + 2 * i));
  const rank = dim[0];
  if (rank < 1 || rank > 7) throw new Error(`${ctx}: dim[0] must be 1 to 7 (the number of dimensions), got ${rank}`);
  for (let i = 1; i <= rank; i++) {
    if (dim[i] < 1) throw new Error(`${ctx}: dim[${i}] must be positive, got ${dim[i]}`);
  }
  if (rank < 3) throw new Error(`${ctx}: a volume has 3 dimensions; this file has ${rank} (dim[0] = ${rank})`);
  for (let i = 4; i <= rank; i++) {
    if (dim[i] !== 1) {
      throw new Error(
        `${ctx}: a volume has 3 dimensions; this file has ${rank} with dim[${i}] = ${dim[i]} (a time series or vector image): take one volume out first`,
      );
    }
  }
  const code = i16(70);
  const type = DATATYPES.get(code);
  if (type === undefined) {
    const name = REFUSED_DATATYPES.get(code) ?? `code ${code}`;
    throw new Error(
      `${ctx}: datatype ${name} is not supported; volumes may be uint8, int8, int16, uint16, int32, uint32, float32 or float64`,
    );
  }
  const bitpix = i16(72);
  if (bitpix !== type.bytes * 8) {
    throw new Error(`${ctx}: bitpix ${bitpix} does not match datatype ${type.name} (${type.bytes * 8} bits)`);
  }
  const pixdim = Array.from({ length: 8 }, (_, i) => f32(76 + 4 * i));
  for (let i = 0; i <= rank; i++) {
    if (!Number.isFinite(pixdim[i])) throw new Error(`${ctx}: pixdim[${i}] must be finite, got ${pixdim[i]}`);
  }
  for (let i = 1; i <= 3; i++) {
    if (!(pixdim[i] > 0)) throw new Error(`${ctx}: pixdim[${i}] (a voxel size) must be positive, got ${pixdim[i]}`);
  }
  const voxOffset = f32(108);
  if (!Number.isInteger(voxOffset) || voxOffset < MIN_VOX_OFFSET) {
    throw new Error(
      `${ctx}: vox_offset must be a whole number of bytes from 352 (where a single-file NIfTI-1's data may start), got ${voxOffset}`,
    );
  }
  // At most 3 * 32767 voxels per side product: below 2^45, exact in a double; then checked against the limits.
  const dims = [dim[1], dim[2], dim[3]];
  const numel = dims[0] * dims[1] * dims[2];
  const dataBytes = numel * type.bytes;
  const total = voxOffset + dataBytes;
  if (total > maxBytes) {
    throw new RangeError(
      `${ctx}: the header declares ${dims.join('x')} ${type.name} voxels at offset ${voxOffset}, ${total} bytes, above the limit of ${maxBytes}`,
    );
  }
  if (total > available) {
    throw new Error(
      `${ctx}: truncated file: the header declares ${dims.join('x')} ${type.name} voxels at offset ${voxOffset} (${total} bytes), the file has ${available}`,
    );
  }
  const sclSlope = f32(112);
  const sclInter = f32(116);
  const scaled = sclSlope !== 0 && Number.isFinite(sclSlope);
  if (scaled && !Number.isFinite(sclInter)) {
    throw new Error(`${ctx}: scl_inter must be finite when scl_slope (${sclSlope}) is set, got ${sclInter}`);
  }
  const qformCode = i16(252);
  const sformCode = i16(254);
  if (qformCode < 0 || qformCode > 4) throw new Error(`${ctx}: qform_code must be 0 to 4, got ${qformCode}`);
  if (sformCode < 0 || sformCode > 4) throw new Error(`${ctx}: sform_code must be 0 to 4, got ${sformCode}`);
  const quatern = [256, 260, 264].map(f32);
  const qoffset = [268, 272, 276].map(f32);
  const srow = [280, 296, 312].map((at) => [0, 1, 2, 3].map((k) => f32(at + 4 * k)));
  const qfac = pixdim[0] < 0 ? -1 : 1; // nifti1_io: 0 (unset) counts as 1
  let qform = null;
  if (qformCode > 0) {
    if (![...quatern, ...qoffset].every(Number.isFinite)) {
      throw new Error(`${ctx}: the qform's quatern_b/c/d and qoffset_x/y/z must be finite`);
    }
    const [qb, qc, qd] = quatern;
    if (qb * qb + qc * qc + qd * qd > 1 + 1e-6) {
      throw new Error(`${ctx}: the qform's quaternion (b, c, d) = (${quatern.join(', ')}) has a length above 1`);
    }
    qform = qformMatrix(qb, qc, qd, ...qoffset, pixdim[1], pixdim[2], pixdim[3], qfac);
  }
  let sform = null;
  if (sformCode > 0) {
    if (!srow.flat().every(Number.isFinite)) throw new Error(`${ctx}: the sform's srow_x/y/z must be finite`);
    sform = sformMatrix(srow);
  }
  const diagonal = [pixdim[1], 0, 0, 0, 0, pixdim[2], 0, 0, 0, 0, pixdim[3], 0, 0, 0, 0, 1];
  return {
    le,
    type,
    dims,
    numel,
    voxOffset,
    dataBytes,
    total,
    pixdim: [pixdim[1], pixdim[2], pixdim[3]],
    qfac,
    sclSlope,
    sclInter,
    qformCode,
    sformCode,
    quatern,
    qoffset,
    qform,
    sform,
    affine: sform ?? qform ?? diagonal,
    xyztUnits: b[123],
  };
}

function readLimit(options, ctx) {
  const o = readOptions(options, ['maxBytes'], ctx);
  const max = o.get('maxBytes') ?? MAX_NIFTI_BYTES;
  if (!Number.isInteger(max) || max < MIN_VOX_OFFSET || max > MAX_NIFTI_BYTES) {
    throw new RangeError(
      `${ctx}: options.maxBytes must be an integer from 352 to ${MAX_NIFTI_BYTES}, got ${describe(max)}`,
    );
  }
  return max;
}

/** Documented at io.readNifti (web/declarations/io.d.ts). */
export async function readNifti(input, options) {
  const ctx = 'io.readNifti(input)';
  const maxBytes = readLimit(options, ctx);
  let bytes = await inputBytes(input, ctx);
  if (isGzip(bytes)) {
    bytes = await gunzipBounded(bytes, (head) => parseHeader(head, Infinity, maxBytes, ctx).total, ctx);
  }
  const h = parseHeader(bytes, bytes.length, maxBytes, ctx);
  // Copied (aligned, and the caller's buffer may change), then put in this machine's byte order.
  const raw = bytes.slice(h.voxOffset, h.voxOffset + h.dataBytes);
  if (h.le !== hostLittleEndian && h.type.bytes > 1) {
    const n = h.type.bytes;
    for (let at = 0; at < raw.length; at += n) raw.subarray(at, at + n).reverse();
  }
  const data = new h.type.array(raw.buffer, 0, h.numel);
  return {
    dims: h.dims,
    datatype: h.type.name,
    data,
    pixdim: h.pixdim,
    affine: h.affine,
    sformCode: h.sformCode,
    sform: h.sform,
    qformCode: h.qformCode,
    qform: h.qform,
    quatern: h.quatern,
    qoffset: h.qoffset,
    qfac: h.qfac,
    sclSlope: h.sclSlope,
    sclInter: h.sclInter,
    xyztUnits: h.xyztUnits,
    littleEndian: h.le,
  };
}

function readAffine(v, name, ctx) {
  if (!Array.isArray(v) || v.length !== 16 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new TypeError(`${ctx}: ${name} must be 16 finite numbers (a 4x4 matrix, row by row), got ${describe(v)}`);
  }
  if (v[12] !== 0 || v[13] !== 0 || v[14] !== 0 || v[15] !== 1) {
    throw new RangeError(`${ctx}: ${name}'s last row must be 0, 0, 0, 1, got ${v.slice(12).join(', ')}`);
  }
  return v.slice();
}

/** Documented at io.writeNifti (web/declarations/io.d.ts). */
export async function writeNifti(volume, options) {
  const ctx = 'io.writeNifti(volume)';
  checkNotRevoked(volume, 'volume', ctx);
  if (volume === null || typeof volume !== 'object') {
    throw new TypeError(`${ctx}: volume must be {data, dims, affine}, got ${describe(volume)}`);
  }
  const o = readOptions(options, ['gzip'], ctx);
  const gzip = o.get('gzip') ?? false;
  if (typeof gzip !== 'boolean') throw new TypeError(`${ctx}: options.gzip must be a boolean, got ${describe(gzip)}`);
  const { data, dims, affine, sformCode, qformCode, quatern, qoffset, qfac, pixdim, xyztUnits } = volume;
  const kind = typedArrayKind(data);
  const datatype = kind === 'Uint8Array' ? 'uint8' : kind === 'Float32Array' ? 'float32' : null;
  if (datatype === null)
    throw new TypeError(`${ctx}: volume.data must be a Uint8Array (labels) or Float32Array, got ${describe(data)}`);
  if (!Array.isArray(dims) || dims.length !== 3 || !dims.every((d) => Number.isInteger(d) && d >= 1 && d <= 32767)) {
    throw new TypeError(`${ctx}: volume.dims must be 3 integers from 1 to 32767, got ${describe(dims)}`);
  }
  const src = bytesOf(data, 'volume.data', ctx);
  const numel = dims[0] * dims[1] * dims[2];
  const elementBytes = datatype === 'uint8' ? 1 : 4;
  if (src.length !== numel * elementBytes) {
    throw new RangeError(
      `${ctx}: volume.data holds ${src.length / elementBytes} values, dims ${dims.join('x')} need ${numel}`,
    );
  }
  if (MIN_VOX_OFFSET + src.length > MAX_NIFTI_BYTES)
    throw new RangeError(`${ctx}: the file would exceed ${MAX_NIFTI_BYTES} bytes`);
  const A = readAffine(affine, 'volume.affine', ctx);
  // The qform: the volume's own (as read) when it has one, else the affine's quaternion.
  let q;
  if (Array.isArray(quatern) && Array.isArray(qoffset) && Array.isArray(pixdim) && qformCode !== undefined) {
    q = { b: quatern[0], c: quatern[1], d: quatern[2], qoffset, pixdim, qfac: qfac ?? 1 };
  } else {
    q = affineToQuatern(A);
    if (q === null) throw new RangeError(`${ctx}: volume.affine is singular`);
  }
  const numbers = [q.b, q.c, q.d, ...q.qoffset, ...q.pixdim, q.qfac];
  if (!numbers.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new TypeError(`${ctx}: volume's quatern, qoffset, pixdim and qfac must be finite numbers`);
  }
  const codes = { sform: sformCode ?? 2, qform: qformCode ?? 2 };
  for (const [name, c] of Object.entries(codes)) {
    if (!Number.isInteger(c) || c < 0 || c > 4)
      throw new RangeError(`${ctx}: volume.${name}Code must be 0 to 4, got ${describe(c)}`);
  }
  const out = new Uint8Array(MIN_VOX_OFFSET + src.length);
  const view = new DataView(out.buffer);
  view.setInt32(0, HEADER_BYTES, true);
  out[38] = 'r'.charCodeAt(0); // regular: as nibabel writes
  const dim = [3, dims[0], dims[1], dims[2], 1, 1, 1, 1];
  for (let i = 0; i < 8; i++) view.setInt16(40 + 2 * i, dim[i], true);
  view.setInt16(70, CODE_OF.get(datatype), true);
  view.setInt16(72, elementBytes * 8, true);
  const pixdimField = [q.qfac < 0 ? -1 : 1, ...q.pixdim, 1, 1, 1, 1];
  for (let i = 0; i < 8; i++) view.setFloat32(76 + 4 * i, pixdimField[i], true);
  view.setFloat32(108, MIN_VOX_OFFSET, true);
  // scl_slope 0: the values are the labels (or floats) themselves
  out[123] = Number.isInteger(xyztUnits) && xyztUnits >= 0 && xyztUnits < 256 ? xyztUnits : 2; // mm
  view.setInt16(252, codes.qform, true);
  view.setInt16(254, codes.sform, true);
  const qform = [q.b, q.c, q.d, ...q.qoffset];
  for (let i = 0; i < 6; i++) view.setFloat32(256 + 4 * i, qform[i], true);
  for (let r = 0; r < 3; r++) for (let k = 0; k < 4; k++) view.setFloat32(280 + 16 * r + 4 * k, A[4 * r + k], true);
  out.set([0x6e, 0x2b, 0x31, 0], 344); // 'n+1\0'
  if (elementBytes === 1 || hostLittleEndian) {
    out.set(src, MIN_VOX_OFFSET);
  } else {
    const f = new Float32Array(src.buffer, src.byteOffset, numel);
    for (let i = 0; i < numel; i++) view.setFloat32(MIN_VOX_OFFSET + 4 * i, f[i], true);
  }
  if (!gzip) return out;
  if (typeof CompressionStream !== 'function')
    throw new Error(`${ctx}: this engine has no CompressionStream: write .nii`);
  const stream = new Blob([out]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
