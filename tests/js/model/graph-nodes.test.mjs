// What a loaded graph's nodes say (issue: PyTorch exposes node.args /
// node.kwargs, and a user needs a functional node's qparams), and PyTorch's
// float ReLU (-0 and NaN kept) wherever qwasm computes one.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { graphModel, node, output, ref } from '../model-files.mjs';

const { io, nn, tensor } = qwasm;
const fileOf = (name) => new Uint8Array(readFileSync(new URL(`../../golden/${name}`, import.meta.url)));

beforeAll(() => qwasm.init());

describe('GraphModule.nodes', () => {
  test('a functional node carries its arguments and output qparams, as torch.fx node.args / node.kwargs', () => {
    const model = io.loadModel(fileOf('exported/zoo.qwasm.safetensors'));
    const addRelu = model.nodes.find((n) => n.name === 'add_relu');
    expect(addRelu).toEqual({
      name: 'add_relu',
      op: 'call_function',
      target: 'quantized.add_relu',
      args: [{ node: 'conv1_2' }, { node: 'conv2' }],
      kwargs: { scale: 0.027023248374462128, zero_point: 0 },
      output: { dtype: 'quint8', shape: [2, 6, 6, 8, 8], scale: 0.027023248374462128, zeroPoint: 0 },
    });
    expect(Object.isFrozen(addRelu) && Object.isFrozen(addRelu.args) && Object.isFrozen(addRelu.kwargs)).toBe(true);
    // Reading them cannot change the graph.
    expect(() => {
      addRelu.kwargs.scale = 1;
    }).toThrow(TypeError);
    const conv = model.nodes.find((n) => n.name === 'conv2');
    const mod = model.getSubmodule('conv2');
    expect(conv.output).toMatchObject({ dtype: 'quint8', scale: mod.scale, zeroPoint: mod.zeroPoint });
    // add_scalar's output qparams depend on its input's: known after a run, not before.
    expect(model.nodes.find((n) => n.name === 'add_scalar').output).toMatchObject({ scale: null, zeroPoint: null });
    model.dispose();
  });

  test.each([
    'zoo.qwasm.safetensors',
    'zoo_float.qwasm.safetensors',
    'r3d_18.qwasm.safetensors',
    'mc3_18.qwasm.safetensors',
    'r2plus1d_18.qwasm.safetensors',
    // PT2E graphs: QwasmQuantizer's, X86InductorQuantizer's (float convs, adds and logits between int8
    // ones), XNNPACKQuantizer's (qint8 activations held as quint8, a float cat)
    'pt2e_r3d_18_qwasm.qwasm.safetensors',
    'pt2e_small_cnn_qwasm.qwasm.safetensors',
    'pt2e_small_cnn_x86_inductor.qwasm.safetensors',
    'pt2e_small_cnn_xnnpack.qwasm.safetensors',
  ])('%s: every node output known before a run on the declared input equals what the run produced', (file) => {
    const model = io.loadModel(fileOf(`exported/${file}`));
    const shape = model.inputShape;
    const n = shape.reduce((a, b) => a * b, 1);
    const { output: y, layers } = model.profile({
      data: Float32Array.from({ length: n }, (_, i) => Math.sin(i)),
      shape,
    });
    const planned = new Map(model.nodes.map((node) => [node.name, node.output]));
    for (const layer of layers) {
      const p = planned.get(layer.name);
      const known = { node: layer.name, dtype: p.dtype, shape: p.shape, scale: p.scale, zeroPoint: p.zeroPoint };
      // scale / zeroPoint null: not known before the run (add_scalar, mul_scalar); float tensors have none.
      const ran = { node: layer.name, ...layer.output };
      if (p.scale === null) ran.scale = null;
      if (p.zeroPoint === null) ran.zeroPoint = null;
      expect(known).toEqual(ran);
    }
    expect(layers.length).toBe(model.nodes.length - 2);
    if (typeof y.dispose === 'function') y.dispose();
    model.dispose();
  });
});

