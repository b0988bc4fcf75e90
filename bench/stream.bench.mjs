// Depth streaming (GraphModule.forward(x, { maxMemoryBytes })) on the zoo's
// MeshNet-21 (random weights, PT2E int8; bench/output/zoo/meshnet.qwasm.safetensors
// from `python3 bench/zoo_prep.py`): untiled against streamed under a 256 MiB
// budget, on 128^3 and 256^3 volumes, one thread. Each run is a fresh Node.js
// process, so that heapHighWater() (malloc's largest footprint) is that
// forward's: the table gives the growth of the mark over the heap in use
// before the forward (the model's weights are in use before), the time of
// the forward, the chunk the budget allows and whether the output bytes are
// the untiled run's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { saveResult } from './harness.mjs';

const MODEL = new URL('./output/zoo/meshnet.qwasm.safetensors', import.meta.url);
const BUDGET = 256 * 2 ** 20;
const SIZES = (process.env.QWASM_STREAM_SIZES ?? '128,256').split(',').map(Number);
const SEED = 33;

async function child(size, mode) {
  const qwasm = await import('../web/src/index.node.mjs');
  await qwasm.init({ numThreads: 1 });
  const unlimited = { maxWork: Infinity, maxLiveBytes: Infinity, maxActivationBytes: Infinity };
  const model = qwasm.io.loadModel(new Uint8Array(readFileSync(MODEL)), unlimited);
  const shape = [1, 1, size, size, size];
  let s = SEED;
  const x = qwasm.tensor(
    Float32Array.from({ length: size ** 3 }, () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s >>> 8) / 2 ** 24 - 0.5;
    }),
    shape,
  );
  model.forward(qwasm.tensor(new Float32Array(16 ** 3), [1, 1, 16, 16, 16])); // warm-up (JIT, kernels)
  const plan = model.depthStreamPlan(shape, { maxMemoryBytes: BUDGET });
  const before = qwasm.heapInUse();
  const start = performance.now();
  let y;
  try {
    y = mode === 'streamed' ? model.forward(x, { maxMemoryBytes: BUDGET }) : model.forward(x);
  } catch (e) {
    return { error: e.message.slice(0, 300) };
  }
  const ms = performance.now() - start;
  const growth = qwasm.heapHighWater() - before;
  const hash = createHash('sha256')
    .update(new Uint8Array(y.data.buffer, y.data.byteOffset, y.data.byteLength))
    .digest('hex');
  return { ms, growth, before, depthChunk: plan.depthChunk, planBytes: plan.bytes, hash };
}

if (process.argv[2] === '--child') {
  const r = await child(Number(process.argv[3]), process.argv[4]);
  process.stdout.write(JSON.stringify(r));
  process.exit(0);
}

if (!existsSync(MODEL)) {
  console.log(
    'stream.bench: bench/output/zoo/meshnet.qwasm.safetensors is missing: run python3 bench/zoo_prep.py first',
  );
  process.exit(0);
}

function run(size, mode) {
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', String(size), mode], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out);
}

const mb = (b) => (b / 2 ** 20).toFixed(0);
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 3);
// Interleaved rounds of fresh processes (untiled, streamed, untiled, ...): the median time of each,
// the largest heap growth; an error in any round is the row's.
function medianOf(runs) {
  const failed = runs.find((r) => r.error);
  if (failed) return failed;
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const hashes = new Set(runs.map((r) => r.hash));
  return {
    ...runs[0],
    ms,
    all: runs.map((r) => Math.round(r.ms)),
    growth: Math.max(...runs.map((r) => r.growth)),
    hash: hashes.size === 1 ? runs[0].hash : 'differs between rounds',
  };
}
const rows = [];
for (const size of SIZES) {
  const byMode = { untiled: [], streamed: [] };
  for (let r = 0; r < ROUNDS; r++) for (const mode of ['untiled', 'streamed']) byMode[mode].push(run(size, mode));
  const untiled = medianOf(byMode.untiled);
  const streamed = medianOf(byMode.streamed);
  console.log(size, JSON.stringify({ untiled, streamed }));
  rows.push({ size, untiled, streamed });
}

const cell = (r, f) => (r.error ? `failed: ${r.error}` : f(r));
const lines = rows.map(({ size, untiled: u, streamed: s }) => {
  const ratio = u.error || s.error ? 'n/a' : (s.ms / u.ms).toFixed(2);
  const same = u.error || s.error ? 'n/a' : u.hash === s.hash && !u.hash.startsWith('differs') ? 'yes' : 'NO';
  return `| ${size}^3 | ${cell(u, (r) => `${(r.ms / 1000).toFixed(1)} s, ${mb(r.growth)} MB`)} | ${cell(s, (r) => `${(r.ms / 1000).toFixed(1)} s, ${mb(r.growth)} MB (T = ${r.depthChunk}, model ${mb(r.planBytes)} MB)`)} | ${ratio} | ${same} |`;
});
const markdown = `## Depth streaming: MeshNet-21 in a 256 MiB budget

bench/stream.bench.mjs: the zoo's MeshNet (21 channels, dilations 1,1,1,2,4,8,1,1, random weights, PT2E int8), one thread, each run in a fresh process, ${ROUNDS} interleaved rounds (untiled, streamed, untiled, ...): median time, largest heap; heap = growth of the wasm heap's high-water mark (\`heapHighWater()\`) over the heap in use before the forward (the loaded model). Streamed: \`forward(x, { maxMemoryBytes: 256 MiB })\`, chunks of T depth slices, each quantized conv in blocks of whole Winograd tiles along depth, a dilated one by depth phase (docs/architecture.md, "Depth streaming"); bytes: the streamed output's SHA-256 equals the untiled one's (in every round). Target (issue 33): 256^3 within 256 MB of wasm heap in at most 1.2x the untiled time.

| volume | untiled: time, heap | streamed: time, heap | streamed / untiled time | same bytes |
| --- | --- | --- | --- | --- |
${lines.join('\n')}`;
saveResult('stream', { name: 'stream', rows, markdown });
console.log(markdown);
