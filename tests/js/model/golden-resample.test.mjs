// F.interpolate / nn.Upsample (tests/golden/resample.json, from PyTorch 2.15):
// every mode on float tensors over both of PyTorch's float kernels, nearest
// and nearest-exact on QTensors, an eager-quantized and a float model, and a
// SegResNet-like decoder block through PT2E with QwasmQuantizer. Float and
// integer outputs are PyTorch's to the bit; the PT2E model end to end within
// 2 output steps (its int8 convs' bound, docs/numerics.md), its trilinear
// node bit for bit on PyTorch's own input.
import * as qwasm from '../../../web/src/index.node.mjs';
import { GRAPH_FUNCTIONS, MODULE_TYPES } from '../../../web/src/ops/registry.mjs';
import { expectGoldenModel, goldenFile, goldenTensor, headerOf, withGraph } from '../golden-models.mjs';
import { graphModel, node, output, quantize, ref } from '../model-files.mjs';
import { initTesting } from '../testing.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('resample.json');
const interpolate = GRAPH_FUNCTIONS.interpolate;

// The graph function runs from the sources, whose generic linear kernel is in the core: they are initialized too.
beforeAll(() => Promise.all([initGolden(qwasm, golden), initTesting()]));
afterEach(() => qwasm.setKernelIsa('auto'));

// A model file with its graph JSON edited by `edit` (the header keeps its length).
const edited = (name, edit) => withGraph(goldenFile(name), edit);

test('the functional cases cover every mode on both of PyTorch float kernels where it has two', () => {
  const seen = new Set(golden.cases.map((c) => `${c.mode}/${c.kernel}`));
  for (const key of [
    'linear/generic',
    'bilinear/generic',
    'bilinear/channelsLast',
    'trilinear/generic',
    'trilinear/channelsLast',
    'nearest/generic',
    'nearest/channelsLast',
    'nearest-exact/generic',
    'nearest-exact/channelsLast',
  ]) {
    expect([key, seen.has(key)]).toEqual([key, true]);
  }
  expect(golden.cases.length).toBeGreaterThan(100);
});

describe('float: F.interpolate bit for bit', () => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (_, c) => {
    const y = interpolate.run([goldenTensor(c.x)], { mode: c.mode, ...c.options });
    expect({ shape: y.shape, firstBitDifference: firstBitDifference(y.data, decode(c.y)) }).toEqual({
      shape: c.y.shape,
      firstBitDifference: -1,
    });
  });
});

// x -> Quantize -> interpolate(kwargs) [-> interpolate(then)] -> output, run on a QTensor
// (forwardQuantized skips the Quantize).
const interpolateModel = (shape, scale, zeroPoint, kwargs, then = null) =>
  graphModel(shape, { q: quantize(scale, zeroPoint) }, [
    node('q', 'call_module', 'q', [ref('x')]),
    node('up', 'call_function', 'interpolate', [ref('q')], kwargs),
    ...(then === null
      ? [output('up')]
      : [node('then', 'call_function', 'interpolate', [ref('up')], then), output('then')]),
  ]);

