// The demo's Model view (demo/index.html) driven as a user drives it, with
// probe.mjs measuring the page's main thread per phase: a full-size int8
// model chosen in the view's file input (#m-file: loaded in the model
// worker, then the table, graph and charts drawn), its float twin chosen in
// the float-twin input (#m-float-file: loaded beside it in the worker, the
// numeric suite run there, then the SQNR chart, graph and table redrawn), and
// a run on the synthetic clip (#m-run: the worker's profile, then the
// charts). Imported into the demo page by bench/model-view.bench.mjs.
import { phase } from './probe.mjs';

const $ = (id) => document.getElementById(id);

/** The file at url as a user's File (fetched before a phase starts: a chosen file is already on disk). */
async function fileAt(url) {
  const blob = await (await fetch(url)).blob();
  return new File([blob], url.split('/').pop());
}

/** Chooses file in the file input `id`, as the browser does: its files set, then a change event. */
function choose(id, file) {
  const dt = new DataTransfer();
  dt.items.add(file);
  $(id).files = dt.files;
  $(id).dispatchEvent(new Event('change', { bubbles: true }));
}

/** Resolves when #m-status reads `done`; rejects with #m-error's text if the view shows an error. */
function statusReads(done) {
  return new Promise((resolve, reject) => {
    const observer = new MutationObserver(() => {
      if (!$('m-error').hidden && $('m-error').textContent) {
        observer.disconnect();
        reject(new Error(`the Model view shows: ${$('m-error').textContent}`));
      } else if ($('m-status').textContent === done) {
        observer.disconnect();
        resolve();
      }
    });
    observer.observe($('m-status'), { childList: true, characterData: true, subtree: true });
    observer.observe($('m-error'), { childList: true, characterData: true, subtree: true, attributes: true });
  });
}

/** What #m-status said, and when (ms on the page's clock), to place a phase's longest gap. */
const said = [];
new MutationObserver(() => said.push({ at: performance.now(), status: $('m-status').textContent })).observe(
  $('m-status'),
  { childList: true, characterData: true, subtree: true },
);

/** The view's step: act(), until #m-status reads `done` and the page has drawn the frame after it. */
async function step(act, done) {
  const reached = statusReads(done);
  act();
  await reached;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
}

/** The three phases on the int8 file at `model` and its float twin at `float` (URLs); with what the view showed. */
export async function measure({ model, float }) {
  $('tab-model').click();
  const [q, f] = await Promise.all([fileAt(model), fileAt(float)]);
  const phases = [];
  phases.push(await phase('load the int8 model (#m-file)', () => step(() => choose('m-file', q), `Loaded ${q.name}.`)));
  phases.push(
    await phase('load the float twin and compare (#m-float-file)', () =>
      step(() => choose('m-float-file', f), `Compared ${q.name} with ${f.name}.`),
    ),
  );
  phases.push(
    await phase('run on the synthetic clip (#m-run)', () => step(() => $('m-run').click(), `Ran ${q.name}.`)),
  );
  for (const p of phases) {
    // What the view's status line said when the longest gap began.
    const gapAt = p.startedAt + p.maxGapAfterMs;
    p.maxGapDuring = said.filter((s) => s.at <= gapAt).at(-1)?.status ?? '';
  }
  const { state, charts } = window.qwasmDemo.model;
  const errors = Object.entries(state.errors);
  return {
    phases,
    runtime: state.model.runtime,
    bytes: { int8: q.size, float: f.size },
    comparedLayers: errors.length,
    sqnrBars: charts.sqnr.data.datasets[0].data.length,
    worstLayer: errors.reduce((w, [k, e]) => (w === null || e.sqnr < w.sqnr ? { key: k, sqnr: e.sqnr } : w), null),
    graphNodes: $('m-graph').querySelectorAll('.node').length,
    output: $('m-output').textContent,
  };
}
