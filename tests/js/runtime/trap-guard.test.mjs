// Defence in depth (web/src/runtime/trap-guard.mjs): a WebAssembly trap leaves the
// instance's C stack pointer and heap inconsistent, so the first trap poisons
// the instance and every later call, through the API or straight into the
// core, throws an Error that says so instead of computing on corrupted
// memory. The testing build's _divideForTesting(0) traps on purpose. This
// file has its own instance (Jest loads modules per test file).
import { initTesting, M, qwasm } from '../testing.mjs';

const { nn, tensor } = qwasm;

beforeAll(() => initTesting());

const POISONED = /qwasm's WebAssembly instance trapped earlier \(_divideForTesting: .*\).*reload the page, or restart/;

test('before a trap the core computes; the trapping call throws an Error naming itself, and later calls refuse', () => {
  expect(M()._divideForTesting(4)).toBe(0);
  expect(M()._divideForTesting(1)).toBe(1);
  const conv = new nn.quantized.Conv3d(2, 2, 1);
  const x = qwasm.quantizePerTensor(tensor(new Float32Array(16), [1, 2, 2, 2, 2]), 0.1, 3, 'quint8');
  conv.forward(x).dispose();

  let thrown;
  try {
    M()._divideForTesting(0);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(Error);
  expect(thrown).not.toBeInstanceOf(WebAssembly.RuntimeError);
  expect(thrown.message).toMatch(/^_divideForTesting: qwasm's WebAssembly instance trapped \(.*divide by zero.*\)/i);
  expect(thrown.cause).toBeInstanceOf(WebAssembly.RuntimeError);

  // Every later call refuses, whichever way it reaches the core.
  expect(() => M()._divideForTesting(1)).toThrow(POISONED);
  expect(() => qwasm.quantizePerTensor(tensor([1, 2], [2]), 0.1, 0, 'quint8')).toThrow(POISONED);
  expect(() => conv.forward(x)).toThrow(POISONED); // an Embind class's method
  expect(() => x.intRepr()).toThrow(POISONED);
  expect(() => qwasm.heapInUse()).toThrow(POISONED);
  expect(() => new nn.quantized.Linear(2, 2)).toThrow(POISONED);
});
