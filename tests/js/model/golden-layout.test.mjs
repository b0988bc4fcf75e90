// The layout ops in exported models (tests/golden/layout.json, from PyTorch
// 2.15): permute, transpose, pad (constant, reflect, replicate, circular;
// negative pads), the no-op conversions torch.export keeps (to, type_as),
// squeeze / unsqueeze, slice / select / narrow, split / chunk (written as
// slices), expand, repeat, flip, stack and Dropout3d (eval).
// - "exact" cases: the ops alone, on floats (-0, NaN, +-Inf) and on the
//   integers of a quantized value (PT2E's dequantize -> op -> quantize with
//   shared qparams; the eager flow's QTensors): bit for bit with both ISAs.
// - "quantized model" cases: PT2E graphs with quantized convs between the ops,
//   and pytorchvideo's CSN: per layer at most 1 step on at most 1% of the
//   elements, end to end the top-1 class equal and every output within 2 steps
//   (the pt2e family's bounds, docs/numerics.md); the ops themselves are exact.
// - "segmentation": MONAI's HighResNet through PT2E, which needs the pads and
//   the x.to(device) conversions: it loads, its pads run on the integers, and
//   the per-voxel argmax is PyTorch's on most voxels. It misses issue 32's
//   bounds (argmax equal on >= 99.9% of voxels, every logit within 2 steps),
//   and not through these ops: each of its 21 quantized convs agrees with
//   PyTorch's reference within the pt2e family's per-layer bound (0 or 1
//   element 1 step off per layer, measured on both clips), but through its
//   dilated residual blocks those single steps spread (clip 1: 1 element off
//   after the third conv, 23% of the elements of the last block, 27% of the
//   logits, up to 8 steps; 32 of 4096 labels differ). That test is marked
//   failing (test.failing): it tells when the conv numerics close the gap.
import * as qwasm from '../../../web/src/index.node.mjs';
import { goldenFile } from '../golden-models.mjs';
import { decode, firstBitDifference, initGolden, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('layout.json');
const load = (c) => qwasm.io.loadModel(goldenFile(c.file));

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

// The clip both sides build: (byte - 128) / 64 from the seeded LCG.
function clip({ lcg, shape }) {
  const bytes = lcgBytes(
    lcg,
    shape.reduce((a, b) => a * b, 1),
  );
  return { data: Float32Array.from(bytes, (b) => (b - 128) / 64), shape };
}

// Each input of a case and PyTorch's output for it.
const runsOf = (c) =>
  c.clips ? c.clips.map((k) => [clip(k.input), k.y]) : [[{ data: decode(c.x), shape: c.x.shape }, c.y]];

const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);
const exact = golden.cases.filter((c) => c.kind === 'exact');
const quantizedModels = golden.cases.filter((c) => c.kind === 'quantized model');
const segmentation = golden.cases.filter((c) => c.kind === 'segmentation');

