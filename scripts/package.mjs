#!/usr/bin/env node
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// Assembles the package's dist/ from the build (scripts/build runs it):
//   dist/qwasm.wasm       the one WebAssembly module, shared by both glues (the
//                         Node and browser links give byte-identical wasm:
//                         checked here, and the build fails if they ever differ)
//   dist/qwasm.node.cjs   Emscripten's glue for Node.js (CommonJS)
//   dist/qwasm.web.mjs    Emscripten's glue for browsers and workers (ES module)
//   dist/qwasm.mt.wasm    the threaded variant's module (shared memory; both
//                         of its glues link the same bytes, checked as above)
//   dist/qwasm.mt.node.cjs + qwasm.mt.node.worker.js   its Node.js glue and the
//                         script each pool worker starts from
//   dist/qwasm.mt.mjs + qwasm.mt.worker.js   its browser glue and worker script
//                         (names as linked: the glues name their worker files)
//   dist/qwasm.cjs        web/src bundled for Node.js (CommonJS: `require` loads
//                         it synchronously; the ES module entry re-exports it)
//   dist/qwasm.d.mts / .d.cts   web/index.d.ts, as ESM and as CJS declarations
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}dist/`;
rmSync(out, { recursive: true, force: true }); // no stale file from an earlier layout
mkdirSync(out, { recursive: true });

const nodeWasm = readFileSync(`${root}build/wasm/qwasm.node.wasm`);
const webWasm = readFileSync(`${root}build/wasm/qwasm.wasm`);
if (!nodeWasm.equals(webWasm)) {
  console.error('[package] the Node and browser links produced different wasm; dist/ needs one wasm per glue now');
  process.exit(1);
}
writeFileSync(`${out}qwasm.wasm`, nodeWasm);
copyFileSync(`${root}build/wasm/qwasm.node.js`, `${out}qwasm.node.cjs`);
copyFileSync(`${root}build/wasm/qwasm.mjs`, `${out}qwasm.web.mjs`);

const mtNodeWasm = readFileSync(`${root}build/wasm/qwasm.mt.node.wasm`);
if (!mtNodeWasm.equals(readFileSync(`${root}build/wasm/qwasm.mt.wasm`))) {
  console.error('[package] the threaded Node and browser links produced different wasm');
  process.exit(1);
}
writeFileSync(`${out}qwasm.mt.wasm`, mtNodeWasm);
copyFileSync(`${root}build/wasm/qwasm.mt.node.js`, `${out}qwasm.mt.node.cjs`);
// Emscripten's Node.js worker script loads the glue with eval(readFileSync());
// qwasm uses no eval anywhere (it runs under --disallow-code-generation-from-strings),
// so the worker requires the glue (CommonJS) instead.
const EVAL_LOADER = 'importScripts:function(f){(0,eval)(fs.readFileSync(f,"utf8"))}';
const nodeWorker = readFileSync(`${root}build/wasm/qwasm.mt.node.worker.js`, 'utf8');
if (!nodeWorker.includes(EVAL_LOADER)) {
  console.error(
    "[package] Emscripten's Node.js worker script no longer loads the glue as expected; update package.mjs",
  );
  process.exit(1);
}
writeFileSync(
  `${out}qwasm.mt.node.worker.js`,
  nodeWorker.replace(EVAL_LOADER, 'importScripts:function(f){global.createQwasmModule=require(f)}'),
);
copyFileSync(`${root}build/wasm/qwasm.mt.mjs`, `${out}qwasm.mt.mjs`);
// Emscripten's browser worker script imports the glue and ignores a failed
// import (a CSP sent with the worker script, a network error), so the glue
// would wait for that worker for ever: the worker reports the failure as an
// abort instead, which rejects init() (wasm-loader.mjs, onAbort).
const GLUE_IMPORTED = '.then(function(instance){Module=instance})';
const browserWorker = readFileSync(`${root}build/wasm/qwasm.mt.worker.js`, 'utf8');
if (browserWorker.split(GLUE_IMPORTED).length !== 2) {
  console.error(
    "[package] Emscripten's browser worker script no longer imports the glue as expected; update package.mjs",
  );
  process.exit(1);
}
writeFileSync(
  `${out}qwasm.mt.worker.js`,
  browserWorker.replace(
    GLUE_IMPORTED,
    '.then(function(instance){Module=instance},function(reason){postMessage({cmd:"onAbort",arg:"a thread pool worker could not load "+(e.data.urlOrBlob||"qwasm.mt.mjs")+": "+reason})})',
  ),
);

await build({
  entryPoints: [`${root}web/src/node-entry.mjs`],
  outfile: `${out}qwasm.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  external: ['./qwasm.node.cjs', './qwasm.mt.node.cjs'],
  keepNames: true, // class names are part of the API (constructor.name, messages)
  banner: { js: '// qwasm for Node.js, bundled from web/src by scripts/package.mjs. Do not edit.' },
  logLevel: 'warning',
});

const types = readFileSync(`${root}web/index.d.ts`, 'utf8');
const header = '// Generated from web/index.d.ts by scripts/package.mjs. Do not edit.\n';
writeFileSync(`${out}qwasm.d.mts`, header + types);
writeFileSync(`${out}qwasm.d.cts`, header + types);
