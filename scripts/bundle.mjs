#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
// Bundles the package's ES modules into dist/qwasm.cjs, the Node.js build
// (CommonJS: `require('qwasm')` loads it synchronously; the ESM entry for
// Node re-exports it). The Emscripten glue stays a separate file beside it.
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  entryPoints: [`${root}web/src/node-entry.mjs`],
  outfile: `${root}dist/qwasm.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node18',
  external: ['./qwasm.node.js'],
  banner: { js: '// qwasm for Node.js, bundled from web/src by scripts/bundle.mjs. Do not edit.' },
  logLevel: 'warning',
});
