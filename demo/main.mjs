// Scale explorer: quantize a tensor per channel along the chosen axis with the
// scales a PyTorch PerChannelMinMaxObserver picks, and show them.
import * as qwasm from 'qwasm';
import { PRESETS } from './presets.mjs';

const $ = (id) => document.getElementById(id);
const state = { tensor: null };

function fillPresets() {
  for (const [key, p] of Object.entries(PRESETS)) $('preset').add(new Option(p.label, key));
}

function fillAxes() {
  const shape = state.tensor.shape;
  const previous = Number($('axis').value || 0);
  $('axis').replaceChildren(...shape.map((d, i) => new Option(`${i} (size ${d})`, String(i))));
  $('axis').value = String(Math.min(previous, shape.length - 1));
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = !message;
}

function render() {
  const axis = Number($('axis').value);
  const observer = new qwasm.quantization.PerChannelMinMaxObserver({
    chAxis: axis,
    dtype: $('dtype').value,
    qscheme: $('qscheme').value,
    reduceRange: $('reduceRange').checked,
  });
  observer.observe(state.tensor);
  const { scale, zeroPoint } = observer.calculateQParams();
  const q = qwasm.quantizePerChannel(state.tensor, scale, zeroPoint, axis, $('dtype').value);
  try {
    const scales = q.qPerChannelScales();
    const zps = q.qPerChannelZeroPoints();
    $('axis-shown').textContent = String(q.qPerChannelAxis());
    $('summary').textContent = `${scales.length} channels, ${q.qscheme()}, ${q.dtype}; shape [${q.shape.join(', ')}]`;
    $('scales').tBodies[0].replaceChildren(
      ...Array.from(scales, (s, c) => {
        const row = document.createElement('tr');
        row.dataset.channel = String(c);
        for (const text of [String(c), s.toPrecision(6), String(zps[c])]) {
          row.insertCell().textContent = text;
        }
        row.cells[1].dataset.value = String(s);
        row.cells[2].dataset.value = String(zps[c]);
        return row;
      }),
    );
  } finally {
    q.dispose();
  }
}

function update() {
  try {
    showError('');
    render();
  } catch (e) {
    showError(e.message);
  }
}

async function main() {
  fillPresets();
  state.tensor = PRESETS[$('preset').value].make();
  fillAxes();
  await qwasm.init();
  $('status').textContent = `Ready: ${qwasm.kernelIsa()} kernels.`;
  $('status').dataset.ready = 'true';
  $('preset').addEventListener('change', () => {
    state.tensor = PRESETS[$('preset').value].make();
    fillAxes();
    update();
  });
  $('controls').addEventListener('change', (e) => {
    if (e.target.id !== 'preset') update();
  });
  update();
}

main().catch((e) => {
  $('status').textContent = `Failed to start: ${e.message}`;
  showError(e.message);
});
