// nn.Hardtanh in exported models (tests/golden/hardtanh.json, from PyTorch
// 2.15): on QTensors in an eager-quantized model (quantized::hardtanh, beside
// a ReLU6), and on floats holding -0, NaN and +-Inf; bit for bit with both ISAs.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { decode, firstBitDifference, initGolden, loadGolden } from '../util.mjs';

const golden = loadGolden('hardtanh.json');
const fileOf = (name) => new Uint8Array(readFileSync(new URL(`../../golden/${name}`, import.meta.url)));
const tensorOf = (a) => ({ data: decode(a), shape: a.shape });

beforeAll(() => initGolden(qwasm, golden));
afterEach(() => qwasm.setKernelIsa('auto'));

test('the golden file has the quantized and the float case', () => {
  expect(golden.cases.map((c) => c.name.split(':')[0])).toEqual(['quantized', 'float']);
});

describe.each(['wasmsimd', 'scalar'])('%s kernels', (isa) => {
  test.each(golden.cases.map((c) => [c.name, c]))('%s', (_, c) => {
    qwasm.setKernelIsa(isa);
    const heap = qwasm.heapInUse();
    const model = qwasm.io.loadModel(fileOf(c.file));
    const y = model.forward(tensorOf(c.x));
    model.dispose();
    expect({ shape: y.shape, firstBitDifference: firstBitDifference(y.data, decode(c.y), { anyNaN: true }) }).toEqual({
      shape: c.y.shape,
      firstBitDifference: -1,
    });
    expect(qwasm.heapInUse()).toBe(heap);
  });
});

test('a Hardtanh entry whose bounds are not increasing is refused at load, naming the module', () => {
  const bytes = fileOf('exported/hardtanh_float.qwasm.safetensors');
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const graph = JSON.parse(header.__metadata__.graph);
  graph.modules.clamp.min_val = 0.5;
  header.__metadata__.graph = JSON.stringify(graph);
  const text = new TextEncoder().encode(JSON.stringify(header).padEnd(n, ' '));
  expect(text.length).toBe(n);
  const edited = new Uint8Array(bytes);
  edited.set(text, 8);
  expect(() => qwasm.io.loadModel(edited)).toThrow(/clamp.*max_val 0\.5 must be greater than min_val 0\.5/);
});
