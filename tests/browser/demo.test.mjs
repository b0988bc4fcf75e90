// The demo in Chromium, Firefox and WebKit: it loads with no console errors
// or warnings and no missing file; the axis drives the number of bars; what
// it shows equals what the API computes in Node for the same tensor; .npy and
// .safetensors files load through the file input and by drag and drop; a
// malformed file shows an error; the tabs work from the keyboard; the
// ConvReLU3d playground runs in its worker and shows its timings; the model
// view loads an exported model, charts a layer's scales as the API gives them
// in Node, and times a forward.
//
// The screenshots are checked too (screenshot-checks.mjs): each graph box the
// DOM places has its border and fill colour there in the captured pixels (red
// for the layers under the SQNR threshold, blue for the others), each bar a
// chart holds is drawn in its colour to its value's height, no chart's plot
// area is blank, and the playground's slices on screen are their canvases' pixels.
//
// The page is driven through small scripts run in it (engine-neutral: the
// same events a user's input fires), so the suite is written once for the
// three drivers (engines.mjs).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PRESETS } from '../../demo/presets.mjs';
import { syntheticClip } from '../../demo/random.mjs';
import { classCounts, labelVolume, PALETTE } from '../../demo/segmentation-slice.mjs';
import { channelErrors } from '../../demo/stats.mjs';
import { ZOO } from '../../demo/zoo.mjs';
import * as qwasm from '../../web/src/index.node.mjs';
import { OUTPUT_DIR } from './browser.mjs';
import { useDemoPages } from './demo-page.mjs';
import { engineTest, selectedEngines } from './engines.mjs';
import {
  barProblems,
  barsAlongBase,
  canvasPixels,
  canvasProblems,
  chartGeometry,
  drawnProblems,
  scrolledBoxProblems,
  shotsCovering,
} from './screenshot-checks.mjs';

const fixtureBytes = (name) => readFileSync(fileURLToPath(new URL(`../golden/fixtures/${name}`, import.meta.url)));
const SCHEMES = {
  symmetric: ['per_channel_symmetric', 'per_tensor_symmetric'],
  affine: ['per_channel_affine', 'per_tensor_affine'],
  float_qparams: ['per_channel_affine_float_qparams', 'per_tensor_affine'],
};

// What the page charts, read from its Chart.js instances and its table.
const SHOWN = `(() => {
  const { charts } = window.qwasmDemo;
  const rows = [...document.querySelectorAll('#values tbody tr')].map((r) => [...r.cells].map((c) => Number(c.dataset.value)));
  const error = document.getElementById('error');
  return {
    bars: charts.scales.data.datasets[0].data.length,
    scales: charts.scales.data.datasets[0].data,
    zeroPoints: charts.zps.data.datasets[0].data,
    sqnrPerChannel: rows.map((r) => r[3]),
    sqnrPerTensor: rows.map((r) => r[4]),
    error: error.hidden ? '' : error.textContent,
    summary: document.getElementById('summary').textContent,
  };
})()`;

// The demo's palette (demo/style.css, explorer.mjs, model-view.mjs, grid-histogram.mjs),
// as the screenshots must show it.
const BLUE = '#2f6fdb';
const ORANGE = '#e07b00';
const RED = '#c62828';
const HIST_FILL = '#cbdbf6'; // rgba(47, 111, 219, 0.25) over the white panel
const GRAPH_BOX = { stroke: BLUE, fill: '#ffffff' };
const GRAPH_BOX_LOW = { stroke: RED, fill: '#fdecea' };
// A histogram (line with its fill and the grid's ticks) is drawn: the line, its fill and the ticks are there.
const HIST_COLOURS = { colours: { line: BLUE, fill: HIST_FILL, grid: ORANGE } };

// User input, as the events it fires.
const js = JSON.stringify;
const select = (id, value) => `(() => {
  const e = document.getElementById(${js(id)});
  e.value = ${js(value)};
  if (e.value !== ${js(value)}) throw new Error('no option ' + ${js(value)} + ' in #' + ${js(id)});
  e.dispatchEvent(new Event('change', { bubbles: true }));
})()`;
const check = (id, on) => `(() => {
  const e = document.getElementById(${js(id)});
  e.checked = ${on};
  e.dispatchEvent(new Event('change', { bubbles: true }));
})()`;
const fill = (id, value) => `(() => {
  const e = document.getElementById(${js(id)});
  e.value = ${js(value)};
  e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
})()`;
const click = (id) => `document.getElementById(${js(id)}).click()`;
const text = (selector) => `document.querySelector(${js(selector)}).textContent`;
const files = (name, bytes) => `(() => {
  const bytes = Uint8Array.from(atob(${js(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], ${js(name)}));
  return dt;
})()`;
const chooseFile = (name, bytes, id = 'file') => `(() => {
  const input = document.getElementById(${js(id)});
  input.files = ${files(name, bytes)}.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
})()`;
const dropFile = (name, bytes, id = 'dropzone') => `(() => {
  const zone = document.getElementById(${js(id)});
  zone.dispatchEvent(new DragEvent('drop', { dataTransfer: ${files(name, bytes)}, bubbles: true, cancelable: true }));
})()`;
const visible = (id) =>
  `(() => { const e = document.getElementById(${js(id)}); return !e.hidden && e.getClientRects().length > 0; })()`;

