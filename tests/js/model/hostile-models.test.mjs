// io.loadModel against files built to cost too much or to be read two ways:
// work and memory budgets checked at load (on the input shape the file
// declares) and again in forward() (on the real input), graphs that must be
// refused at load, and messages that stay short and name where in the file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import {
  chainModel,
  graphModel,
  loadError as loadErrorOf,
  modelFile,
  node,
  output,
  quantize,
  ref,
} from '../model-files.mjs';

const { io } = qwasm;
const ZOO = new Uint8Array(readFileSync(new URL('../../golden/exported/zoo.qwasm.safetensors', import.meta.url)));

beforeAll(() => qwasm.init());

const maxPool1d = (k, stride = 1, padding = 0) => ({
  type: 'MaxPool',
  dims: 1,
  kernel_size: [k],
  stride: [stride],
  padding: [padding],
  dilation: [1],
  ceil_mode: false,
});
const floatConv1d = (padding) => ({
  type: 'Conv',
  dims: 1,
  relu: false,
  in_channels: 1,
  out_channels: 1,
  kernel_size: [1],
  stride: [1],
  padding: [padding],
  dilation: [1],
  groups: 1,
  weight: 'w',
  bias: null,
});
const W = { w: { dtype: 'F32', shape: [1, 1, 1], data: [0.5] } };
const loadError = (bytes, options) => loadErrorOf(io, bytes, options);

