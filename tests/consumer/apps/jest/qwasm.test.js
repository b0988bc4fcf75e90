// Jest in its default (CommonJS) mode, no configuration: require('qwasm').
const { isInitialized } = require('qwasm');
const qwasm = require('qwasm');
const { runChecks } = require('../check.cjs');
const c = require('../case.json');
const expected = require('../expected.json'); // PyTorch's integers, on the threaded variant

test('qwasm under Jest default mode gives PyTorch integers on the threaded variant', async () => {
  expect(isInitialized()).toBe(false);
  expect(await runChecks(qwasm, c)).toEqual(expected);
});