test("the Model view's zoo lists every zoo model file the goldens export (the PT2E ones), each once", () => {
  const dir = fileURLToPath(new URL('../golden/exported/', import.meta.url));
  const files = readdirSync(dir).filter((f) => /^zoo3d_.*\.qwasm\.safetensors$/.test(f) && !f.includes('_eager'));
  expect(ZOO.map((e) => e.file).sort()).toEqual(files.sort());
  expect(new Set(ZOO.map((e) => e.name)).size).toBe(ZOO.length);
});

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

beforeAll(() => qwasm.init());

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  // Every test starts from a fresh page of its own.
  const pages = useDemoPages(engineName);
  const { problems } = pages;
  let tab;
  beforeEach(() => {
    tab = pages.tab();
  });
  const shotPath = (name) => fileURLToPath(new URL(`${name}-${engineName}.png`, OUTPUT_DIR));
  // Screenshots (the first into `name`'s file) holding each chart of `charts`
  // ({key: [its Chart.js instance in the page, its canvas's id]}), with what each chart claims.
  const chartShots = (name, charts) =>
    shotsCovering(
      tab,
      shotPath(name),
      `({ ${Object.entries(charts)
        .map(([key, [chart]]) => `${js(key)}: ${chartGeometry(chart)}`)
        .join(', ')} })`,
      Object.fromEntries(Object.entries(charts).map(([key, [, id]]) => [key, `#${id}`])),
    );
  const histProblems = ({ shot, geometry }, name) =>
    drawnProblems(shot, geometry.rect, geometry.area, name, HIST_COLOURS);
  const shown = () => tab.evaluate(SHOWN);
  async function choose({ preset, axis, dtype, kind, reduceRange }) {
    if (preset) await tab.evaluate(select('preset', preset));
    if (dtype) await tab.evaluate(select('dtype', dtype));
    if (kind) await tab.evaluate(select('qscheme', kind));
    if (reduceRange !== undefined) await tab.evaluate(check('reduceRange', reduceRange));
    if (axis !== undefined) await tab.evaluate(select('axis', String(axis)));
  }

  it('the page loads the wasm module with SIMD and logs no errors or warnings', async () => {
    expect(await tab.evaluate(text('#status'))).toContain('wasmsimd');
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 90_000);

  it('the page is cross-origin isolated and says how many threads qwasm uses (threads in Chromium)', async () => {
    const status = await tab.evaluate(text('#status'));
    console.log(`${engineName}: ${status}`);
    expect(await tab.evaluate('crossOriginIsolated')).toBe(true);
    const cores = await tab.evaluate('navigator.hardwareConcurrency');
    const threads = Number(await tab.evaluate(`document.getElementById('status').dataset.threads`));
    expect(status).toContain(threads === 1 ? '1 thread' : `${threads} threads`);
    if (engineName === 'chromium' && cores > 1) expect(threads).toBe(Math.min(8, cores));
  }, 90_000);

  it('switching the axis makes one bar per entry of that axis', async () => {
    await choose({ preset: 'conv3dWeight', dtype: 'qint8', kind: 'symmetric', reduceRange: false });
    const shape = PRESETS.conv3dWeight.make().shape;
    for (const axis of [0, 1, 4, 2, 0]) {
      await tab.evaluate(select('axis', String(axis)));
      expect((await shown()).bars).toBe(shape[axis]);
      expect(await tab.evaluate(text('#axis-shown'))).toBe(String(axis));
    }
    // The screenshot: the scales drawn as 64 blue bars to their heights, the errors per channel
    // in blue (per-channel) beside orange (per-tensor), the histogram drawn.
    const shots = await chartShots('scale-explorer', {
      scales: ['window.qwasmDemo.charts.scales', 'chart-scales'],
      sqnr: ['window.qwasmDemo.charts.sqnr', 'chart-sqnr'],
      maxerr: ['window.qwasmDemo.charts.maxerr', 'chart-maxerr'],
      hist: ['window.qwasmDemo.charts.hist', 'chart-hist'],
    });
    const perChannelThenTensor = (bar) => [BLUE, ORANGE][bar.dataset];
    expect(shots.scales.geometry.bars.length).toBe(shape[0]);
    expect(shots.sqnr.geometry.bars.length).toBe(2 * shape[0]);
    expect([
      ...barProblems(shots.scales.shot, shots.scales.geometry, 'scales', () => BLUE),
      ...barProblems(shots.sqnr.shot, shots.sqnr.geometry, 'SQNR', perChannelThenTensor),
      ...barProblems(shots.maxerr.shot, shots.maxerr.geometry, 'max error', perChannelThenTensor),
      ...histProblems(shots.hist, 'histogram'),
    ]).toEqual([]);
  }, 90_000);

  it.each([
    ['activation4d', 2, 'quint8', 'affine', true],
    ['outlierChannels', 0, 'qint8', 'symmetric', false],
    ['conv3dWeight', 0, 'quint8', 'float_qparams', false],
    ['conv3dWeight', 1, 'qint8', 'affine', true],
  ])(
    '%s axis %d %s %s reduceRange=%s: the page shows what the API computes in Node',
    async (preset, axis, dtype, kind, reduceRange) => {
      await choose({ preset, axis, dtype, kind, reduceRange });
      const got = await shown();
      const want = expected(PRESETS[preset].make(), axis, dtype, kind, reduceRange);
      expect(got.error).toBe('');
      expect(got.scales).toEqual(want.scales);
      expect(got.zeroPoints).toEqual(want.zeroPoints);
      // SQNR goes through Math.log10, whose last bit may differ between
      // engines: equal to 1e-12 relative (the quantized values are exact).
      for (const key of ['sqnrPerChannel', 'sqnrPerTensor']) {
        expect(got[key].length).toBe(want[key].length);
        got[key].forEach((v, c) => {
          expect([key, c, Math.abs(v - want[key][c]) <= 1e-12 * Math.abs(want[key][c])]).toEqual([key, c, true]);
        });
      }
      expect(await problems()).toEqual({ inPage: [], missing: [] });
    },
    90_000,
  );

  it('a symmetric scheme says why its zero-point chart has nothing to show; an affine one charts them', async () => {
    await choose({ preset: 'conv3dWeight', axis: 0, dtype: 'qint8', kind: 'symmetric', reduceRange: false });
    expect([await tab.evaluate(visible('zps-note')), await tab.evaluate(visible('zps-box'))]).toEqual([true, false]);
    expect(await tab.evaluate(text('#zps-note'))).toBe(
      'Every zero point is 0: the symmetric scheme fixes it (qint8 maps 0.0 to the integer 0), so only the scales vary.',
    );
    await choose({ kind: 'affine' });
    expect([await tab.evaluate(visible('zps-note')), await tab.evaluate(visible('zps-box'))]).toEqual([false, true]);
    // Every chart's caption is its title, above it (a caption below one read as the next chart's title).
    expect(
      await tab.evaluate(
        `[...document.querySelectorAll('figure.chart')].filter((f) => f.firstElementChild.tagName !== 'FIGCAPTION').length`,
      ),
    ).toBe(0);
  }, 90_000);

  it('an invalid combination shows the error in the page and the page recovers', async () => {
    await choose({ preset: 'conv3dWeight', axis: 0, dtype: 'quint8', kind: 'symmetric', reduceRange: true });
    expect((await shown()).error).toContain('Cannot reduce range for symmetric quantization for quint8');
    await tab.evaluate(check('reduceRange', false));
    expect((await shown()).error).toBe('');
  }, 90_000);

  it('a .npy file dropped on the page is explored along its axes', async () => {
    await choose({ dtype: 'qint8', kind: 'symmetric', reduceRange: false });
    const bytes = fixtureBytes('activation_f64.npy');
    await tab.evaluate(dropFile('activation_f64.npy', bytes));
    await tab.waitFor(`${text('#summary')}.includes('activation_f64.npy')`);
    const t = qwasm.io.loadNpy(new Uint8Array(bytes));
    for (const axis of [3, 1]) {
      await tab.evaluate(select('axis', String(axis)));
      const got = await shown();
      expect(got.bars).toBe(t.shape[axis]);
      expect(got.scales).toEqual(expected(t, axis, 'qint8', 'symmetric', false).scales);
    }
  }, 90_000);

  it('a .safetensors file loads through the file input, and each float tensor in it can be picked', async () => {
    const bytes = fixtureBytes('model.safetensors');
    await tab.evaluate(chooseFile('model.safetensors', bytes));
    await tab.waitFor(`${text('#summary')}.includes('model.safetensors')`);
    const options = await tab.evaluate(`[...document.querySelectorAll('#tensor-pick option')].map((o) => o.value)`);
    expect(options.sort()).toEqual(['conv1.bias', 'conv1.weight', 'emb.half', 'fc.weight']);
    const st = qwasm.io.loadSafetensors(new Uint8Array(bytes));
    await tab.evaluate(select('tensor-pick', 'fc.weight'));
    await tab.evaluate(select('axis', '0'));
    const got = await shown();
    expect(got.summary).toContain('fc.weight');
    expect(got.bars).toBe(10);
    expect(got.scales).toEqual(expected(st.get('fc.weight'), 0, 'qint8', 'symmetric', false).scales);
  }, 90_000);

  it('a malformed file shows an error message in the page', async () => {
    await tab.evaluate(chooseFile('broken.npy', Buffer.from('\x93NUMPY this is not a real header')));
    await tab.waitFor(`!document.getElementById('error').hidden`);
    expect(await tab.evaluate(text('#error'))).toMatch(
      /Could not load broken\.npy: io\.loadNpy\(bytes\): not a \.npy file/,
    );
    await tab.evaluate(chooseFile('broken.safetensors', Buffer.from([200, 0, 0, 0, 0, 0, 0, 0, 123])));
    await tab.waitFor(`${text('#error')}.includes('broken.safetensors')`);
    expect(await tab.evaluate(text('#error'))).toContain('header size 200 exceeds');
  }, 90_000);

  it('the tabs work from the keyboard', async () => {
    await tab.evaluate(`(() => {
      const t = document.getElementById('tab-explorer');
      t.focus();
      t.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    })()`);
    expect(await tab.evaluate(`document.getElementById('tab-playground').getAttribute('aria-selected')`)).toBe('true');
    expect(await tab.evaluate(`document.activeElement.id`)).toBe('tab-playground');
    expect(await tab.evaluate(visible('view-playground'))).toBe(true);
    expect(await tab.evaluate(visible('view-explorer'))).toBe(false);
  }, 90_000);

  it('the ConvReLU3d playground runs in a worker and shows timings, slices and the int8-float difference', async () => {
    await tab.evaluate(click('tab-playground'));
    await tab.evaluate(fill('p-cout', '8'));
    await tab.evaluate(select('p-size', '48'));
    await tab.evaluate(click('p-run'));
    await tab.waitFor(`document.getElementById('p-status').dataset.done === '1'`, 120_000);
    const timings = await tab.evaluate(
      `[...document.querySelectorAll('#p-timings tbody tr')].map((r) => [r.cells[0].textContent, Number(r.cells[1].dataset.ms)])`,
    );
    expect(timings.map((t) => t[0])).toEqual(['int8 SIMD (qwasm)', 'float SIMD (qwasm)', 'int8 scalar (qwasm)']);
    for (const [, ms] of timings) expect(ms).toBeGreaterThan(0);
    expect(await tab.evaluate(text('#p-diff'))).toMatch(/max \d+ LSB, mean [\d.]+ LSB/);
    // The worker says how many threads timed it: in Firefox one (its workers
    // start no threads), in Chromium the page's count (cores up to 8).
    const cores = await tab.evaluate('navigator.hardwareConcurrency');
    const threadsLine = (await tab.evaluate(text('#p-diff'))).match(/Timed in a worker on (.*)\.$/)?.[1];
    if (engineName === 'firefox') expect(threadsLine).toMatch(/^1 thread \(Firefox can hang/);
    if (engineName === 'chromium' && cores > 1) expect(threadsLine).toBe(`${Math.min(8, cores)} threads`);
    // The slices are drawn at the output size.
    expect(
      await tab.evaluate(`(() => { const c = document.getElementById('img-int8'); return [c.width, c.height]; })()`),
    ).toEqual([48, 48]);
    await tab.evaluate(fill('p-frame', '3'));
    expect(await tab.evaluate(text('#p-frame-shown'))).toBe('4 / 8');
    // The blob sits where it is in the input slice shown: the brightness-weighted
    // centre of the brightest output channel is at the input's height (within 3
    // pixels), and left or right of it by at most the blob's move between two
    // frames (0.6 x 48 / 7 pixels: the kernel also sees the neighbouring frames).
    const centroid = (id) => `(() => {
      const c = document.getElementById(${js(id)});
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let s = 0, sx = 0, sy = 0;
      for (let i = 0; i < c.width * c.height; i++) {
        const v = Math.max(0, d[i * 4] - 64); // above the noise floor
        s += v; sx += v * (i % c.width); sy += v * Math.floor(i / c.width);
      }
      return { mass: s, x: sx / s, y: sy / s };
    })()`;
    const outputs = [];
    for (let k = 0; k < 8; k++) {
      await tab.evaluate(fill('p-channel', String(k)));
      outputs.push(await tab.evaluate(centroid('img-float')));
    }
    const brightest = outputs.reduce((a, b) => (b.mass > a.mass ? b : a));
    const input = await tab.evaluate(centroid('img-input'));
    expect({
      dy: Math.abs(brightest.y - input.y) < 3,
      dx: Math.abs(brightest.x - input.x) < (0.6 * 48) / 7 + 2,
    }).toEqual({ dy: true, dx: true });
    await tab.evaluate(fill('p-channel', '0'));
    // The screenshot: each slice on screen is its canvas's pixels, scaled up.
    const slices = ['img-input', 'img-float', 'img-int8', 'img-diff'];
    const shots = await shotsCovering(
      tab,
      shotPath('playground'),
      `({ ${slices.map((id) => `${js(id)}: ${canvasPixels(id)}`).join(', ')} })`,
      Object.fromEntries(slices.map((id) => [id, `#${id}`])),
    );
    expect(slices.flatMap((id) => canvasProblems(shots[id].shot, shots[id].geometry, id))).toEqual([]);
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it("the model view loads the built-in r3d_18, charts a layer's per-channel scales and times a forward", async () => {
    const bytes = readFileSync(fileURLToPath(new URL('../golden/exported/r3d_18.qwasm.safetensors', import.meta.url)));
    const model = qwasm.io.loadModel(new Uint8Array(bytes));
    await tab.evaluate(click('tab-model'));
    // Every status the view shows while it loads (the model downloads and builds in qwasm's model worker).
    await tab.evaluate(
      `(window.__statuses = [], new MutationObserver(() => window.__statuses.push(document.getElementById('m-status').textContent)).observe(document.getElementById('m-status'), { childList: true, characterData: true, subtree: true }), true)`,
    );
    await tab.evaluate(click('m-builtin'));
    await tab.waitFor(`${text('#m-status')} === 'Loaded r3d_18 (1/8 width).'`, 60_000);
    const statuses = await tab.evaluate('window.__statuses');
    expect(statuses.filter((t) => !t.startsWith('Downloading'))).toEqual([
      'Building r3d_18 (1/8 width) in the worker…',
      'Loaded r3d_18 (1/8 width).',
    ]);
    expect(statuses[0]).toMatch(/^Downloading r3d_18 \(1\/8 width\): 0\.0 of 0\.6 MB…$/);
    expect(await tab.evaluate(`document.getElementById('m-progress').hidden`)).toBe(true);
    const layers = await tab.evaluate(`[...document.querySelectorAll('#m-layer option')].map((o) => o.value)`);
    const weighted = model
      .namedModules()
      .filter(([, m]) => typeof m.weight === 'function' && typeof m.scale === 'number');
    expect(layers).toEqual(weighted.map(([path]) => path));
    expect(await tab.evaluate(`document.querySelectorAll('#m-layers tbody tr').length`)).toBe(model.nodes.length - 2);
    // A functional node (the residual add) shows its arguments and output qparams, not only modules.
    const add = model.nodes.find((n) => n.target === 'quantized.add_relu');
    const row = await tab.evaluate(
      `[...document.querySelector('#m-layers tbody tr[data-node="${add.name}"]').cells].map((c) => c.textContent)`,
    );
    expect(row).toEqual([
      add.name,
      '', // time, path and SQNR: after a run, after a comparison
      '',
      '',
      'quantized.add_relu',
      'function',
      `${add.args[0].node}, ${add.args[1].node}, scale=${add.kwargs.scale}, zero_point=${add.kwargs.zero_point}`,
      `[${add.output.shape.join(', ')}] quint8`,
      '',
      add.kwargs.scale.toPrecision(6),
      String(add.kwargs.zero_point),
    ]);
    await tab.evaluate(select('m-layer', 'layer2.0.conv1.0'));
    const w = model.getSubmodule('layer2.0.conv1.0').weight();
    expect(await tab.evaluate('window.qwasmDemo.model.charts.scales.data.datasets[0].data')).toEqual(
      Array.from(w.qPerChannelScales()),
    );
    w.dispose();
    await tab.evaluate(click('m-run'));
    await tab.waitFor(`${text('#m-status')} === 'Ran r3d_18 (1/8 width).'`, 120_000);
    expect(await tab.evaluate('window.qwasmDemo.model.charts.times.data.datasets[0].data.length')).toBe(
      model.nodes.length - 2,
    );
    expect(await tab.evaluate(text('#m-output'))).toMatch(
      /^Input \[1, 3, 16, 112, 112\]: [\d.]+ ms in 70 nodes, heap high-water [\d.]+ MB; output \[400 values\], top-1 index \d+\.$/,
    );
    // Which arithmetic each conv ran: a stride-1 3x3x3 conv of 32 channels on Winograd, a strided one direct, the add neither.
    const pathOf = (target) =>
      tab.evaluate(
        `[...document.querySelector('#m-layers tbody tr[data-node="${model.nodes.find((n) => n.target === target).name}"]').cells][2].textContent`,
      );
    expect({
      stride1: await pathOf('layer3.1.conv1.0'), // 32 -> 32 channels: 'auto' takes Winograd (layer1's 8 stay direct)
      strided: await pathOf('layer2.0.conv1.0'),
      add: await pathOf('quantized.add_relu'),
    }).toEqual({ stride1: 'winograd', strided: 'direct', add: '' });
    model.dispose();
    // The screenshot: the layer's 16 scales drawn to their heights in blue; the times charted.
    const shots = await chartShots('model', {
      scales: ['window.qwasmDemo.model.charts.scales', 'chart-m-scales'],
      times: ['window.qwasmDemo.model.charts.times', 'chart-m-times'],
    });
    expect(shots.scales.geometry.bars.length).toBe(16);
    const { times } = shots;
    expect([
      ...barProblems(shots.scales.shot, shots.scales.geometry, 'scales', () => BLUE),
      ...drawnProblems(times.shot, times.geometry.rect, times.geometry.area, 'times', { colours: { bars: BLUE } }),
    ]).toEqual([]);
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it('the model view opens a zoo model (MeshNet, a segmentation) and shows a depth slice of its voxel classes, as the API computes them', async () => {
    const entry = ZOO.find((e) => e.file === 'zoo3d_meshnet.qwasm.safetensors');
    const model = qwasm.io.loadModel(
      new Uint8Array(readFileSync(fileURLToPath(new URL(`../golden/exported/${entry.file}`, import.meta.url)))),
    );
    const y = model.forward(syntheticClip(model.inputShape));
    const labels = labelVolume(y.data, y.shape);
    const counts = classCounts(labels, y.shape[1]);
    model.dispose();
    await tab.evaluate(click('tab-model'));
    await tab.evaluate(select('m-zoo', String(ZOO.indexOf(entry))));
    await tab.waitFor(`${text('#m-status')} === ${js(`Loaded ${entry.name}.`)}`, 60_000);
    // The built-in float twin is r3d_18's: not this model's.
    expect(await tab.evaluate(`document.getElementById('m-compare').disabled`)).toBe(true);
    await tab.evaluate(click('m-run'));
    await tab.waitFor(`${text('#m-status')} === ${js(`Ran ${entry.name}.`)}`, 120_000);
    expect({ seg: await tab.evaluate(visible('m-seg')), top5: await tab.evaluate(visible('m-top5')) }).toEqual({
      seg: true,
      top5: false,
    });
    expect(await tab.evaluate('window.qwasmDemo.model.state.segmentation.counts')).toEqual(counts);
    // The middle slice's canvas: each voxel's centre pixel in its class's colour.
    const [, , d, h, w] = y.shape;
    const z = Math.floor(d / 2);
    const drawn = await tab.evaluate(`(() => {
      const c = document.getElementById('m-seg-labels');
      const zoom = c.width / ${w};
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const out = [];
      for (let y = 0; y < ${h}; y++)
        for (let x = 0; x < ${w}; x++) {
          const o = 4 * ((Math.floor(y * zoom + zoom / 2)) * c.width + Math.floor(x * zoom + zoom / 2));
          out.push([px[o], px[o + 1], px[o + 2]].join(','));
        }
      return out;
    })()`);
    const want = Array.from(labels.subarray(z * h * w, (z + 1) * h * w), (l) => PALETTE[l % PALETTE.length].join(','));
    expect(drawn).toEqual(want);
    expect(new Set(want).size).toBeGreaterThan(1); // the slice shows more than one class
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it("the model view compares the int8 r3d_18 with its float twin: each layer's SQNR, as the numeric suite gives it", async () => {
    const file = (name) =>
      new Uint8Array(readFileSync(fileURLToPath(new URL(`../golden/exported/${name}`, import.meta.url))));
    const int8 = qwasm.io.loadModel(file('r3d_18.qwasm.safetensors'));
    const float = qwasm.io.loadModel(file('r3d_18_float.qwasm.safetensors'));
    const want = qwasm.quantization.ns.compareModelOutputs(float, int8, syntheticClip(int8.inputShape));
    await tab.evaluate(click('tab-model'));
    await tab.evaluate(click('m-builtin'));
    await tab.waitFor(`${text('#m-status')} === 'Loaded r3d_18 (1/8 width).'`, 60_000);
    expect(await tab.evaluate(visible('m-errors'))).toBe(false);
    await tab.evaluate(click('m-compare'));
    await tab.waitFor(`${text('#m-status')} === 'Compared r3d_18 (1/8 width) with r3d_18 float (1/8 width).'`, 120_000);
    const chart = await tab.evaluate(
      `(() => { const c = window.qwasmDemo.model.charts.sqnr; return { labels: c.data.labels, values: c.data.datasets[0].data, colors: c.data.datasets[0].backgroundColor }; })()`,
    );
    // The page's numbers are the API's (the same wasm, the same clip), in graph order.
    expect(chart.labels).toEqual(Object.keys(want).map((k) => k.replace(/\.stats$/, '')));
    // (Math.log10's last bit may differ between engines: equal to 1e-12 relative.)
    const wantValues = Object.values(want).map((v) => v.sqnr);
    expect(chart.values.map((v, i) => Math.abs(v - wantValues[i]) <= 1e-12 * Math.abs(wantValues[i]))).toEqual(
      wantValues.map(() => true),
    );
    // Layers under the threshold are red, in the chart and in the graph, and the caption names them.
    await tab.evaluate(fill('m-threshold', '30'));
    const below = Object.entries(want).filter(([, v]) => v.sqnr < 30);
    expect(below.length).toBeGreaterThan(0);
    const colors = await tab.evaluate('window.qwasmDemo.model.charts.sqnr.data.datasets[0].backgroundColor');
    expect(colors.filter((c) => c === '#c62828').length).toBe(below.length);
    expect(await tab.evaluate(text('#m-errors-caption'))).toContain(
      `${below.length} of ${Object.keys(want).length} below 30 dB`,
    );
    // (A FloatFunctional's SQNR sits on its activation_post_process, an Identity the graph folds.)
    const keyOf = (n) => `${n.target.replace(/\.activation_post_process$/, '')}.stats`;
    const drawnBelow = (threshold) =>
      int8.nodes.filter(
        (n) =>
          n.op === 'call_module' &&
          !(int8.getSubmodule(n.target) instanceof qwasm.nn.Identity) &&
          (want[keyOf(n)]?.sqnr ?? Number.POSITIVE_INFINITY) < threshold,
      );
    const drawnLow = drawnBelow(30);
    expect(await tab.evaluate(`document.querySelectorAll('#m-graph .node.low').length`)).toBe(drawnLow.length);
    // A layer's float weights against its int8 grid: one output channel's 8 x 3 x 3 x 3 values,
    // and grid ticks at that channel's scale.
    await tab.evaluate(select('m-layer', 'layer2.0.conv1.0'));
    await tab.evaluate(fill('m-hist-channel', '3'));
    // The layer's float weights are read from the file on demand (lazy-tensors.mjs).
    await tab.waitFor(`${text('#m-hist-caption')}.includes('output channel 3 ')`, 30_000);
    const hist = await tab.evaluate(`(() => {
      const d = window.qwasmDemo.model.charts.hist.data.datasets;
      return { count: d[0].data.reduce((s, p) => s + p.y, 0), grid: d[1].data.map((p) => p.x) };
    })()`);
    const scale = int8.getSubmodule('layer2.0.conv1.0').weight();
    const s3 = scale.qPerChannelScales()[3];
    scale.dispose();
    expect(hist.count).toBe(216);
    expect(hist.grid.length).toBeGreaterThan(10);
    expect(hist.grid.every((x) => Math.abs(x / s3 - Math.round(x / s3)) < 1e-6)).toBe(true);
    expect(await tab.evaluate(text('#m-hist-caption'))).toMatch(
      /^layer2\.0\.conv1\.0: the float model's weights of output channel 3 \(216 values\) against the int8 grid/,
    );
    // The table's SQNR column: the first conv's row.
    const stem = int8.nodes.find((n) => n.target === 'stem.0');
    const row = await tab.evaluate(
      `[...document.querySelector('#m-layers tbody tr[data-node="${stem.name}"]').cells].map((c) => c.textContent)`,
    );
    expect(row[3]).toBe(want['stem.0.stats'].sqnr.toFixed(2));
    // The time, path and SQNR columns are in view, not scrolled off to the right.
    const overflow = await tab.evaluate(`(() => {
      const view = document.querySelector('#m-layers').parentElement.getBoundingClientRect();
      return [...document.querySelectorAll('#m-layers thead th')].slice(1, 4).map((th) => [th.textContent, th.getBoundingClientRect().right <= view.right + 0.5]);
    })()`);
    expect(overflow).toEqual([
      ['time (ms)', true],
      ['path', true],
      ['SQNR (dB)', true],
    ]);
    // The screenshots, at a threshold that splits the layers (every one is under 30 dB): each
    // layer's SQNR bar drawn to its value's height, red under the threshold and blue above;
    // the histogram drawn; each graph box under the threshold red, the others blue.
    const sorted = [...wantValues].sort((a, b) => a - b);
    const split = Math.round(sorted[sorted.length >> 1]);
    await tab.evaluate(fill('m-threshold', String(split)));
    const low = new Set(drawnBelow(split).map((n) => n.name));
    expect([low.size > 0, wantValues.some((v) => v >= split)]).toEqual([true, true]);
    const shots = await chartShots('model-errors', {
      sqnr: ['window.qwasmDemo.model.charts.sqnr', 'chart-m-sqnr'],
      hist: ['window.qwasmDemo.model.charts.hist', 'chart-m-hist'],
    });
    expect(shots.sqnr.geometry.bars.length).toBe(wantValues.length);
    expect({
      barsSeen: barsAlongBase(shots.sqnr.shot, shots.sqnr.geometry, [RED, BLUE]),
      problems: [
        ...barProblems(shots.sqnr.shot, shots.sqnr.geometry, 'SQNR', (bar) =>
          wantValues[bar.index] < split ? RED : BLUE,
        ),
        ...histProblems(shots.hist, 'weights against the grid'),
      ],
    }).toEqual({ barsSeen: wantValues.length, problems: [] });
    const graph = await scrolledBoxProblems(tab, shotPath('model-errors-graph'), {
      scroller: '#view-model .graph-scroll',
      box: '.node rect',
      styleOf: (name) => (low.has(name) ? GRAPH_BOX_LOW : GRAPH_BOX),
    });
    expect(graph.problems).toEqual([]);
    expect(graph.seen.filter((name) => low.has(name)).sort()).toEqual([...low].sort());
    expect(graph.seen.length).toBe(await tab.evaluate(`document.querySelectorAll('#m-graph .node').length`));
    int8.dispose();
    float.dispose();
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it('the model view draws the graph (Identity folded, residual adds with two inputs); a click shows a node', async () => {
    const file = new Uint8Array(
      readFileSync(fileURLToPath(new URL('../golden/exported/r3d_18.qwasm.safetensors', import.meta.url))),
    );
    const model = qwasm.io.loadModel(file);
    const kept = model.nodes.filter(
      (n) => !(n.op === 'call_module' && model.getSubmodule(n.target) instanceof qwasm.nn.Identity),
    );
    await tab.evaluate(click('tab-model'));
    await tab.evaluate(click('m-builtin'));
    await tab.waitFor(`${text('#m-status')} === 'Loaded r3d_18 (1/8 width).'`, 60_000);
    const drawn = await tab.evaluate(`[...document.querySelectorAll('#m-graph .node')].map((g) => g.dataset.node)`);
    expect(drawn).toEqual(kept.map((n) => n.name));
    // Every box lies inside the drawing, and the drawing has a size (it rendered, not only exists).
    const inside = await tab.evaluate(`(() => {
      const svg = document.getElementById('m-graph');
      const w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
      const boxes = [...svg.querySelectorAll('.node')].map((g) => g.getBBox());
      return { w, h, all: boxes.every((b) => b.width > 100 && b.height > 20), edges: svg.querySelectorAll('.edge').length };
    })()`);
    expect(inside.all).toBe(true);
    expect(inside.w * inside.h).toBeGreaterThan(0);
    // The edges: one per input of each drawn node, through the folded ones; a residual add has two.
    const adds = kept.filter((n) => n.target === 'quantized.add_relu');
    expect(adds.length).toBe(8);
    expect(inside.edges).toBeGreaterThanOrEqual(kept.length - 1 + adds.length);
    // A click on a conv's box shows its details and charts its scales.
    await tab.evaluate(
      `document.querySelector('#m-graph .node[data-node="layer2_0_conv1_0"]').dispatchEvent(new MouseEvent('click', { bubbles: true }))`,
    );
    expect(await tab.evaluate(`document.getElementById('m-layer').value`)).toBe('layer2.0.conv1.0');
    expect(await tab.evaluate(text('#m-node-details'))).toMatch(
      /^layer2_0_conv1_0 \(call_module layer2\.0\.conv1\.0\)\narguments: layer1_1_skip_add_activation_post_process\noutput: \[1, 16, 8, 28, 28\] quint8, scale [\d.]+, zero point \d+\nweight: \[16, 8, 3, 3, 3\] qint8, per channel \(axis 0\), fbgemm$/,
    );
    model.dispose();
    // The screenshots, the graph scrolled through: every node's box is drawn where the DOM puts it, in blue on white.
    const graph = await scrolledBoxProblems(tab, shotPath('model-graph'), {
      scroller: '#view-model .graph-scroll',
      box: '.node rect',
      styleOf: () => GRAPH_BOX,
    });
    expect(graph.problems).toEqual([]);
    expect(graph.seen.sort()).toEqual(kept.map((n) => n.name).sort());
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it('the model view opens a dropped PT2E file (r3d_18 through QwasmQuantizer): its quantized layers by module path, a run', async () => {
    const name = 'pt2e_r3d_18_qwasm.qwasm.safetensors';
    const bytes = readFileSync(fileURLToPath(new URL(`../golden/exported/${name}`, import.meta.url)));
    const model = qwasm.io.loadModel(new Uint8Array(bytes));
    await tab.evaluate(click('tab-model'));
    await tab.evaluate(dropFile(name, bytes, 'm-dropzone'));
    await tab.waitFor(`${text('#m-status')} === 'Loaded ${name}.'`, 60_000);
    const layers = await tab.evaluate(`[...document.querySelectorAll('#m-layer option')].map((o) => o.value)`);
    // torch.export's module paths, as the eager model has them; every conv and the fc in int8.
    const quantized = model
      .namedModules()
      .filter(([, m]) => typeof m.weight === 'function' && typeof m.scale === 'number')
      .map(([path]) => path);
    expect(layers).toEqual(quantized);
    expect(layers.length).toBe(21);
    expect(layers).toContain('layer1.0.conv1.0');
    await tab.evaluate(select('m-layer', 'layer1.0.conv1.0'));
    const w = model.getSubmodule('layer1.0.conv1.0').weight();
    expect(await tab.evaluate('window.qwasmDemo.model.charts.scales.data.datasets[0].data')).toEqual(
      Array.from(w.qPerChannelScales()),
    );
    w.dispose();
    await tab.evaluate(click('m-run'));
    await tab.waitFor(`${text('#m-status')} === 'Ran ${name}.'`, 120_000);
    expect(await tab.evaluate(text('#m-output'))).toMatch(
      new RegExp(`^Input \\[1, 3, 16, 112, 112\\]: [\\d.]+ ms in ${model.nodes.length - 2} nodes, heap high-water`),
    );
    model.dispose();
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 150_000);

  it('a dropped file that is not an exported model shows why in the model view', async () => {
    await tab.evaluate(click('tab-model'));
    await tab.evaluate(dropFile('model.safetensors', fixtureBytes('model.safetensors'), 'm-dropzone'));
    await tab.waitFor(`!document.getElementById('m-error').hidden`);
    expect(await tab.evaluate(text('#m-error'))).toMatch(
      /io\.loadModel\(source, \{ worker: true \}\): not a qwasm model/,
    );
  }, 90_000);

  it('bad playground settings are explained in the page', async () => {
    await tab.evaluate(click('tab-playground'));
    await tab.evaluate(fill('p-depth', '40'));
    await tab.evaluate(click('p-run'));
    await tab.waitFor(`!document.getElementById('p-error').hidden`);
    expect(await tab.evaluate(text('#p-error'))).toContain('expected an integer in 1..32, got 40');
  }, 90_000);
});
