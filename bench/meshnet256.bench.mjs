// MeshNet-21 on 128^3 and 256^3 volumes (issue 33's speed target: >= 4x
// onnxruntime-web float and int8 on 256^3, at 1 and 2 threads): the zoo's MeshNet (bench/zoo_prep.py:
// 21 channels, dilations 1,1,1,2,4,8,1,1, random weights; PT2E int8 for
// qwasm, the float ONNX and its QDQ int8 form for onnxruntime-web), its ONNX
// input and output resized to each size here (the network is fully
// convolutional; onnx-proto rewrites the dims and drops the shape hints).
// qwasm runs as a brain page would: `forward(x, { maxMemoryBytes: 256 MiB })`
// (depth streaming), and untiled too. One seeded volume, interleaved rounds,
// each thread count in a process of its own (onnxruntime-web fixes its threads
// when its wasm starts). A size onnxruntime-web cannot run is reported with
// its error. Also: the share of voxel labels qwasm and onnxruntime int8 agree on.
import { existsSync, readFileSync } from 'node:fs';
import { initSideBySide, interleave, perThreadCount, saveResult } from './harness.mjs';
import { resizedModel } from './onnx-models.mjs';

const DIR = new URL('./output/zoo/', import.meta.url);
const SIZES = (process.env.QWASM_MESHNET_SIZES ?? '128,256').split(',').map(Number);
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 3);
const BUDGET = 256 * 2 ** 20;
const TARGET = 4;
const SEED = 33;

if (process.argv[2] !== '--render' && !existsSync(new URL('meshnet.float.onnx', DIR))) {
  console.log(
    'meshnet256.bench: bench/output/zoo is missing: run python3 bench/zoo_prep.py meshnet (needs torch) first',
  );
  process.exit(0);
}

const resized = (file, size) => resizedModel(new URL(file, DIR), size);

function labels(data, classes, inner) {
  const out = new Uint8Array(inner);
  for (let v = 0; v < inner; v++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if (data[v + c * inner] > data[v + best * inner]) best = c;
    out[v] = best;
  }
  return out;
}

async function child(threads) {
  const { qwasm, ort, ortOptions: opts } = await initSideBySide(threads);
  // No load budget: untiled is untiled (under the default budgets a 256^3 forward would stream by itself).
  const unlimited = { maxWork: Infinity, maxLiveBytes: Infinity, maxActivationBytes: Infinity };
  const model = qwasm.io.loadModel(readFileSync(new URL('meshnet.qwasm.safetensors', DIR)), unlimited);
  const bySize = {};
  for (const size of SIZES) {
    const shape = [1, 1, size, size, size];
    const n = size ** 3;
    let s = SEED;
    const data = Float32Array.from({ length: n }, () => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      return (s >>> 8) / 2 ** 24;
    });
    const y = model.forward({ data, shape }, { maxMemoryBytes: BUDGET });
    const classes = y.shape[1];
    const ours = labels(y.data, classes, n);
    const ortInput = { x: new ort.Tensor('float32', data, shape) };
    // A session that cannot run this size (onnxruntime-web is a wasm32 program) is reported, not timed.
    const sessions = {};
    const refused = {};
    for (const kind of ['int8', 'float']) {
      try {
        const session = await ort.InferenceSession.create(resized(`meshnet.${kind}.onnx`, size), opts);
        const out = (await session.run(ortInput)).y.data;
        sessions[kind] = session;
        if (kind === 'int8') {
          const theirs = labels(out, classes, n);
          let same = 0;
          for (let i = 0; i < n; i++) same += ours[i] === theirs[i];
          bySize[size] = { agreeOrtInt8: same / n };
        }
      } catch (e) {
        refused[kind] = String(e.message)
          .replace(/^.*ERROR_MESSAGE: /s, '')
          .slice(0, 200);
      }
    }
    const contestants = [
      { name: 'qwasmStreamed', fn: () => model.forward({ data, shape }, { maxMemoryBytes: BUDGET }) },
      { name: 'qwasmUntiled', fn: () => model.forward({ data, shape }) },
    ];
    if (sessions.int8) contestants.push({ name: 'ortInt8', fn: () => sessions.int8.run(ortInput) });
    if (sessions.float) contestants.push({ name: 'ortFloat', fn: () => sessions.float.run(ortInput) });
    const times = await interleave(contestants, { warmup: 0, rounds: ROUNDS });
    for (const t of Object.values(times)) delete t.all;
    for (const session of Object.values(sessions)) await session.release();
    bySize[size] = { ...bySize[size], times, refused };
  }
  // onnxruntime-web's workers would keep the process alive
  process.stdout.write(JSON.stringify(bySize), () => process.exit(0));
}

