// The Volume view: a brain MRI (the MNI152 sample or a dropped NIfTI file)
// segmented into background, grey and white matter by the trained int8
// MeshNet (scripts/brain/), run in the library's model worker within a memory
// budget (forward(x, { maxMemoryBytes }): depth streaming, the same bytes as a
// whole run). Shows axial, coronal and sagittal planes of the model's input
// grid with the labels over them (volume-planes.mjs), each class's volume, the
// run's time, a layer's per-channel weight scales, and downloads the labels as
// NIfTI in the input's own grid (transforms().labels: io.writeNifti).
import { Chart } from 'chart.js';
import * as qwasm from 'qwasm';
import { onFileChosen } from './file-input.mjs';
import { PALETTE } from './segmentation-slice.mjs';
import { classVolumesMl, intensityWindow, PLANES, renderPlane, voxelAt, voxelClasses } from './volume-planes.mjs';

const $ = (id) => document.getElementById(id);
const MODEL = new URL('./data/meshnet-brain.qwasm.safetensors', import.meta.url);
const SAMPLE = new URL('./data/mni152-t1.nii.gz', import.meta.url);
const SAMPLE_NAME = 'mni152-t1.nii.gz';

const state = {
  model: null, // the worker model, loaded at the first segmentation
  loading: null, // its load, while it runs
  busy: false,
  volume: null, // the input as read (its header and affine, for the labels' file)
  name: '',
  grid: null, // {values (Float32Array, the model's input), dims [X, Y, Z]}: what the planes show
  labels: null, // Uint8Array over grid.dims
  window: null, // intensity window of the planes
  cursor: null, // [i, j, k]
  labelsFile: null, // Uint8Array: the labels as a NIfTI file in the input's grid
  volumesMl: null,
  run: null, // {ms, maxMemoryBytes, before, after, progress}: the worker's heap (WorkerModel.heap()) around the run,
  // and its forward's last onProgress ({calls, done, total}: the bar's determinate part)
};
let chart = null;

function showError(message) {
  $('v-error').textContent = message;
  $('v-error').hidden = message === '';
}

async function loadModel() {
  if (state.model !== null) return state.model;
  state.loading ??= qwasm.io.loadModel(MODEL.href, {
    worker: true,
    // The model is this page's own (trusted): a whole brain at 1 mm (the sample, 8.7 M voxels) is 0.73 T
    // multiply-adds, over the default budget's 0.5 T; 4 T covers a 256³ volume.
    maxWork: 4e12,
    onProgress: (loaded, total) => {
      $('v-status').textContent =
        `Downloading the model: ${(loaded / 1e3).toFixed(0)} kB${total ? ` of ${(total / 1e3).toFixed(0)} kB` : ''}…`;
    },
  });
  try {
    state.model = await state.loading;
    showLayers(state.model);
    return state.model;
  } finally {
    state.loading = null;
  }
}

function showLayers(model) {
  const layers = model.modules.filter((m) => m.weight !== undefined);
  $('v-layer').replaceChildren(...layers.map((m) => new Option(m.path, m.path)));
  renderScales();
}

function renderScales() {
  const path = $('v-layer').value;
  const m = state.model?.modules.find((x) => x.path === path);
  if (!m) return;
  const scales = m.weight.scales;
  chart.data.labels = scales.map((_, i) => String(i));
  chart.data.datasets[0].data = scales;
  chart.update();
}

/** Reads `source` (the sample's URL or a File), segments it in the worker, shows the planes. */
async function segment(source, name) {
  if (state.busy) return;
  state.busy = true;
  showError('');
  const bar = $('v-progress');
  bar.hidden = false;
  bar.removeAttribute('value');
  $('v-sample').disabled = true;
  try {
    const model = await loadModel();
    $('v-status').textContent = `Reading ${name}…`;
    const volume = await qwasm.io.readNifti(source instanceof URL ? source.href : source);
    const transform = model.transforms(); // the steps the model's file records (VolumeSegmentation)
    const x = transform.forward(volume);
    const dims = x.shape.slice(2);
    const values = x.data.slice(); // the worker takes x's buffer
    const maxMemoryBytes = Number($('v-budget').value);
    $('v-status').textContent = `Segmenting ${name} [${dims.join(' x ')}] in the worker…`;
    const before = await model.heap();
    const started = performance.now();
    // Determinate from here: the worker reports the forward's work done (onProgress, {done, total}).
    bar.value = 0;
    const progress = { calls: 0, done: 0, total: 0 };
    const onProgress = ({ done, total }) => {
      progress.calls += 1;
      progress.done = done;
      progress.total = total;
      bar.value = total > 0 ? done / total : 0;
    };
    const logits = await model.forward(x, maxMemoryBytes > 0 ? { maxMemoryBytes, onProgress } : { onProgress });
    const ms = performance.now() - started;
    const after = await model.heap();
    state.volume = volume;
    state.name = name;
    state.grid = { values, dims };
    state.labels = voxelClasses(logits);
    state.window = intensityWindow(values);
    state.cursor = dims.map((d) => Math.floor(d / 2));
    state.labelsFile = await qwasm.io.writeNifti(transform.labels(logits, volume), { gzip: true });
    // One voxel of the model's grid: the spacing its file records (1 mm for the brain MeshNet).
    const voxelMm3 = transform.spacing.reduce((a, b) => a * b, 1);
    state.volumesMl = classVolumesMl(state.labels, model.classes.length, voxelMm3);
    state.run = { ms, maxMemoryBytes, before, after, progress };
    showResults(model);
    $('v-status').textContent = `Segmented ${name}.`;
  } catch (e) {
    showError(e.message);
    $('v-status').textContent = '';
  } finally {
    bar.hidden = true;
    state.busy = false;
    $('v-sample').disabled = false;
  }
}

