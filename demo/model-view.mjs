// The model view: an exported model (the built-in r3d_18 at an eighth of its
// widths, or a dropped .qwasm.safetensors) loaded and run in the library's
// model worker (io.loadModel(source, { worker: true })), so that the page
// stays responsive with a full-size model; a table of its layers, the
// per-channel weight scales of the one picked, and a forward on a synthetic
// clip timed node by node (profile), with the arithmetic each quantized
// convolution ran (exact integer Winograd or direct: the same bytes); the
// input is synthetic or sampled from a video file or the camera
// (clip-input.mjs), and a run shows its top-5 classes, int8 beside float, or
// for a segmentation (a 5-D output) a depth slice of its voxel classes
// (segmentation-slice.mjs); for a video's clip, the int8 classes are
// classifyVideo's (the one call an app makes). The zoo's 3D CNNs (zoo.mjs) open from a list.
import { Chart } from 'chart.js';
import * as qwasm from 'qwasm';
import { clipInput, setupClipInput, showTop5 } from './clip-input.mjs';
import { onFileChosen } from './file-input.mjs';
import { gridHistogram, gridHistogramChart } from './grid-histogram.mjs';
import { lazyTensors } from './lazy-tensors.mjs';
import { drawGraph, foldedGraph } from './model-graph.mjs';
import { classCounts, drawInput, drawLabels, isSegmentation, labelVolume } from './segmentation-slice.mjs';
import { worstQuarterThreshold } from './stats.mjs';
import { ZOO, zooUrl } from './zoo.mjs';

const $ = (id) => document.getElementById(id);
const BLUE = '#2f6fdb';
const BUILTIN = new URL('../tests/golden/exported/r3d_18.qwasm.safetensors', import.meta.url);
// Its float twin (the same PyTorch model before quantization), for the numeric suite.
const BUILTIN_FLOAT = new URL('../tests/golden/exported/r3d_18_float.qwasm.safetensors', import.meta.url);
const BUILTIN_NAME = 'r3d_18 (1/8 width)';
const RED = '#c62828';

const state = {
  model: null,
  name: '',
  layers: [],
  modules: new Map(),
  last: null,
  loading: 0,
  errors: null, // the numeric suite's statistics per key, once compared
  floatFile: null, // the float twin's tensors, read one at a time (lazy-tensors.mjs), for the weights against their grid
  graph: null, // what the graph drew: {width, height, nodes, edges}
  picked: null, // the node whose details show
  floatLoaded: false, // the float twin is in the model's worker (compare)
  top5: null, // the last run's top-5 classes: {int8, float}
  segmentation: null, // the last run's, for a 5-D output: {input (channel 0, [D, H, W]), labels, shape, counts}
  thresholdSet: false, // the user chose the SQNR threshold (until then a comparison sets it)
};
let charts = null;

function barChart(id, xTitle, yTitle) {
  return new Chart($(id), {
    type: 'bar',
    data: { labels: [], datasets: [{ label: yTitle, data: [], backgroundColor: BLUE }] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: { x: { title: { display: true, text: xTitle } }, y: { title: { display: true, text: yTitle } } },
    },
  });
}

function showError(message) {
  $('m-error').textContent = message;
  $('m-error').hidden = message === '';
}

function describeWeight(m) {
  const w = m.weight;
  const scheme = w.qscheme === 'per_tensor_affine' ? 'per tensor' : `per channel (axis ${w.axis})`;
  return `[${w.shape.join(', ')}] ${w.dtype}, ${scheme}, ${m.backend}`; // backend: whose requantization (the model's engine)
}

// A node's arguments as torch.fx prints them: node references by name, constants as written.
function formatArgs(node) {
  const one = (a) =>
    Array.isArray(a) ? `[${a.map(one).join(', ')}]` : a !== null && typeof a === 'object' ? a.node : String(a);
  const kwargs = Object.entries(node.kwargs).map(([k, v]) => `${k}=${one(v)}`);
  return [...node.args.map(one), ...kwargs].join(', ');
}

