// The demo's Model view with a full-size r3d_18 and its float twin
// (bench/output/models, from python3 bench/model_prep.py), driven through
// its own controls in headless Chromium on a cross-origin isolated page
// (bench/main-thread/model-view.mjs): per phase (load the int8 file, load
// the float twin and compare, run), the page's longest task and the longest
// gap of a heartbeat, and the longest animation frame's parts (where a block's
// time went). Writes results/5c-model-view.json and BENCHMARKS.md.
import { cpus, loadavg } from 'node:os';
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
const FLOAT = `${MODELS}/r3d_18.float.qwasm.safetensors`;
requireModels('model-view.bench', [MODEL, FLOAT]);

const { runs, version } = await isolatedRounds(
  async (open) => {
    const tab = await open('/demo/index.html');
    await tab.waitFor("document.getElementById('status').dataset.ready === 'true'", 60_000);
    const result = await tab.evaluate(
      `import('/bench/main-thread/model-view.mjs').then((m) => m.measure(${JSON.stringify({ model: MODEL, float: FLOAT })}))`,
    );
    result.problems = await tab.evaluate('window.__problems');
    await tab.close();
    if (result.problems.length) throw new Error(`the demo page reported: ${result.problems.join('; ')}`);
    return result;
  },
  { capture: true },
);

const worst = worstPhases(runs);
const date = new Date().toISOString().slice(0, 10);
const load = loadavg()[0].toFixed(1);
const r0 = runs[0];
const rt = r0.runtime;
const MB = (n) => (n / 1e6).toFixed(0);
const markdown = `## The demo's Model view with a full-size model and its float twin (Chromium)

torchvision's r3d_18 at full size in the demo's Model view (demo/index.html), in headless Chromium ${version} on a cross-origin isolated page (bench/model-view.bench.mjs, ${ROUNDS} page loads, worst of each), driven through the view's own controls: the int8 file (${MODEL.split('/').pop()}, ${MB(r0.bytes.int8)} MB) chosen in its file input, which loads it in the model worker (the worker running the ${rt.variant} variant, ${rt.numThreads} threads) and draws the layer table, the graph and the scale chart; its float twin (${FLOAT.split('/').pop()}, ${MB(r0.bytes.float)} MB, python3 bench/model_prep.py) chosen in the float-twin input, which loads it beside the int8 model in the worker, runs the numeric suite there on the 1x3x16x112x112 synthetic clip (\`compareModelOutputs\`: ${r0.comparedLayers} layers compared) and draws the SQNR chart, graph and table again; then "Run on the input clip", the synthetic one (the worker's \`profile\`, then the timing chart). A phase ends when the view's status line says it is done and the next frame is drawn. ${MEASURES}; a gap longer than every task is back-to-back tasks or the page's thread waiting for a core (the machine's load average was ${load} at the end, on its ${cpus().length} cores). ${date}.

${phaseTable(worst)}

Every round compared ${runs.map((r) => r.comparedLayers).join(', ')} layers (an SQNR bar each: ${runs.every((r) => r.sqnrBars === r.comparedLayers)}); the lowest SQNR was ${r0.worstLayer.key} at ${r0.worstLayer.sqnr.toFixed(2)} dB (random weights).`;
const readme = `In the demo's Model view, with the same full-size r3d_18 and its float twin (Chromium, ${date}), the page's longest task was ${longestTaskText(worst)} while the view loaded the int8 file, loaded the float twin and compared the two, and ran the model; its heartbeat never stopped for more than ${Math.max(...worst.map((p) => p.maxGapMs)).toFixed(0)} ms.`;
saveResult('5c-model-view', { date, load, runs, worst, markdown, readme });
console.log(markdown);
