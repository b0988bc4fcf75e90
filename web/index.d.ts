// Type declarations for qwasm, and the one home of its API's prose: the
// files in web/declarations/ (one per namespace; nn-bases.d.ts holds the
// abstract classes nn's modules share and is not re-exported), assembled
// here. They are the source of the package's web/types/qwasm.d.mts and
// .d.cts (scripts/package.mjs writes them as one file each:
// scripts/declarations.mjs) and of the API reference (npm run docs:api).
// Every public declaration carries TSDoc: its PyTorch counterpart, its units
// and what it throws, because editors are where JavaScript users read an
// API; web/src's JSDoc carries types and points here, without prose of its
// own (tests/js/package/api-prose.test.mjs). Every @example runs in
// tests/js/package/dts-examples.test.mjs (its header names what examples may
// use without importing it), and each `// → value` comment there is asserted.
//
// Who owns memory: QTensor objects own wasm memory (free it with dispose());
// every typed array returned to you is a JS-owned copy, never a view into
// wasm memory.
//
// What qwasm throws: TypeError for an argument of the wrong JavaScript type or
// structure (a string where a number goes, an unknown option name), RangeError
// for a value out of range (a scale <= 0, an axis past the rank, a shape that
// does not match; wasm memory exhausted: an OutOfMemoryError, a RangeError
// with kind 'outOfMemory' and "out of memory" in its message), and Error for a
// call in the wrong state (before init(), on a disposed tensor or module, a
// model not in eval mode) or a malformed file. Every message starts with the
// call that failed, e.g. "quantizePerTensor(x, scale, zeroPoint, dtype): ...".

export * from './declarations/io.js';
export * from './declarations/nn.js';
export * from './declarations/nn-options.js';
export * from './declarations/quantization.js';
export * from './declarations/runtime.js';
export * from './declarations/tensors.js';
export * from './declarations/transforms.js';
export * from './declarations/video.js';
