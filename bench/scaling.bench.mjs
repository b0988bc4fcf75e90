// Two threads, process by process: r3d_18 and r2plus1d_18 at 1 and 2
// threads, each thread count in PROCESSES fresh processes, alternating 1, 2,
// 1, 2, ... so that both see the same moments of a shared machine (the same
// build's 2-thread forward moved by up to about 20% from one process to the
// next). In each process, per model: io.loadModel on the threaded build with a
// pool of t threads, one warm-up forward, ROUNDS forwards timed (their
// median), then one profile(): its layers' own times, summed. The scaling is
// the median of the 1-thread processes' medians over the 2-thread ones'; its
// range pairs the extremes (slowest 1-thread over fastest 2-thread, and the
// reverse). No peer here: bench/model.bench.mjs has onnxruntime-web.
//
// Needs bench/output/models from `python3 bench/model_prep.py`; says so and
// exits when it is missing.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { initThreaded, machine, median, saveResult } from './harness.mjs';

const DIR = new URL('./output/models/', import.meta.url);
const ARCHS = ['r3d_18', 'r2plus1d_18'];
const THREADS = [1, 2];
const PROCESSES = Number(process.env.QWASM_BENCH_PROCESSES ?? 3);
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 7);

async function child(threads) {
  const qwasm = await initThreaded(threads);
  const clips = new Float32Array(readFileSync(new URL('clips.bin', DIR)).buffer.slice(0));
  const out = [];
  for (const arch of ARCHS) {
    const meta = JSON.parse(readFileSync(new URL(`${arch}.json`, DIR), 'utf8'));
    const size = meta.shape.reduce((a, b) => a * b, 1);
    const x = { data: clips.subarray(0, size), shape: meta.shape };
    const model = qwasm.io.loadModel(readFileSync(new URL(`${arch}.qwasm.safetensors`, DIR)));
    model.forward(x);
    const ms = [];
    for (let r = 0; r < ROUNDS; r++) {
      const t0 = performance.now();
      model.forward(x);
      ms.push(performance.now() - t0);
    }
    const layersMs = model.profile(x).layers.reduce((sum, l) => sum + l.ms, 0);
    model.dispose();
    out.push({ arch, threads, medianMs: median(ms), minMs: Math.min(...ms), maxMs: Math.max(...ms), layersMs });
  }
  process.stdout.write(JSON.stringify(out), () => process.exit(0));
}

function render(runs, date, machineLine) {
  const f = (v, d = 0) => v.toFixed(d);
  const of = (arch, t) => runs.filter((r) => r.arch === arch && r.threads === t);
  const rows = [];
  const scaling = {};
  for (const arch of ARCHS) {
    for (const t of THREADS) {
      const rs = of(arch, t);
      const outside = rs.map((r) => r.medianMs - r.layersMs);
      rows.push(
        `| ${arch} | ${t} | ${rs.map((r) => f(r.medianMs)).join(', ')} | ${f(median(rs.map((r) => r.medianMs)))} | ${rs.map((r) => f(r.layersMs)).join(', ')} | ${outside.map((v) => f(v)).join(', ')} |`,
      );
    }
    const one = of(arch, 1).map((r) => r.medianMs);
    const two = of(arch, 2).map((r) => r.medianMs);
    scaling[arch] = {
      median: median(one) / median(two),
      low: Math.min(...one) / Math.max(...two),
      high: Math.max(...one) / Math.min(...two),
      twoThreadSpread: Math.max(...two) / Math.min(...two) - 1,
      outsideAtTwo: median(of(arch, 2).map((r) => r.medianMs - r.layersMs)),
      forwardAtTwo: median(two),
    };
  }
  const summary = ARCHS.map((a) => {
    const s = scaling[a];
    return `- ${a}: ${f(s.median, 2)}x (range ${f(s.low, 2)}x-${f(s.high, 2)}x); its 2-thread processes differ by up to ${f(100 * s.twoThreadSpread)}%; at 2 threads ${f(s.outsideAtTwo)} ms of ${f(s.forwardAtTwo)} ms per forward lie outside the layers (the median process)`;
  }).join('\n');
  const markdown = `## Two threads, process by process

${date}, ${machineLine}. r3d_18 and r2plus1d_18 (the whole-model table's files, one clip) on qwasm's threaded build with a pool of 1 or 2 threads, each thread count in ${PROCESSES} fresh processes, alternating (bench/scaling.bench.mjs). Per process: the median of ${ROUNDS} forwards after a warm-up, and the sum of its layers' own times from one profile() (the rest of a forward: the graph's bookkeeping between layers, and whatever the machine did meanwhile; the profile() is a run of its own, so a negative difference means it took longer than the median forward).

| model | threads | forward ms, per process | median | layers' own ms, per process | outside the layers, ms |
|---|---|---|---|---|---|
${rows.join('\n')}

Scaling 1 -> 2 threads (median of the 1-thread processes over the 2-thread ones; the range pairs their extremes):
${summary}`;
  saveResult('5f-scaling', {
    date,
    machine: machineLine,
    processes: PROCESSES,
    rounds: ROUNDS,
    runs,
    scaling,
    markdown,
  });
  console.log(markdown);
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else if (process.argv[2] === '--render') {
  const saved = JSON.parse(readFileSync(new URL('./results/5f-scaling.json', import.meta.url), 'utf8'));
  render(saved.runs, saved.date, saved.machine);
} else if (!ARCHS.every((a) => existsSync(new URL(`${a}.json`, DIR)))) {
  console.log('scaling.bench: bench/output/models is missing: run python3 bench/model_prep.py (needs torch) first');
} else {
  const self = fileURLToPath(import.meta.url);
  const runs = [];
  for (let p = 0; p < PROCESSES; p++) {
    for (const t of THREADS) {
      process.stderr.write(`process ${p + 1} of ${PROCESSES}, ${t} thread(s)...\n`);
      runs.push(...JSON.parse(execFileSync(process.execPath, [self, '--child', String(t)], { maxBuffer: 1 << 26 })));
    }
  }
  // machine() describes a one-thread run; these processes ran 1 and 2.
  render(runs, new Date().toISOString().slice(0, 10), machine().replace(/, one thread$/, ''));
}
