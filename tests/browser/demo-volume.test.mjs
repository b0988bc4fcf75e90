// The demo's Volume view, in Chromium, Firefox and WebKit: a NIfTI file
// dropped on the page (a crop of the MNI152 sample, stored LPS so that the
// page must reorient it) is read, preprocessed as the model's file records,
// segmented by the trained brain MeshNet in the model worker within a memory
// budget (depth streaming), and shown as three planes. Each plane's pixels
// equal what volume-planes.mjs draws in Node from the API's own output on the
// same file (io.readNifti, transforms().forward, a whole forward); each
// class's volume is counted from those labels; the downloaded labels are
// transforms().labels on the input's grid. A file that is not NIfTI says so.
// In Chromium, the sample (the whole MNI152 T1, 8.7 M voxels) too, in the
// default budget: the class volumes the README's Node example prints. No
// page error, no missing file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { classVolumesMl, intensityWindow, PLANES, renderPlane, voxelClasses } from '../../demo/volume-planes.mjs';
import * as qwasm from '../../web/src/index.node.mjs';
import { OUTPUT_DIR } from './browser.mjs';
import { useDemoPages } from './demo-page.mjs';
import { engineTest, selectedEngines } from './engines.mjs';

const demoFile = (name) => readFileSync(fileURLToPath(new URL(`../../demo/data/${name}`, import.meta.url)));
const js = JSON.stringify;
const click = (id) => `document.getElementById(${js(id)}).click()`;
const status = `document.getElementById('v-status').textContent`;
const dropFile = (name, bytes) => `(() => {
  const bytes = Uint8Array.from(atob(${js(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], ${js(name)}));
  document.getElementById('v-dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
})()`;
// What the page shows: each plane's slider and canvas pixels (base64), the class volume table, the labels file.
const SHOWN = `(() => {
  const b64 = (d) => { let s = ''; for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode(...d.subarray(i, i + 0x8000)); return btoa(s); };
  const planes = {};
  for (const plane of ['axial', 'coronal', 'sagittal']) {
    const c = document.getElementById('v-' + plane);
    planes[plane] = { index: Number(document.getElementById('v-' + plane + '-slice').value), width: c.width, height: c.height,
      b64: b64(c.getContext('2d').getImageData(0, 0, c.width, c.height).data) };
  }
  const rows = [...document.querySelectorAll('#v-volumes tbody tr')].map((r) => [...r.cells].map((c) => c.textContent));
  const { state } = window.qwasmDemo.volume;
  return { planes, rows, dims: state.grid.dims, labelsFile: b64(state.labelsFile), run: document.getElementById('v-run').textContent };
})()`;

const MM = 1; // the model's grid is 1 mm: one voxel is 1 mm³

/**
 * A float32 NIfTI file of the sample's voxels [x0, x0 + n) x [y0, ...) x [z0, ...), stored LPS: x and y
 * reversed, the affine saying so (the same voxels in the world as the sample's).
 */
async function lpsCrop(sample, [x0, y0, z0], [nx, ny, nz]) {
  const [sx, sy] = sample.dims;
  const data = new Float32Array(nx * ny * nz);
  for (let k = 0, at = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++, at++)
        data[at] = sample.data[x0 + nx - 1 - i + sx * (y0 + ny - 1 - j + sy * (z0 + k))];
  const A = sample.affine; // RAS, diagonal
  // biome-ignore format: a 4x4 matrix
  const affine = [
    -A[0], 0, 0, A[3] + A[0] * (x0 + nx - 1),
    0, -A[5], 0, A[7] + A[5] * (y0 + ny - 1),
    0, 0, A[10], A[11] + A[10] * z0,
    0, 0, 0, 1,
  ];
  return qwasm.io.writeNifti({ data, dims: [nx, ny, nz], affine }, { gzip: true });
}

let model;
let sample;
beforeAll(async () => {
  await qwasm.init();
  model = qwasm.io.loadModel(demoFile('meshnet-brain.qwasm.safetensors'), { maxWork: 4e12 });
  sample = await qwasm.io.readNifti(demoFile('mni152-t1.nii.gz'));
});
afterAll(() => model?.dispose());

/** What the page must show for a file: the API's labels in the model's grid and on the input's. */
async function expectedFor(bytes) {
  const volume = await qwasm.io.readNifti(bytes);
  const transform = model.transforms();
  const x = transform.forward(volume);
  const values = x.data.slice();
  const logits = model.forward(x);
  return {
    dims: x.shape.slice(2),
    values,
    labels: voxelClasses(logits),
    inputLabels: transform.labels(logits, volume),
  };
}

