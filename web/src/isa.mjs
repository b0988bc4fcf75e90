// Which kernel family runs: 'auto' (the fastest this build has), 'scalar' or
// 'wasmsimd'. Benchmarks and the equivalence tests switch it; users rarely need to.
import { wasm } from './runtime.mjs';

const ISA_CODES = { auto: 0, scalar: 1, wasmsimd: 2 };
let isaCode = 0;

/** @internal The code the bindings expect. */
export function currentIsa() {
  return isaCode;
}

export function setKernelIsa(name) {
  if (!(name in ISA_CODES)) {
    throw new RangeError(`setKernelIsa(name): name must be 'auto', 'scalar' or 'wasmsimd', got ${String(name)}`);
  }
  isaCode = ISA_CODES[name];
}

/** The kernel family in use: 'scalar' or 'wasmsimd'. */
export function kernelIsa() {
  return isaCode === 0 ? wasm()._bestIsa() : isaCode === 1 ? 'scalar' : 'wasmsimd';
}
