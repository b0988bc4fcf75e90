// InstanceNorm1d/2d/3d, GroupNorm and LayerNorm in exported models
// (tests/golden/norms.json, from PyTorch 2.15): float models of norms only
// (affine or not, running statistics, a constant instance, -0, NaN and +-Inf,
// rows long enough for Welford's cascade), and PT2E graphs whose convs and
// linears run in int8 with each norm in a float region (a U-Net encoder of
// MONAI Convolution blocks, MONAI's SegResNet encoder, a LayerNorm between
// linears, MONAI's whole UNet with ReLU; a norm between a dequantize and a
// quantize is exported as one QuantizedNormRegion); and eager-quantized models whose norms are PyTorch's quantized
// modules (nnq.InstanceNorm3d / 2d / 1d, nnq.GroupNorm, nnq.LayerNorm, on
// quint8). Every element is PyTorch's to the bit, with both ISAs.
import * as qwasm from '../../../web/src/index.node.mjs';
import { expectGoldenModel, goldenFile, headerOf, withGraph } from '../golden-models.mjs';
import { initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('norms.json');

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

test('the golden file has the float, the PT2E and the eager cases', () => {
  const kinds = golden.cases.map((c) => c.name.split(':')[0]);
  expect(kinds.filter((k) => k === 'float').length).toBe(6);
  expect(kinds.filter((k) => k === 'pt2e').length).toBe(5);
  expect(kinds.filter((k) => k === 'eager').length).toBe(3);
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (_, c) => {
    qwasm.setKernelIsa(isa);
    expectGoldenModel(qwasm, c, { anyNaN: true });
  });
});

/** The file with its graph's module `name` edited by `edit(entry)`. */
const withModule = (file, name, edit) => withGraph(goldenFile(file), (graph) => edit(graph.modules[name]));

const moduleNames = (file) => Object.entries(headerOf(goldenFile(file)).graph.modules).map(([k, v]) => [k, v.type]);

test('the files hold each norm type, and the PT2E graphs their int8 layers', () => {
  const types = new Set(golden.cases.flatMap((c) => moduleNames(c.file).map(([, t]) => t)));
  const all = ['InstanceNorm', 'GroupNorm', 'LayerNorm', 'QuantizedConv', 'QuantizedLinear'];
  for (const t of [...all, 'QuantizedInstanceNorm', 'QuantizedGroupNorm', 'QuantizedLayerNorm']) {
    expect(types.has(t)).toBe(true);
  }
});

describe('hostile entries are refused at load, naming the module', () => {
  const file = 'exported/norms_float_0.qwasm.safetensors';
  const names = Object.fromEntries(moduleNames(file).map(([k, t]) => [t, k]));
  test.each([
    ['a negative eps', 'InstanceNorm', (m) => (m.eps = -1), /eps must be >= 0, got -1/],
    ['groups that do not divide the channels', 'GroupNorm', (m) => (m.num_groups = 3), /divisible by num_groups 3/],
    ['zero groups', 'GroupNorm', (m) => (m.num_groups = 0), /num_groups must be an integer in 1\.\./],
    ['an empty normalized_shape', 'LayerNorm', (m) => (m.normalized_shape = []), /normalized_shape must be a list/],
    ['a weight of the wrong shape', 'LayerNorm', (m) => (m.normalized_shape = [3, 5, 7]), /weight/],
    ['dims 4', 'InstanceNorm', (m) => (m.dims = 4), /dims must be an integer in 1\.\.3/],
    ['running_mean without running_var', 'InstanceNorm', (m) => (m.running_mean = m.weight), /both be tensors/],
  ])('%s', (_, type, edit, message) => {
    expect(() => qwasm.io.loadModel(withModule(file, names[type], edit))).toThrow(message);
  });
});

describe('hostile quantized entries are refused at load, naming the module', () => {
  const file = 'exported/norms_eager_0.qwasm.safetensors';
  const names = Object.fromEntries(moduleNames(file).map(([k, t]) => [t, k]));
  test.each([
    ['a scale of 0', 'QuantizedGroupNorm', (m) => (m.scale = 0), /scale 0 is not a positive finite number/],
    ['a scale that is 0 in float32', 'QuantizedLayerNorm', (m) => (m.scale = 1e-50), /not a positive finite/],
    [
      'a zero point of 256',
      'QuantizedInstanceNorm',
      (m) => (m.zero_point = 256),
      /zero_point must be an integer in 0\.\.255/,
    ],
    ['a negative eps', 'QuantizedLayerNorm', (m) => (m.eps = -0.5), /eps must be >= 0/],
  ])('%s', (_, type, edit, message) => {
    expect(() => qwasm.io.loadModel(withModule(file, names[type], edit))).toThrow(message);
  });
});