// The output as known before a run, completed by the last run (profile) where
// it depends on the data (e.g. add_scalar's qparams).
function outputOf(node) {
  const ran = state.last?.layers.find((l) => l.name === node.name)?.output ?? null;
  const o = node.output ?? ran;
  if (o === null) return { shape: '', scale: '', zeroPoint: '' };
  const scale = o.scale ?? ran?.scale ?? null;
  const zeroPoint = o.zeroPoint ?? ran?.zeroPoint ?? null;
  return {
    shape: o.shape === null ? o.dtype : `[${o.shape.join(', ')}] ${o.dtype}`,
    scale: scale === null ? '' : scale.toPrecision(6),
    zeroPoint: zeroPoint === null ? '' : String(zeroPoint),
  };
}

// The numeric suite's key for a node: its module's '<path>.stats' (a
// FloatFunctional's ops log at its activation_post_process).
function statsKey(node) {
  if (node.op !== 'call_module') return null;
  const path = node.target.replace(/\.activation_post_process$/, '');
  return `${path}.stats`;
}

function sqnrOfNode(node) {
  const e = state.errors?.[statsKey(node)];
  return e === undefined ? '' : e.sqnr.toFixed(2);
}

// The lines a graph box shows for a node.
function boxLines(node) {
  const mod = node.op === 'call_module' ? state.modules.get(node.target) : null;
  const kind = node.op === 'placeholder' ? 'input' : node.op === 'output' ? 'output' : mod ? mod.type : node.target;
  const out = outputOf(node);
  const lines = [`${node.name}: ${kind}`];
  if (out.shape) lines.push(out.shape);
  if (out.scale) lines.push(`scale ${out.scale}, zero point ${out.zeroPoint}`);
  const ran = state.last?.layers.find((l) => l.name === node.name);
  if (ran) lines.push(`${ran.path ? `${ran.path}, ` : ''}${ran.ms.toFixed(2)} ms`);
  const e = state.errors?.[statsKey(node)];
  if (e) lines.push(`SQNR ${e.sqnr.toFixed(2)} dB`);
  return lines;
}

function belowThreshold(node) {
  const e = state.errors?.[statsKey(node)];
  return e !== undefined && e.sqnr < Number($('m-threshold').value);
}

function renderGraph() {
  const model = state.model;
  if (model === null) return;
  const byName = new Map(model.nodes.map((n) => [n.name, n]));
  const graph = foldedGraph(model.nodes, (path) => state.modules.get(path)?.type, boxLines);
  state.graph = drawGraph($('m-graph'), graph, {
    onPick: pickNode,
    highlight: (name) => belowThreshold(byName.get(name)),
  });
  if (state.picked) pickNode(byName.get(state.picked) ?? null);
}

/** A node's details under the graph; a quantized layer also becomes the charted one. */
function pickNode(node) {
  state.picked = node?.name ?? null;
  for (const box of $('m-graph').querySelectorAll('.node')) {
    box.classList.toggle('picked', box.dataset.node === state.picked);
  }
  if (node === null) return;
  const mod = node.op === 'call_module' ? state.modules.get(node.target) : null;
  const out = outputOf(node);
  const lines = [
    `${node.name} (${node.op}${node.target ? ` ${node.target}` : ''})`,
    `arguments: ${formatArgs(node)}`,
    `output: ${out.shape || 'known after a run'}${out.scale ? `, scale ${out.scale}, zero point ${out.zeroPoint}` : ''}`,
  ];
  if (mod?.weight) lines.push(`weight: ${describeWeight(mod)}`);
  const e = state.errors?.[statsKey(node)];
  if (e) {
    lines.push(
      `numeric suite (${statsKey(node)} against ${e.floatKey}): SQNR ${e.sqnr.toFixed(2)} dB, largest error ${e.maxAbsError.toPrecision(4)}` +
        (e.offByMoreThanOneStep === null
          ? ''
          : `, ${(100 * e.offByMoreThanOneStep).toFixed(2)}% of elements off by more than one step`),
    );
  }
  $('m-node-details').textContent = lines.join('\n');
  $('m-node-details').hidden = false;
  if (mod?.weight && state.layers.includes(node.target)) {
    $('m-layer').value = node.target;
    renderScales();
    showWeightHistogram();
  }
}

