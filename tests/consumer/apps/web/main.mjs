// One app for the bundlers that need no help (Vite, build and dev server;
// webpack; Parcel): the page and a module worker both import qwasm by package
// name (the page as a namespace and by name, the worker by name: named.mjs),
// with no configuration; the bundler finds the wasm (and the threaded
// variant's files) through the package's own new URL(..., import.meta.url).
// The page also loads a model in qwasm's model worker (io.loadModel(url,
// { worker: true })), which the bundler must have emitted as well.
import * as qwasm from 'qwasm';
import { runChecks } from '../check.mjs';
import { modelInWorker } from '../model-check.mjs';
import { byName, namedImports } from '../named.mjs';
import { report, runInWorker } from '../report.mjs';

async function main() {
  report('named', namedImports());
  const c = await (await fetch('./case.json')).json();
  await Promise.all([
    runChecks(qwasm, c).then(
      (r) => report('page', r),
      (e) => report('page', { error: String(e?.message ?? e) }),
    ),
    runInWorker(new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' }), c),
    modelInWorker(byName).then(
      (r) => report('model', r),
      (e) => report('model', { error: String(e?.message ?? e) }),
    ),
  ]);
}
main();
