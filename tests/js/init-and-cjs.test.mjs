// init() is idempotent; the CommonJS entry exposes the same API as the ES module
// and shares its instance; the package's exports map points at real files.
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import * as qwasm from '../../web/src/index.node.mjs';

const require = createRequire(import.meta.url);

test('init() returns the same promise every time and resolves', async () => {
  const a = qwasm.init();
  const b = qwasm.init();
  expect(a).toBe(b);
  await a;
  expect(qwasm.isInitialized()).toBe(true);
  expect(() => qwasm.init(42)).toThrow(TypeError);
});

test('require("qwasm") gives the ES module API after init()', async () => {
  const cjs = require('../../web/index.cjs');
  expect(() => cjs.quantizePerTensor).toThrow('call `await init()` before using quantizePerTensor');
  await cjs.init();
  const esmNames = Object.keys(qwasm).sort();
  expect(Object.keys(cjs).sort()).toEqual(esmNames);
  expect(cjs.QTensor).toBe(qwasm.QTensor);
  const q = cjs.quantizePerTensor(cjs.tensor([1, 2, 3]), 0.5, 1, 'qint8');
  expect(Array.from(q.intRepr())).toEqual([3, 5, 7]);
  q.dispose();
});

test('the exports map names files that exist, and the d.ts declares every export', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const root = new URL('../../', import.meta.url);
  const targets = JSON.stringify(pkg.exports).match(/"\.\/[^"]+"/g).map((s) => s.slice(1, -1));
  for (const t of targets) expect([t, existsSync(new URL(t, root))]).toEqual([t, true]);
  const dts = readFileSync(new URL('../../web/index.d.ts', import.meta.url), 'utf8');
  for (const name of Object.keys(qwasm)) {
    expect([name, new RegExp(`export (declare )?(function|class|const|namespace|interface|type) ${name}\\b`).test(dts)])
      .toEqual([name, true]);
  }
});
