// The demo in real headless Chromium (Debian's, driven by playwright-core):
// it loads with no console errors or warnings; the axis drives the number of
// bars; what it shows equals what the API computes in Node for the same
// tensor; .npy and .safetensors files load through the file input; a malformed
// file shows an error; the ConvReLU3d playground runs and shows its timings.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jest } from '@jest/globals';
import { PRESETS } from '../../demo/presets.mjs';
import { channelErrors } from '../../demo/stats.mjs';
import * as qwasm from '../../web/src/index.node.mjs';
import { OUTPUT_DIR, openBrowser } from './browser.mjs';

jest.setTimeout(90_000);

const fixture = (name) => fileURLToPath(new URL(`../golden/fixtures/${name}`, import.meta.url));
const SCHEMES = {
  symmetric: ['per_channel_symmetric', 'per_tensor_symmetric'],
  affine: ['per_channel_affine', 'per_tensor_affine'],
  float_qparams: ['per_channel_affine_float_qparams', 'per_tensor_affine'],
};

let env;
let page;
let problems;

beforeAll(async () => {
  await qwasm.init();
  env = await openBrowser();
});

// Every test starts from a fresh page of its own: no test depends on what an
// earlier one left in the page.
beforeEach(async () => {
  ({ page, problems } = await env.newPage());
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${env.base}/demo/`);
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 30_000 });
});

afterEach(async () => {
  if (page) await page.close();
});

afterAll(async () => {
  if (env) await env.close();
});

// What the page charts, read from its Chart.js instances and its table.
async function shown() {
  return page.evaluate(() => {
    const { charts } = window.qwasmDemo;
    const rows = [...document.querySelectorAll('#values tbody tr')].map((r) =>
      [...r.cells].map((c) => Number(c.dataset.value)),
    );
    return {
      bars: charts.scales.data.datasets[0].data.length,
      scales: charts.scales.data.datasets[0].data,
      zeroPoints: charts.zps.data.datasets[0].data,
      sqnrPerChannel: rows.map((r) => r[3]),
      sqnrPerTensor: rows.map((r) => r[4]),
      error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
      summary: document.getElementById('summary').textContent,
    };
  });
}

// The same computation through the API in Node.
function expected(x, axis, dtype, kind, reduceRange) {
  const [pc, pt] = SCHEMES[kind];
  const o = new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: axis, dtype, qscheme: pc, reduceRange });
  o.observe(x);
  const { scale, zeroPoint } = o.calculateQParams();
  const q = qwasm.quantizePerChannel(x, scale, zeroPoint, axis, dtype);
  const to = new qwasm.quantization.MinMaxObserver({ dtype, qscheme: pt, reduceRange });
  to.observe(x);
  const tq = to.calculateQParams();
  const qt = qwasm.quantizePerTensor(x, tq.scale, tq.zeroPoint, dtype);
  const out = {
    scales: Array.from(q.qPerChannelScales()),
    zeroPoints: Array.from(q.qPerChannelZeroPoints()),
    sqnrPerChannel: channelErrors(x.data, q.dequantize().data, x.shape, axis).sqnr,
    sqnrPerTensor: channelErrors(x.data, qt.dequantize().data, x.shape, axis).sqnr,
  };
  q.dispose();
  qt.dispose();
  return out;
}

async function choose({ preset, axis, dtype, kind, reduceRange }) {
  if (preset) await page.selectOption('#preset', preset);
  if (dtype) await page.selectOption('#dtype', dtype);
  if (kind) await page.selectOption('#qscheme', kind);
  if (reduceRange !== undefined) await page.setChecked('#reduceRange', reduceRange);
  if (axis !== undefined) await page.selectOption('#axis', String(axis));
}

test('the page loads the wasm module with SIMD and logs no errors or warnings', async () => {
  expect(await page.textContent('#status')).toContain('wasmsimd');
  expect(problems).toEqual([]);
});

test('switching the axis makes one bar per entry of that axis', async () => {
  await choose({ preset: 'conv3dWeight', dtype: 'qint8', kind: 'symmetric', reduceRange: false });
  const shape = PRESETS.conv3dWeight.make().shape;
  for (const axis of [0, 1, 4, 2, 0]) {
    await page.selectOption('#axis', String(axis));
    expect((await shown()).bars).toBe(shape[axis]);
    expect(await page.textContent('#axis-shown')).toBe(String(axis));
  }
  await page.screenshot({ path: fileURLToPath(new URL('scale-explorer.png', OUTPUT_DIR)), fullPage: true });
});

test.each([
  ['activation4d', 2, 'quint8', 'affine', true],
  ['outlierChannels', 0, 'qint8', 'symmetric', false],
  ['conv3dWeight', 0, 'quint8', 'float_qparams', false],
  ['conv3dWeight', 1, 'qint8', 'affine', true],
])(
  '%s axis %d %s %s reduceRange=%s: the page shows what the API computes',
  async (preset, axis, dtype, kind, reduceRange) => {
    await choose({ preset, axis, dtype, kind, reduceRange });
    const got = await shown();
    const want = expected(PRESETS[preset].make(), axis, dtype, kind, reduceRange);
    expect(got.error).toBe('');
    expect(got.scales).toEqual(want.scales);
    expect(got.zeroPoints).toEqual(want.zeroPoints);
    // SQNR goes through Math.log10, whose last bit may differ between Chromium's
    // and Node's V8: equal to 1e-12 relative (the quantized values are exact).
    for (const key of ['sqnrPerChannel', 'sqnrPerTensor']) {
      expect(got[key].length).toBe(want[key].length);
      got[key].forEach((v, c) => {
        expect([c, Math.abs(v - want[key][c]) <= 1e-12 * Math.abs(want[key][c])]).toEqual([c, true]);
      });
    }
    expect(problems).toEqual([]);
  },
);

test('an invalid combination shows the error in the page and the page recovers', async () => {
  await choose({ preset: 'conv3dWeight', axis: 0, dtype: 'quint8', kind: 'symmetric', reduceRange: true });
  expect((await shown()).error).toContain('Cannot reduce range for symmetric quantization for quint8');
  await page.setChecked('#reduceRange', false);
  expect((await shown()).error).toBe('');
});

test('a .npy file loads through the file input and is explored along its axes', async () => {
  await choose({ dtype: 'qint8', kind: 'symmetric', reduceRange: false });
  await page.setInputFiles('#file', fixture('activation_f64.npy'));
  await page.waitForFunction(() => document.getElementById('summary').textContent.includes('activation_f64.npy'));
  const t = qwasm.io.loadNpy(new Uint8Array((await import('node:fs')).readFileSync(fixture('activation_f64.npy'))));
  for (const axis of [3, 1]) {
    await page.selectOption('#axis', String(axis));
    const got = await shown();
    expect(got.bars).toBe(t.shape[axis]);
    expect(got.scales).toEqual(expected(t, axis, 'qint8', 'symmetric', false).scales);
  }
});

test('a .safetensors file loads, and each float tensor in it can be picked', async () => {
  await page.setInputFiles('#file', fixture('model.safetensors'));
  await page.waitForFunction(() => document.getElementById('summary').textContent.includes('model.safetensors'));
  const options = await page.$$eval('#tensor-pick option', (os) => os.map((o) => o.value));
  expect(options.sort()).toEqual(['conv1.bias', 'conv1.weight', 'emb.half', 'fc.weight']);
  const st = qwasm.io.loadSafetensors(
    new Uint8Array((await import('node:fs')).readFileSync(fixture('model.safetensors'))),
  );
  await page.selectOption('#tensor-pick', 'fc.weight');
  await page.selectOption('#axis', '0');
  const got = await shown();
  expect(got.summary).toContain('fc.weight');
  expect(got.bars).toBe(10);
  expect(got.scales).toEqual(expected(st.get('fc.weight'), 0, 'qint8', 'symmetric', false).scales);
});

test('a malformed file shows an error message in the page', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'qwasm-bad-'));
  const bad = join(dir, 'broken.npy');
  writeFileSync(bad, Buffer.from('\x93NUMPY this is not a real header'));
  await page.setInputFiles('#file', bad);
  await page.waitForSelector('#error:not([hidden])');
  expect(await page.textContent('#error')).toMatch(
    /Could not load broken\.npy: io\.loadNpy\(bytes\): not a \.npy file/,
  );
  const badSt = join(dir, 'broken.safetensors');
  writeFileSync(badSt, Buffer.from([200, 0, 0, 0, 0, 0, 0, 0, 123]));
  await page.setInputFiles('#file', badSt);
  await page.waitForFunction(() => document.getElementById('error').textContent.includes('broken.safetensors'));
  expect(await page.textContent('#error')).toContain('header size 200 exceeds');
});

test('the tabs work from the keyboard', async () => {
  await page.focus('#tab-explorer');
  await page.keyboard.press('ArrowRight');
  expect(await page.getAttribute('#tab-playground', 'aria-selected')).toBe('true');
  expect(await page.isVisible('#view-playground')).toBe(true);
  expect(await page.isHidden('#view-explorer')).toBe(true);
});

test('the ConvReLU3d playground runs in a worker and shows timings, slices and the int8-float difference', async () => {
  await page.click('#tab-playground');
  await page.fill('#p-cout', '8');
  await page.selectOption('#p-size', '48');
  await page.click('#p-run');
  await page.waitForSelector('#p-status[data-done="1"]', { timeout: 60_000 });
  const timings = await page.$$eval('#p-timings tbody tr', (rows) =>
    rows.map((r) => [r.cells[0].textContent, Number(r.cells[1].dataset.ms)]),
  );
  expect(timings.map((t) => t[0])).toEqual(['int8 SIMD (qwasm)', 'float SIMD (qwasm)', 'int8 scalar (qwasm)']);
  for (const [, ms] of timings) expect(ms).toBeGreaterThan(0);
  expect(await page.textContent('#p-diff')).toMatch(/max \d+ LSB, mean [\d.]+ LSB/);
  // The slices are drawn at the output size.
  expect(await page.$eval('#img-int8', (c) => [c.width, c.height])).toEqual([48, 48]);
  await page.fill('#p-frame', '3');
  await page.dispatchEvent('#p-frame', 'input');
  expect(await page.textContent('#p-frame-shown')).toBe('4 / 8');
  await page.screenshot({ path: fileURLToPath(new URL('playground.png', OUTPUT_DIR)), fullPage: true });
  expect(problems).toEqual([]);
});

test('bad playground settings are explained in the page', async () => {
  await page.click('#tab-playground');
  await page.fill('#p-depth', '40');
  await page.click('#p-run');
  await page.waitForSelector('#p-error:not([hidden])');
  expect(await page.textContent('#p-error')).toContain('expected an integer in 1..32, got 40');
});
