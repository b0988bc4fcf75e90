#!/usr/bin/env node
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// Assembles the package's dist/ from the build (scripts/build runs it):
//   dist/qwasm.wasm       the one WebAssembly module, shared by both glues (the
//                         Node and browser links give byte-identical wasm:
//                         checked here, and the build fails if they ever differ)
//   dist/qwasm.node.cjs   Emscripten's glue for Node.js (CommonJS)
//   dist/qwasm.web.mjs    Emscripten's glue for browsers and workers (ES module)
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

await build({
  entryPoints: [`${root}web/src/node-entry.mjs`],
  outfile: `${out}qwasm.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  external: ['./qwasm.node.cjs'],
  keepNames: true, // class names are part of the API (constructor.name, messages)
  banner: { js: '// qwasm for Node.js, bundled from web/src by scripts/package.mjs. Do not edit.' },
  logLevel: 'warning',
});

const types = readFileSync(`${root}web/index.d.ts`, 'utf8');
const header = '// Generated from web/index.d.ts by scripts/package.mjs. Do not edit.\n';
writeFileSync(`${out}qwasm.d.mts`, header + types);
writeFileSync(`${out}qwasm.d.cts`, header + types);