// The selected layer's float weights (from the float twin) of one output
// channel, against the int8 grid of that channel's scale and zero point.
async function renderWeightHistogram() {
  const path = $('m-layer').value;
  const w = state.modules.get(path)?.weight;
  const name = `${path}.weight`;
  const file = state.floatFile;
  const inFile = w !== undefined && file?.has(name) === true;
  $('m-hist-figure').hidden = !inFile;
  if (!inFile) return;
  const floats = await file.get(name);
  if (file !== state.floatFile || path !== $('m-layer').value) return; // another model or layer meanwhile
  const channels = floats.shape[0];
  const c = Math.max(0, Math.min(channels - 1, Number($('m-hist-channel').value) || 0));
  $('m-hist-channel').max = String(channels - 1);
  const size = floats.data.length / channels;
  const values = floats.data.subarray(c * size, (c + 1) * size);
  const perTensor = w.scales.length === 1;
  const scale = perTensor ? w.scales[0] : w.scales[c];
  const zeroPoint = perTensor ? w.zeroPoints[0] : w.zeroPoints[c];
  const [quantMin, quantMax] = w.dtype === 'quint8' ? [0, 255] : [-128, 127];
  const points = gridHistogram(charts.hist, values, { scale, zeroPoint, quantMin, quantMax });
  $('m-hist-caption').textContent =
    `${path}: the float model's weights of output channel ${c} (${values.length} values) against the int8 grid ` +
    `(scale ${scale.toPrecision(4)}, zero point ${zeroPoint}; ${points} grid points in their range).`;
}

function showWeightHistogram() {
  renderWeightHistogram().catch((e) => showError(e.message));
}

function renderErrors() {
  const errors = state.errors;
  if (errors === null) return;
  const threshold = Number($('m-threshold').value);
  const keys = Object.keys(errors); // in graph order (the order the layers ran)
  charts.sqnr.data.labels = keys.map((k) => k.replace(/\.stats$/, ''));
  charts.sqnr.data.datasets[0].data = keys.map((k) => errors[k].sqnr);
  charts.sqnr.data.datasets[0].backgroundColor = keys.map((k) => (errors[k].sqnr < threshold ? RED : BLUE));
  charts.sqnr.update();
  const below = keys.filter((k) => errors[k].sqnr < threshold);
  $('m-errors-caption').textContent =
    `SQNR of each logged layer's int8 output against the float model's, in dB (higher is better; ` +
    `PyTorch's compute_sqnr), in graph order: ${below.length} of ${keys.length} below ${threshold} dB` +
    (below.length ? ` (${below.map((k) => k.replace(/\.stats$/, '')).join(', ')}).` : '.');
}

