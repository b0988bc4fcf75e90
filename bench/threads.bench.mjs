// Threads: S1-S6 (ConvReLU3d, batch 1, k3 p1) and nn.quantized.Linear at 1, 2
// and 4 threads, against onnxruntime-web at the same numThreads, same data.
// onnxruntime-web fixes its thread count when its wasm starts, so each thread
// count runs in a child process of its own; inside a child, qwasm at 1 and at
// t threads are timed in interleaved rounds before and after
// onnxruntime-web's rounds at t threads (see timeAroundPeer in harness.mjs). qwasm runs the threaded benchmark
// build (build/wasm/qwasm.testing.mt.*: the release core + test entry points)
// with a pool of t threads (its 1-thread column: setNumThreads(1)). The share of tiles each
// thread ran in the conv's last loop is recorded (the pool's balance).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { saveResult, timeAroundPeer } from './harness.mjs';
import { qlinearConvModel, qlinearMatMulModel } from './onnx-models.mjs';
import { buildConvReLU3d, buildLinear, macs, SHAPES } from './workloads.mjs';

const THREADS = [1, 2, 4];
const RUNS = Number(process.env.QWASM_BENCH_RUNS ?? 7);
const timeBoth = (ours, theirs) => timeAroundPeer(ours, theirs, RUNS);

