// Which kernel family runs: 'auto' (the fastest this build has), 'scalar' or
// 'wasmsimd'. Benchmarks and the equivalence tests switch it; users rarely need to.
import { describe } from './args.mjs';
import { wasm } from './runtime.mjs';

/** @type {Map<string, import('./bridge.mjs').IsaCode>} */
const ISA_CODES = new Map([
  ['auto', 0],
  ['scalar', 1],
  ['wasmsimd', 2],
]);
/** @type {import('./bridge.mjs').IsaCode} */
let isaCode = 0;

/**
 * @internal The code the bindings expect.
 * @returns {import('./bridge.mjs').IsaCode}
 */
export function currentIsa() {
  return isaCode;
}

/** Chooses the kernel family: 'auto' (default), 'scalar' or 'wasmsimd'. */
export function setKernelIsa(name) {
  if (typeof name !== 'string') {
    throw new TypeError(`setKernelIsa(name): name must be 'auto', 'scalar' or 'wasmsimd', got ${describe(name)}`);
  }
  if (!ISA_CODES.has(name)) {
    throw new RangeError(`setKernelIsa(name): name must be 'auto', 'scalar' or 'wasmsimd', got ${describe(name)}`);
  }
  isaCode = ISA_CODES.get(name);
}

/** The kernel family in use: 'scalar' or 'wasmsimd'. */
export function kernelIsa() {
  const code = isaCode === 0 ? wasm('kernelIsa()')._bestIsa() : isaCode;
  return code === 1 ? 'scalar' : 'wasmsimd';
}