/** Loads the float twin beside the model in its worker and runs the numeric suite on the input clip. */
async function compare(source, name) {
  showError('');
  const model = state.model;
  if (model === null) return;
  $('m-compare').disabled = true;
  $('m-status').textContent = `Loading the float model ${name} in the worker…`;
  try {
    // The float file's layers are also read here, one at a time, for the weights against their grid.
    const blob = typeof source === 'string' ? fetch(source).then((r) => r.blob()) : Promise.resolve(source);
    const [, tensors] = await Promise.all([model.loadFloatModel(source), blob.then(lazyTensors)]);
    state.floatFile = tensors;
    state.floatLoaded = true;
    const { x, caption } = await clipInput(model);
    $('m-status').textContent = `Comparing ${state.name} with ${name} on ${caption}…`;
    const errors = await model.compareModelOutputs(x);
    if (model !== state.model) return;
    state.errors = errors;
    // Until the user sets one, the threshold marks the worst quarter of the layers (stats.mjs): SQNRs
    // vary too much between models (10-25 dB for the built-in random weights, 20-40 dB for trained ones).
    if (!state.thresholdSet)
      $('m-threshold').value = String(worstQuarterThreshold(Object.values(errors).map((e) => e.sqnr)));
    $('m-errors').hidden = false;
    renderErrors();
    renderTable();
    renderGraph();
    showWeightHistogram();
    $('m-status').textContent = `Compared ${state.name} with ${name}.`;
  } catch (e) {
    if (model !== state.model) return; // a newer model replaced (and disposed) this one
    showError(e.message);
    $('m-status').textContent = '';
  } finally {
    $('m-compare').disabled = state.name !== BUILTIN_NAME;
  }
}

function renderTable() {
  const model = state.model;
  const times = new Map((state.last?.layers ?? []).map((l) => [l.name, l.ms]));
  const paths = new Map((state.last?.layers ?? []).map((l) => [l.name, l.path]));
  const body = $('m-layers').tBodies[0];
  body.replaceChildren();
  for (const node of model.nodes.slice(1, -1)) {
    const mod = node.op === 'call_module' ? state.modules.get(node.target) : null;
    const quantized = mod?.weight !== undefined;
    const out = outputOf(node);
    // What a run and a comparison fill in comes right after the name, in view; the wide columns after.
    const cells = [
      node.name,
      times.has(node.name) ? times.get(node.name).toFixed(2) : '',
      paths.get(node.name) ?? '',
      sqnrOfNode(node),
      node.target,
      mod ? mod.type : node.op.replace('call_', ''),
      formatArgs(node),
      out.shape,
      quantized ? describeWeight(mod) : '',
      out.scale,
      out.zeroPoint,
    ];
    const tr = body.insertRow();
    tr.dataset.node = node.name;
    for (const c of cells) tr.insertCell().textContent = c;
  }
}

function renderScales() {
  const path = $('m-layer').value;
  if (!state.model || path === '') return;
  const w = state.modules.get(path).weight; // read in the worker at load: w.qPerChannelScales() there
  const perChannel = w.qscheme !== 'per_tensor_affine';
  const scales = w.scales;
  charts.scales.data.labels = scales.map((_, i) => String(i));
  charts.scales.data.datasets[0].data = scales;
  charts.scales.update();
  $('m-scales-caption').textContent = perChannel
    ? `${path}: ${scales.length} per-channel weight scales along qPerChannelAxis() = ${w.axis}.`
    : `${path}: one per-tensor weight scale.`;
}

function setModel(model, name) {
  state.model?.dispose();
  state.model = model;
  state.name = name;
  state.last = null;
  state.modules = new Map(model.modules.map((m) => [m.path, m]));
  state.errors = null;
  state.floatFile = null;
  state.floatLoaded = false;
  state.top5 = null;
  state.segmentation = null;
  $('m-top5').hidden = true;
  $('m-seg').hidden = true;
  $('m-random-note').hidden = name !== BUILTIN_NAME;
  $('m-errors').hidden = true;
  $('m-hist-figure').hidden = true;
  // The built-in float twin is r3d_18's: another model compares with its own (m-float-file).
  $('m-compare').disabled = name !== BUILTIN_NAME;
  // The layers with a quantized weight (conv / linear).
  state.layers = model.modules.filter((m) => m.weight !== undefined).map((m) => m.path);
  $('m-layer').replaceChildren(...state.layers.map((p) => new Option(p, p)));
  const bytes = model.weightBytes();
  $('m-title').textContent =
    `${name}: ${model.nodes.length} graph nodes, ${state.layers.length} quantized layers, ` +
    `${(bytes.packed / 1e6).toFixed(2)} MB of packed weights (${(bytes.winograd / 1e6).toFixed(2)} MB Winograd-transformed)`;
  $('m-results').hidden = false;
  $('m-run').disabled = false;
  $('m-output').textContent = '';
  charts.times.data.labels = [];
  charts.times.data.datasets[0].data = [];
  charts.times.update();
  state.picked = null;
  $('m-node-details').hidden = true;
  renderTable();
  renderGraph();
  renderScales();
  $('m-status').textContent = `Loaded ${name}.`;
}

