// init() is idempotent and strict about its options; the CommonJS build is the
// same module instance as the ES module (Node's ESM entry re-exports it), so
// destructuring, isInitialized() and the pure-JS parts work before init()
// under require() just as under import; the package's exports map points at
// real files.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as qwasm from '../../../web/src/index.node.mjs';

const require = createRequire(import.meta.url);

test('before init(): isInitialized() is false, tensor and io work, the rest says to call init()', () => {
  const cjs = require('../../../dist/qwasm.cjs');
  const { isInitialized, tensor, io, quantizePerTensor } = cjs; // destructuring does not throw
  expect(isInitialized()).toBe(false);
  expect(Array.from(tensor([1, 2]).data)).toEqual([1, 2]);
  expect(typeof io.loadNpy).toBe('function');
  expect(() => quantizePerTensor(tensor([1]), 1, 0, 'quint8')).toThrow(
    'qwasm is not initialized: call `await init()` before using the API',
  );
  // A call that makes observers to check its options names itself, not the observer.
  const notInitialized = (call) => `${call}: qwasm is not initialized: call \`await init()\` before using the API`;
  expect(() => cjs.quantization.getDefaultQConfig()).toThrow(notInitialized('quantization.getDefaultQConfig(backend)'));
  expect(() => cjs.quantization.MinMaxObserver.withArgs({})).toThrow(
    notInitialized('MinMaxObserver.withArgs(options)'),
  );
  expect(
    () => new cjs.quantization.QConfig({ activation: cjs.quantization.HistogramObserver, weight: () => null }),
  ).toThrow(notInitialized('new quantization.QConfig({activation, weight})'));
});

test('init() returns the same promise every time and resolves; other options on a second call are an error', async () => {
  const a = qwasm.init();
  const b = qwasm.init();
  expect(a).toBe(b);
  await a;
  expect(qwasm.isInitialized()).toBe(true);
  expect(qwasm.init({})).toBe(a);
  expect(() => qwasm.init(42)).toThrow(TypeError);
  expect(() => qwasm.init({ wasmBinary: new Uint8Array(8) })).toThrow(
    'already initialized (or initializing) with other options',
  );
  expect(() => qwasm.init({ wasmbinary: 1 })).toThrow("unknown option 'wasmbinary'");
});

test('require("qwasm") and import share one instance', async () => {
  const cjs = require('../../../dist/qwasm.cjs');
  await qwasm.init();
  expect(cjs.isInitialized()).toBe(true);
  expect(Object.keys(cjs).sort()).toEqual(Object.keys(qwasm).sort());
  expect(cjs.QTensor).toBe(qwasm.QTensor);
  const q = cjs.quantizePerTensor(cjs.tensor([1, 2, 3]), 0.5, 1, 'qint8');
  expect(Array.from(q.intRepr())).toEqual([3, 5, 7]);
  expect(q).toBeInstanceOf(qwasm.QTensor);
  q.dispose();
});

test('the exports map names files that exist, and the d.ts declares every export', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  const root = new URL('../../../', import.meta.url);
  const leaves = (v) => (typeof v === 'string' ? [v] : Object.values(v).flatMap(leaves));
  const targets = [...leaves(pkg.exports), pkg.main, pkg.types];
  for (const t of targets) expect([t, existsSync(new URL(t, root))]).toEqual([t, true]);
  const dts = readFileSync(new URL('../../../web/types/qwasm.d.mts', import.meta.url), 'utf8');
  for (const name of Object.keys(qwasm)) {
    expect([
      name,
      new RegExp(`export (declare )?(function|class|const|namespace|interface|type|import) ${name}\\b`).test(dts),
    ]).toEqual([name, true]);
  }
});
