// The Node.js build's entry, bundled by scripts/package.mjs into dist/qwasm.cjs:
// one CommonJS module that `require('qwasm')` loads synchronously and that the
// ES module entry (index.node.mjs) re-exports, so that import and require
// share one instance.

import { loadGlue, readWasm } from './platform.node.cjs';
import { setPlatform } from './runtime.mjs';
import { compileWasm, instantiateGlue, requireWasmSimd } from './wasm-loader.mjs';

setPlatform(async (options, factory) => {
  requireWasmSimd();
  const { bytes, source, remedy } = options.wasmBinary
    ? { bytes: options.wasmBinary, source: 'the wasmBinary passed to init()', remedy: '' }
    : readWasm(options.locateFile);
  const compiled = await compileWasm(bytes, source, remedy);
  return instantiateGlue(factory ?? loadGlue(), compiled);
});

export * from './api.mjs';