test('the golden file covers PT2E on the integers, PT2E float, eager float and int8, convs and CSN', () => {
  expect(golden.cases.map((c) => c.name.split(':')[0].split(' (')[0])).toEqual([
    'pt2e int8 ops',
    'pt2e int8 selection',
    'pt2e int8 convs with permute, transpose, pad, to, type_as between them',
    'pt2e float',
    'eager float',
    'pt2e float selection',
    'eager float selection',
    'eager int8 selection',
    'eager int8',
    'pytorchvideo CSN',
    'MONAI HighResNet',
  ]);
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(exact.map((c) => [c.name, c]))('%s: bit for bit', (_, c) => {
    qwasm.setKernelIsa(isa);
    const heap = qwasm.heapInUse();
    const model = load(c);
    try {
      for (const [x, want] of runsOf(c)) {
        const y = model.forward(x);
        expect({
          shape: y.shape,
          firstBitDifference: firstBitDifference(y.data, decode(want), { anyNaN: true }),
        }).toEqual({ shape: want.shape, firstBitDifference: -1 });
      }
    } finally {
      model.dispose();
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });

  test.each(quantizedModels.map((c) => [c.name, c]))('%s: top-1 equal, outputs within 2 steps', (name, c) => {
    qwasm.setKernelIsa(isa);
    const model = load(c);
    try {
      const step = c.output_qparams.scale;
      for (const [i, [x, wantArray]] of runsOf(c).entries()) {
        const y = model.forward(x);
        const want = decode(wantArray);
        const { steps, off } = stepsApart(y.data, want, step);
        console.log(`${name} (${isa}) clip ${i}: ${off} of ${want.length} outputs off, at most ${steps} steps`);
        const classes = wantArray.shape[1];
        const top1 = (a) =>
          Array.from({ length: a.length / classes }, (_, b) => argmax(a.subarray(b * classes, (b + 1) * classes)));
        expect({ shape: y.shape, top1: top1(y.data), within2Steps: steps <= 2 }).toEqual({
          shape: wantArray.shape,
          top1: top1(want),
          within2Steps: true,
        });
      }
    } finally {
      model.dispose();
    }
  });
});

// How far a quantized model's dequantized output is from PyTorch's, in output steps of `step`: the most
// (steps), and how many outputs differ at all (off).
function stepsApart(got, want, step) {
  let steps = 0;
  let off = 0;
  for (let j = 0; j < want.length; j++) {
    const d = Math.abs(Math.round(got[j] / step) - Math.round(want[j] / step));
    if (d > 0) off++;
    steps = Math.max(steps, d);
  }
  return { steps, off };
}

// Per voxel (batch b, spatial index v) of an [N, C, ...] output: the class with the largest logit.
function voxelArgmax(a, shape) {
  const [n, classes] = shape;
  const voxels = a.length / (n * classes);
  const out = new Int32Array(n * voxels);
  for (let b = 0; b < n; b++) {
    for (let v = 0; v < voxels; v++) {
      let best = 0;
      for (let k = 1; k < classes; k++) {
        if (a[(b * classes + k) * voxels + v] > a[(b * classes + best) * voxels + v]) best = k;
      }
      out[b * voxels + v] = best;
    }
  }
  return out;
}

// The agreement of a segmentation output with PyTorch's: logits off (in output steps) and voxel labels that differ.
function segmentationAgreement(c, isa) {
  qwasm.setKernelIsa(isa);
  const model = load(c);
  try {
    return runsOf(c).map(([x, wantArray]) => {
      const y = model.forward(x);
      const want = decode(wantArray);
      const step = c.output_qparams.scale;
      const { steps, off } = stepsApart(y.data, want, step);
      const got = voxelArgmax(y.data, y.shape);
      const expected = voxelArgmax(want, wantArray.shape);
      const differ = got.filter((v, k) => v !== expected[k]).length;
      return { shape: y.shape, want: wantArray.shape, steps, off, logits: want.length, differ, voxels: got.length };
    });
  } finally {
    model.dispose();
  }
}

describe.each(segmentation.map((c) => [c.name, c]))('%s', (name, c) => {
  test('loads: its pads run on the integers, its x.to(device) conversions are no nodes', () => {
    const model = load(c);
    try {
      const pads = model.nodes.filter((n) => n.target === 'pad');
      expect(pads.map((n) => n.output.dtype)).toEqual(['quint8', 'quint8']);
      expect(model.nodes.filter((n) => /^to(_\d+)?$/.test(n.name))).toEqual([]);
    } finally {
      model.dispose();
    }
  });

  test.each(['wasmsimd', 'scalar'])("the output has PyTorch's shape; the two ISAs agree (%s)", (isa) => {
    const runs = segmentationAgreement(c, isa);
    for (const [i, r] of runs.entries()) {
      console.log(
        `${name} (${isa}) clip ${i}: ${r.off} of ${r.logits} logits off (at most ${r.steps} steps), ` +
          `${r.differ} of ${r.voxels} voxel labels differ`,
      );
      expect(r.shape).toEqual(r.want);
    }
    if (isa === 'scalar') expect(runs).toEqual(segmentationAgreement(c, 'wasmsimd'));
  });

  // Issue 32's bounds, missed by the conv chain's spread (the header comment): passes while they are missed.
  test.failing("issue 32's bounds: the per-voxel argmax on >= 99.9% of voxels, every logit within 2 steps", () => {
    for (const r of segmentationAgreement(c, 'wasmsimd')) {
      expect({ labels: r.differ <= r.voxels / 1000, logits: r.steps <= 2 }).toEqual({ labels: true, logits: true });
    }
  });
});

test.each(quantizedModels.filter((c) => c.layers.length > 0).map((c) => [c.name, c]))(
  '%s: per layer on PyTorch quantized input, same qparams, at most 1 step on at most 1%%',
  (_, c) => {
    const model = load(c);
    try {
      for (const layer of c.layers) {
        const q = qwasm.makePerTensorQuantizedTensor(
          { data: decode(layer.input.ints), shape: layer.input.ints.shape },
          layer.input.scale,
          layer.input.zero_point,
        );
        const y = model.getSubmodule(layer.path).forward(q);
        const got = y.intRepr();
        const want = decode(layer.output.ints);
        let off = 0;
        let worst = 0;
        for (let i = 0; i < want.length; i++) {
          const d = Math.abs(got[i] - want[i]);
          if (d > 0) off++;
          worst = Math.max(worst, d);
        }
        expect({ path: layer.path, shape: y.shape, scale: y.qScale(), zeroPoint: y.qZeroPoint() }).toEqual({
          path: layer.path,
          shape: layer.output.shape,
          scale: layer.output.scale,
          zeroPoint: layer.output.zero_point,
        });
        expect({ path: layer.path, worstWithin1: worst <= 1, offWithin1Percent: off <= want.length / 100 }).toEqual({
          path: layer.path,
          worstWithin1: true,
          offWithin1Percent: true,
        });
        q.dispose();
        y.dispose();
      }
    } finally {
      model.dispose();
    }
  },
);

test('the layout ops of the PT2E graphs run on the integers: no dequantize before them', () => {
  for (const c of golden.cases.filter((k) => k.kind !== 'exact' || k.name.startsWith('pt2e int8'))) {
    const model = load(c);
    try {
      const nodes = model.nodes;
      // (an item of a split is a float slice of the dequantized value: what reads it stays float)
      const layoutNodes = nodes
        .filter((n) => !/^getitem/.test(n.args[0]?.node ?? ''))
        .filter((n) =>
          [
            'permute',
            'transpose',
            'pad',
            'squeeze',
            'unsqueeze',
            'select',
            'narrow',
            'expand',
            'repeat',
            'flip',
          ].includes(n.target),
        );
      expect(layoutNodes.length).toBeGreaterThan(0);
      for (const n of layoutNodes)
        expect({ node: n.name, output: n.output?.dtype }).toEqual({ node: n.name, output: 'quint8' });
    } finally {
      model.dispose();
    }
  }
});

test('the exporter refuses a real dtype change (x.to(torch.float64)), naming it', () => {
  expect(golden.refused_dtype_change).toMatch(/converts torch\.float32 to torch\.float64: qwasm computes in float32/);
});
