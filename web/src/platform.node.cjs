'use strict';
// Node's loader. This file is bundled into dist/qwasm.cjs (scripts/bundle.mjs)
// and runs from there: the glue and the wasm are its neighbours in dist/.
// The glue gets the wasm bytes directly: this Emscripten's loader would try
// fetch() on a file path under Node 18+.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

module.exports = async function instantiate(options, factory) {
  // @ts-ignore: the glue is generated beside the bundle, in dist/.
  const createModule = factory ?? require('./qwasm.node.js');
  const wasmBinary = options.wasmBinary ?? readFileSync(join(__dirname, 'qwasm.node.wasm'));
  return createModule({ ...options, wasmBinary });
};
