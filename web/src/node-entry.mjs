// The Node.js build's entry, bundled by scripts/bundle.mjs into dist/qwasm.cjs:
// one CommonJS module that `require('qwasm')` loads synchronously and that the
// ES module entry (index.node.mjs) re-exports, so that import and require
// share one instance.

import instantiate from './platform.node.cjs';
import { setPlatform } from './runtime.mjs';

setPlatform(instantiate);

export * from './api.mjs';