function expectPlanes(shown, want) {
  const window = intensityWindow(want.values);
  const cursor = [shown.planes.sagittal.index, shown.planes.coronal.index, shown.planes.axial.index];
  for (const plane of Object.keys(PLANES)) {
    const { index, width, height, b64 } = shown.planes[plane];
    expect(index).toBe(cursor[PLANES[plane].fixed]);
    const drawn = renderPlane({ ...want, plane, index, window, opacity: 0.5, cursor });
    expect([width, height]).toEqual([drawn.width, drawn.height]);
    const got = new Uint8ClampedArray(Buffer.from(b64, 'base64'));
    let differing = 0;
    for (let i = 0; i < got.length; i++) differing += got[i] !== drawn.pixels[i];
    expect({ plane, differing }).toEqual({ plane, differing: 0 });
  }
}

function expectVolumes(rows, labels) {
  const ml = classVolumesMl(labels, model.classes.length, MM);
  expect(rows).toEqual(model.classes.map((name, c) => [name, String(Math.round(ml[c] * 1000)), ml[c].toFixed(1)]));
}

// The class volumes (mL) the README's volume example prints for the sample: `// → background 6933.9, ...`.
const README_VOLUMES = (() => {
  const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const line = /console\.log\(mL\.join\(', '\)\); \/\/ → (.*)$/m.exec(readme)[1];
  return line.split(', ').map((entry) => /^(.*) (\d+\.\d)$/.exec(entry).slice(1));
})();

