// The trained brain MeshNet (demo/data/, scripts/brain/train_meshnet.py: MNI152 2009 symmetric
// template, held-out axial slab) run by qwasm on a crop of the held-out slab, against PyTorch 2.15's int8
// outputs on the same crop (tests/golden/brain/meshnet-brain-crop.json: the normalised input and the integers of
// each flow's output quantize). PT2E: each voxel's class on >= 99.9% of the voxels, logits within 2 output
// steps (the bound of the README's PT2E recipe); PyTorch's eager flow: bit for bit.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, initGolden } from '../util.mjs';

const REPOSITORY = new URL('../../../', import.meta.url);
const golden = JSON.parse(readFileSync(new URL('tests/golden/brain/meshnet-brain-crop.json', REPOSITORY), 'utf8'));
const CLASSES = ['background', 'grey matter', 'white matter'];

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

// Each voxel's class: the first maximum over dimension 1 of [1, classes, ...] (torch.argmax).
function labels(data, classes) {
  const inner = data.length / classes;
  const out = new Uint8Array(inner);
  for (let v = 0; v < inner; v++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if (data[v + c * inner] > data[v + best * inner]) best = c;
    out[v] = best;
  }
  return out;
}

// PyTorch's dequantize of the output integers: float32((q - zero_point) * float32(scale)).
const dequantized = (q, scale, zeroPoint) =>
  Float32Array.from(q, (v) => Math.fround((v - zeroPoint) * Math.fround(scale)));

test('the golden crop lies in the held-out slab and holds every class', () => {
  expect(golden.cases.map((c) => c.name)).toEqual(['pt2e', 'eager']);
  const truth = decode(golden.crop_labels);
  expect(new Set(truth)).toEqual(new Set([0, 1, 2]));
  const [, , k] = golden.crop.origin;
  expect(k >= 80 && k + golden.crop.shape[2] <= 110).toBe(true); // scripts/brain/meshnet_data.py SLAB_LO, SLAB_HI
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s: qwasm gives PyTorch int8 on a held-out crop', (name, c) => {
    qwasm.setKernelIsa(isa);
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(new Uint8Array(readFileSync(new URL(c.file, REPOSITORY))));
    expect(model.classes).toEqual(CLASSES);
    const x = { data: decode(golden.x), shape: golden.x.shape };
    const y = model.forward(x);
    model.dispose();
    const want = dequantized(decode(c.q), c.scale, c.zero_point);
    expect(y.shape).toEqual([1, CLASSES.length, ...golden.crop.shape]);
    let same = 0;
    const got = labels(y.data, CLASSES.length);
    const wanted = labels(want, CLASSES.length);
    for (let v = 0; v < got.length; v++) same += got[v] === wanted[v];
    // Both outputs are dequantized integers of the same quantize: the difference in its steps.
    const q = decode(c.q);
    let maxSteps = 0;
    for (let i = 0; i < q.length; i++)
      maxSteps = Math.max(maxSteps, Math.abs(Math.round(y.data[i] / c.scale) + c.zero_point - q[i]));
    if (name === 'eager') {
      expect({ same: same / got.length, firstDifference: y.data.findIndex((v, i) => !Object.is(v, want[i])) }).toEqual({
        same: 1,
        firstDifference: -1,
      });
    } else {
      expect(same / got.length).toBeGreaterThanOrEqual(0.999);
      expect(maxSteps).toBeLessThanOrEqual(2);
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });
});
