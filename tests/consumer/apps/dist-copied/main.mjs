// One app for the bundlers that copy no assets (Rollup, esbuild): they leave
// new URL(..., import.meta.url) pointing next to their own output, so, as the
// README says, the build copies node_modules/qwasm/dist/ to /qwasm/ (the
// driver does it, as a user's `cp -r` would) and init() (and the model
// worker) are told where it is.
import * as qwasm from 'qwasm';
import { runChecks } from '../check.mjs';
import { modelInWorker } from '../model-check.mjs';
import { byName, namedImports } from '../named.mjs';
import { report, runInWorker } from '../report.mjs';
import { locateFile } from './locate.mjs';

async function main() {
  report('named', namedImports());
  const c = await (await fetch('./case.json')).json();
  await Promise.all([
    runChecks(qwasm, c, { locateFile }).then(
      (r) => report('page', r),
      (e) => report('page', { error: String(e?.message ?? e) }),
    ),
    runInWorker(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }), c),
    modelInWorker(byName, { locateFile }).then(
      (r) => report('model', r),
      (e) => report('model', { error: String(e?.message ?? e) }),
    ),
  ]);
}
main();
