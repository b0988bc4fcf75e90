// Empty tensors through every public call and every kind of model-graph node:
// the output's shape PyTorch gives (tests/golden/zero_size.json, from real
// PyTorch), or an Error where PyTorch raises; never a trap (a linear layer
// over zero rows divided by zero in the core's tile split, and repeated traps
// corrupted the instance), and no leak.
import { readdirSync, readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { graphModel, node, output, quantize, ref } from '../model-files.mjs';

const { nn, io, tensor, heapInUse } = qwasm;
const OBSERVERS = {
  MinMaxObserver: qwasm.MinMaxObserver,
  PerChannelMinMaxObserver: qwasm.PerChannelMinMaxObserver,
  HistogramObserver: qwasm.HistogramObserver,
  MovingAverageMinMaxObserver: qwasm.MovingAverageMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver: qwasm.MovingAveragePerChannelMinMaxObserver,
};
const F = nn.quantized.functional;
const golden = JSON.parse(readFileSync(new URL('../../golden/zero_size.json', import.meta.url), 'utf8'));
const SCALE = 0.1;
const ZERO_POINT = 3;

beforeAll(() => qwasm.init());

const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const zeros = (shape) => tensor(new Float32Array(numel(shape)), shape);
const qzeros = (shape) => qwasm.quantizePerTensor(zeros(shape), SCALE, ZERO_POINT, 'quint8');
const dispose = (v) => {
  if (v && typeof v.dispose === 'function') v.dispose();
};

// Modules built once per case and disposed after it.
function moduleFor(c) {
  const p = c.params;
  switch (c.op) {
    case 'linear':
      return new nn.Linear(p.in_features, p.out_features);
    case 'quantized_linear':
      return new nn.quantized.Linear(p.in_features, p.out_features);
    case 'quantized_linear_relu':
      return new nn.intrinsic.quantized.LinearReLU(p.in_features, p.out_features);
    case 'conv':
      return new nn[`Conv${p.dims}d`](p.in_channels, p.out_channels, p.kernel_size, { groups: p.groups });
    case 'quantized_conv':
      return new nn.quantized[`Conv${p.dims}d`](p.in_channels, p.out_channels, p.kernel_size, { groups: p.groups });
    case 'quantized_conv_relu':
      return new nn.intrinsic.quantized[`ConvReLU${p.dims}d`](p.in_channels, p.out_channels, p.kernel_size, {
        groups: p.groups,
      });
    case 'max_pool':
    case 'quantized_max_pool':
      return new nn[`MaxPool${p.dims}d`](2);
    case 'avg_pool':
    case 'quantized_avg_pool':
      return new nn[`AvgPool${p.dims}d`](2);
    case 'adaptive_avg_pool':
    case 'quantized_adaptive_avg_pool':
      return new nn[`AdaptiveAvgPool${p.dims}d`](1);
    case 'adaptive_max_pool':
      return new nn[`AdaptiveMaxPool${p.dims}d`](1);
    case 'batch_norm':
      return new nn[`BatchNorm${p.dims}d`](2).eval();
    case 'relu':
      return new nn.ReLU();
    case 'relu6':
      return new nn.ReLU6();
    case 'hardtanh':
      return new nn.Hardtanh();
    case 'flatten':
    case 'quantized.flatten':
      return new nn.Flatten();
    default:
      return null;
  }
}

// The call of case c on its empty input (quantized ops take zeros quantized
// with SCALE and ZERO_POINT, as the generator's did).
function run(c, m) {
  const shape = c.input_shape;
  const quantizedInput = c.op.startsWith('quantized') || c.op === 'dequantize';
  const x = () => (quantizedInput ? qzeros(shape) : zeros(shape));
  if (m !== null) return m.forward(x());
  switch (c.op) {
    case 'quantize_per_tensor':
      return qwasm.quantizePerTensor(zeros(shape), 0.1, 3, 'quint8');
    case 'quantize_per_channel': {
      const n = shape[c.params.axis];
      return qwasm.quantizePerChannel(zeros(shape), Array(n).fill(0.1), Array(n).fill(0), c.params.axis, 'quint8');
    }
    case 'dequantize':
      return x().dequantize();
    case 'quantized.add':
      return F.add(x(), x(), 0.2, 1);
    case 'quantized.add_relu':
      return F.addRelu(x(), x(), 0.2, 1);
    case 'quantized.mul':
      return F.mul(x(), x(), 0.2, 1);
    case 'quantized.mul_relu':
      return F.mulRelu(x(), x(), 0.2, 1);
    case 'quantized.add_scalar':
      return F.addScalar(x(), 1.5);
    case 'quantized.mul_scalar':
      return F.mulScalar(x(), 2);
    case 'quantized.cat':
      return F.cat([x(), x()], 0, 0.2, 1);
    case 'quantized.relu':
      return F.relu(x());
    case 'quantized.relu6':
      return F.relu6(x());
    case 'quantized.hardtanh':
      return F.hardtanh(x());
    case 'quantized.clamp':
      return F.clamp(x(), 0, 1);
    default:
      throw new Error(`no qwasm call for golden op '${c.op}'`);
  }
}

const shapeOf = (y) => (typeof y.shape === 'function' ? y.shape() : y.shape);

describe('empty tensors through the public API, as PyTorch 2.15 (zero_size.json)', () => {
  const calls = golden.cases.filter((c) => c.op !== 'observer');
  test.each(calls.map((c) => [c.name, c]))('%s', (_name, c) => {
    const m = moduleFor(c);
    try {
      if ('error' in c) {
        // PyTorch raises; qwasm refuses with an Error of its own, never a trap.
        expect(() => run(c, m)).toThrow(RangeError);
        return;
      }
      const y = run(c, m);
      expect(shapeOf(y)).toEqual(c.output_shape);
      const values = typeof y.intRepr === 'function' ? y.intRepr() : y.data;
      expect(values.length).toBe(0);
      dispose(y);
    } finally {
      dispose(m);
    }
  });

  test.each(golden.cases.filter((c) => c.op === 'observer').map((c) => [c.name, c]))(
    '%s: only empty batches seen gives qparams (1, 0)',
    (_name, c) => {
      const o = new OBSERVERS[c.params.observer]();
      o.observe(zeros(c.input_shape));
      const { scale, zeroPoint } = o.calculateQParams();
      const list = (v) => (typeof v === 'number' ? [v] : Array.from(v));
      expect(list(scale)).toEqual(c.scale);
      expect(list(zeroPoint)).toEqual(c.zero_point);
    },
  );

  test('1,000 empty linear forwards in a row: no trap, no heap growth (it trapped, and ~5,750 traps corrupted the instance)', () => {
    const layers = [new nn.quantized.Linear(4, 3), new nn.intrinsic.quantized.LinearReLU(4, 3), new nn.Linear(4, 3)];
    const x = qzeros([0, 4]);
    const xf = zeros([2, 0, 4]);
    const run1 = () => {
      dispose(layers[0].forward(x));
      dispose(layers[1].forward(x));
      dispose(layers[2].forward(xf));
    };
    run1();
    const before = heapInUse();
    for (let i = 0; i < 1000; i++) run1();
    expect(heapInUse()).toBe(before);
    // The instance still computes: a non-empty forward gives PyTorch's shape.
    const y = layers[0].forward(qzeros([2, 4]));
    expect(y.shape).toEqual([2, 3]);
    dispose(y);
    x.dispose();
    for (const l of layers) l.dispose();
  });
});

describe('every model-graph node on an empty batch', () => {
  const dir = new URL('../../golden/exported/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.qwasm.safetensors'));
  // These graphs reshape to the shape traced on the example input (constants
  // in the graph), which PyTorch's reshape refuses for zero elements too.
  const constantReshape = new Set(['nonfinite_add.qwasm.safetensors', 'nonfinite_flatten.qwasm.safetensors']);
  // These graphs' first dimension is not a batch their ops keep: an unbatched input
  // (conv_transpose_5: [C, H, W]), or constants traced from the example that squeeze,
  // select, pad, expand or reshape dimension 0 (the layout goldens). PyTorch's ops
  // refuse such a graph on zero elements, or give another shape, as qwasm's: each
  // forward returns or throws an Error naming the node, and keeps nothing.
  const batchFixed = new Set(
    [
      'conv_transpose_5',
      'layout_csn',
      'layout_eager_select_float',
      'layout_eager_select_quantized',
      'layout_pt2e_float',
      'layout_pt2e_select',
      'layout_pt2e_select_float',
    ].map((f) => `${f}.qwasm.safetensors`),
  );

  test.each(files)('%s: the output of batch 0 is the planned output with batch 0', (file) => {
    const model = io.loadModel(new Uint8Array(readFileSync(new URL(file, dir))));
    try {
      const shape = [0, ...model.inputShape.slice(1)];
      if (constantReshape.has(file)) {
        expect(() => model.forward(zeros(shape))).toThrow(/is invalid for 0 elements/);
        return;
      }
      if (batchFixed.has(file)) {
        const run = () => {
          try {
            dispose(model.forward(zeros(shape)));
          } catch (e) {
            expect(e).toBeInstanceOf(Error);
            expect(e.message).toMatch(/^GraphModule\.forward\(x\): node '/);
          }
        };
        run();
        const before = heapInUse();
        run();
        expect(heapInUse()).toBe(before);
        return;
      }
      const planned = model.nodes.find((n) => n.op === 'output');
      const want = model.nodes.find((n) => n.name === planned.args[0].node).output.shape.slice();
      want[0] = 0;
      // The first forward may keep what a module reuses (a float conv packs
      // its weights for the kernel on first use); the second must add nothing.
      dispose(model.forward(zeros(shape)));
      const before = heapInUse();
      const y = model.forward(zeros(shape));
      expect(shapeOf(y)).toEqual(want);
      dispose(y);
      expect(heapInUse()).toBe(before);
    } finally {
      model.dispose();
    }
  });

  test('the graph functions and methods no committed model calls (quantized.mul_relu, contiguous) on an empty batch', () => {
    const file = graphModel([0, 3], { quant: quantize(), dequant: { type: 'DeQuantize' } }, [
      node('q', 'call_module', 'quant', [ref('x')]),
      node('m', 'call_function', 'quantized.mul_relu', [ref('q'), ref('q')], { scale: 0.1, zero_point: 2 }),
      node('c', 'call_method', 'contiguous', [ref('m')]),
      node('d', 'call_module', 'dequant', [ref('c')]),
      output('d'),
    ]);
    const model = io.loadModel(file);
    const targets = new Set(model.nodes.map((n) => n.target));
    expect(targets.has('quantized.mul_relu') && targets.has('contiguous')).toBe(true);
    const y = model.forward(zeros([0, 3]));
    expect(y.shape).toEqual([0, 3]);
    expect(y.data.length).toBe(0);
    model.dispose();
  });
});
