// The page's main thread while a full-size r3d_18 (bench/output/models, from
// python3 bench/model_prep.py) loads and runs in the library's model worker,
// in headless Chromium on a cross-origin isolated page (so the worker runs
// threads): the longest task the page ran (Long Tasks API: tasks over 50 ms)
// and the longest gap of a heartbeat, per phase; and the same model on the
// page's own thread for contrast. Writes results/5b-main-thread.json and
// BENCHMARKS.md.
import { existsSync } from 'node:fs';
import { launchEngine } from '../tests/browser/engines.mjs';
import { startTestServer } from '../tests/browser/test-server.mjs';
import { saveResult } from './harness.mjs';

const MODEL = '/bench/output/models/r3d_18.qwasm.safetensors';
if (!existsSync(new URL(`..${MODEL}`, import.meta.url))) {
  console.log('main-thread.bench: bench/output/models is missing: run python3 bench/model_prep.py (needs torch) first');
  process.exit(0);
}
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 3);

const server = await startTestServer({
  headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
});
const engine = await launchEngine('chromium');
const runs = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    server.clear();
    const tab = await engine.open(`${server.base}/bench/main-thread/index.html?model=${MODEL}`);
    const result = await server.report('main-thread', 300_000);
    await tab.close();
    if (result.error) throw new Error(result.error);
    runs.push(result);
    console.log(JSON.stringify(result.phases));
  }
} finally {
  await engine.close();
  await server.close();
}

// Per phase, the worst over the rounds (the figure that matters is the longest block).
const names = runs[0].phases.map((p) => p.name);
const worst = names.map((name) => {
  const all = runs.map((r) => r.phases.find((p) => p.name === name));
  return {
    name,
    wallMs: Math.max(...all.map((p) => p.wallMs)),
    maxGapMs: Math.max(...all.map((p) => p.maxGapMs)),
    longTasks: Math.max(...all.map((p) => p.longTasks)),
    longestTaskMs: Math.max(...all.map((p) => p.longestTaskMs)),
  };
});
const date = new Date().toISOString().slice(0, 10);
const rt = runs[0].runtime;
const fmt = (ms) => (ms === 0 ? '—' : ms.toFixed(0));
const markdown = `## The page's main thread with a full-size model (Chromium)

torchvision's r3d_18 at full size (${MODEL.split('/').pop()}, quantized by PyTorch's eager flow), in headless Chromium ${engine.version ?? ''} on a cross-origin isolated page (bench/main-thread.bench.mjs, ${ROUNDS} page loads, worst of each): \`io.loadModel(url, { worker: true })\` then forwards on the 1x3x16x112x112 clip, the worker running the ${rt.variant} variant (${rt.numThreads} threads); then, for contrast, the same file with \`io.loadModel(bytes)\` and one forward on the page's own thread. "Longest task" is the Long Tasks API's (it reports tasks over 50 ms; — when there was none); "longest gap" is the longest time between two beats of a heartbeat (a 0 ms timer re-posted from each beat, which the engine clamps to 4 ms). ${date}.

| phase | wall (ms) | long tasks | longest task (ms) | longest gap (ms) |
|---|---:|---:|---:|---:|
${worst.map((p) => `| ${p.name} | ${p.wallMs.toFixed(0)} | ${p.longTasks} | ${fmt(p.longestTaskMs)} | ${p.maxGapMs.toFixed(1)} |`).join('\n')}

Every round gave the same top-1 class in the worker as on the page: ${runs.every((r) => r.sameTop1)}.`;
const w = worst.filter((p) => p.name.startsWith('worker'));
const readme = `With a full-size r3d_18 in the model worker (\`io.loadModel(url, { worker: true })\`, Chromium, ${date}), the page's longest task while loading and running was ${Math.max(...w.map((p) => p.longestTaskMs)) === 0 ? 'under 50 ms (no long task)' : `${Math.max(...w.map((p) => p.longestTaskMs)).toFixed(0)} ms`} and its heartbeat never stopped for more than ${Math.max(...w.map((p) => p.maxGapMs)).toFixed(0)} ms; on the page's own thread the load blocked it for ${worst[2].longestTaskMs.toFixed(0)} ms and a forward for ${worst[3].longestTaskMs.toFixed(0)} ms.`;
saveResult('5b-main-thread', { date, runs, worst, markdown, readme });
console.log(markdown);