function showResults(model) {
  const { dims } = state.grid;
  for (const plane of Object.keys(PLANES)) {
    const slider = $(`v-${plane}-slice`);
    slider.max = String(dims[PLANES[plane].fixed] - 1);
    slider.value = String(state.cursor[PLANES[plane].fixed]);
  }
  const body = $('v-volumes').tBodies[0];
  body.replaceChildren();
  model.classes.forEach((name, c) => {
    const tr = body.insertRow();
    tr.dataset.class = String(c);
    for (const v of [name, String(Math.round(state.volumesMl[c] * 1000)), state.volumesMl[c].toFixed(1)]) {
      tr.insertCell().textContent = v;
    }
  });
  $('v-legend').replaceChildren(
    ...model.classes.slice(1).map((name, i) => {
      const span = document.createElement('span');
      const [r, g, b] = PALETTE[(i + 1) % PALETTE.length];
      span.textContent = `■ ${name}  `;
      span.style.color = `rgb(${r}, ${g}, ${b})`;
      return span;
    }),
  );
  const { ms, maxMemoryBytes, before, after } = state.run;
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  // The high-water mark only grows: the run's own peak is at most its growth over the heap in use before it.
  $('v-run').textContent =
    `${state.name}: [${dims.join(' x ')}] voxels segmented in ${(ms / 1000).toFixed(2)} s in the worker ` +
    `(memory budget ${maxMemoryBytes > 0 ? `${(maxMemoryBytes / 2 ** 20).toFixed(0)} MiB` : 'none'}); ` +
    `peak wasm heap ${mb(after.highWater)}, this run at most ${mb(after.highWater - before.inUse)} of it.`;
  $('v-title').textContent = `Labels of ${state.name}`;
  $('v-results').hidden = false;
  $('v-download').disabled = false;
  drawPlanes();
}

/** Redraws the three planes at the sliders' slices. */
function drawPlanes() {
  if (state.grid === null) return;
  const opacity = Number($('v-opacity').value) / 100;
  const cursor = $('v-crosshair').checked ? state.cursor : null;
  for (const plane of Object.keys(PLANES)) {
    const index = Number($(`v-${plane}-slice`).value);
    const { width, height, pixels } = renderPlane({
      values: state.grid.values,
      labels: state.labels,
      dims: state.grid.dims,
      plane,
      index,
      window: state.window,
      opacity,
      cursor,
    });
    const canvas = $(`v-${plane}`);
    canvas.width = width;
    canvas.height = height;
    canvas.getContext('2d').putImageData(new ImageData(pixels, width, height), 0, 0);
  }
}

/** A click on a plane moves the cursor there, and the other planes' slices with it. */
function pick(plane, event) {
  if (state.grid === null) return;
  const canvas = $(`v-${plane}`);
  const box = canvas.getBoundingClientRect();
  // A click on the box's far edge lands one pixel past the last: clamped to it.
  const at = (offset, size, pixels) => Math.min(pixels - 1, Math.max(0, Math.floor((offset / size) * pixels)));
  const x = at(event.clientX - box.left, box.width, canvas.width);
  const y = at(event.clientY - box.top, box.height, canvas.height);
  state.cursor = voxelAt(state.grid.dims, plane, Number($(`v-${plane}-slice`).value), x, y);
  for (const p of Object.keys(PLANES)) $(`v-${p}-slice`).value = String(state.cursor[PLANES[p].fixed]);
  drawPlanes();
}

function download() {
  if (state.labelsFile === null) return;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([state.labelsFile], { type: 'application/gzip' }));
  a.download = `${state.name.replace(/\.nii(\.gz)?$/, '')}_labels.nii.gz`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 0);
}

export function setupVolumeView() {
  chart = new Chart($('chart-v-scales'), {
    type: 'bar',
    data: { labels: [], datasets: [{ label: 'scale', data: [], backgroundColor: '#2f6fdb' }] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: {
        x: { title: { display: true, text: 'output channel' } },
        y: { title: { display: true, text: 'scale' } },
      },
    },
  });
  $('v-sample').addEventListener('click', () => segment(SAMPLE, SAMPLE_NAME));
  onFileChosen($('v-file'), $('v-dropzone'), (file) => segment(file, file.name));
  $('v-opacity').addEventListener('input', drawPlanes);
  $('v-crosshair').addEventListener('change', drawPlanes);
  for (const plane of Object.keys(PLANES)) {
    $(`v-${plane}-slice`).addEventListener('input', () => {
      if (state.cursor !== null) state.cursor[PLANES[plane].fixed] = Number($(`v-${plane}-slice`).value);
      drawPlanes();
    });
    $(`v-${plane}`).addEventListener('click', (e) => pick(plane, e));
  }
  $('v-layer').addEventListener('change', renderScales);
  $('v-download').addEventListener('click', download);
  $('v-explorer-link').addEventListener('click', (e) => {
    e.preventDefault();
    $('tab-explorer').click();
  });
  return { state, segment: (name) => segment(name === undefined ? SAMPLE : name, SAMPLE_NAME) };
}
