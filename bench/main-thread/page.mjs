// How long the page's main thread is blocked while a full-size model loads
// and runs, measured two ways in the page: the Long Tasks API (every task
// over 50 ms, with its duration) and a heartbeat (a timer task posted again as
// it runs: the longest gap between two beats is the longest the page
// could not respond). Phases: the model in the library's worker (load by URL,
// then forwards), and, for contrast, the same model on the page's own thread
// (io.loadModel on the bytes, then a forward).
import * as Q from '../../web/src/index.browser.mjs';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model');
const FORWARDS = Number(params.get('forwards') ?? 3);

const longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push({ start: e.startTime, ms: e.duration });
}).observe({ type: 'longtask', buffered: true });

// The heartbeat: a timer task that schedules the next one as it runs. Timers
// nested this deep are clamped to 4 ms, so it costs the page almost nothing
// (a MessageChannel ping-pong would spin a core and slow the worker's threads).
let beating = false;
let lastBeat = 0;
let maxGap = 0;
function beat() {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - lastBeat);
  lastBeat = now;
  if (beating) setTimeout(beat, 0);
}

/** Runs fn with the heartbeat on; returns its wall time, the longest gap and the long tasks in its window. */
async function phase(name, fn) {
  maxGap = 0;
  beating = true;
  lastBeat = performance.now();
  setTimeout(beat, 0);
  const start = performance.now();
  await fn();
  const end = performance.now();
  beating = false;
  await new Promise((r) => setTimeout(r, 100)); // the last long task's entry arrives after it ends
  const tasks = longTasks.filter((t) => t.start >= start - 1 && t.start < end);
  return {
    name,
    wallMs: end - start,
    maxGapMs: maxGap,
    longTasks: tasks.length,
    longestTaskMs: tasks.reduce((m, t) => Math.max(m, t.ms), 0),
  };
}

function clip(shape) {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37);
  return { data, shape };
}

async function report(value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'main-thread', value }) });
}

try {
  const phases = [];
  let model;
  let progressCalls = 0;
  phases.push(
    await phase('worker: load (URL, download + build)', async () => {
      model = await Q.io.loadModel(MODEL, { worker: true, onProgress: () => progressCalls++ });
    }),
  );
  const shape = model.inputShape;
  let top = -1;
  phases.push(
    await phase(`worker: ${FORWARDS} forwards`, async () => {
      for (let i = 0; i < FORWARDS; i++) {
        const y = await model.forward(clip(shape));
        top = y.data.indexOf(Math.max(...y.data));
      }
    }),
  );
  const runtime = model.runtime;
  model.dispose();
  await Q.init();
  let local;
  let localTop = -1;
  phases.push(
    await phase('page: io.loadModel(bytes) on the main thread', async () => {
      const bytes = new Uint8Array(await (await fetch(MODEL)).arrayBuffer());
      local = Q.io.loadModel(bytes);
    }),
  );
  phases.push(
    await phase('page: 1 forward on the main thread', async () => {
      const y = local.forward(clip(shape));
      localTop = y.data.indexOf(Math.max(...y.data));
    }),
  );
  local.dispose();
  await report({ phases, runtime, pageRuntime: Q.runtimeInfo(), progressCalls, sameTop1: top === localTop });
} catch (e) {
  await report({ error: String(e?.stack ?? e) });
}