async function child(threads) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  const require = createRequire(import.meta.url);
  const qwasm = await import('../web/src/node-entry.mjs');
  const { wasm } = await import('../web/src/runtime/runtime.mjs');
  await qwasm.init({
    numThreads: Math.max(threads, 1),
    _moduleFactory: require('../build/wasm/qwasm.testing.mt.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
  });
  const M = wasm();
  // Its intra-op threads do not spin after a run: spinning threads would take
  // the 2 cores from whatever runs next in the interleaved rounds.
  const opts = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const at = (n, fn) => () => {
    qwasm.setNumThreads(n);
    fn();
  };
  const rows = [];
  for (const c of SHAPES) {
    process.stderr.write(`  ${c.id} at ${threads}\n`);
    const { qmod, qx, fmod, ortParams: q } = buildConvReLU3d(qwasm, c, { winograd: false }); // the direct kernel
    const session = await ort.InferenceSession.create(qlinearConvModel(c, q), opts);
    const xq = new ort.Tensor('uint8', qx.intRepr(), [1, c.cin, ...c.spatial]);
    // Same bits at every thread count (the benchmark's own sanity check).
    qwasm.setNumThreads(1);
    const one = qmod.forward(qx);
    qwasm.setNumThreads(threads);
    const many = qmod.forward(qx);
    const shares = M._lastLoopShares();
    const manyInts = many.intRepr();
    const same = one.intRepr().every((v, i) => v === manyInts[i]);
    one.dispose();
    many.dispose();
    const t = await timeBoth(
      [
        { name: 'qwasm1', fn: at(1, () => qmod.forward(qx).dispose()) },
        { name: 'qwasm', fn: at(threads, () => qmod.forward(qx).dispose()) },
      ],
      { name: 'ort', fn: () => session.run({ x: xq }) },
    );
    rows.push({ id: c.id, macs: macs(c), same, shares, ...t });
    await session.release();
    for (const d of [qx, qmod, fmod]) d.dispose();
  }
  // nn.quantized.Linear(512, 512) on [1024, 512].
  const [R, I, O] = [1024, 512, 512];
  const { qlin, qx, ortParams: q } = buildLinear(qwasm, R, I, O);
  const session = await ort.InferenceSession.create(qlinearMatMulModel(R, I, O, q), opts);
  const xq = new ort.Tensor('uint8', qx.intRepr(), [R, I]);
  qwasm.setNumThreads(threads);
  qlin.forward(qx).dispose();
  const shares = M._lastLoopShares();
  const t = await timeBoth(
    [
      { name: 'qwasm1', fn: at(1, () => qlin.forward(qx).dispose()) },
      { name: 'qwasm', fn: at(threads, () => qlin.forward(qx).dispose()) },
    ],
    { name: 'ort', fn: () => session.run({ x: xq }) },
  );
  rows.push({ id: 'Linear', macs: R * I * O, same: true, shares, ...t });
  await session.release();
  process.stdout.write(JSON.stringify(rows));
  process.exit(0); // onnxruntime-web's workers would keep the process alive
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else {
  const self = fileURLToPath(import.meta.url);
  const byThreads = {};
  for (const t of THREADS) {
    process.stderr.write(`${t} thread(s)...\n`);
    byThreads[t] = JSON.parse(execFileSync(process.execPath, [self, '--child', String(t)], { maxBuffer: 1 << 24 }));
  }
  const fmt = (v, d = 1) => v.toFixed(d);
  const date = new Date().toISOString().slice(0, 10);
  const ids = byThreads[1].map((r) => r.id);
  const cell = (t, id) => {
    const r = byThreads[t].find((x) => x.id === id);
    return `${fmt(r.qwasm.medianMs)} / ${fmt(r.ort.medianMs)} (${fmt(r.ort.medianMs / r.qwasm.medianMs, 2)}x)`;
  };
  const scaling = (t, id) => {
    const r = byThreads[t].find((x) => x.id === id);
    return `${fmt(r.qwasm1.medianMs / r.qwasm.medianMs, 2)}x`;
  };
  const share = (t, id) => {
    const s = byThreads[t].find((x) => x.id === id).shares;
    const total = s.reduce((a, b) => a + b, 0);
    return s.map((v) => `${fmt((100 * v) / total, 0)}%`).join(' / ');
  };
  const allSame = Object.values(byThreads).every((rows) => rows.every((r) => r.same));
  const table = ids
    .map(
      (id) =>
        `| ${id} | ${cell(1, id)} | ${cell(2, id)} | ${scaling(2, id)} | ${cell(4, id)} | ${scaling(4, id)} | ${share(2, id)} | ${share(4, id)} |`,
    )
    .join('\n');
  const s2 = (t) => byThreads[t].find((r) => r.id === 'S2');
  const behind = THREADS.flatMap((t) =>
    byThreads[t].filter((r) => r.ort.medianMs < r.qwasm.medianMs).map((r) => `${r.id} at ${t}`),
  );
  const markdown = `## Threads: qwasm and onnxruntime-web at 1, 2 and 4 threads

S1-S6 as above (ConvReLU3d, batch 1, k3 p1; S6 depthwise) and \`nn.quantized.Linear(512, 512)\` on [1024, 512]. Each thread count runs in its own process (onnxruntime-web fixes its threads when its wasm starts); within it, qwasm at 1 thread and qwasm at t threads are timed in interleaved rounds, then onnxruntime-web (\`env.wasm.numThreads = t\`, spinning off) in rounds of its own, then qwasm again (onnxruntime-web's threads keep this 2-core machine busy for a while after a run: interleaved with it, qwasm's next call ran up to 3x slower), medians of ${RUNS} per contestant. Cells: qwasm ms / onnxruntime-web ms (onnxruntime time / qwasm time). "Scaling": qwasm at 1 thread / qwasm at t threads, same rounds. "Shares": the tiles each thread ran in the conv's (Linear's) last parallel loop, caller first. qwasm: the threaded build with a pool of t threads (\`init({ numThreads: t })\`; its 1-thread column is \`setNumThreads(1)\`). This machine has ${cpus().length} cores, so 4 threads show the pool's overhead, not a speed-up. Results at t threads equal those at 1 thread bit for bit: ${allSame ? 'yes, every row' : '**NO**'}. ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${date}.

| shape | 1 thread | 2 threads | scaling | 4 threads | scaling | shares at 2 | shares at 4 |
|---|---|---|---|---|---|---|---|
${table}

- S2 at 2 threads vs qwasm at 1 thread: ${scaling(2, 'S2')} (target >= 1.8x)
- S2 at 2 threads vs onnxruntime-web at 2 threads: ${fmt(s2(2).ort.medianMs / s2(2).qwasm.medianMs, 2)}x (target >= 1.5x)
- rows where onnxruntime-web is faster at the same thread count: ${behind.length ? behind.join(', ') : 'none'}`;
  const readme = `Threads (same work, onnxruntime-web at the same numThreads; qwasm ms / onnxruntime-web ms, ${date}, ${cpus().length} cores):

| shape | 1 thread | 2 threads | 2-thread scaling |
|---|---|---|---|
${ids.map((id) => `| ${id} | ${cell(1, id)} | ${cell(2, id)} | ${scaling(2, id)} |`).join('\n')}`;
  saveResult('3-threads', { date, byThreads, markdown, readme });
  console.log(markdown);
}
