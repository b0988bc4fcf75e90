// The per-channel scale explorer: quantize a tensor along any axis with the
// qparams PyTorch's observers pick, chart the scales and zero points, compare
// the error with per-tensor quantization, and show the code that reproduces it.
import { Chart, registerables } from 'chart.js';
import * as qwasm from 'qwasm';
import { onFileChosen } from './file-input.mjs';
import { gridHistogram, gridHistogramChart } from './grid-histogram.mjs';
import { PRESETS } from './presets.mjs';
import { jsSnippet, pytorchSnippet, schemes } from './snippets.mjs';
import { channelErrors, channelValues } from './stats.mjs';

Chart.register(...registerables);

const $ = (id) => document.getElementById(id);
const BLUE = '#2f6fdb';
const ORANGE = '#e07b00';

const state = { tensor: null, source: '', safetensors: null, last: null };

function barChart(id, yTitle, datasets, yType = 'linear') {
  return new Chart($(id), {
    type: 'bar',
    data: { labels: [], datasets: datasets.map(([label, color]) => ({ label, data: [], backgroundColor: color })) },
    options: {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: datasets.length > 1 }, tooltip: { mode: 'index', intersect: false } },
      scales: {
        x: { title: { display: true, text: 'channel (index along the axis)' } },
        y: { type: yType, title: { display: true, text: yTitle } },
      },
    },
  });
}

let charts;

function makeCharts() {
  charts = {
    scales: barChart('chart-scales', 'scale (float units per integer step)', [['scale', BLUE]]),
    zps: barChart('chart-zps', 'zero point (integer)', [['zero point', BLUE]]),
    sqnr: barChart('chart-sqnr', 'SQNR (dB)', [
      ['per-channel', BLUE],
      ['per-tensor', ORANGE],
    ]),
    maxerr: barChart('chart-maxerr', 'max |x - dequantize(q)| (float units)', [
      ['per-channel', BLUE],
      ['per-tensor', ORANGE],
    ]),
    hist: gridHistogramChart($('chart-hist')),
  };
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = !message;
}

function fillAxes() {
  const shape = state.tensor.shape;
  const previous = Number($('axis').value || 0);
  $('axis').replaceChildren(...shape.map((d, i) => new Option(`${i} (size ${d})`, String(i))));
  $('axis').value = String(Math.min(previous, shape.length - 1));
}

function setTensor(t, source) {
  if (t.shape.length === 0 || t.data.length === 0)
    throw new Error(`${source}: the tensor is empty or a scalar; pick one with at least one dimension`);
  state.tensor = t;
  state.source = source;
  fillAxes();
}

const fmt = (v) => (v === Infinity ? '∞' : Number.isFinite(v) ? v.toPrecision(5) : String(v));

function render() {
  const t = state.tensor;
  const axis = Number($('axis').value);
  const dtype = $('dtype').value;
  const kind = $('qscheme').value;
  const reduceRange = $('reduceRange').checked;
  const { perChannel, perTensor } = schemes(kind);

  const pco = new qwasm.quantization.PerChannelMinMaxObserver({
    chAxis: axis,
    dtype,
    qscheme: perChannel,
    reduceRange,
  });
  pco.observe(t);
  const pcq = pco.calculateQParams();
  const pto = new qwasm.quantization.MinMaxObserver({ dtype, qscheme: perTensor, reduceRange });
  pto.observe(t);
  const ptq = pto.calculateQParams();

  const qc = qwasm.quantizePerChannel(t, pcq.scale, pcq.zeroPoint, axis, dtype);
  const qt = qwasm.quantizePerTensor(t, ptq.scale, ptq.zeroPoint, dtype);
  let scales;
  let zps;
  let shownAxis;
  let pcErr;
  let ptErr;
  try {
    scales = Array.from(qc.qPerChannelScales());
    zps = Array.from(qc.qPerChannelZeroPoints());
    shownAxis = qc.qPerChannelAxis();
    pcErr = channelErrors(t.data, qc.dequantize().data, t.shape, axis);
    ptErr = channelErrors(t.data, qt.dequantize().data, t.shape, axis);
  } finally {
    qc.dispose();
    qt.dispose();
  }
  const labels = scales.map((_, c) => String(c));
  const set = (chart, ...series) => {
    chart.data.labels = labels;
    series.forEach((s, i) => {
      chart.data.datasets[i].data = s;
    });
    chart.update();
  };
  set(charts.scales, scales);
  set(charts.zps, zps);
  // A symmetric scheme fixes every zero point: all bars would have one height
  // (none at all for qint8's 0). Say so instead of charting it.
  const fixed = zps.every((z) => z === zps[0]);
  $('zps-box').hidden = fixed;
  $('zps-note').hidden = !fixed;
  $('zps-note').textContent = fixed
    ? `Every zero point is ${zps[0]}: the ${kind} scheme ${
        kind === 'symmetric'
          ? `fixes it (${zps[0] === 0 ? `${dtype} maps 0.0 to the integer 0` : `${dtype} maps 0.0 to the middle of 0..255`}), so only the scales vary.`
          : 'gives each channel the same one here.'
      }`
    : '';
  set(
    charts.sqnr,
    pcErr.sqnr.map((v) => (Number.isFinite(v) ? v : null)),
    ptErr.sqnr.map((v) => (Number.isFinite(v) ? v : null)),
  );
  set(charts.maxerr, pcErr.maxAbs, ptErr.maxAbs);

  $('axis-shown').textContent = String(shownAxis);
  const mean = (a) =>
    a.filter(Number.isFinite).reduce((x, y) => x + y, 0) / Math.max(1, a.filter(Number.isFinite).length);
  $('summary').textContent =
    `${state.source}: shape [${t.shape.join(', ')}], ${scales.length} channels along axis ${shownAxis}, ` +
    `${perChannel} ${dtype} (range ${pco.quantMin}..${pco.quantMax}). Mean SQNR ${mean(pcErr.sqnr).toFixed(1)} dB per-channel vs ` +
    `${mean(ptErr.sqnr).toFixed(1)} dB per-tensor (scale ${ptq.scale.toPrecision(4)}).`;

  $('values').tBodies[0].replaceChildren(
    ...scales.map((s, c) => {
      const row = document.createElement('tr');
      const cells = [c, s, zps[c], pcErr.sqnr[c], ptErr.sqnr[c], pcErr.maxAbs[c], ptErr.maxAbs[c]];
      cells.forEach((v, i) => {
        const cell = row.insertCell();
        cell.textContent = i === 0 ? String(v) : fmt(v);
        cell.dataset.value = String(v);
      });
      return row;
    }),
  );

  const params = { source: state.source, shape: t.shape, axis, dtype, kind, reduceRange };
  $('snippet-js').textContent = jsSnippet(params);
  $('snippet-py').textContent = pytorchSnippet(params);

  $('channel').max = String(scales.length - 1);
  if (Number($('channel').value) > scales.length - 1) $('channel').value = '0';
  state.last = {
    axis: shownAxis,
    scales,
    zeroPoints: zps,
    sqnrPerChannel: pcErr.sqnr,
    sqnrPerTensor: ptErr.sqnr,
    quantMin: pco.quantMin,
    quantMax: pco.quantMax,
  };
  renderHistogram();
}

