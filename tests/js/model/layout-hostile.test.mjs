// The layout ops (permute, transpose, pad) on hostile graph files: constants
// that are not what the op takes are refused at load; dims and pads that do
// not fit the input are a NodeError naming the node before anything is
// allocated; pads that would need too much memory fail the load budget.
import * as qwasm from '../../../web/src/index.node.mjs';
import { graphModel, loadError as loadErrorOf, node, output, quantize, ref } from '../model-files.mjs';

const { io } = qwasm;
beforeAll(() => qwasm.init());
const loadError = (bytes, options) => loadErrorOf(io, bytes, options);
const UNLIMITED = { maxActivationBytes: Infinity, maxLiveBytes: Infinity, maxWork: Infinity };

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

  test('a quantized pad of 2^40: over budget at load; with no budget, refused in forward before any allocation', () => {
    const bytes = oneNode([1, 2, 3], 'call_function', 'pad', [[2 ** 40, 0]], { quantized: true });
    expect(loadError(bytes)?.message).toMatch(/node 'n' would need 2199023255558 bytes .*over maxActivationBytes/);
    const model = io.loadModel(bytes, UNLIMITED);
    const heap = qwasm.heapInUse();
    try {
      expect(() => model.forward(input([1, 2, 3]))).toThrow(
        /node 'n' \(call_function pad\): pad: the output \[1, 2, 1099511627779\] would have 2199023255558 elements, over 2147483647/,
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
    [
      'pad: circular that crops all and wraps (PyTorch reads uninitialized memory)',
      'call_function',
      'pad',
      [[-3, 1], 'circular'],
      /circular padding \(-3, 1\) crops all of dimension 2 of size 3 and wraps what is left/,
    ],
    ['squeeze: a dim out of range', 'call_method', 'squeeze', [3], /squeeze: dim 3 out of range for rank 3/],
    ['unsqueeze: a dim out of range', 'call_function', 'unsqueeze', [-5], /unsqueeze: dim -5 out of range for rank 4/],
    ['slice: a zero step', 'call_function', 'slice', [2, 0, 3, 0], /slice: step must be a positive integer, got 0/],
    [
      'slice: a negative step',
      'call_function',
      'slice',
      [2, null, null, -1],
      /step must be a positive integer, got -1/,
    ],
    ['slice: a dim out of range', 'call_function', 'slice', [5, 0, 1, 1], /slice: dim 5 out of range for rank 3/],
    [
      'select: an index out of range',
      'call_function',
      'select',
      [2, 3],
      /select: index 3 out of range for dimension 2 of size 3/,
    ],
    [
      'select: a negative index out of range',
      'call_function',
      'select',
      [1, -3],
      /index -3 out of range for dimension 1 of size 2/,
    ],
    [
      'narrow: past the end',
      'call_method',
      'narrow',
      [2, 1, 3],
      /narrow: start 1 \+ length 3 exceeds dimension 2 of size 3/,
    ],
    ['narrow: a negative length', 'call_method', 'narrow', [2, 0, -1], /start 0 \+ length -1 exceeds/],
    [
      'expand: a size that does not match',
      'call_method',
      'expand',
      [1, 3, 3],
      /expand: the size 3 of dimension 1 must match the existing size 2/,
    ],
    [
      'expand: fewer sizes than dims',
      'call_method',
      'expand',
      [[2, 3]],
      /the number of sizes \(2\) must be at least the input's 3/,
    ],
    [
      'expand: a negative new dim',
      'call_method',
      'expand',
      [-1, 1, 2, 3],
      /size -1 for the new leading dimension 0 must be >= 0/,
    ],
    [
      'expand: 2^31 elements',
      'call_method',
      'expand',
      [2 ** 31, 1, 2, 3],
      /expand: the output \[2147483648, 1, 2, 3\] would have 12884901888 elements/,
    ],
    ['repeat: a negative repeat', 'call_method', 'repeat', [1, -2, 1], /repeat: repeats must be >= 0, got -2/],
    [
      'repeat: 2^40 times',
      'call_method',
      'repeat',
      [2 ** 40, 1, 1],
      /repeat: the output \[1099511627776, 2, 3\] would have/,
    ],
    [
      'flip: a repeated dim',
      'call_function',
      'flip',
      [[0, -3]],
      /flip: dim 0 appears multiple times in dims \[0, -3\]/,
    ],
    ['flip: a dim out of range', 'call_method', 'flip', [3], /flip: dim 3 out of range for rank 3/],
  ];
  describe.each([false, true])('quantized: %s', (quantized) => {
    test.each(cases)('%s', (_, op, target, rest, message) => {
      // (no budget: the outputs too large for any tensor are refused by the run itself)
      const model = io.loadModel(oneNode([1, 2, 3], op, target, rest, { quantized }), UNLIMITED);
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

test('repeat and expand to 16 GB: over maxActivationBytes at load, before anything is allocated', () => {
  for (const [target, rest] of [
    ['repeat', [100000, 100000, 1]],
    ['expand', [100000, 100000, 1]],
  ]) {
    const bytes = graphModel([1, 1, 1], {}, [node('n', 'call_method', target, [ref('x'), ...rest]), output('n')]);
    expect(loadError(bytes)?.message).toMatch(/node 'n' would need 40000000000 bytes .*over maxActivationBytes/);
  }
});

test('stack: tensors of different shapes or kinds, or a bad dim, are refused naming the node', () => {
  const cases = [
    [[ref('x'), ref('y')], 0, /stack: every tensor must have the same shape, got \[1, 2, 3\] and \[1, 2, 1\] at 1/],
    [[ref('x'), ref('x')], 4, /stack: dim 4 out of range for rank 4/],
    [[ref('q'), ref('x')], 0, /the tensors must be all float or all quantized/],
  ];
  for (const [tensors, dim, message] of cases) {
    const bytes = graphModel([1, 2, 3], { q: quantize(), r: quantize(0.5, 3) }, [
      node('q', 'call_module', 'q', [ref('x')]),
      node('r', 'call_module', 'r', [ref('x')]),
      node('y', 'call_function', 'slice', [ref('x'), 2, 0, 1, 1]),
      node('n', 'call_function', 'stack', [tensors, dim]),
      output('n'),
    ]);
    const model = io.loadModel(bytes);
    const heap = qwasm.heapInUse();
    try {
      expect(() => model.forward(input([1, 2, 3]))).toThrow(message);
      expect(qwasm.heapInUse()).toBe(heap);
    } finally {
      model.dispose();
    }
  }
  const constant = graphModel([1, 2, 3], {}, [node('n', 'call_function', 'stack', [[1, 2], 0]), output('n')]);
  expect(loadError(constant)?.message).toMatch(/node 'n' takes a tensor, and its input is a constant/);
});

test('the planner gives the output shape and kind of each op, as a run does', () => {
  const model = io.loadModel(
    graphModel([2, 3, 4, 5], { q: quantize() }, [
      node('q', 'call_module', 'q', [ref('x')]),
      node('p', 'call_method', 'permute', [ref('q'), 0, 3, 1, 2]),
      node('t', 'call_function', 'transpose', [ref('p'), 1, -1]),
      node('c', 'call_function', 'pad', [ref('t'), [1, -1, 2, 0], 'constant', 0.25]),
      node('r', 'call_function', 'pad', [ref('c'), [1, 1, 1, 1], 'reflect']),
      node('u', 'call_method', 'unsqueeze', [ref('r'), 0]),
      node('s', 'call_function', 'squeeze', [ref('u')]),
      node('l', 'call_function', 'slice', [ref('s'), -1, 1, null, 3]),
      node('e', 'call_function', 'select', [ref('l'), 1, -1]),
      node('n', 'call_method', 'narrow', [ref('e'), 1, 2, 4]),
      node('x2', 'call_method', 'expand', [ref('n'), 3, -1, -1, -1]),
      node('rp', 'call_method', 'repeat', [ref('x2'), 1, 2, 1, 1, 2]),
      node('f', 'call_function', 'flip', [ref('rp'), [0, -1]]),
      node('st', 'call_function', 'stack', [[ref('f'), ref('f')], -2]),
      output('st'),
    ]),
  );
  try {
    const planned = Object.fromEntries(model.nodes.map((n) => [n.name, n.output?.shape]));
    expect(planned).toMatchObject({
      p: [2, 5, 3, 4],
      t: [2, 4, 3, 5],
      c: [2, 4, 5, 5],
      r: [2, 4, 7, 7],
      u: [1, 2, 4, 7, 7],
      s: [2, 4, 7, 7],
      l: [2, 4, 7, 2],
      e: [2, 7, 2],
      n: [2, 4, 2],
      x2: [3, 2, 4, 2],
      rp: [1, 6, 2, 4, 4],
      f: [1, 6, 2, 4, 4],
      st: [1, 6, 2, 4, 2, 4],
    });
    expect(model.nodes.find((n) => n.name === 'st').output.dtype).toBe('quint8');
    const y = model.forward(input([2, 3, 4, 5]));
    expect(y.shape).toEqual([1, 6, 2, 4, 2, 4]);
  } finally {
    model.dispose();
  }
});

describe('a Pad module entry the loader refuses', () => {
  const padModule = (fields) =>
    graphModel([1, 2, 3], { p: { type: 'Pad', ...fields } }, [node('n', 'call_module', 'p', [ref('x')]), output('n')]);
  test.each([
    [
      'padding of 3 values',
      { padding: [1, 1, 1], mode: 'constant', value: 0 },
      /p'\.padding must be a list of 2, 4 or 6 integers/,
    ],
    ['a fractional padding', { padding: [1, 0.5], mode: 'constant', value: 0 }, /p'\.padding\[1\]/],
    [
      'an unknown mode',
      { padding: [1, 1], mode: 'wrap', value: 0 },
      /p'\.mode must be one of constant, reflect, replicate, circular/,
    ],
    [
      'a value with reflect',
      { padding: [1, 1], mode: 'reflect', value: 1 },
      /p'\.value 1 is only for constant padding/,
    ],
    ['a value that is text', { padding: [1, 1], mode: 'constant', value: 'a' }, /p'\.value/],
  ])('%s', (_, fields, message) => {
    expect(loadError(padModule(fields))?.message).toMatch(message);
  });

  test('a reflect pad as wide as the input: refused in forward, naming the node', () => {
    const model = io.loadModel(padModule({ padding: [3, 0], mode: 'reflect', value: 0 }));
    try {
      expect(() => model.forward(input([1, 2, 3]))).toThrow(
        /node 'n'.*reflect padding \(3, 0\) must be less than the size 3/,
      );
    } finally {
      model.dispose();
    }
  });
});
