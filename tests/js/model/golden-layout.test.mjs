// The layout ops in exported models (tests/golden/layout.json, from PyTorch
// 2.15): permute, transpose, pad (constant, reflect, replicate, circular;
// negative pads) and the no-op conversions torch.export keeps (to, type_as).
// - "exact" cases: the ops alone, on floats (-0, NaN, +-Inf) and on the
//   integers of a quantized value (PT2E's dequantize -> op -> quantize with
//   shared qparams; the eager flow's QTensors): bit for bit with both ISAs.
// - "quantized model" cases: PT2E graphs with quantized convs between the ops,
//   and pytorchvideo's CSN: per layer at most 1 step on at most 1% of the
//   elements, end to end the top-1 class equal and every output within 2 steps
//   (the pt2e family's bounds, docs/numerics.md); the ops themselves are exact.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, initGolden, lcgBytes, loadGolden } from '../util.mjs';

const golden = loadGolden('layout.json');
const fileOf = (name) => new Uint8Array(readFileSync(new URL(`../../golden/${name}`, import.meta.url)));
const load = (c) => qwasm.io.loadModel(fileOf(c.file));

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

test('the golden file covers PT2E on the integers, PT2E float, eager float and int8, convs and CSN', () => {
  expect(golden.cases.map((c) => c.name.split(':')[0].split(' (')[0])).toEqual([
    'pt2e int8 ops',
    'pt2e int8 convs with permute, transpose, pad, to, type_as between them',
    'pt2e float',
    'eager float',
    'eager int8',
    'pytorchvideo CSN',
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
        let steps = 0;
        let off = 0;
        for (let j = 0; j < want.length; j++) {
          const d = Math.abs(Math.round(y.data[j] / step) - Math.round(want[j] / step));
          if (d > 0) off++;
          steps = Math.max(steps, d);
        }
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
  for (const c of golden.cases.filter((k) => k.name.startsWith('pt2e int8') || k.name.startsWith('pytorchvideo'))) {
    const model = load(c);
    try {
      const nodes = model.nodes;
      const layoutNodes = nodes.filter((n) => ['permute', 'transpose', 'pad'].includes(n.target));
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
