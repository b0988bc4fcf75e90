// transforms.VolumeSegmentation's options and arguments, io.writeNifti's
// header, and (where python3 has nibabel) nibabel reading what writeNifti wrote.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as qwasm from '../../../web/src/index.node.mjs';

const { VolumeSegmentation } = qwasm.transforms;
const EYE = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function volumeOf(dims, affine = EYE, fill = (i) => i) {
  const data = new Int16Array(dims[0] * dims[1] * dims[2]).map((_, i) => fill(i));
  return { data, dims, affine };
}

test('the default record is the spec: RAS, 1 mm, quantiles 0.01 and 0.99', () => {
  expect(new VolumeSegmentation().toJSON()).toEqual({
    transform: 'VolumeSegmentation',
    orientation: 'RAS',
    spacing: [1, 1, 1],
    intensity: { kind: 'quantile', low: 0.01, high: 0.99 },
  });
});

test.each([
  ['orientation LPS', { orientation: 'LPS' }, TypeError],
  ['a zero spacing', { spacing: [1, 0, 1] }, RangeError],
  ['two spacings', { spacing: [1, 1] }, RangeError],
  ['an infinite spacing', { spacing: [1, Infinity, 1] }, RangeError],
  ['intensity kind zscore', { intensity: { kind: 'zscore', low: 0, high: 1 } }, TypeError],
  ['low above high', { intensity: { kind: 'quantile', low: 0.9, high: 0.1 } }, RangeError],
  ['high above 1', { intensity: { kind: 'quantile', low: 0, high: 1.5 } }, RangeError],
  ['an unknown option', { crop: 3 }, TypeError],
])('options: %s are refused', (name, options, kind) => {
  expect(() => new VolumeSegmentation(options)).toThrow(kind);
});

test('forward: quantiles of 0 and 1 map the minimum to 0 and the maximum to 1', () => {
  const t = new VolumeSegmentation({ intensity: { kind: 'quantile', low: 0, high: 1 } });
  const x = t.forward(volumeOf([4, 3, 2]));
  expect(x.shape).toEqual([1, 1, 4, 3, 2]);
  // RAS, C order: element (i, j, k) is stored voxel i + 4 j + 12 k, value / 23
  expect(x.data[1]).toBe(Math.fround(12 / 23));
  expect(x.data[2]).toBe(Math.fround(4 / 23));
  expect(x.data[23]).toBe(1);
  expect(x.data[0]).toBe(0);
});

test('forward refuses non-finite values, a singular affine, and volumes that are not volumes', () => {
  const t = new VolumeSegmentation();
  const f = { data: new Float32Array([1, NaN, 2, 3, 4, 5, 6, 7]), dims: [2, 2, 2], affine: EYE };
  expect(() => t.forward(f)).toThrow(/non-finite/);
  expect(() => t.forward(volumeOf([2, 2, 2], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]))).toThrow(/singular/);
  expect(() => t.forward({ data: new Int16Array(7), dims: [2, 2, 2], affine: EYE })).toThrow(/need 8/);
  expect(() => t.forward({ data: [1, 2], dims: [2, 1, 1], affine: EYE })).toThrow(TypeError);
  expect(() => t.forward(null)).toThrow(TypeError);
  const huge = [4000, 0, 0, 0, 0, 4000, 0, 0, 0, 0, 4000, 0, 0, 0, 0, 1];
  expect(() => t.forward(volumeOf([2, 2, 2], huge))).toThrow(/more than 268435456 voxels/);
});

test('labels: argmax takes the first maximum and NaN above all; wrong logits are refused', () => {
  const t = new VolumeSegmentation();
  const v = volumeOf([2, 1, 1]);
  // voxel 0: classes (1, 1, 0) -> 0; voxel 1: (0, NaN, 5) -> 1
  const logits = { data: new Float32Array([1, 0, 1, NaN, 0, 5]), shape: [1, 3, 2, 1, 1] };
  expect([...t.labels(logits, v).data]).toEqual([0, 1]);
  expect(() => t.labels({ data: new Float32Array(6), shape: [1, 3, 1, 2, 1] }, v)).toThrow(/\[1, C, 2, 1, 1\]/);
  expect(() => t.labels({ data: new Float64Array(6), shape: [1, 3, 2, 1, 1] }, v)).toThrow(/Float32Array/);
  expect(() => t.labels({ data: new Float32Array(514), shape: [1, 257, 2, 1, 1] }, v)).toThrow(/256 classes/);
});

