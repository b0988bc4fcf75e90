// io.readNifti on hostile and malformed files: every refusal is an Error that
// names the field, and a random flip of any header byte gives a volume that is
// consistent with its bytes or an Error, never a crash, a hang or an
// allocation the file does not hold. Seeds are printed.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';

const { readNifti, writeNifti } = qwasm.io;
const golden = (file) => new Uint8Array(readFileSync(new URL(`../../golden/volume/${file}`, import.meta.url)));

async function validFile(dims = [4, 3, 2]) {
  const n = dims[0] * dims[1] * dims[2];
  const data = new Float32Array(n).map((_, i) => i - 5);
  const affine = [1, 0, 0, -2, 0, 1, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1];
  return writeNifti({ data, dims, affine });
}

/** A copy of bytes with the header field at `at` set (little-endian). */
function edit(bytes, at, kind, value) {
  const out = bytes.slice();
  const v = new DataView(out.buffer);
  if (kind === 'i16') v.setInt16(at, value, true);
  else if (kind === 'i32') v.setInt32(at, value, true);
  else if (kind === 'f32') v.setFloat32(at, value, true);
  else out.set(value, at);
  return out;
}

async function gzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const CASES = [
  ['NIfTI-2 (sizeof_hdr 540)', (b) => edit(b, 0, 'i32', 540), /NIfTI-2/],
  ['not NIfTI (sizeof_hdr 100)', (b) => edit(b, 0, 'i32', 100), /sizeof_hdr is 100/],
  [
    'the header of a .hdr/.img pair (magic ni1)',
    (b) => edit(b, 344, 'bytes', [0x6e, 0x69, 0x31, 0]),
    /\.hdr\/\.img pair/,
  ],
  ['Analyze 7.5 (no magic)', (b) => edit(b, 344, 'bytes', [0, 0, 0, 0]), /Analyze/],
  ['dim[0] = 0', (b) => edit(b, 40, 'i16', 0), /dim\[0\] must be 1 to 7/],
  ['dim[0] = 8', (b) => edit(b, 40, 'i16', 8), /dim\[0\] must be 1 to 7/],
  ['a 2-D image', (b) => edit(b, 40, 'i16', 2), /a volume has 3 dimensions/],
  ['a time series (dim[4] = 3)', (b) => edit(edit(b, 40, 'i16', 4), 48, 'i16', 3), /time series/],
  ['dim[2] = -1', (b) => edit(b, 44, 'i16', -1), /dim\[2\] must be positive/],
  ['datatype complex64', (b) => edit(b, 70, 'i16', 32), /complex64/],
  ['datatype RGB24', (b) => edit(b, 70, 'i16', 128), /RGB24/],
  ['datatype int64', (b) => edit(b, 70, 'i16', 1024), /int64/],
  ['an unknown datatype code', (b) => edit(b, 70, 'i16', 3), /code 3/],
  ['bitpix inconsistent with the datatype', (b) => edit(b, 72, 'i16', 16), /bitpix 16/],
  ['pixdim[2] NaN', (b) => edit(b, 84, 'f32', NaN), /pixdim\[2\] must be finite/],
  ['pixdim[1] = 0', (b) => edit(b, 80, 'f32', 0), /pixdim\[1\].*positive/],
  ['vox_offset 0', (b) => edit(b, 108, 'f32', 0), /vox_offset/],
  ['vox_offset 352.5', (b) => edit(b, 108, 'f32', 352.5), /vox_offset/],
  ['vox_offset past the data', (b) => edit(b, 108, 'f32', 400), /truncated file/],
  ['dims larger than the data', (b) => edit(b, 42, 'i16', 40), /truncated file/],
  [
    'dims declaring 32767^3 float32 (above the 2 GiB limit)',
    (b) => edit(edit(edit(b, 42, 'i16', 32767), 44, 'i16', 32767), 46, 'i16', 32767),
    /above the limit/,
  ],
  ['scl_inter infinite with scl_slope set', (b) => edit(edit(b, 112, 'f32', 2), 116, 'f32', Infinity), /scl_inter/],
  ['sform_code 9', (b) => edit(b, 254, 'i16', 9), /sform_code/],
  ['a non-finite sform', (b) => edit(b, 284, 'f32', NaN), /srow/],
  ['a qform quaternion longer than 1', (b) => edit(b, 256, 'f32', 2), /quaternion/],
  ['a file of 3 bytes', (b) => b.slice(0, 3), /not a NIfTI file/],
  ['a header cut at 200 bytes', (b) => b.slice(0, 200), /truncated file/],
];

describe('refused headers', () => {
  let base;
  beforeAll(async () => {
    base = await validFile();
  });
  test.each(CASES)('%s', async (name, mutate, message) => {
    const bytes = mutate(base);
    await expect(readNifti(bytes)).rejects.toThrow(message);
    await expect(readNifti(await gzip(bytes))).rejects.toThrow(message); // the same through gzip
  });
});