describe('quantized: nearest and bilinear on the integers, the qparams kept', () => {
  test.each(golden.quantized.map((c) => [c.name, c]))('%s', (_, c) => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(
      interpolateModel(c.x.shape, c.scale, c.zero_point, { mode: c.mode, ...c.options }, c.then ?? null),
    );
    const contiguous = qwasm.makePerTensorQuantizedTensor(goldenTensor(c.x), c.scale, c.zero_point);
    const x = c.channels_last ? contiguous.contiguous({ memoryFormat: 'channels_last' }) : contiguous;
    if (x !== contiguous) contiguous.dispose();
    const y = model.forwardQuantized(x);
    try {
      expect({ shape: [...y.shape], scale: y.qScale(), zeroPoint: y.qZeroPoint() }).toEqual({
        shape: c.y.shape,
        scale: c.scale,
        zeroPoint: c.zero_point,
      });
      expect(Array.from(y.intRepr())).toEqual(Array.from(decode(c.y)));
    } finally {
      x.dispose();
      y.dispose();
      model.dispose();
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });

  test.each([
    [
      'trilinear on a 5-D QTensor',
      [1, 1, 2, 2, 2],
      { scale_factor: 2, mode: 'trilinear' },
      /'trilinear' on a 5-D quantized/,
    ],
    ['nearest on a 3-D QTensor', [1, 1, 4], { scale_factor: 2 }, /'nearest' on a 3-D quantized/],
  ])('%s is refused (no quantized kernel qwasm runs)', (_, shape, kwargs, message) => {
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(interpolateModel(shape, 0.1, 0, kwargs));
    const n = shape.reduce((a, b) => a * b, 1);
    const x = qwasm.makePerTensorQuantizedTensor({ data: new Uint8Array(n), shape }, 0.1, 0);
    try {
      expect(() => model.forwardQuantized(x)).toThrow(message);
    } finally {
      x.dispose();
      model.dispose();
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

describe.each(['wasmsimd', 'scalar'])('models (%s kernels)', (isa) => {
  test.each(golden.models.map((c) => [c.name, c]))('%s: bit for bit', (_, c) => {
    qwasm.setKernelIsa(isa);
    expectGoldenModel(qwasm, c);
  });

  test.each(golden.pt2e.map((c) => [c.name, c]))('%s: within 2 output steps; the trilinear bit for bit', (_, c) => {
    qwasm.setKernelIsa(isa);
    const model = qwasm.io.loadModel(goldenFile(c.file));
    try {
      const y = model.forward(goldenTensor(c.x));
      const want = decode(c.y);
      let worst = 0;
      for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(y.data[i] - want[i]) / c.output_scale);
      expect({ shape: y.shape, within2Steps: worst <= 2 + 1e-6 }).toEqual({ shape: c.y.shape, within2Steps: true });
      const up = model.getSubmodule(c.trilinear.path).forward(goldenTensor(c.trilinear.x));
      expect(firstBitDifference(up.data, decode(c.trilinear.y))).toBe(-1);
    } finally {
      model.dispose();
    }
  });
});

test('the PT2E graph runs the nearest upsample on the integers and the trilinear in float', () => {
  const c = golden.pt2e[0];
  const { graph } = headerOf(goldenFile(c.file));
  const byName = new Map(graph.nodes.map((node) => [node.name, node]));
  const nearest = graph.nodes.find((node) => node.target === 'interpolate');
  expect(nearest.kwargs.mode).toBe('nearest');
  // Its input is a quantized add's output (with its ReLU fused), not a dequantize.
  expect(byName.get(nearest.args[0].node).target).toBe('quantized.add_relu');
  const trilinear = graph.nodes.find(
    (node) => node.op === 'call_module' && graph.modules[node.target].type === 'Upsample',
  );
  expect(byName.get(trilinear.args[0].node).target).toBe('dequantize');
});

test('the exporter refused what qwasm would not run the same, naming the node (recorded at generation)', () => {
  const messages = Object.fromEntries(golden.export_errors.map((c) => [c.name, c.message]));
  expect(Object.keys(messages).length).toBe(4);
  expect(messages["PT2E nearest on the integers where PyTorch's two index rules differ"]).toMatch(
    /^node 'upsample_nearest2d'.*resample\.py.*picks other source pixels.*give the size instead/,
  );
  expect(messages['a size read from the input at run time']).toMatch(/getattr/);
  expect(messages.bicubic).toMatch(/^node 'interpolate': interpolate mode 'bicubic' is not supported/);
  expect(messages['antialias=True']).toMatch(/^node 'interpolate': interpolate with antialias=True is not supported/);
});

describe('hostile files and bad arguments', () => {
  test('an Upsample whose output is over the load budget is refused at load', () => {
    // 4 x (4 * 2^20) x 4 x 4 outputs of 8 corners each: over maxWork and maxActivationBytes.
    const bytes = edited('exported/resample_pt2e.qwasm.safetensors', (g) => {
      g.modules.up.scale_factor = [2 ** 20, 1, 1];
    });
    expect(() => qwasm.io.loadModel(bytes)).toThrow(/upsample_trilinear3d.*(maxWork|maxActivationBytes)/);
  });

  test('an Upsample whose output is past the sizes qwasm allows is refused before anything is allocated', () => {
    const bytes = edited('exported/resample_pt2e.qwasm.safetensors', (g) => {
      g.modules.up.scale_factor = [4096, 4096, 4096];
    });
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(bytes);
    try {
      expect(() => model.forward(goldenTensor(golden.pt2e[0].x))).toThrow(
        /node 'upsample_trilinear3d'.*the output \[1,4,16384,16384,16384\] would hold more than 2147483647 elements/,
      );
    } finally {
      model.dispose();
    }
    expect(qwasm.heapInUse()).toBe(heap);
  });

  test.each([
    ['a mode qwasm does not run', (g) => (g.modules.up.mode = 'bicubic'), /mode must be one of/],
    ['align_corners with nearest', (g) => (g.modules.up.mode = 'nearest'), /align_corners is only for/],
    ['both size and scale_factor', (g) => (g.modules.up.size = [2, 2, 2]), /exactly one of size and scale_factor/],
    [
      'a negative scale factor',
      (g) => (g.modules.up.scale_factor = [2, -2, 2]),
      /scale_factor\[1\] must be a finite number > 0/,
    ],
    [
      'a size of 0',
      (g) => {
        g.modules.up.scale_factor = null;
        g.modules.up.size = [0, 2, 2];
      },
      /size\[0\] must be an integer >= 1/,
    ],
  ])('an Upsample entry with %s is refused at load, naming the module', (_, edit, message) => {
    expect(() => qwasm.io.loadModel(edited('exported/resample_pt2e.qwasm.safetensors', edit))).toThrow(message);
  });

  const x = { data: new Float32Array(8), shape: [1, 2, 2, 2] };
  test.each([
    ['no size and no scale', {}, /exactly one of size and scale_factor/],
    ['a size per wrong number of dimensions', { size: [2, 2, 2] }, /size has 3 values for 2 spatial dimensions/],
    ['trilinear on a 4-D input', { size: 3, mode: 'trilinear' }, /mode 'trilinear' takes a 5-D input/],
    ['bicubic', { size: 3, mode: 'bicubic' }, /mode 'bicubic' is not supported/],
    ['align_corners with nearest', { size: 3, align_corners: false }, /align_corners is only for the interpolating/],
    ['recompute with a size', { size: 3, recompute_scale_factor: true }, /not meaningful with an explicit size/],
    ['a scale making 2^25 per side', { scale_factor: 2 ** 24 }, /qwasm allows 1 to 16777216/],
    ['a scale making 0', { scale_factor: 0.1 }, /output size of 0/],
  ])('interpolate with %s is a NodeError', (_, kwargs, message) => {
    expect(() => interpolate.run([x], kwargs)).toThrow(message);
    // The planner prices it as nothing it can run (null), before any run.
    const abstract = { kind: 'float', dtype: 'float32', shape: x.shape, scale: null, zeroPoint: null };
    expect(interpolate.cost([abstract], kwargs)).toBeNull();
  });

  test('the planner prices an Upsample by its output: shape, and work per corner read', () => {
    const info = MODULE_TYPES.Upsample.info({
      size: null,
      scale_factor: 2,
      mode: 'trilinear',
      align_corners: false,
      recompute_scale_factor: null,
    });
    const cost = MODULE_TYPES.Upsample.cost(info, {
      kind: 'float',
      dtype: 'float32',
      shape: [1, 4, 8, 8, 8],
      scale: null,
      zeroPoint: null,
    });
    expect(cost.shape).toEqual([1, 4, 16, 16, 16]);
    expect(cost.work).toBeGreaterThanOrEqual(4 * 16 ** 3 * 8);
  });
});