test('writeNifti writes the affine into the sform and its quaternion into the qform', async () => {
  const c = Math.cos(0.1);
  const s = Math.sin(0.1);
  const affine = [0.9 * c, -1.1 * s, 0, 10, 0.9 * s, 1.1 * c, 0, -3, 0, 0, -1.5, 7, 0, 0, 0, 1];
  const data = new Float32Array(24).map((_, i) => i / 3);
  const back = await qwasm.io.readNifti(await qwasm.io.writeNifti({ data, dims: [4, 3, 2], affine }));
  expect([back.sformCode, back.qformCode]).toEqual([2, 2]);
  expect(back.datatype).toBe('float32');
  expect([...back.data]).toEqual([...data]);
  back.sform.forEach((v, i) => {
    expect(v).toBe(Math.fround(affine[i]));
  });
  back.qform.forEach((v, i) => {
    expect(Math.abs(v - affine[i])).toBeLessThan(1e-5);
  });
  expect(back.qfac).toBe(-1);
});

const hasNibabel = spawnSync('python3', ['-c', 'import nibabel'], { encoding: 'utf8' }).status === 0;
(hasNibabel ? test : test.skip)(
  'nibabel reads what writeNifti wrote: data, sform, qform (.nii and .nii.gz)',
  async () => {
    const work = mkdtempSync(join(tmpdir(), 'qwasm-nifti-'));
    try {
      const affine = [0, 0, -1.2, 50, -0.8, 0, 0, 20, 0, 1, 0, -30, 0, 0, 0, 1];
      const data = new Uint8Array(5 * 4 * 3).map((_, i) => i % 7);
      for (const gzip of [false, true]) {
        const file = join(work, gzip ? 'l.nii.gz' : 'l.nii');
        writeFileSync(file, await qwasm.io.writeNifti({ data, dims: [5, 4, 3], affine }, { gzip }));
        const r = spawnSync(
          'python3',
          [
            '-c',
            `import json, sys, nibabel, numpy as np
img = nibabel.load(sys.argv[1])
print(json.dumps({"data": np.asarray(img.dataobj).reshape(-1, order="F").tolist(), "dtype": str(img.get_data_dtype()),
  "shape": list(img.shape), "sform": img.get_sform().reshape(-1).tolist(), "qform": img.get_qform().reshape(-1).tolist(),
  "codes": [int(img.header["sform_code"]), int(img.header["qform_code"])]}))`,
            file,
          ],
          { encoding: 'utf8' },
        );
        expect(r.stderr).toBe('');
        const out = JSON.parse(r.stdout);
        expect(out.dtype).toBe('uint8');
        expect(out.shape).toEqual([5, 4, 3]);
        expect(out.data).toEqual([...data]);
        expect(out.codes).toEqual([2, 2]);
        out.sform.forEach((v, i) => {
          expect(v).toBe(Math.fround(affine[i]));
        });
        out.qform.forEach((v, i) => {
          expect(Math.abs(v - affine[i])).toBeLessThan(1e-5);
        });
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  },
  60_000,
);

test('readNifti fetches a URL, and names the HTTP status of a failed one', async () => {
  const { createServer } = await import('node:http');
  const { readFileSync } = await import('node:fs');
  const body = readFileSync(new URL('../../golden/volume/pil_int8.nii.gz', import.meta.url));
  const server = createServer((req, res) => {
    if (req.url === '/v.nii.gz') res.end(body);
    else {
      res.statusCode = 404;
      res.end('missing');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address();
    const v = await qwasm.io.readNifti(`http://127.0.0.1:${port}/v.nii.gz`);
    expect([v.dims, v.datatype]).toEqual([[8, 9, 7], 'int8']);
    await expect(qwasm.io.readNifti(new URL(`http://127.0.0.1:${port}/none.nii`))).rejects.toThrow(/HTTP 404/);
    await expect(qwasm.io.readNifti('brain.nii.gz')).rejects.toThrow(
      /could not fetch brain\.nii\.gz.*pass a file's bytes/,
    );
  } finally {
    server.close();
  }
});
