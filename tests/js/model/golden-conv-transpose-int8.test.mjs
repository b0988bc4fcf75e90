// Quantized transposed convolutions from PyTorch's eager flow
// (tests/golden/conv_transpose_int8.json and conv_transpose_int8_x86.json,
// from PyTorch 2.15): nnq.ConvTranspose1d / 2d / 3d packed by FBGEMM across
// strides, paddings, output paddings, groups (depthwise with saturating
// weights), dilations, weight zero points; bit for bit with both ISAs, with
// Winograd on and off. Under the x86 engine the ones PyTorch packs for oneDNN
// are refused by the exporter (the file records which).
import * as qwasm from '../../../web/src/index.node.mjs';
import { expectGoldenModel, goldenFile, withGraph } from '../golden-models.mjs';
import { initGolden, loadGolden } from '../util.mjs';

afterEach(() => {
  qwasm.setKernelIsa('auto');
  qwasm.quantization.setWinograd('auto');
});

describe.each(['conv_transpose_int8.json', 'conv_transpose_int8_x86.json'])('%s', (name) => {
  const golden = loadGolden(name);
  const cases = golden.cases.filter((c) => c.file !== undefined);
  beforeAll(() => initGolden(qwasm, golden));

  test('the golden file has its cases', () => {
    expect(golden.engine).toBe(name.includes('x86') ? 'x86' : 'fbgemm');
    expect(cases.length).toBe(name.includes('x86') ? 10 : 14);
    if (name.includes('x86')) {
      // PyTorch's x86 engine packs symmetric weights without output padding for oneDNN: refused at export.
      expect(golden.cases.at(-1).refused).toEqual([
        '2d depthwise k3 s1 p1 (large values: no pair saturation)',
        '3d k2 s2 (U-Net upsampling)',
        '3d depthwise k3 s1 p1 (large values: no pair saturation)',
        '3d decoder: k2 s2 then k3 s2 p1 op1',
      ]);
    }
  });

  describe.each([
    ['wasmsimd', 'auto'],
    ['scalar', 'auto'],
    ['wasmsimd', false],
    ['wasmsimd', true],
  ])('%s kernels, winograd %s', (isa, winograd) => {
    test.each(cases.map((c) => [c.name, c]))('%s', (_, c) => {
      qwasm.setKernelIsa(isa);
      qwasm.quantization.setWinograd(winograd);
      expectGoldenModel(qwasm, c);
    });
  });
});

describe('what the loader refuses', () => {
  const golden = loadGolden('conv_transpose_int8.json');
  const file = golden.cases.find((c) => c.name === '3d k2 s2 (U-Net upsampling)').file;
  beforeAll(() => initGolden(qwasm, golden));

  // The file with its one layer's entry edited by `edit(entry)`.
  const withLayer = (bytes, edit) => withGraph(bytes, (graph) => edit(graph.modules['layers.0']));

  test('the entry is a QuantizedConvTranspose', () => {
    let type;
    withLayer(goldenFile(file), (m) => {
      type = m.type;
    });
    expect(type).toBe('QuantizedConvTranspose');
  });

  test('a backend other than fbgemm', () => {
    const bytes = withLayer(goldenFile(file), (m) => {
      m.backend = 'onednn';
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/'layers\.0'\.backend must be 'fbgemm'.*got the string 'onednn'/);
  });

  test('a weight qscheme the format does not have', () => {
    const bytes = withLayer(goldenFile(file), (m) => {
      m.weight.qscheme = 'per_channel_symmetric';
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(
      /'layers\.0'\.weight\.qscheme must be 'per_tensor_affine' or 'per_channel_affine'/,
    );
  });

  test('an output padding not below the stride or the dilation', () => {
    const bytes = withLayer(goldenFile(file), (m) => {
      m.output_padding = [0, 2, 0];
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/output_padding\[1\] 2 must be smaller than the stride 2/);
  });

  test('a float input, at forward', () => {
    const model = qwasm.io.loadModel(goldenFile(file));
    try {
      // The model's QuantStub quantizes; the transposed conv itself takes only QTensors.
      const y = model.forward({ data: new Float32Array(4 * 60), shape: [1, 4, 3, 4, 5] });
      expect(y.shape).toEqual([1, 3, 6, 8, 10]);
      expect(() => model.forward({ data: new Float32Array(3 * 60), shape: [1, 3, 3, 4, 5] })).toThrow(
        /expected 4 input channels, got 3/,
      );
    } finally {
      model.dispose();
    }
  });
});
