// Node.js entry (ESM). Loads the CommonJS glue and hands it the wasm bytes: this
// Emscripten's loader would try fetch() on a file path under Node 18+.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setPlatform } from './runtime.mjs';

const require = createRequire(import.meta.url);

setPlatform(async (options) => {
  const createModule = require('../../dist/qwasm.node.js');
  const wasmBinary = options.wasmBinary ?? (await readFile(new URL('../../dist/qwasm.node.wasm', import.meta.url)));
  return createModule({ ...options, wasmBinary });
});

export * from './api.mjs';