const MB = (n) => (n / 1e6).toFixed(1);

/** Loads `source` (a URL or a File) in a model worker, showing the download's progress, then the build. */
async function load(source, name) {
  showError('');
  const ticket = ++state.loading; // a newer load wins over one still running
  $('m-run').disabled = true;
  const bar = $('m-progress');
  bar.hidden = false;
  bar.removeAttribute('value');
  const onProgress = (loaded, total) => {
    if (ticket !== state.loading) return;
    if (total) bar.value = loaded / total;
    $('m-status').textContent =
      loaded === total
        ? `Building ${name} in the worker…`
        : `Downloading ${name}: ${MB(loaded)}${total ? ` of ${MB(total)}` : ''} MB…`;
  };
  try {
    const model = await qwasm.io.loadModel(source, { worker: true, onProgress });
    if (ticket !== state.loading) model.dispose();
    else setModel(model, name);
  } catch (e) {
    if (ticket === state.loading) {
      showError(e.message);
      $('m-status').textContent = '';
    }
  } finally {
    if (ticket === state.loading) bar.hidden = true;
  }
}

/** Runs the model on the input clip (timed node by node), and the float twin beside it once compared: top-5 of each. */
async function run() {
  showError('');
  const model = state.model;
  $('m-run').disabled = true;
  try {
    const { x, caption, frames, transform } = await clipInput(model);
    // Channel 0 of the input, kept for a segmentation's slices (the worker takes x's buffer).
    const input =
      x.shape.length === 5
        ? x.data.slice(
            0,
            x.shape.slice(2).reduce((a, b) => a * b, 1),
          )
        : null;
    $('m-status').textContent = `Running ${state.name} in the worker on ${caption}…`;
    // x goes to the worker twice when the float twin runs too: copied the first time.
    const floatRun = state.floatLoaded ? model.forwardFloat(x, { transfer: false }) : Promise.resolve(null);
    const [{ output, layers, peakHeapBytes }, floatOut] = await Promise.all([model.profile(x), floatRun]);
    if (model !== state.model) return; // another model was loaded meanwhile
    state.last = { layers, output };
    charts.times.data.labels = layers.map((l) => l.name);
    charts.times.data.datasets[0].data = layers.map((l) => l.ms);
    charts.times.update();
    renderTable();
    renderGraph();
    const logits =
      'scale' in output ? Array.from(output.data, (v) => (v - output.zeroPoint) * output.scale) : output.data;
    const total = layers.reduce((a, l) => a + l.ms, 0);
    const ran = `Input [${x.shape.join(', ')}]: ${total.toFixed(1)} ms in ${layers.length} nodes, heap high-water ${(peakHeapBytes / 1e6).toFixed(1)} MB`;
    if (isSegmentation(output.shape) && input !== null) {
      showSegmentation(input, logits, output.shape);
      $('m-output').textContent =
        `${ran}; output [${output.shape.join(', ')}], voxels per class ${state.segmentation.counts.join(', ')}.`;
    } else {
      // A video's clip: its int8 classes as an app gets them, in one call (the frames preprocessed and run in
      // the worker, a second forward after the profiled one).
      const classified =
        frames === null
          ? null
          : await qwasm.classifyVideo(model, frames, transform === null ? { topk: 5 } : { topk: 5, transform });
      if (model !== state.model) return;
      state.top5 = showTop5(logits, floatOut?.data ?? null, model.classes, classified);
      $('m-output').textContent = `${ran}; output [${logits.length} values], top-1 index ${state.top5.int8[0].index}.`;
    }
    $('m-clip-caption').textContent = `Input: ${caption}.`;
    $('m-status').textContent = `Ran ${state.name}.`;
  } catch (e) {
    if (model === state.model) showError(e.message); // else a newer model replaced (and disposed) this one
  } finally {
    $('m-run').disabled = state.model === null;
  }
}