describe('PT2E regions (dequantize -> norm -> [relu] -> quantize) run as one QuantizedNormRegion', () => {
  // MONAI's SegResNet encoder: GroupNorm -> ReLU between its int8 convs.
  const file = 'exported/norms_pt2e_1.qwasm.safetensors';
  const regions = moduleNames(file).filter(([, t]) => t === 'QuantizedNormRegion');

  test('the exporter wrote each GroupNorm -> ReLU as a region (the outputs above are PyTorch’s bit for bit)', () => {
    expect(regions.length).toBe(6);
    const entries = regions.map(([k]) => headerOf(goldenFile(file)).graph.modules[k]);
    expect(entries.map((e) => [e.norm.type, e.relu])).toEqual(Array(6).fill(['GroupNorm', true]));
  });

  test("the planner knows a region's output: quint8 with its quantize's qparams, its input's shape", () => {
    const model = qwasm.io.loadModel(goldenFile(file));
    try {
      const entries = headerOf(goldenFile(file)).graph.modules;
      const byName = new Map(model.nodes.map((n) => [n.name, n]));
      const planned = model.nodes.filter((n) => entries[n.target]?.type === 'QuantizedNormRegion');
      expect(planned.length).toBe(6);
      for (const n of planned) {
        const e = entries[n.target];
        const input = byName.get(n.args[0].node).output;
        expect(input.shape[1]).toBe(e.norm.num_channels);
        expect(n.output).toEqual({ dtype: 'quint8', shape: input.shape, scale: e.scale, zeroPoint: e.zero_point });
      }
    } finally {
      model.dispose();
    }
  });

  test("MONAI's UNet: each InstanceNorm -> Dropout (eval) -> ReLU is a region too, the dropout looked through", () => {
    const unet = moduleNames('exported/norms_pt2e_4.qwasm.safetensors');
    expect(unet.filter(([, t]) => t === 'QuantizedNormRegion').length).toBe(4);
    expect(unet.filter(([, t]) => t === 'InstanceNorm').length).toBe(0);
  });

  const [first] = regions.map(([k]) => k);
  test.each([
    [
      'a norm of another type',
      (m) => (m.norm.type = 'BatchNorm'),
      /norm must be an InstanceNorm, GroupNorm or LayerNorm/,
    ],
    ['a norm without its eps', (m) => delete m.norm.eps, /must have the fields .*eps/],
    ['a norm that is not an object', (m) => (m.norm = 3), /norm must be an InstanceNorm/],
    ['a negative eps', (m) => (m.norm.eps = -1), /eps must be >= 0/],
    ['an input scale of 0', (m) => (m.input_scale = 0), /input_scale 0 is not a positive finite number/],
    ['an output zero point of 300', (m) => (m.zero_point = 300), /zero_point must be an integer in 0\.\.255/],
    ['relu that is not a boolean', (m) => (m.relu = 1), /relu must be true or false/],
  ])('%s is refused at load', (_, edit, message) => {
    expect(() => qwasm.io.loadModel(withModule(file, first, edit))).toThrow(message);
  });

  test("a region's forward refuses an input of other qparams, a float tensor, and a shape its norm cannot take", () => {
    const model = qwasm.io.loadModel(goldenFile(file));
    const info = headerOf(goldenFile(file)).graph.modules[first];
    const region = model.namedModules().find(([p]) => p === first)[1];
    const q = (scale, zp, shape) =>
      qwasm.quantizePerTensor({ data: new Float32Array(shape.reduce((a, b) => a * b)), shape }, scale, zp, 'quint8');
    const channels = info.norm.num_channels;
    const other = q(info.input_scale * 2, info.input_zero_point, [1, channels, 2, 2, 2]);
    const wrongChannels = q(info.input_scale, info.input_zero_point, [1, channels + 1, 2, 2, 2]);
    try {
      expect(() => region.forward(other)).toThrow(/exported for input qparams/);
      expect(() => region.forward({ data: new Float32Array(8), shape: [1, 8] })).toThrow(/quint8 QTensor/);
      expect(() => region.forward(wrongChannels)).toThrow(/channels/);
    } finally {
      other.dispose();
      wrongChannels.dispose();
      model.dispose();
    }
  });
});

test("a loaded norm's forward checks its input: its kind, and data as long as its shape", () => {
  const model = qwasm.io.loadModel(goldenFile('exported/norms_float_2.qwasm.safetensors'));
  const quantized = qwasm.io.loadModel(goldenFile('exported/norms_eager_1.qwasm.safetensors'));
  try {
    const norm = model.layers[0];
    expect(() => norm.forward({ data: new Float32Array(7), shape: [1, 5, 37] })).toThrow(/holds 7 elements/);
    expect(() => norm.forward({ data: new Float32Array(2 * 4 * 37), shape: [2, 4, 37] })).toThrow(/5 channels/);
    expect(() => quantized.gnorm.forward({ data: new Float32Array(6), shape: [1, 6] })).toThrow(/quint8 QTensor/);
  } finally {
    model.dispose();
    quantized.dispose();
  }
});

test('an input whose channels or last dimensions do not fit is refused by the planner, before anything runs', () => {
  const c = golden.cases[0];
  const model = qwasm.io.loadModel(goldenFile(c.file));
  try {
    expect(() => model.forward({ data: new Float32Array(2 * 4 * 3 * 5 * 7), shape: [2, 4, 3, 5, 7] })).toThrow(
      /LayerNorm|\[3, 5, 6\]/,
    );
    expect(() => model.forward({ data: new Float32Array(2 * 3 * 3 * 5 * 6), shape: [2, 3, 3, 5, 6] })).toThrow(
      /channels/,
    );
  } finally {
    model.dispose();
  }
});
