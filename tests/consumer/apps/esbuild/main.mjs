// An esbuild bundle: esbuild does not copy assets named by
// new URL(..., import.meta.url), so the app imports the wasm through the
// package's "./qwasm.wasm" export (with --loader:.wasm=file) and tells init().
import * as qwasm from 'qwasm';
import wasmFile from 'qwasm/qwasm.wasm';
import { runChecks } from '../check.mjs';
import { report, runInWorker } from '../report.mjs';

async function main() {
  const c = await (await fetch('./case.json')).json();
  const locateFile = () => new URL(wasmFile, import.meta.url).href;
  await Promise.all([
    runChecks(qwasm, c, { locateFile }).then(
      (r) => report('page', r),
      (e) => report('page', { error: String(e?.message ?? e) }),
    ),
    runInWorker(new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }), c),
  ]);
}
main();
