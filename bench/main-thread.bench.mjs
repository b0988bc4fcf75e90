// The page's main thread while a full-size r3d_18 (bench/output/models, from
// python3 bench/model_prep.py) loads and runs in the library's model worker,
// in headless Chromium on a cross-origin isolated page (so the worker runs
// threads): the longest task the page ran (Long Tasks API: tasks over 50 ms)
// and the longest gap of a heartbeat, per phase; and the same model on the
// page's own thread for contrast. Writes results/5b-main-thread.json and
// BENCHMARKS.md.
import { saveResult } from './harness.mjs';
import {
  isolatedRounds,
  longestTaskText,
  MEASURES,
  MODELS,
  phaseTable,
  ROUNDS,
  requireModels,
  worstPhases,
} from './main-thread/session.mjs';

const MODEL = `${MODELS}/r3d_18.qwasm.safetensors`;
requireModels('main-thread.bench', [MODEL]);

const { runs, version } = await isolatedRounds(async (open, server) => {
  const tab = await open(`/bench/main-thread/index.html?model=${MODEL}`);
  const result = await server.report('main-thread', 300_000);
  await tab.close();
  if (result.error) throw new Error(result.error);
  return result;
});

const worst = worstPhases(runs);
const date = new Date().toISOString().slice(0, 10);
const rt = runs[0].runtime;
const markdown = `## The page's main thread with a full-size model (Chromium)

torchvision's r3d_18 at full size (${MODEL.split('/').pop()}, quantized by PyTorch's eager flow), in headless Chromium ${version} on a cross-origin isolated page (bench/main-thread.bench.mjs, ${ROUNDS} page loads, worst of each): \`io.loadModel(url, { worker: true })\` then forwards on the 1x3x16x112x112 clip, the worker running the ${rt.variant} variant (${rt.numThreads} threads); then, for contrast, the same file with \`io.loadModel(bytes)\` and one forward on the page's own thread. ${MEASURES}. ${date}.

${phaseTable(worst)}

Every round gave the same top-1 class in the worker as on the page: ${runs.every((r) => r.sameTop1)}.`;
const w = worst.filter((p) => p.name.startsWith('worker'));
const readme = `With a full-size r3d_18 in the model worker (\`io.loadModel(url, { worker: true })\`, Chromium, ${date}), the page's longest task while loading and running was ${longestTaskText(w)} and its heartbeat never stopped for more than ${Math.max(...w.map((p) => p.maxGapMs)).toFixed(0)} ms; on the page's own thread the load blocked it for ${worst[2].longestTaskMs.toFixed(0)} ms and a forward for ${worst[3].longestTaskMs.toFixed(0)} ms.`;
saveResult('5b-main-thread', { date, runs, worst, markdown, readme });
console.log(markdown);
