// io.readNifti and transforms.VolumeSegmentation against python/qwasm_volume.py
// (tests/golden/volume.json, files in tests/golden/volume/, written by nibabel):
// the same affine, RAS grid, float32 input bytes and labels on the stored grid.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('volume.json');
const fileBytes = (file) => readFileSync(new URL(`../../golden/${file}`, import.meta.url));

/** The logits the generator made: (byte - 128) / 16, NaN for byte 255. */
function logitsOf(seed, shape) {
  const n = 3 * shape[0] * shape[1] * shape[2];
  const bytes = lcgBytes(seed, n);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = bytes[i] === 255 ? NaN : (bytes[i] - 128) / 16;
  return { data, shape: [1, 3, ...shape] };
}

describe.each(golden.cases.map((c) => [c.name, c]))('%s', (name, c) => {
  let volume;
  beforeAll(async () => {
    volume = await qwasm.io.readNifti(fileBytes(c.file));
    console.log(`${name}: seed ${c.seed}`);
  });

  test("the header's dims, datatype and affine are nibabel's fields as Python reads them", () => {
    expect(volume.dims).toEqual(c.dims.slice(0, 3));
    expect(volume.datatype).toBe(c.datatype);
    expect(firstBitDifference(Float64Array.from(volume.affine), decode(c.affine))).toBe(-1);
  });

  test("the RAS grid is the twin's", () => {
    const g = new qwasm.transforms.VolumeSegmentation().grid(volume);
    expect(g.shape).toEqual(c.grid.shape);
    expect(g.from).toEqual(c.grid.from);
    expect(g.flip).toEqual(c.grid.flip);
    expect(g.resampled).toEqual(c.grid.resampled);
    expect(firstBitDifference(Float64Array.from(g.spacing), decode(c.grid.spacing))).toBe(-1);
    expect(firstBitDifference(Float64Array.from(g.affine), decode(c.grid.affine))).toBe(-1);
  });

  test('forward(volume) gives the float32 bytes of the Python twin', () => {
    const x = new qwasm.transforms.VolumeSegmentation().forward(volume);
    expect(x.shape).toEqual([1, 1, ...c.grid.shape]);
    const want = decode(c.x);
    const at = firstBitDifference(x.data, want);
    if (at >= 0) console.log(`${name}: element ${at} is ${x.data[at]}, Python ${want[at]}`);
    expect(at).toBe(-1);
  });

  test("labels(logits, volume) are the twin's on the stored grid, and survive writeNifti / readNifti", async () => {
    const t = new qwasm.transforms.VolumeSegmentation();
    const labels = t.labels(logitsOf(c.seed, c.grid.shape), volume);
    expect(labels.dims).toEqual(volume.dims);
    expect(Buffer.from(labels.data).equals(Buffer.from(decode(c.labels)))).toBe(true);
    for (const gzip of [false, true]) {
      const back = await qwasm.io.readNifti(await qwasm.io.writeNifti(labels, { gzip }));
      expect(back.datatype).toBe('uint8');
      expect(back.sclSlope).toBe(0);
      expect(Buffer.from(back.data).equals(Buffer.from(labels.data))).toBe(true);
      expect(back.affine).toEqual(volume.affine);
      expect([back.sformCode, back.qformCode]).toEqual([volume.sformCode, volume.qformCode]);
    }
  });
});

test('the goldens cover every datatype, the orientations and the header cases the brief names', () => {
  const types = new Set(golden.cases.map((c) => c.datatype));
  for (const t of ['uint8', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'float32', 'float64'])
    expect(types).toContain(t);
  const names = golden.cases.map((c) => c.name).join('\n');
  for (const part of ['LPS', 'LIA', 'oblique', 'scl_slope', 'big-endian', 'gzipped', 'no sform or qform', 'qform only'])
    expect(names).toContain(part);
  expect(golden.cases.some((c) => c.grid.resampled.some(Boolean))).toBe(true);
});

test('a Blob (a dropped File) reads as its bytes do, gzipped or not', async () => {
  const cases = golden.cases.filter((x) => ['volume/lps_uint8.nii', 'volume/pil_int8.nii.gz'].includes(x.file));
  expect(cases.length).toBe(2);
  for (const c of cases) {
    const bytes = fileBytes(c.file);
    const fromBytes = await qwasm.io.readNifti(bytes);
    const fromBlob = await qwasm.io.readNifti(new Blob([bytes]));
    expect(fromBlob.dims).toEqual(fromBytes.dims);
    expect(fromBlob.affine).toEqual(fromBytes.affine);
    expect(Buffer.from(fromBlob.data.buffer).equals(Buffer.from(fromBytes.data.buffer))).toBe(true);
  }
  await expect(qwasm.io.readNifti(new Blob([new Uint8Array(10)]))).rejects.toThrow(/readNifti/);
});
