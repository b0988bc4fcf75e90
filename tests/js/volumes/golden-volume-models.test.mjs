// Models exported with the VolumeSegmentation record (tests/golden/volume.json
// "models": int8 segmenters from the eager flow and PT2E, exported by
// python/qwasm_export.py with qwasm_volume.RECORD and CLASSES): io.loadModel
// reads the record and the class names, model.transforms() is a
// VolumeSegmentation, and NIfTI file -> transforms().forward -> model ->
// transforms().labels gives PyTorch's logits and the Python twin's labels.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, loadGolden } from '../util.mjs';

const golden = loadGolden('volume.json');
const fileBytes = (file) => readFileSync(new URL(`../../golden/${file}`, import.meta.url));

beforeAll(async () => {
  await qwasm.init();
});

describe.each(golden.models.map((c) => [c.name, c]))('%s', (name, c) => {
  test("the file's record, classes and transforms()", () => {
    const model = qwasm.io.loadModel(fileBytes(c.file));
    try {
      expect(model.classes).toEqual(['background', 'grey matter', 'white matter']);
      expect(model.preprocessing).toEqual({
        orientation: 'RAS',
        spacing: [1, 1, 1],
        intensity: { kind: 'quantile', low: 0.01, high: 0.99 },
      });
      const t = model.transforms();
      expect(t).toBeInstanceOf(qwasm.transforms.VolumeSegmentation);
      expect(t.toJSON().transform).toBe('VolumeSegmentation');
    } finally {
      model.dispose();
    }
  });

  test("NIfTI in, labels out: PyTorch's logits bit for bit, the twin's labels", async () => {
    const model = qwasm.io.loadModel(fileBytes(c.file));
    try {
      const volume = await qwasm.io.readNifti(fileBytes(c.source));
      const t = model.transforms();
      const x = t.forward(volume);
      const y = model.forward(x);
      expect(y.shape).toEqual(c.logits.shape);
      const want = decode(c.logits);
      if (c.file.includes('eager')) {
        // the eager flow's int8 convs: qwasm's integers are FBGEMM's
        const at = firstBitDifference(y.data, want);
        if (at >= 0) console.log(`${name}: logit ${at} is ${y.data[at]}, PyTorch ${want[at]}`);
        expect(at).toBe(-1);
      } else {
        // PT2E's reference sums in float (docs/numerics.md, "PT2E graphs"): one output step on at most 1%
        let off = 0;
        for (let i = 0; i < want.length; i++) {
          const steps = Math.abs(y.data[i] - want[i]) / c.output_scale;
          expect(steps).toBeLessThan(1.001);
          if (steps > 0) off++;
        }
        console.log(`${name}: ${off} of ${want.length} logits one step of ${c.output_scale} off`);
        expect(off).toBeLessThanOrEqual(want.length / 100);
      }
      // the labels of PyTorch's logits are the twin's exactly; those of qwasm's here too (no tie moved)
      expect(
        Buffer.from(t.labels({ data: want, shape: c.logits.shape }, volume).data).equals(Buffer.from(decode(c.labels))),
      ).toBe(true);
      const labels = t.labels(y, volume);
      expect(Buffer.from(labels.data).equals(Buffer.from(decode(c.labels)))).toBe(true);
      const counts = [0, 0, 0];
      for (const l of labels.data) counts[l]++;
      expect(counts).toEqual(c.label_counts);
      expect(Math.min(...counts)).toBeGreaterThan(0); // the labels vary: the comparison is not of a constant
    } finally {
      model.dispose();
    }
  });

  test('the worker model reads the same record', async () => {
    const model = await qwasm.io.loadModel(fileBytes(c.file), { worker: true });
    try {
      expect(model.transforms()).toBeInstanceOf(qwasm.transforms.VolumeSegmentation);
      expect(model.preprocessing.spacing).toEqual([1, 1, 1]);
    } finally {
      await model.dispose();
    }
  }, 60_000);
});

// Each bad record the exporter refused (the generator's ExportError messages) names what is wrong.
test.each(
  Object.entries({
    'orientation LPS': /orientation must be 'RAS'/,
    'a negative spacing': /spacing must be 3 positive finite/,
    'quantiles out of order': /0 <= low < high <= 1/,
    'intensity kind zscore': /kind must be 'quantile'/,
    // (meshtrain's branch words the same check generically: either message names the count and the shape)
    'two class names for three channels': /2 class names for a.* output of shape \[1, 3, 11, 12, 10\]/,
    'an example input of 2 channels': /\[N, 1, X, Y, Z\]/,
  }),
)('the exporter refuses %s', (what, message) => {
  expect(golden.export_errors[what]).toMatch(message);
});

// The loader refuses the same records in a file's metadata (an edited header).
test.each([
  ['orientation LPS', { orientation: 'LPS' }, /orientation must be 'RAS'/],
  ['a zero spacing', { spacing: [1, 0, 1] }, /spacing must be 3 positive finite/],
  ['low equal to high', { intensity: { kind: 'quantile', low: 0.5, high: 0.5 } }, /0 <= low < high <= 1/],
  ['an unknown field', { crop_size: [1] }, /crop_size/],
])('the loader refuses a record with %s', (what, change, message) => {
  const bytes = new Uint8Array(fileBytes(golden.models[0].file));
  const headerLength = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  const record = { ...JSON.parse(header.__metadata__.preprocessing), ...change };
  header.__metadata__.preprocessing = JSON.stringify(record);
  const text = new TextEncoder().encode(JSON.stringify(header));
  const padded = new Uint8Array(Math.ceil(text.length / 8) * 8).fill(0x20);
  padded.set(text);
  const out = new Uint8Array(8 + padded.length + bytes.length - 8 - headerLength);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded.length), true);
  out.set(padded, 8);
  out.set(bytes.subarray(8 + headerLength), 8 + padded.length);
  expect(() => qwasm.io.loadModel(out)).toThrow(message);
});
