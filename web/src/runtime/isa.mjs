// Which kernel family runs: 'auto' (the fastest this build has), 'scalar' or
// 'wasmsimd'. Benchmarks and the equivalence tests switch it; users rarely need to.
import { describe } from './args.mjs';
import { ISA, ISA_NAMES } from './codes.mjs';
import { wasm } from './runtime.mjs';

/** @type {import('./bridge.mjs').IsaCode} */
let isaCode = ISA.get('auto');

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
  if (!ISA.has(name)) {
    throw new RangeError(`setKernelIsa(name): name must be 'auto', 'scalar' or 'wasmsimd', got ${describe(name)}`);
  }
  isaCode = ISA.get(name);
}

/**
 * The kernel family in use: 'scalar' or 'wasmsimd'.
 * @returns {'scalar' | 'wasmsimd'}
 */
export function kernelIsa() {
  const code = isaCode === ISA.get('auto') ? wasm('kernelIsa()')._bestIsa() : isaCode;
  return /** @type {any} */ (ISA_NAMES.get(code));
}
