// Float transposed convolutions in exported models (tests/golden/conv_transpose.json,
// from PyTorch 2.15): nn.ConvTranspose1d / 2d / 3d layers across strides,
// paddings, output paddings, groups and dilations, and a U-Net decoder block of
// MONAI's blocks through the eager flow, torch.export and PT2E; and single
// transposed convs quantized by PT2E (int8 with QwasmQuantizer).
//
// PyTorch sums a transposed conv's float32 products in its own order; qwasm
// sums the exact products in float64 and rounds once (docs/numerics.md,
// "Transposed convolution"). The bounds tested, per output element:
// - against the exact sum (PyTorch's layer in float64): within 1 ulp, and
//   equal to its float32 rounding unless the two are 1 ulp apart;
// - against PyTorch's float32: within terms * 2^-24 * sum|terms| (the
//   classic bound of a float32 sum of `terms` terms, which PyTorch's obeys).
import * as qwasm from '../../../web/src/index.node.mjs';
import { goldenFile, headerOf, runGoldenModel, withGraph } from '../golden-models.mjs';
import { decode, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('conv_transpose.json');
const layers = golden.cases.filter((c) => c.name.startsWith('layer: '));
const decoders = golden.cases.filter((c) => c.name.startsWith('decoder: '));
const pt2e = golden.cases.filter((c) => c.name.startsWith('pt2e: '));
const monai = golden.cases.filter((c) => c.name.startsWith('monai: '));

// Outputs more than `steps` output steps from PyTorch's, and the most steps.
function stepsOff(got, want, scale) {
  let off = 0;
  let worst = 0;
  for (let i = 0; i < got.length; i++) {
    const steps = Math.round(Math.abs(got[i] - want[i]) / scale);
    worst = Math.max(worst, steps);
    if (steps !== 0) off++;
  }
  return { off, worst };
}

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

// The spacing of float32 values at |v| (subnormals: 2^-149).
function ulp32(v) {
  const a = Math.abs(v);
  if (a < 2 ** -126) return 2 ** -149;
  return 2 ** (Math.floor(Math.log2(a)) - 23);
}

function run(c) {
  const y = runGoldenModel(qwasm, c);
  expect(y.shape).toEqual(c.y.shape);
  return y.data;
}

test('the golden file has the layers and the decoder blocks', () => {
  expect(layers.length).toBe(12);
  expect(decoders.map((c) => c.name)).toEqual([
    'decoder: MONAI blocks, float, eager flow',
    'decoder: MONAI blocks, float, torch.export',
    'decoder: MONAI blocks, PT2E with QwasmQuantizer',
  ]);
  expect(pt2e.length).toBe(4);
  expect(monai.length).toBe(4);
});

describe('one layer against PyTorch', () => {
  test.each(layers.map((c) => [c.name.slice('layer: '.length), c]))('%s', (_, c) => {
    const got = run(c);
    const torch32 = decode(c.y);
    const exact = decode(c.y64);
    const magnitude = decode(c.yabs);
    let equalExactRounding = 0;
    let equalTorch = 0;
    let worstTorchUlps = 0;
    const outside = [];
    for (let i = 0; i < got.length; i++) {
      const q = got[i];
      const e = exact[i];
      // The float64 sums' own error (qwasm's and PyTorch's float64 layer): each below terms * 2^-53 * sum|terms|.
      const f64 = 2 * c.terms * 2 ** -53 * magnitude[i];
      if (!(Math.abs(q - e) <= ulp32(Math.max(Math.abs(q), Math.abs(e))) + f64)) outside.push([i, 'exact', q, e]);
      if (q === Math.fround(e)) equalExactRounding++;
      else if (Math.abs(q - Math.fround(e)) > ulp32(Math.max(Math.abs(q), Math.abs(e))))
        outside.push([i, '1ulp', q, e]);
      const t = torch32[i];
      if (!(Math.abs(q - t) <= c.terms * 2 ** -24 * magnitude[i])) outside.push([i, 'torch', q, t]);
      if (q === t) equalTorch++;
      worstTorchUlps = Math.max(worstTorchUlps, Math.abs(q - t) / ulp32(t));
    }
    expect(outside.slice(0, 5)).toEqual([]);
    // What is measured (docs/numerics.md quotes these): qwasm equals the exact sum's float32 rounding almost
    // always; PyTorch's float32 sum, less often.
    console.log(
      `${c.name}: ${got.length} outputs, ${equalExactRounding} equal to the rounded exact sum, ${equalTorch} equal to PyTorch's float32, worst ${worstTorchUlps.toFixed(1)} ulp from PyTorch's`,
    );
    expect(equalExactRounding).toBeGreaterThanOrEqual(got.length - 1);
  });
});

describe('a U-Net decoder block of MONAI blocks', () => {
  test.each(decoders.slice(0, 2).map((c) => [c.name.slice('decoder: '.length), c]))('%s', (_, c) => {
    const got = run(c);
    const torch32 = decode(c.y);
    const exact = decode(c.y64);
    let worstTorch = 0;
    let worstExact = 0;
    for (let i = 0; i < got.length; i++) {
      worstTorch = Math.max(worstTorch, Math.abs(got[i] - torch32[i]) / Math.max(1, Math.abs(torch32[i])));
      worstExact = Math.max(worstExact, Math.abs(got[i] - exact[i]) / Math.max(1, Math.abs(exact[i])));
    }
    // Float32 through five layers (its convs, BatchNorms, adds): PyTorch's float32 and qwasm's each stray from
    // the float64 model by float rounding, well below 1e-5 relative.
    expect(worstExact).toBeLessThan(1e-5);
    expect(worstTorch).toBeLessThan(1e-5);
  });

  test.each(['wasmsimd', 'scalar'])(
    'PT2E with QwasmQuantizer: int8 convs and transposed convs, within one output step (%s kernels)',
    (isa) => {
      qwasm.setKernelIsa(isa);
      const c = decoders[2];
      const { graph } = headerOf(goldenFile(c.file));
      expect(Object.values(graph.modules).filter((m) => m.type === 'QuantizedConvTranspose').length).toBe(2);
      const { off, worst } = stepsOff(run(c), decode(c.y), graph.modules.head.scale);
      // The int8 layers' exact sums against PT2E's float reference: at most one step, on at most 1% of the
      // outputs (as for PT2E's convs).
      expect(worst).toBeLessThanOrEqual(1);
      expect(off).toBeLessThanOrEqual(Math.floor(decode(c.y).length / 100));
    },
  );
});

// One transposed conv quantized by PT2E: the output is the layer's own integers, against PT2E's float
// reference (dequantize, float conv_transpose, quantize).
describe('PT2E: one transposed conv', () => {
  test.each(pt2e.map((c) => [c.name.slice('pt2e: '.length), c]))('%s', (_, c) => {
    const { graph } = headerOf(goldenFile(c.file));
    const types = Object.values(graph.modules).map((m) => m.type);
    expect(types).toContain(c.name.includes('float') ? 'ConvTranspose' : 'QuantizedConvTranspose');
    const want = decode(c.y);
    const { off, worst } = stepsOff(run(c), want, c.scale);
    expect(worst).toBeLessThanOrEqual(1);
    expect(off).toBeLessThanOrEqual(Math.floor(want.length / 100));
  });
});

describe('what the loader refuses', () => {
  const layer = layers.find((c) => c.name.includes('k3 s2 p1 op1 (MONAI'));
  const name = (graph) => Object.keys(graph.modules).find((k) => graph.modules[k].type === 'ConvTranspose');

  test('an output padding not below the stride or the dilation (PyTorch refuses it)', () => {
    const bytes = withGraph(goldenFile(layer.file), (g) => {
      g.modules[name(g)].output_padding = [1, 2, 1];
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/output_padding\[1\] 2 must be smaller than the stride 2/);
  });

  test('a weight whose shape is not [in, out / groups, ...kernel]', () => {
    const bytes = withGraph(goldenFile(layer.file), (g) => {
      g.modules[name(g)].groups = 2;
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/weight.*has shape \[4, 4, 3, 3, 3\], expected \[4, 2, 3, 3, 3\]/);
  });

  test('an input of another channel count, at forward, naming the node', () => {
    const model = qwasm.io.loadModel(goldenFile(layer.file));
    try {
      expect(() => model.forward({ data: new Float32Array(3 * 8), shape: [1, 3, 2, 2, 2] })).toThrow(
        /node '_0'.*ConvTranspose3d.*expected 4 input channels, got 3/,
      );
    } finally {
      model.dispose();
    }
  });
});

// The per-voxel argmax over channels of a [1, C, D, H, W] output: the segmentation.
function labels(data, shape) {
  const [, c, ...spatial] = shape;
  const n = spatial.reduce((a, b) => a * b, 1);
  return Array.from({ length: n }, (_, v) => {
    let best = 0;
    for (let k = 1; k < c; k++) if (data[k * n + v] > data[best * n + v]) best = k;
    return best;
  });
}

// MONAI's UNet and DynUNet (BatchNorm and ReLU), small, random weights: float against PyTorch's float32,
// and int8 by PT2E against its reference: the segmentation numbers (argmax equal on >= 99.9% of the
// voxels, logits within 2 output steps).
describe("MONAI's UNet and DynUNet", () => {
  test.each(monai.map((c) => [c.name.slice('monai: '.length), c]))('%s', (_, c) => {
    const { graph } = headerOf(goldenFile(c.file));
    const types = Object.values(graph.modules).map((m) => m.type);
    const quantized = c.name.includes('PT2E');
    expect(types).toContain(quantized ? 'QuantizedConvTranspose' : 'ConvTranspose');
    if (quantized) expect(types).not.toContain('ConvTranspose');
    const got = run(c);
    const want = decode(c.y);
    const a = labels(got, c.y.shape);
    const b = labels(want, c.y.shape);
    const equal = a.filter((v, i) => v === b[i]).length;
    expect(equal / a.length).toBeGreaterThanOrEqual(0.999);
    if (quantized) {
      expect(stepsOff(got, want, c.scale).worst).toBeLessThanOrEqual(2);
    } else {
      let worst = 0;
      for (let i = 0; i < got.length; i++)
        worst = Math.max(worst, Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i])));
      expect(worst).toBeLessThan(1e-5);
    }
  });
});
