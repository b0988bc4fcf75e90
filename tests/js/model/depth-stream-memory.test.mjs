// Depth streaming's memory, measured: a MeshNet-like chain (21 channels,
// dilations 1,1,1,2,4,8,1,1) on [1, 1, 48, 40, 40], each run in a fresh
// Node.js process so that the wasm heap's high-water mark (heapHighWater():
// malloc's largest footprint) is the forward's. The streamed run's growth of
// the mark over the heap in use before it stays within maxMemoryBytes; the
// untiled run's goes over it (the measurement can tell them apart).
import { execFileSync } from 'node:child_process';

const SHAPE = [1, 1, 48, 40, 40];
// 10 MiB: the plan's bound with chunks of one depth slice (each quantized conv's blocks still whole
// Winograd tiles deep, 2 x its dilation) is 5.9 MB; the untiled run grows the heap by about 18 MB.
const BUDGET = 10 * 2 ** 20;
const SEED = 4242;

const index = new URL('../../../web/src/index.node.mjs', import.meta.url).href;
const files = new URL('../model-files.mjs', import.meta.url).href;

// The child: builds the model (seeded integers), runs one forward, prints what the heap did.
const script = (streamed) => `
import * as q from ${JSON.stringify(index)};
import { chainModel } from ${JSON.stringify(files)};
await q.init();
let s = ${SEED};
const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
const tensors = {};
const modules = [{ type: 'Quantize', scale: 0.03, zero_point: 100, dtype: 'quint8' }];
let cin = 1;
[1, 1, 1, 2, 4, 8, 1, 1, 0].forEach((d, i) => {
  const k = d === 0 ? 1 : 3, cout = d === 0 ? 3 : 21;
  tensors['w' + i] = { dtype: 'I8', shape: [cout, cin, k, k, k], data: Array.from({ length: cout * cin * k ** 3 }, () => Math.floor(next() * 41) - 20) };
  modules.push({ type: 'QuantizedConv', dims: 3, relu: d !== 0, in_channels: cin, out_channels: cout,
    kernel_size: [k, k, k], stride: [1, 1, 1], padding: [d, d, d], dilation: [Math.max(d, 1), Math.max(d, 1), Math.max(d, 1)],
    groups: 1, scale: 0.05, zero_point: d === 0 ? 128 : 0,
    weight: { qscheme: 'per_tensor_affine', ints: 'w' + i, scale: 0.01, zero_point: 0 }, bias: null });
  cin = cout;
});
modules.push({ type: 'DeQuantize' });
const model = q.io.loadModel(chainModel(${JSON.stringify(SHAPE)}, modules, tensors));
const n = ${SHAPE.join('*')};
const x = q.tensor(Float32Array.from({ length: n }, () => next() * 6 - 3), ${JSON.stringify(SHAPE)});
const plan = model.depthStreamPlan(${JSON.stringify(SHAPE)}, { maxMemoryBytes: ${BUDGET} });
const before = q.heapInUse();
const y = ${streamed ? `model.forward(x, { maxMemoryBytes: ${BUDGET} })` : 'model.forward(x)'};
const growth = q.heapHighWater() - before;
let sum = 0;
for (const v of y.data) sum = (sum * 31 + Math.round(v * 1000)) % 1000000007;
process.stdout.write(JSON.stringify({ growth, depthChunk: plan.depthChunk, bytes: plan.bytes, sum }));
`;

function run(streamed) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(streamed)], {
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

test(`streamed under maxMemoryBytes ${BUDGET}: the wasm heap's peak growth stays within it; untiled goes over (seed ${SEED})`, () => {
  const streamed = run(true);
  const untiled = run(false);
  // The plan streams in chunks of a few slices, and its memory model fits the budget.
  expect(streamed.depthChunk).toBeGreaterThanOrEqual(1);
  expect(streamed.depthChunk).toBeLessThan(SHAPE[2]);
  expect(streamed.bytes).toBeLessThanOrEqual(BUDGET);
  expect(streamed.growth).toBeLessThanOrEqual(BUDGET);
  expect(untiled.growth).toBeGreaterThan(BUDGET);
  // The same output (a checksum of the floats; depth-stream.test.mjs compares bytes).
  expect(streamed.sum).toBe(untiled.sum);
  console.log(
    `depth streaming memory: chunk ${streamed.depthChunk} slices, model ${streamed.bytes} B, ` +
      `streamed heap growth ${streamed.growth} B, untiled ${untiled.growth} B (budget ${BUDGET} B)`,
  );
});