// Pixels per voxel of a slice: small volumes drawn at least 192 pixels wide.
const zoomFor = (w) => Math.max(1, Math.ceil(192 / w));

function drawSegmentationSlice() {
  const seg = state.segmentation;
  const z = Number($('m-seg-depth').value);
  const zoom = zoomFor(seg.shape[4]);
  drawInput($('m-seg-input'), seg.input, seg.shape, z, zoom);
  drawLabels($('m-seg-labels'), seg.labels, seg.shape, z, zoom);
  $('m-seg-caption').textContent =
    `Depth slice ${z} of ${seg.shape[2]}: the input (channel 0), and each voxel's class (argmax over ${seg.shape[1]} classes).`;
}

/** Shows a segmentation output: its labels, the middle depth slice first. */
function showSegmentation(input, scores, shape) {
  const labels = labelVolume(scores, shape);
  const [, classes, d, h, w] = shape;
  state.segmentation = { input, labels, shape, counts: classCounts(labels, classes) };
  $('m-top5').hidden = true;
  $('m-seg-depth').max = String(d - 1);
  $('m-seg-depth').value = String(Math.floor(d / 2));
  $('m-seg-counts').textContent =
    `${d} x ${h} x ${w} voxels: ${state.segmentation.counts.map((n, c) => `class ${c} on ${n}`).join(', ')}.`;
  $('m-seg').hidden = false;
  drawSegmentationSlice();
}

export function setupModelView() {
  charts = {
    scales: barChart('chart-m-scales', 'output channel', 'weight scale'),
    times: barChart('chart-m-times', 'graph node', 'ms'),
    sqnr: barChart('chart-m-sqnr', 'layer (graph order)', 'SQNR (dB)'),
    hist: gridHistogramChart($('chart-m-hist')),
  };
  $('m-hist-channel').addEventListener('input', showWeightHistogram);
  $('m-compare').addEventListener('click', () => compare(BUILTIN_FLOAT.href, 'r3d_18 float (1/8 width)'));
  $('m-float-file').addEventListener('change', (e) => {
    const file = e.target.files?.[0];
    if (file) compare(file, file.name);
  });
  $('m-threshold').addEventListener('input', () => {
    state.thresholdSet = true;
    renderErrors();
    renderGraph();
  });
  $('m-builtin').addEventListener('click', () => load(BUILTIN.href, BUILTIN_NAME));
  $('m-zoo').append(...ZOO.map((entry, i) => new Option(entry.name, String(i))));
  $('m-zoo').addEventListener('change', () => {
    const entry = ZOO[Number($('m-zoo').value)];
    if ($('m-zoo').value !== '' && entry) load(zooUrl(entry), entry.name);
  });
  $('m-seg-depth').addEventListener('input', () => {
    if (state.segmentation) drawSegmentationSlice();
  });
  $('m-layer').addEventListener('change', () => {
    renderScales();
    showWeightHistogram();
  });
  $('m-run').addEventListener('click', run);
  const clipControls = setupClipInput({
    currentModel: () => state.model,
    onClip: run,
    onError: showError,
    onStatus: (text) => {
      $('m-status').textContent = text;
    },
  });
  onFileChosen($('m-file'), $('m-dropzone'), (file) => load(file, file.name));
  return { state, charts, clip: clipControls.clip };
}
