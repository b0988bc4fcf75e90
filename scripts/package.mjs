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
//   dist/qwasm.mt.mjs + qwasm.mt.worker.mjs   its browser glue (edited below) and
//                         qwasm's pool worker (web/src/pool-worker.mjs)
//   dist/qwasm.cjs        web/src bundled for Node.js (CommonJS: `require` loads
//                         it synchronously; the ES module entry re-exports it)
//   web/types/qwasm.d.mts / .d.cts   the declarations (web/index.d.ts and the
//                         files it assembles, as one file: scripts/declarations.mjs),
//                         as ESM and as CJS declarations
//                         (not in dist/: Next.js's Turbopack traces every file
//                         beside dist/qwasm.cjs when qwasm is a server external
//                         package, and fails on a .d.cts, which it parses as code)
import { build } from 'esbuild';
import { assembledDeclarations } from './declarations.mjs';

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
// The threaded variant's browser glue starts its pool workers from
// Emscripten's worker script, by a URL bundlers cannot follow, and a worker
// that fails to load leaves it waiting for ever (its onerror only rethrows).
// So: the glue asks the caller for each worker (Module.qwasmNewWorker, given
// by index.browser.mjs with a `new Worker(new URL(...))` bundlers see), a
// worker error becomes an abort, which rejects init() (wasm-loader.mjs,
// onAbort), and the pool worker is qwasm's own (web/src/pool-worker.mjs).
const GLUE_EDITS = [
  [
    'allocateUnusedWorker:function(){if(!Module["locateFile"]){PThread.unusedWorkers.push(new Worker(new URL("qwasm.mt.worker.js",import.meta.url)));return}var pthreadMainJs=locateFile("qwasm.mt.worker.js");PThread.unusedWorkers.push(new Worker(pthreadMainJs))}',
    'allocateUnusedWorker:function(){PThread.unusedWorkers.push(Module["qwasmNewWorker"]())}',
  ],
  [
    'worker.onerror=(e=>{var message="worker sent an error!";err(message+" "+e.filename+":"+e.lineno+": "+e.message);throw e})',
    'worker.onerror=(e=>{e.preventDefault();Module["onAbort"]("a thread pool worker failed: "+(e.message||"its script did not load or run (an HTTP error, a MIME type that is not JavaScript, a syntax error or a Content-Security-Policy)"))})',
  ],
];
let glue = readFileSync(`${root}build/wasm/qwasm.mt.mjs`, 'utf8');
for (const [from, to] of GLUE_EDITS) {
  if (glue.split(from).length !== 2) {
    console.error(`[package] the threaded browser glue no longer contains ${from.slice(0, 60)}...; update package.mjs`);
    process.exit(1);
  }
  glue = glue.replace(from, to);
}
writeFileSync(`${out}qwasm.mt.mjs`, glue);
const POOL_GLUE_IMPORT = "from '../../dist/qwasm.mt.mjs';";
const poolWorker = readFileSync(`${root}web/src/pool-worker.mjs`, 'utf8');
if (poolWorker.split(POOL_GLUE_IMPORT).length !== 2) {
  console.error('[package] web/src/pool-worker.mjs no longer imports the glue as expected; update package.mjs');
  process.exit(1);
}
writeFileSync(
  `${out}qwasm.mt.worker.mjs`,
  '// Generated from web/src/pool-worker.mjs by scripts/package.mjs. Do not edit.\n' +
    poolWorker.replace(POOL_GLUE_IMPORT, "from './qwasm.mt.mjs';"),
);

// NIfTI reading and writing (web/src/volumes/nifti.mjs, with what it uses):
// one self-contained module beside the glues, which io.readNifti / writeNifti
// import on first use. A bundler emits it as a chunk of its own, as it does
// the glues, so an app that reads no volume does not carry it (and the
// library's chunk stays under webpack's size hint). Built before the Node.js
// bundle, which takes it in.
await build({
  entryPoints: [`${root}web/src/volumes/nifti.mjs`],
  outfile: `${out}qwasm.nifti.mjs`,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  keepNames: true,
  banner: {
    js: '// qwasm: NIfTI-1 volumes in and out, bundled from web/src/volumes by scripts/package.mjs. Do not edit.',
  },
  logLevel: 'warning',
});

// The model client (web/src/model/model-client.mjs: a model loaded in a
// worker, and a model read from a URL, a Response, a stream or a Blob), the
// same way: io.loadModel(source, { worker: true }) and io.loadModelAsync
// import it on first use, handing it the library's own stateful parts.
await build({
  entryPoints: [`${root}web/src/model/model-client.mjs`],
  outfile: `${out}qwasm.model-client.mjs`,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  keepNames: true, // WorkerModel is the class's name (constructor.name)
  banner: {
    js: '// qwasm: the model client, bundled from web/src/model by scripts/package.mjs. Do not edit.\n// @ts-nocheck (checked as its sources, web/src/model/model-client.mjs)',
  },
  logLevel: 'warning',
});

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

// The Node.js model worker (io.loadModel(source, { worker: true })): its
// own small bundle, which requires the package's build beside it.
await build({
  entryPoints: [`${root}web/src/model-worker.node.mjs`],
  outfile: `${out}qwasm.model-worker.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  external: ['./qwasm.cjs'],
  banner: { js: "// qwasm's Node.js model worker, bundled from web/src/model by scripts/package.mjs. Do not edit." },
  logLevel: 'warning',
});

// The browser's model worker: web/src bundled into one module beside the
// glues, so that an app's bundler treats it as a file of its own. (Left to
// the bundler, Parcel 2.16 shares modules between an app's worker and this
// nested one and then fails to find one of them.) Its paths to dist/ become
// paths beside it.
const modelWorker = await build({
  entryPoints: [`${root}web/src/model-worker.mjs`],
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: ['../../dist/*', '../../../dist/*'],
  keepNames: true,
  logLevel: 'warning',
});
const FROM_SRC = /(['"])(?:\.\.\/)+dist\//g;
const workerCode = modelWorker.outputFiles[0].text;
const fromSrc = workerCode.match(FROM_SRC)?.length ?? 0;
if (fromSrc !== 5 || /(await import\(|new URL\()\s*['"]\.\.\//.test(workerCode.replace(FROM_SRC, '$1./'))) {
  console.error(`[package] the browser model worker names dist/ files other than as expected ; update package.mjs`);
  process.exit(1);
}
writeFileSync(
  `${out}qwasm.model-worker.mjs`,
  `// qwasm's browser model worker, bundled from web/src by scripts/package.mjs. Do not edit.\n${workerCode.replace(FROM_SRC, '$1./')}`,
);

const types = assembledDeclarations(root);
const typesDir = `${root}web/types/`;
mkdirSync(typesDir, { recursive: true });
writeFileSync(`${typesDir}qwasm.d.mts`, types);
writeFileSync(`${typesDir}qwasm.d.cts`, types);