const SAMPLE_ENGINES = (process.env.QWASM_VOLUME_SAMPLE_ENGINES ?? 'chromium').split(',');

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  const pages = useDemoPages(engineName, {
    afterOpen: async (page) => {
      await page.evaluate(click('tab-volume'));
    },
  });
  const { problems } = pages;
  let tab;
  beforeEach(() => {
    tab = pages.tab();
  });

  it('a dropped LPS volume: reoriented, segmented in a memory budget, drawn in three planes as the API labels it; the labels download on its grid', async () => {
    const crop = await lpsCrop(sample, [56, 84, 66], [40, 44, 30]);
    const want = await expectedFor(crop);
    expect(new Set(want.labels)).toEqual(new Set([0, 1, 2])); // the crop holds every class
    await tab.evaluate(`document.getElementById('v-budget').value = '134217728'`);
    await tab.evaluate(dropFile('crop-lps.nii.gz', crop));
    await tab.waitFor(
      `${status} === 'Segmented crop-lps.nii.gz.' || !document.getElementById('v-error').hidden`,
      180_000,
    );
    expect(await tab.evaluate(`document.getElementById('v-error').textContent`)).toBe('');
    const shown = await tab.evaluate(SHOWN);
    expect(shown.dims).toEqual([40, 44, 30]);
    expect(shown.run).toMatch(
      /^crop-lps\.nii\.gz: \[40 x 44 x 30\] voxels segmented in [\d.]+ s in the worker \(memory budget 128 MiB\); peak wasm heap [\d.]+ MB, this run at most [\d.]+ MB of it\.$/,
    );
    // The run's bound on its own heap: within the budget (the worker's WorkerModel.heap()).
    const { before, after, progress } = await tab.evaluate('window.qwasmDemo.volume.state.run');
    expect(after.highWater - before.inUse).toBeLessThanOrEqual(128 * 2 ** 20);
    expect(after.inUse).toBe(before.inUse);
    // The progress bar: determinate during the forward (the worker's onProgress, each streamed call),
    // and full at its end.
    expect(progress.calls).toBeGreaterThan(2);
    expect(progress.total).toBeGreaterThan(0);
    expect(progress.done).toBe(progress.total);
    expect(
      await tab.evaluate(
        `(() => { const b = document.getElementById('v-progress'); return [b.hasAttribute('value'), b.value, b.max]; })()`,
      ),
    ).toEqual([true, 1, 1]);
    expectPlanes(shown, want);
    expectVolumes(shown.rows, want.labels);
    // The download: the labels on the dropped file's own (LPS) grid, its affine kept.
    const file = await qwasm.io.readNifti(Buffer.from(shown.labelsFile, 'base64'));
    expect(file.dims).toEqual([40, 44, 30]);
    expect(file.datatype).toBe('uint8');
    expect(file.affine).toEqual(want.inputLabels.affine);
    expect(Buffer.from(file.data).equals(Buffer.from(want.inputLabels.data))).toBe(true);
    // A slider moves its plane; the crosshair follows in the other two.
    await tab.evaluate(
      `(() => { const s = document.getElementById('v-axial-slice'); s.value = '5'; s.dispatchEvent(new Event('input')); })()`,
    );
    const moved = await tab.evaluate(SHOWN);
    expect(moved.planes.axial.index).toBe(5);
    expectPlanes(moved, want);
    // A click on the axial plane at pixel (10, 7) puts the crosshair on that voxel: i = 10, j = 43 - 7
    // (rows grow upwards), k = the axial slice; the sagittal and coronal sliders follow.
    await tab.evaluate(`(() => {
      const c = document.getElementById('v-axial');
      const b = c.getBoundingClientRect();
      const at = (px, size, pixels) => (px + 0.5) * (size / pixels);
      c.dispatchEvent(new MouseEvent('click', { bubbles: true, clientX: b.left + at(10, b.width, c.width), clientY: b.top + at(7, b.height, c.height) }));
    })()`);
    const clicked = await tab.evaluate(SHOWN);
    expect([clicked.planes.sagittal.index, clicked.planes.coronal.index, clicked.planes.axial.index]).toEqual([
      10, 36, 5,
    ]);
    expectPlanes(clicked, want);
    await tab.screenshot(fileURLToPath(new URL(`volume-${engineName}.png`, OUTPUT_DIR)));
    expect(await problems()).toEqual({ inPage: [], missing: [] });
  }, 300_000);

  it('a file that is not NIfTI says so, and the view keeps working', async () => {
    await tab.evaluate(dropFile('notes.nii', new TextEncoder().encode('not a volume at all')));
    await tab.waitFor(`!document.getElementById('v-error').hidden`, 120_000);
    expect(await tab.evaluate(`document.getElementById('v-error').textContent`)).toMatch(/^io\.readNifti\(input\): /);
    expect(await tab.evaluate(`document.getElementById('v-results').hidden`)).toBe(true);
    expect(await tab.evaluate(`document.getElementById('v-sample').disabled`)).toBe(false);
    const { inPage, missing } = await problems();
    expect(missing).toEqual([]);
    expect(inPage).toEqual([]);
  }, 300_000);

  // The whole sample is 8.7 M voxels (about 20 s in Chromium on 2 cores): in npm test Chromium runs it and
  // the other engines the crop; QWASM_VOLUME_SAMPLE_ENGINES=chromium,firefox,webkit runs it in those named.
  (SAMPLE_ENGINES.includes(engineName) ? it : test.skip)(
    "the sample (the MNI152 T1, 197 x 233 x 189): each class volume as the README's Node example prints it",
    async () => {
      await tab.evaluate(click('v-sample'));
      await tab.waitFor(
        `${status} === 'Segmented mni152-t1.nii.gz.' || !document.getElementById('v-error').hidden`,
        280_000,
      );
      expect(await tab.evaluate(`document.getElementById('v-error').textContent`)).toBe('');
      const shown = await tab.evaluate(SHOWN);
      expect(shown.dims).toEqual([197, 233, 189]);
      // The default budget, 256 MiB, held by the whole brain's run (8.7 M voxels, 21 channels: 183 MB per activation).
      const { before, after, maxMemoryBytes } = await tab.evaluate('window.qwasmDemo.volume.state.run');
      expect(maxMemoryBytes).toBe(256 * 2 ** 20);
      expect(after.highWater - before.inUse).toBeLessThanOrEqual(maxMemoryBytes);
      // Node's answer for the whole brain is the README's volume example, which readme.test.mjs runs
      // and checks (a second whole-brain forward here would cost more than the page's own).
      expect(shown.rows.map(([name, , ml]) => [name, ml])).toEqual(README_VOLUMES);
      const voxels = shown.rows.reduce((sum, [, count]) => sum + Number(count), 0);
      expect(voxels).toBe(197 * 233 * 189);
      for (const [, count, ml] of shown.rows) expect((Number(count) / 1000).toFixed(1)).toBe(ml);
      expect(await problems()).toEqual({ inPage: [], missing: [] });
    },
    300_000,
  );
});