function renderHistogram() {
  const { tensor: t, last } = state;
  if (!last) return;
  const c = Math.max(0, Math.min(Number($('channel').value) || 0, last.scales.length - 1));
  const values = channelValues(t.data, t.shape, last.axis, c);
  const gridPoints = gridHistogram(charts.hist, values, {
    scale: last.scales[c],
    zeroPoint: last.zeroPoints[c],
    quantMin: last.quantMin,
    quantMax: last.quantMax,
  });
  $('hist-help').textContent =
    `(${values.length} values; ${gridPoints} grid points inside their range, scale ${last.scales[c].toPrecision(4)}, zero point ${last.zeroPoints[c]})`;
}

function update() {
  try {
    showError('');
    render();
  } catch (e) {
    showError(e.message);
  }
}

async function loadFile(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const name = file.name;
  if (name.endsWith('.npy')) {
    const t = qwasm.io.loadNpy(bytes);
    state.safetensors = null;
    $('tensor-pick-label').hidden = true;
    setTensor({ data: t.data, shape: t.shape }, `${name} (${t.dtype})`);
  } else if (name.endsWith('.safetensors')) {
    const st = qwasm.io.loadSafetensors(bytes);
    const floats = st.tensors.filter((t) => ['F32', 'F64', 'F16', 'BF16'].includes(t.dtype) && t.shape.length > 0);
    if (floats.length === 0) throw new Error(`${name}: no float tensor with at least one dimension in this file`);
    state.safetensors = { st, name };
    $('tensor-pick').replaceChildren(
      ...floats.map((t) => new Option(`${t.name} ${t.dtype} [${t.shape.join(', ')}]`, t.name)),
    );
    $('tensor-pick-label').hidden = false;
    pickSafetensor();
  } else {
    throw new Error(`${name}: expected a .npy or .safetensors file`);
  }
  const option =
    [...$('preset').options].find((o) => o.value === 'file') ?? $('preset').appendChild(new Option('', 'file'));
  option.textContent = `File: ${name}`;
  $('preset').value = 'file';
}

function pickSafetensor() {
  const { st, name } = state.safetensors;
  const tensorName = $('tensor-pick').value;
  setTensor(st.get(tensorName), `${name}: ${tensorName}`);
}

async function onFile(file) {
  if (!file) return;
  try {
    showError('');
    await loadFile(file);
    render();
  } catch (e) {
    showError(`Could not load ${file.name}: ${e.message}`);
  }
}

export function setupExplorer() {
  for (const [key, p] of Object.entries(PRESETS)) $('preset').add(new Option(p.label, key));
  makeCharts();
  setTensor(PRESETS.conv3dWeight.make(), PRESETS.conv3dWeight.label);
  $('preset').addEventListener('change', () => {
    if ($('preset').value === 'file') return;
    const p = PRESETS[$('preset').value];
    $('tensor-pick-label').hidden = true;
    setTensor(p.make(), p.label);
    update();
  });
  $('tensor-pick').addEventListener('change', () => {
    try {
      pickSafetensor();
      update();
    } catch (e) {
      showError(e.message);
    }
  });
  for (const id of ['axis', 'dtype', 'qscheme', 'reduceRange']) $(id).addEventListener('change', update);
  $('channel').addEventListener('input', renderHistogram);
  onFileChosen($('file'), $('dropzone'), onFile);
  update();
  return { state, charts };
}
