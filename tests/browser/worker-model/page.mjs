// io.loadModel(url, { worker: true }) on a page: the model is downloaded,
// built and run in the library's worker. Reports what the page saw (the
// progress calls, the worker's runtimeInfo, the output's bytes as base64,
// whether the input was transferred) and what the worker answered to a bad
// input and after dispose(). The clip is the one the Node.js side of the test
// computes (a fixed formula), so the outputs can be compared bit for bit.
import * as Q from '../../../web/src/index.browser.mjs';

const params = new URLSearchParams(location.search);

async function report(value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'worker-model', value }) });
}

function clip(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i * 0.37);
  return { data, shape };
}

const base64 = (f32) => btoa(String.fromCharCode(...new Uint8Array(f32.buffer)));

try {
  const progress = [];
  const model = await Q.io.loadModel(params.get('model'), {
    worker: true,
    onProgress: (loaded, total) => progress.push([loaded, total]),
  });
  const x = clip(model.inputShape);
  const y = await model.forward(x);
  const kept = clip(model.inputShape);
  const again = await model.forward(kept, { transfer: false });
  const bad = await model.forward({ data: new Float32Array(3), shape: [1, 3] }).then(
    () => 'resolved',
    (e) => e.message,
  );
  const profiled = await model.profile(clip(model.inputShape));
  model.dispose();
  const afterDispose = await model.forward(clip(model.inputShape)).then(
    () => 'resolved',
    (e) => e.message,
  );
  await report({
    progress,
    runtime: model.runtime,
    shape: y.shape,
    output: base64(y.data),
    sameAgain: base64(again.data) === base64(y.data),
    inputDetached: x.data.byteLength === 0,
    keptLength: kept.data.length,
    bad,
    profiledLayers: profiled.layers.length,
    profiledSame: base64(profiled.output.data) === base64(y.data),
    afterDispose,
    modules: model.modules.length,
    nodes: model.nodes.length,
  });
} catch (e) {
  // A load error's fields (io.LoadError) too.
  const fields = { kind: e?.kind, url: e?.url, status: e?.status, hint: e?.hint };
  await report({ error: e?.message ? `${e.name}: ${e.message}` : String(e), ...fields });
}
