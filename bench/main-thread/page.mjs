// How long the page's main thread is blocked while a full-size model loads
// and runs (probe.mjs: the Long Tasks API and a heartbeat). Phases: the
// model in the library's worker (load by URL, then forwards), and, for
// contrast, the same model on the page's own thread (io.loadModel on the
// bytes, then a forward).
import * as Q from '../../web/src/index.browser.mjs';
import { phase } from './probe.mjs';

const params = new URLSearchParams(location.search);
const MODEL = params.get('model');
const FORWARDS = Number(params.get('forwards') ?? 3);

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