describe('a file that asks for too much is refused at load, naming the node', () => {
  test('MaxPool1d with a 100,000-wide window over 4 x 200,000 values: over maxWork', () => {
    const bytes = chainModel([1, 4, 200000], [maxPool1d(100000)]);
    const e = loadError(bytes);
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toMatch(/^io\.loadModel\(bytes\): node 'm0' would bring one forward's work to .* over maxWork/);
    expect(e.message).toMatch(/declared input \[1, 4, 200000\]/);
    // A trusted model can raise the budget: it loads (and is not run here).
    expect(loadError(bytes, { maxWork: Number.POSITIVE_INFINITY })).toBeNull();
  });

  test('AdaptiveAvgPool2d to 40000 x 40000: a 6.4 GB output, over maxActivationBytes', () => {
    const bytes = chainModel([1, 1, 4, 4], [{ type: 'AdaptiveAvgPool', dims: 2, output_size: [40000, 40000] }]);
    expect(loadError(bytes)?.message).toMatch(
      /node 'm0' would need 6400000000 bytes \(output \[1, 1, 40000, 40000\]\), over maxActivationBytes/,
    );
  });

  test('a Conv1d padded by 5e8: refused before anything runs', () => {
    const bytes = chainModel([1, 1, 4], [floatConv1d(5e8)], W);
    expect(loadError(bytes)?.message).toMatch(/node 'm0' would need \d+ bytes .*over maxActivationBytes/);
  });

  test('the same checks run in forward() on the real input, before any work', () => {
    const model = io.loadModel(chainModel([1, 1, 10000], [maxPool1d(10000)]));
    const heap = qwasm.heapInUse();
    const big = { data: new Float32Array(2000000), shape: [1, 1, 2000000] };
    expect(() => model.forward(big)).toThrow(
      /^GraphModule\.forward\(x\): node 'm0' would bring one forward's work to .* over maxWork/,
    );
    expect(qwasm.heapInUse()).toBe(heap);
    // The declared input still runs.
    const y = model.forward({ data: new Float32Array(10000).fill(0.25), shape: [1, 1, 10000] });
    expect(y.shape).toEqual([1, 1, 1]);
    expect(y.data[0]).toBe(0.25);
    model.dispose();
  });

  test.each([
    [{ maxWork: -1 }, RangeError, /maxWork must be > 0/],
    [{ maxActivationBytes: 0 }, RangeError, /maxActivationBytes must be > 0/],
    [{ maxWork: '1e12' }, TypeError, /maxWork must be a number/],
    [{ maxBytes: 1 }, TypeError, /unknown option 'maxBytes'/],
  ])('options %o are checked', (options, ErrorClass, pattern) => {
    const e = loadError(ZOO, options);
    expect(e).toBeInstanceOf(ErrorClass);
    expect(e.message).toMatch(pattern);
  });
});

describe('graphs io.loadModel refuses at load', () => {
  const q = { q: quantize() };
  test('an output that is not a tensor', () => {
    const bytes = graphModel([1, 4], {}, [node('c', 'call_method', 'contiguous', [5]), output('c')]);
    expect(loadError(bytes)?.message).toMatch(/node 'c' takes a tensor, and its input is a constant/);
  });

  test('a float reshape to more than 64 dimensions', () => {
    const dims = new Array(65).fill(1);
    dims[0] = 4;
    for (const args of [
      [ref('x'), dims],
      [ref('x'), ...dims],
    ]) {
      const bytes = graphModel([1, 4], {}, [node('r', 'call_method', 'reshape', args), output('r')]);
      expect(loadError(bytes)?.message).toMatch(/reshape .*(65 dimensions, at most 64|at most 65)/);
    }
  });

  test('a reshape with two inferred dimensions', () => {
    const bytes = graphModel([1, 4], {}, [node('r', 'call_method', 'reshape', [ref('x'), -1, -1]), output('r')]);
    expect(loadError(bytes)?.message).toMatch(/reshape to \[-1, -1\]: at most one dimension can be -1/);
  });

  test('a Quantize whose scale is 0 in float32', () => {
    const bytes = chainModel([1, 4], [quantize(1e-50, 0)]);
    expect(loadError(bytes)?.message).toMatch(/module 'm0'\.scale 1e-50 is 0 in float32/);
  });

  test('extra positional arguments', () => {
    const relu = graphModel([1, 4], {}, [node('r', 'call_function', 'relu', [ref('x'), 3]), output('r')]);
    expect(loadError(relu)?.message).toMatch(/\('r'\): 2 positional arguments, call_function relu takes at most 1/);
    const add = graphModel([1, 4], q, [
      node('a', 'call_module', 'q', [ref('x')]),
      node('b', 'call_function', 'quantized.add', [ref('a'), ref('a'), 0.1, 3, 7]),
      output('b'),
    ]);
    expect(loadError(add)?.message).toMatch(/5 positional arguments, call_function quantized\.add takes at most 4/);
    const mod = graphModel([1, 4], q, [node('a', 'call_module', 'q', [ref('x'), ref('x')]), output('a')]);
    expect(loadError(mod)?.message).toMatch(/2 positional arguments, call_module q takes at most 1/);
  });

  test('unknown attributes of a module, a weight, a node or the graph', () => {
    const modAttr = chainModel([1, 4], [{ ...quantize(), reduce_range: true }]);
    expect(loadError(modAttr)?.message).toMatch(/module 'm0' has an unknown attribute 'reduce_range'/);
    const nodeAttr = graphModel([1, 4], q, [{ ...node('a', 'call_module', 'q', [ref('x')]), meta: 1 }, output('a')]);
    expect(loadError(nodeAttr)?.message).toMatch(/\('a'\) has an unknown attribute 'meta'/);
    const graphAttr = modelFile({ input_shape: [1, 4], modules: q, nodes: [], engine: 'x' });
    expect(loadError(graphAttr)?.message).toMatch(/the graph has an unknown attribute 'engine'/);
  });
});

describe('messages: short, and about the file', () => {
  test('a 10 MB tensor name gives a short message', () => {
    const name = 'n'.repeat(10_000_000);
    const bytes = chainModel([1, 4], [quantize()], { [name]: { dtype: 'F32', shape: [1], data: [1] } });
    const e = loadError(bytes);
    expect(e.message).toMatch(/tensor 'nnnn.*\.\.\.' \(10000000 characters\) is not used by any module/);
    expect(e.message.length).toBeLessThan(400);
  });

  test('a 1 MB attribute name gives a short message', () => {
    const bytes = chainModel([1, 4], [{ ...quantize(), ['a'.repeat(1_000_000)]: 1 }]);
    expect(loadError(bytes).message.length).toBeLessThan(400);
  });

  test('a name over the 1000-character limit is reported as too long, wherever it is', () => {
    const long = 'a'.repeat(1001);
    const shown = `'${'a'.repeat(100)}...' (1001 characters)`;
    const relu = { type: 'ReLU' };
    const call = (name, target, from = 'x') => node(name, 'call_module', target, [ref(from)]);
    for (const [what, bytes, message] of [
      [
        'a module path (called by a node)',
        graphModel([1, 2], { [long]: relu }, [call('r', long), output('r')]),
        `module path ${shown} is longer than the 1000 characters a name may have`,
      ],
      [
        'a node name',
        graphModel([1, 2], { m: relu }, [call(long, 'm'), output(long)]),
        `graph.nodes[1]'s name ${shown} is longer than the 1000 characters a name may have`,
      ],
      [
        'a call_module target',
        graphModel([1, 2], { m: relu }, [call('r', long), output('r')]),
        `graph.nodes[1] ('r')'s target ${shown} is longer than the 1000 characters a name may have`,
      ],
      [
        'a call_function target',
        graphModel([1, 2], {}, [node('r', 'call_function', long, [ref('x')]), output('r')]),
        `graph.nodes[1] ('r')'s target ${shown} is longer than the 1000 characters a name may have`,
      ],
      [
        'a node reference',
        graphModel([1, 2], { m: relu }, [call('r', 'm', long), output('r')]),
        `graph.nodes[1] ('r'): the argument's node name ${shown} is longer than the 1000 characters a name may have`,
      ],
      [
        "a module's tensor name",
        graphModel([1, 2], { m: { ...floatConv1d(0), weight: long } }, [call('r', 'm'), output('r')]),
        `module 'm'.weight's tensor name ${shown} is longer than the 1000 characters a name may have`,
      ],
    ]) {
      expect([what, loadError(bytes)?.message]).toEqual([what, `io.loadModel(bytes): ${message}`]);
    }
  });

  test("an error from qwasm's own constructor names the module path, not the constructor", () => {
    const bn = {
      type: 'BatchNorm',
      dims: 1,
      num_features: 1,
      eps: -1,
      weight: null,
      bias: null,
      running_mean: 'mean',
      running_var: 'var',
    };
    const tensors = { mean: { dtype: 'F32', shape: [1], data: [0] }, var: { dtype: 'F32', shape: [1], data: [1] } };
    const e = loadError(chainModel([1, 1, 4], [bn], tensors));
    expect(e.message).toMatch(/^io\.loadModel\(bytes\): module 'm0': eps/);
    expect(e.message).not.toMatch(/new nn\./);
  });

  test('io.loadModel before init() names io.loadModel only', () => {
    const script = `
      const { io } = require(${JSON.stringify(new URL('../../../dist/qwasm.cjs', import.meta.url).pathname)});
      const { readFileSync } = require('node:fs');
      try { io.loadModel(readFileSync(${JSON.stringify(new URL('../../golden/exported/zoo.qwasm.safetensors', import.meta.url).pathname)})); }
      catch (e) { process.stdout.write(e.message); }`;
    const message = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(message).toBe('io.loadModel(bytes): qwasm is not initialized: call `await init()` before using the API');
  });
});