describe("PyTorch's float ReLU keeps -0 and NaN", () => {
  const values = [-0, 0, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2.5];
  const want = [-0, 0, 0, Number.NaN, Number.POSITIVE_INFINITY, 0, 2.5];
  const same = (got) =>
    expect(Array.from(got, (v) => (Object.is(v, -0) ? '-0' : String(v)))).toEqual(
      want.map((v) => (Object.is(v, -0) ? '-0' : String(v))),
    );

  test('nn.ReLU', () => same(new nn.ReLU().forward(tensor(values)).data));

  test('FloatFunctional.addRelu (-0 + -0 is -0)', () => {
    const ff = new nn.quantized.FloatFunctional();
    same(ff.addRelu(tensor(values), tensor(values.map((v) => (Object.is(v, 0) ? 0 : -0)))).data);
  });

  test("a loaded graph's relu, as a function and as a method", () => {
    for (const op of ['call_function', 'call_method']) {
      const model = io.loadModel(graphModel([7], {}, [node('r', op, 'relu', [ref('x')]), output('r')]));
      same(model.forward(tensor(values)).data);
      model.dispose();
    }
  });
});

describe("a loaded graph's float cat (torch.cat of float tensors, which PT2E graphs keep)", () => {
  const cat = (dim, second = 'x') =>
    graphModel([2, 2, 3], {}, [node('c', 'call_function', 'cat', [[ref('x'), ref(second)], dim]), output('c')]);

  test('joins along dim (negative counts from the end), as torch.cat', () => {
    const x = tensor(
      Float32Array.from({ length: 12 }, (_, i) => i),
      [2, 2, 3],
    );
    for (const [dim, shape, data] of [
      [0, [4, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
      [1, [2, 4, 3], [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 6, 7, 8, 9, 10, 11]],
      [-1, [2, 2, 6], [0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10, 11, 9, 10, 11]],
    ]) {
      const model = io.loadModel(cat(dim));
      const y = model.forward(x);
      // The planner's output equals the run's.
      expect({ dim, planned: model.nodes[1].output.shape, shape: y.shape, data: Array.from(y.data) }).toEqual({
        dim,
        planned: shape,
        shape,
        data,
      });
      model.dispose();
    }
  });

  test('a dim out of range, or a quantized input, is an Error naming the node', () => {
    const x = tensor(new Float32Array(12), [2, 2, 3]);
    const model = io.loadModel(cat(3));
    expect(() => model.forward(x)).toThrow(/node 'c'.*cat: dim 3 is out of range for rank 3/);
    model.dispose();
    const q = graphModel([2, 2, 3], { q: { type: 'Quantize', scale: 0.1, zero_point: 0, dtype: 'quint8' } }, [
      node('q', 'call_module', 'q', [ref('x')]),
      node('c', 'call_function', 'cat', [[ref('q'), ref('q')], 0]),
      output('c'),
    ]);
    const qm = io.loadModel(q);
    expect(() => qm.forward(x)).toThrow(/node 'c'.*cat: tensors\[0\] must be a float tensor/);
    qm.dispose();
  });
});

// torch.add of float tensors: PyTorch's broadcasting (shapes aligned from the
// last dimension; a size 1 or a missing dimension stretches), or a tensor and
// a number converted to float32 first; each output one float32 addition.
describe("a loaded graph's float add broadcasts, and adds numbers, as torch.add", () => {
  const addModel = (shape, args) =>
    graphModel(shape, {}, [
      node('r', 'call_method', 'reshape', [ref('x'), ...shape]),
      node('a', 'call_function', 'add', args),
      output('a'),
    ]);
  const seq = (n, f = (i) => i) => Float32Array.from({ length: n }, (_, i) => f(i));

  test('shapes stretched on both sides, of one rank or two, in either order: out[i, j] = a[.., j] + b[i, ..]', () => {
    const x = seq(6, (i) => i + 0.5);
    // [2, 1, 3] + [2, 3, 1] -> [2, 3, 3]: out[i, j, k] = x[i, 0, k] + v[i, j, 0]
    const same = [];
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) same.push(x[i * 3 + k] + x[i * 3 + j]);
    // [6] + [6, 1] -> [6, 6]: out[i, j] = x[j] + x[i]
    const ranks = [];
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) ranks.push(x[j] + x[i]);
    for (const [shape, other, want, wantShape] of [
      [[2, 1, 3], [2, 3, 1], same, [2, 3, 3]],
      [[6], [6, 1], ranks, [6, 6]],
    ]) {
      for (const swap of [false, true]) {
        const args = swap ? [ref('v'), ref('x')] : [ref('x'), ref('v')];
        const model = io.loadModel(
          graphModel(shape, {}, [
            node('v', 'call_method', 'reshape', [ref('x'), ...other]),
            node('a', 'call_function', 'add', args),
            output('a'),
          ]),
        );
        const y = model.forward(tensor(x, shape));
        expect({ shape: y.shape, planned: model.nodes[2].output.shape, data: Array.from(y.data) }).toEqual({
          shape: wantShape,
          planned: wantShape,
          data: want,
        });
        model.dispose();
      }
    }
  });

  test('a number on either side is added as float32 (0.1 is Math.fround(0.1)); NaN and Inf come through', () => {
    const x = Float32Array.from([-0, 1, Number.NaN, Number.POSITIVE_INFINITY, 1e-8, 16777216]);
    for (const args of [
      [ref('r'), 0.1],
      [0.1, ref('r')],
    ]) {
      const model = io.loadModel(addModel([2, 3], args));
      const y = model.forward(tensor(x, [2, 3]));
      expect(model.nodes[2].output.shape).toEqual([2, 3]);
      expect(Array.from(y.data)).toEqual(Array.from(x, (v) => Math.fround(v + Math.fround(0.1))));
      model.dispose();
    }
    // 16777216 + 1 rounds to even in float32.
    const one = io.loadModel(addModel([1], [1, ref('r')]));
    expect(one.forward(tensor([16777216], [1])).data[0]).toBe(16777216);
    one.dispose();
  });

  test('shapes that do not broadcast, two numbers, or a quantized operand: an Error naming the node', () => {
    const bad = io.loadModel(
      graphModel([2, 3], {}, [
        node('t', 'call_method', 'reshape', [ref('x'), 3, 2]),
        node('a', 'call_function', 'add', [ref('x'), ref('t')]),
        output('a'),
      ]),
    );
    expect(() => bad.forward(tensor(new Float32Array(6), [2, 3]))).toThrow(
      /node 'a' \(call_function add\): add: shapes \[2, 3\] and \[3, 2\] do not broadcast/,
    );
    bad.dispose();
    const numbers = graphModel([2], {}, [node('a', 'call_function', 'add', [1, 2]), output('a')]);
    expect(() => io.loadModel(numbers)).toThrow(/node 'a' takes a tensor, and its input is a constant/);
    const q = io.loadModel(
      graphModel([2], { q: { type: 'Quantize', scale: 0.1, zero_point: 0, dtype: 'quint8' } }, [
        node('q', 'call_module', 'q', [ref('x')]),
        node('a', 'call_function', 'add', [ref('q'), 1]),
        output('a'),
      ]),
    );
    expect(() => q.forward(tensor([1, 2], [2]))).toThrow(/node 'a'.*add: the operands must be float tensors/);
    q.dispose();
  });

  test('the planner charges the broadcast output: [1, 40000] + [40000, 1] is over maxActivationBytes at load', () => {
    const big = graphModel([1, 40000], {}, [
      node('t', 'call_method', 'reshape', [ref('x'), 40000, 1]),
      node('a', 'call_function', 'add', [ref('x'), ref('t')]),
      output('a'),
    ]);
    expect(() => io.loadModel(big)).toThrow(/node 'a' would need 6400000000 bytes \(output \[40000, 40000\]\)/);
  });
});
