// The layout ops (permute, transpose, pad) on hostile graph files: constants
// that are not what the op takes are refused at load; dims and pads that do
// not fit the input are a NodeError naming the node before anything is
// allocated; pads that would need too much memory fail the load budget.
import * as qwasm from '../../../web/src/index.node.mjs';
import { graphModel, loadError as loadErrorOf, node, output, quantize, ref } from '../model-files.mjs';

const { io } = qwasm;
beforeAll(() => qwasm.init());
const loadError = (bytes, options) => loadErrorOf(io, bytes, options);

// x -> target(x, ...rest) -> output, on a float input, or quantized first.
const oneNode = (shape, op, target, rest, { quantized = false, kwargs = {} } = {}) =>
  graphModel(shape, quantized ? { q: quantize() } : {}, [
    ...(quantized ? [node('q', 'call_module', 'q', [ref('x')])] : []),
    node('n', op, target, [ref(quantized ? 'q' : 'x'), ...rest], kwargs),
    output('n'),
  ]);

const input = (shape) => ({
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => i),
  shape,
});

describe('refused at load: constants the op never takes', () => {
  test.each([
    [
      'permute dims that are not integers',
      oneNode([1, 2, 3], 'call_function', 'permute', [[0, 1.5, 2]]),
      /permute's dims must be integers, got the number 1\.5/,
    ],
    [
      'permute dims that are not a list',
      oneNode([1, 2, 3], 'call_function', 'permute', ['012']),
      /permute's dims must be a list/,
    ],
    [
      'x.permute with 65 dims',
      oneNode([1, 2], 'call_method', 'permute', new Array(65).fill(0)),
      /at most 65|at most 64/,
    ],
    [
      'a pad of fractions',
      oneNode([1, 2, 3], 'call_function', 'pad', [[1, 0.5]]),
      /pad's pad must be a list of at most 128 integers/,
    ],
    [
      'an unknown pad mode',
      oneNode([1, 2, 3], 'call_function', 'pad', [[1, 1], 'mirror']),
      /pad's mode must be one of constant, reflect, replicate, circular, got the string 'mirror'/,
    ],
    [
      'a pad value that is text',
      oneNode([1, 2, 3], 'call_function', 'pad', [[1, 1], 'constant', '0']),
      /pad's value must be a number/,
    ],
  ])('%s', (_, bytes, message) => {
    expect(loadError(bytes)?.message).toMatch(message);
  });

  test('a pad wider than maxActivationBytes allows: over budget at load', () => {
    const bytes = oneNode([1, 2, 3], 'call_function', 'pad', [[1e8, 1e8]]);
    expect(loadError(bytes)?.message).toMatch(
      /node 'n' would need \d+ bytes \(output \[1, 2, 200000003\]\), over maxActivationBytes/,
    );
  });

  test('a quantized pad of 2^40: refused in forward before any allocation', () => {
    const model = io.loadModel(oneNode([1, 2, 3], 'call_function', 'pad', [[2 ** 40, 0]], { quantized: true }));
    const heap = qwasm.heapInUse();
    try {
      expect(() => model.forward(input([1, 2, 3]))).toThrow(
        /node 'n' \(call_function pad\): pad: dimension 2 would have 1099511627779 elements/,
      );
      expect(qwasm.heapInUse()).toBe(heap);
    } finally {
      model.dispose();
    }
  });
});

describe('refused in forward, naming the node: dims and pads that do not fit the input', () => {
  const cases = [
    ['permute: a repeated dim', 'call_function', 'permute', [[0, 1, 1]], /permute: dim 1 repeated in dims \[0, 1, 1\]/],
    [
      'permute: a dim out of range',
      'call_function',
      'permute',
      [[0, 1, 3]],
      /permute: dims\[2\] = 3 is out of range for rank 3/,
    ],
    [
      'permute: too few dims',
      'call_method',
      'permute',
      [0, 1],
      /permute: number of dims don't match: the input has 3 dimensions, dims has 2/,
    ],
    [
      'transpose: a dim out of range',
      'call_method',
      'transpose',
      [0, -4],
      /transpose: dims 0, -4 out of range for rank 3/,
    ],
    [
      'transpose: a dim that is not an integer',
      'call_function',
      'transpose',
      [0, 'a'],
      /transpose: dim1 must be an integer/,
    ],
    ['pad: an odd length', 'call_function', 'pad', [[1, 1, 1]], /pad: padding length must be divisible by 2, got 3/],
    [
      'pad: more than two per dim',
      'call_function',
      'pad',
      [[1, 1, 1, 1, 1, 1, 1, 1]],
      /padding length 8 is more than two times the input's 3 dimensions/,
    ],
    [
      'pad: a negative size',
      'call_function',
      'pad',
      [[-3, -1]],
      /dimension 2 of size 3 padded by \(-3, -1\) would have size -1/,
    ],
    [
      'pad: reflect as wide as the input',
      'call_function',
      'pad',
      [[3, 0], 'reflect'],
      /reflect padding \(3, 0\) must be less than the size 3 of dimension 2/,
    ],
    [
      'pad: circular wrapping twice',
      'call_function',
      'pad',
      [[0, 4], 'circular'],
      /circular padding \(0, 4\) would wrap around dimension 2 of size 3 more than once/,
    ],
    ['pad: replicate to nothing', 'call_function', 'pad', [[-2, -1], 'replicate'], /would have size 0, at least 1/],
    [
      'pad: reflect of 4 values on a 3-D input',
      'call_function',
      'pad',
      [[1, 1, 1, 1, 1, 1], 'reflect'],
      /reflect padding of 6 values needs a 4-D or 5-D input, got 3-D/,
    ],
    [
      'pad: a value with reflect',
      'call_function',
      'pad',
      [[1, 1], 'reflect', 2],
      /a value \(2\) is only for constant padding, not reflect/,
    ],
  ];
  describe.each([false, true])('quantized: %s', (quantized) => {
    test.each(cases)('%s', (_, op, target, rest, message) => {
      const model = io.loadModel(oneNode([1, 2, 3], op, target, rest, { quantized }));
      const heap = qwasm.heapInUse();
      try {
        expect(() => model.forward(input([1, 2, 3]))).toThrow(message);
        expect(() => model.forward(input([1, 2, 3]))).toThrow(/^GraphModule\.forward\(x\): node 'n'/);
        expect(qwasm.heapInUse()).toBe(heap);
      } finally {
        model.dispose();
      }
    });
  });
});

test('the planner gives the output shape and kind of each op, as a run does', () => {
  const model = io.loadModel(
    graphModel([2, 3, 4, 5], { q: quantize() }, [
      node('q', 'call_module', 'q', [ref('x')]),
      node('p', 'call_method', 'permute', [ref('q'), 0, 3, 1, 2]),
      node('t', 'call_function', 'transpose', [ref('p'), 1, -1]),
      node('c', 'call_function', 'pad', [ref('t'), [1, -1, 2, 0], 'constant', 0.25]),
      node('r', 'call_function', 'pad', [ref('c'), [1, 1, 1, 1], 'reflect']),
      output('r'),
    ]),
  );
  try {
    const planned = Object.fromEntries(model.nodes.map((n) => [n.name, n.output?.shape]));
    expect(planned).toMatchObject({ p: [2, 5, 3, 4], t: [2, 4, 3, 5], c: [2, 4, 5, 5], r: [2, 4, 7, 7] });
    const y = model.forward(input([2, 3, 4, 5]));
    expect(y.shape).toEqual([2, 4, 7, 7]);
  } finally {
    model.dispose();
  }
});
