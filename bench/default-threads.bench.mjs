// Which numThreads should init() default to? qwasm's pool as users get it
// (the package's dist/ build, init({ numThreads })) at 1 and at 2 threads on
// this 2-core machine, idle and with one or both cores taken by other busy
// processes (a browser tab, a build, a second app: what "a busy machine" means).
// onnxruntime-web's rule (half the logical cores, at most 4) gives 1 thread
// here; qwasm's earlier default (the cores, at most 8) gives 2. Workloads: S1
// (a small ConvReLU3d, where pool overhead shows most), S2 (a mid-size one) and
// the committed r3d_18 at 1/8 width (a whole model). Each thread count runs in
// a child process of its own (a pool's size is fixed at init), the children
// alternating, so that both see the same moments of the machine.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { median, saveResult } from './harness.mjs';
import { buildConvReLU3d, SHAPES } from './workloads.mjs';

const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 5);
const MODEL = new URL('../tests/golden/exported/r3d_18.qwasm.safetensors', import.meta.url);

async function child(threads) {
  const qwasm = await import('../web/src/index.node.mjs'); // the package's build, dist/
  await qwasm.init({ numThreads: threads });
  const work = [];
  for (const id of ['S1', 'S2']) {
    const { qmod, qx } = buildConvReLU3d(
      qwasm,
      SHAPES.find((s) => s.id === id),
    );
    work.push({ id, fn: () => qmod.forward(qx).dispose() });
  }
  const model = qwasm.io.loadModel(readFileSync(MODEL));
  const shape = model.inputShape;
  const clip = { data: new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => Math.sin(i)), shape };
  work.push({ id: 'r3d_18 (1/8 width)', fn: () => model.forward(clip) });
  const out = {};
  for (const w of work) {
    for (let i = 0; i < 3; i++) w.fn();
    const ms = [];
    for (let i = 0; i < 9; i++) {
      const t0 = performance.now();
      w.fn();
      ms.push(performance.now() - t0);
    }
    out[w.id] = median(ms);
  }
  process.stdout.write(JSON.stringify({ variant: qwasm.runtimeInfo().variant, ms: out }));
}

function runChild(threads) {
  const script = fileURLToPath(import.meta.url);
  return JSON.parse(execFileSync(process.execPath, [script, '--child', String(threads)], { encoding: 'utf8' }));
}

async function measure(busyCores) {
  // Cores taken: a busy loop per core in other processes for the whole measurement.
  const busy = Array.from({ length: busyCores }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  try {
    const samples = { 1: [], 2: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const t of r % 2 ? [2, 1] : [1, 2]) samples[t].push(runChild(t).ms);
    }
    const ids = Object.keys(samples[1][0]);
    return ids.map((id) => ({
      id,
      one: median(samples[1].map((s) => s[id])),
      two: median(samples[2].map((s) => s[id])),
    }));
  } finally {
    for (const b of busy) b.kill();
  }
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else {
  const idle = await measure(0);
  const busy = await measure(1);
  const saturated = await measure(2);
  const date = new Date().toISOString().slice(0, 10);
  const row = (cond, r) =>
    `| ${cond} | ${r.id} | ${r.one.toFixed(2)} | ${r.two.toFixed(2)} | ${(r.one / r.two).toFixed(2)}× |`;
  const markdown = `## The default thread count

qwasm's package build (\`init({ numThreads })\`, the threaded variant for 2) at 1 and 2 threads on ${cpus().length} cores (${cpus()[0]?.model ?? ''}), idle, with one core taken by a busy loop in another process, and with both (bench/default-threads.bench.mjs; medians of ${ROUNDS} child processes per cell, alternating, each the median of 9 runs; ${date}). "speed-up" is 1-thread time over 2-thread time: above 1 the second thread pays.

| machine | work | 1 thread (ms) | 2 threads (ms) | speed-up |
|---|---|---:|---:|---:|
${idle.map((r) => row('idle', r)).join('\n')}
${busy.map((r) => row('one core busy', r)).join('\n')}
${saturated.map((r) => row('both cores busy', r)).join('\n')}`;
  saveResult('3b-default-threads', { date, idle, busy, saturated, markdown });
  console.log(markdown);
}
