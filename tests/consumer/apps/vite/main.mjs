// A Vite app: the page and a module worker both import qwasm by package name,
// with no configuration; the wasm is found through the package's own
// new URL(..., import.meta.url).
import * as qwasm from 'qwasm';
import { runChecks } from '../check.mjs';
import { report, runInWorker } from '../report.mjs';

async function main() {
  const c = await (await fetch('./case.json')).json();
  await Promise.all([
    runChecks(qwasm, c).then(
      (r) => report('page', r),
      (e) => report('page', { error: String(e?.message ?? e) }),
    ),
    runInWorker(new Worker(new URL('./worker.mjs', import.meta.url), { type: 'module' }), c),
  ]);
}
main();