test('arguments of the wrong type are TypeErrors', async () => {
  await expect(readNifti(42)).rejects.toThrow(TypeError);
  await expect(readNifti(new Uint8Array(400), { maxBytes: 10 })).rejects.toThrow(/maxBytes/);
  await expect(readNifti(new Uint8Array(400), { other: 1 })).rejects.toThrow(TypeError);
  await expect(writeNifti({ data: new Int16Array(8), dims: [2, 2, 2], affine: [] })).rejects.toThrow(/Uint8Array/);
  await expect(
    writeNifti({ data: new Uint8Array(7), dims: [2, 2, 2], affine: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] }),
  ).rejects.toThrow(/need 8/);
  await expect(
    writeNifti({ data: new Uint8Array(8), dims: [2, 2, 2], affine: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1] }),
  ).rejects.toThrow(/last row/);
  await expect(
    writeNifti({ data: new Uint8Array(8), dims: [2, 2, 2], affine: [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1] }),
  ).rejects.toThrow(/singular/);
});

test('maxBytes refuses a file above it before reading its data', async () => {
  const bytes = await validFile([20, 20, 20]);
  await expect(readNifti(bytes, { maxBytes: 10_000 })).rejects.toThrow(/above the limit of 10000/);
  expect((await readNifti(bytes, { maxBytes: 40_000 })).dims).toEqual([20, 20, 20]);
});

test('a gzip bomb is decompressed only up to the size its header declares', async () => {
  // a valid 4x3x2 header followed by 64 MiB of zeros: about 64 KB compressed
  const head = await validFile();
  const zeros = new Uint8Array(1 << 20);
  const parts = [head];
  for (let i = 0; i < 64; i++) parts.push(zeros);
  const bomb = new Uint8Array(
    await new Response(new Blob(parts).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer(),
  );
  const before = process.memoryUsage().arrayBuffers;
  const started = Date.now();
  const v = await readNifti(bomb);
  const ms = Date.now() - started;
  const grew = process.memoryUsage().arrayBuffers - before;
  console.log(`gzip bomb: ${bomb.length} bytes compressed, read in ${ms} ms, array buffers grew by ${grew} bytes`);
  expect(v.dims).toEqual([4, 3, 2]);
  expect(grew).toBeLessThan(16 << 20);
  // and one whose header declares more than it holds is truncated, not a 72 MB allocation
  const liar = await gzip(edit(edit(head, 42, 'i16', 3000), 44, 'i16', 3000));
  await expect(readNifti(liar)).rejects.toThrow(/truncated file/);
});

test('a corrupt gzip stream is an Error', async () => {
  const z = await gzip(await validFile());
  const bad = z.slice(0, 30);
  await expect(readNifti(bad)).rejects.toThrow(Error);
  const flipped = z.slice();
  flipped[12] ^= 0xff;
  await expect(readNifti(flipped)).rejects.toThrow(Error);
});

/** x = (1103515245 x + 12345) mod 2^31: the seedable generator of the fuzz below. */
function lcg(seed) {
  let x = seed;
  return () => {
    x = Number((1103515245n * BigInt(x) + 12345n) & 0x7fffffffn);
    return x >> 8;
  };
}

const FUZZ_SEED = 20261204;
describe.each([
  ['a little-endian float32 file written by writeNifti', null],
  ['the big-endian uint16 golden file (scl_slope set)', 'scaled_uint16_be.nii'],
  ['the LIA float32 golden file', 'lia_float32.nii'],
])('random header byte flips of %s', (name, file) => {
  test('give a consistent volume or an Error, never a crash', async () => {
    const base = file === null ? await validFile([6, 5, 4]) : golden(file);
    const next = lcg(FUZZ_SEED);
    console.log(`${name}: fuzz seed ${FUZZ_SEED}, 1500 files`);
    const transform = new qwasm.transforms.VolumeSegmentation();
    let refused = 0;
    for (let trial = 0; trial < 1500; trial++) {
      const bytes = base.slice();
      const flips = 1 + (next() % 4);
      for (let f = 0; f < flips; f++) bytes[next() % 352] ^= 1 << (next() % 8);
      let v;
      try {
        v = await readNifti(bytes);
      } catch (e) {
        expect(e).toBeInstanceOf(Error);
        refused++;
        continue;
      }
      expect(v.data.length).toBe(v.dims[0] * v.dims[1] * v.dims[2]);
      expect(v.data.byteLength).toBeLessThanOrEqual(bytes.length);
      try {
        const x = transform.forward(v);
        expect(x.data.length).toBe(x.shape.reduce((a, b) => a * b, 1));
      } catch (e) {
        expect(e).toBeInstanceOf(Error);
        expect(e.message).toMatch(/VolumeSegmentation/);
      }
    }
    console.log(`${name}: ${refused} of 1500 refused`);
    expect(refused).toBeGreaterThan(0);
  }, 60_000);
});
