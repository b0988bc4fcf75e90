// The demo page in real headless Chromium: it loads without console errors,
// the axis control drives the number of channels shown, and the values shown
// are the ones the API computes in Node for the same tensor.
import { fileURLToPath } from 'node:url';
import * as qwasm from '../../web/src/index.node.mjs';
import { PRESETS } from '../../demo/presets.mjs';
import { OUTPUT_DIR, openBrowser } from './browser.mjs';

import { jest } from '@jest/globals';

jest.setTimeout(60_000);

let env;
let page;
let problems;

beforeAll(async () => {
  await qwasm.init();
  env = await openBrowser();
  ({ page, problems } = await env.newPage());
  await page.goto(`${env.base}/demo/`);
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 30_000 });
});

afterAll(async () => {
  if (env) await env.close();
});

async function shownRows() {
  return page.$$eval('#scales tbody tr', (rows) =>
    rows.map((r) => ({ scale: Number(r.cells[1].dataset.value), zeroPoint: Number(r.cells[2].dataset.value) })));
}

test('the page loads the wasm module with SIMD and logs no errors or warnings', async () => {
  expect(await page.textContent('#status')).toContain('wasmsimd');
  expect(problems).toEqual([]);
});

test('switching the axis shows one scale per entry of that axis', async () => {
  const shape = PRESETS.conv3dWeight.make().shape;
  for (const axis of [0, 1, 4, 0]) {
    await page.selectOption('#axis', String(axis));
    await page.waitForFunction((n) => document.querySelectorAll('#scales tbody tr').length === n, shape[axis]);
    expect((await shownRows()).length).toBe(shape[axis]);
    expect(await page.textContent('#axis-shown')).toBe(String(axis));
  }
  await page.screenshot({ path: fileURLToPath(new URL('scale-explorer.png', OUTPUT_DIR)), fullPage: true });
});

test.each([
  ['activation4d', 2, 'quint8', 'per_channel_affine', true],
  ['outlierChannels', 0, 'qint8', 'per_channel_symmetric', false],
  ['conv3dWeight', 0, 'quint8', 'per_channel_affine_float_qparams', false],
])('%s axis %d %s %s reduceRange=%s: page values equal the API in Node', async (preset, axis, dtype, qscheme, reduceRange) => {
  await page.selectOption('#preset', preset);
  await page.selectOption('#axis', String(axis));
  await page.selectOption('#dtype', dtype);
  await page.selectOption('#qscheme', qscheme);
  await page.setChecked('#reduceRange', reduceRange);
  const x = PRESETS[preset].make();
  const o = new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: axis, dtype, qscheme, reduceRange });
  o.observe(x);
  const { scale, zeroPoint } = o.calculateQParams();
  await page.waitForFunction((n) => document.querySelectorAll('#scales tbody tr').length === n, scale.length);
  const rows = await shownRows();
  expect(rows.map((r) => r.scale)).toEqual(Array.from(scale));
  expect(rows.map((r) => r.zeroPoint)).toEqual(Array.from(zeroPoint));
  expect(await page.isHidden('#error')).toBe(true);
  expect(problems).toEqual([]);
});