/** A refusal's cause in a few words (onnxruntime-web's messages carry its build paths). */
const refusal = (message) =>
  /overflow/i.test(message)
    ? 'integer overflow'
    : /bad_alloc/.test(message)
      ? 'out of memory'
      : message.trim().slice(0, 60);

async function render(byThreads, date, machineLine) {
  const ortVersion = (await import('onnxruntime-web')).env.versions?.web ?? '';
  const f = (x, d) => x.toFixed(d);
  const sec = (t) => (t ? f(t.medianMs / 1000, 1) : 'refused');
  const ratio = (r, k) => (r.times[k] ? `${f(r.times[k].medianMs / r.times.qwasmUntiled.medianMs, 2)}x` : '-');
  const rows = [];
  const targets = [];
  const refusals = new Set();
  for (const [t, bySize] of Object.entries(byThreads)) {
    for (const [size, r] of Object.entries(bySize)) {
      rows.push(
        `| ${size}^3 | ${t} | ${sec(r.times.qwasmUntiled)} | ${sec(r.times.qwasmStreamed)} (${f(r.times.qwasmStreamed.medianMs / r.times.qwasmUntiled.medianMs, 2)}x) | ${sec(r.times.ortInt8)} | ${sec(r.times.ortFloat)} | ${ratio(r, 'ortInt8')} | ${ratio(r, 'ortFloat')} | ${r.agreeOrtInt8 === undefined ? '-' : `${f(100 * r.agreeOrtInt8, 2)}%`} |`,
      );
      for (const [kind, message] of Object.entries(r.refused))
        refusals.add(`${kind} at ${size}^3 (${refusal(message)}: "${message.trim()}")`);
      const met = (k) => {
        if (!r.times[k]) return `${k === 'ortInt8' ? 'int8' : 'float'} refused by onnxruntime-web`;
        const v = r.times[k].medianMs / r.times.qwasmUntiled.medianMs;
        return `${f(v, 2)}x ${k === 'ortInt8' ? 'int8' : 'float'} (${v >= TARGET ? 'met' : 'not met'})`;
      };
      if (Number(size) === SIZES[SIZES.length - 1])
        targets.push(`${size}^3 at ${t}: ${met('ortInt8')}, ${met('ortFloat')}`);
    }
  }
  const markdown = `## MeshNet-21 on big volumes: qwasm in a 256 MiB budget vs onnxruntime-web

bench/meshnet256.bench.mjs: the zoo's MeshNet (bench/zoo_prep.py: 21 channels, dilations 1,1,1,2,4,8,1,1, random weights) on one seeded volume per size. qwasm: PT2E int8, the whole volume at once (no load budget; the ratios compare this run, like for like) and \`forward(x, { maxMemoryBytes: 256 MiB })\` (depth streaming; its wasm heap is measured in "Depth streaming", each run in a fresh process), on the threaded build with a pool of t threads. onnxruntime-web ${ortVersion}: the same float model as ONNX and its QDQ int8 form (quantize_static), input and output dims rewritten to the size, \`numThreads\` t, spinning off. Median seconds over ${ROUNDS} interleaved rounds, each thread count in its own process; ${machineLine}, ${date}. Target (issue 33): >= ${TARGET}x onnxruntime-web float and int8 on 256^3 at 1 and 2 threads.

| volume | threads | qwasm s | qwasm in 256 MiB s (vs whole) | onnxruntime-web int8 s | onnxruntime-web float s | vs ort int8 | vs ort float | voxel labels equal to ort int8 |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

${refusals.size ? `onnxruntime-web could not run: ${[...refusals].join('; ')}.` : ''}

Targets: ${targets.join('; ')}.`;
  const one = byThreads[1] ?? {};
  const sizeLine = (size) => {
    const r = one[size];
    if (!r) return null;
    const peer = (k, what) =>
      r.times[k]
        ? `${what} ${sec(r.times[k])} s (${ratio(r, k)})`
        : `${what} cannot run it (${refusal(r.refused[k === 'ortInt8' ? 'int8' : 'float'] ?? 'refused')})`;
    return `${size}^3: qwasm ${sec(r.times.qwasmUntiled)} s (${sec(r.times.qwasmStreamed)} s in 256 MiB), onnxruntime-web ${peer('ortInt8', 'int8')}, ${peer('ortFloat', 'float')}`;
  };
  const lines = SIZES.map(sizeLine).filter(Boolean);
  const readme = lines.length
    ? `MeshNet-21 (brainchop's network, random weights), 1 thread (${date}; BENCHMARKS.md, "MeshNet-21 on big volumes"): ${lines.join('; ')}.`
    : undefined;
  saveResult('5e-meshnet256', { date, machine: machineLine, byThreads, markdown, readme });
  console.log(markdown);
}

await perThreadCount({ file: import.meta.url, threads: [1, 2], name: '5e-meshnet256', child, render });
