// The ConvReLU3d playground UI: sends the settings to a module worker, shows
// its progress, the timings, and slices of the input and outputs.
const $ = (id) => document.getElementById(id);
let worker = null;
let result = null;

function readParams() {
  const int = (id, lo, hi) => {
    const v = Number($(id).value);
    if (!Number.isInteger(v) || v < lo || v > hi)
      throw new RangeError(
        `${$(id).parentElement.textContent.trim()}: expected an integer in ${lo}..${hi}, got ${$(id).value}`,
      );
    return v;
  };
  const padding = $('p-padding').value === 'same' ? 'same' : Number($('p-padding').value);
  const p = {
    cin: int('p-cin', 1, 16),
    cout: int('p-cout', 1, 64),
    kernel: Number($('p-kernel').value),
    stride: Number($('p-stride').value),
    padding,
    depth: int('p-depth', 1, 32),
    size: Number($('p-size').value),
  };
  if (padding === 'same' && p.stride !== 1) throw new RangeError("padding 'same' needs stride 1 (as in PyTorch)");
  const extent = (d) => d + 2 * (padding === 'same' ? 0 : padding) - (padding === 'same' ? 0 : p.kernel - 1);
  if (extent(p.depth) < 1)
    throw new RangeError(
      `the kernel (${p.kernel}) is larger than the padded depth (${p.depth}): use more frames or padding`,
    );
  return p;
}

function draw(canvasId, w, h, value) {
  const canvas = $(canvasId);
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(w, h);
  for (let i = 0; i < w * h; i++) {
    const v = Math.max(0, Math.min(255, Math.round(value(i) * 255)));
    img.data.set([v, v, v, 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
}

function renderSlices() {
  if (!result) return;
  const [, cout, dOut, hOut, wOut] = result.outShape;
  const f = Number($('p-frame').value);
  const k = Math.max(0, Math.min(cout - 1, Number($('p-channel').value) || 0));
  $('p-frame-shown').textContent = `${f + 1} / ${dOut}`;
  const plane = hOut * wOut;
  const base = (k * dOut + f) * plane;
  let peak = 1e-12;
  for (let i = 0; i < dOut * plane; i++) peak = Math.max(peak, result.floatOut[k * dOut * plane + i]);
  draw('img-float', wOut, hOut, (i) => result.floatOut[base + i] / peak);
  draw('img-int8', wOut, hOut, (i) => result.int8Out[base + i] / peak);
  draw('img-diff', wOut, hOut, (i) => Math.min(2, result.lsb[base + i]) / 2);
  const { size, depth, stride } = result.params;
  const inFrame = Math.min(depth - 1, f * stride);
  let inPeak = 1e-12;
  for (const v of result.input0) inPeak = Math.max(inPeak, v);
  draw('img-input', size, size, (i) => result.input0[inFrame * size * size + i] / inPeak);
}

function workerThreads(info) {
  if (info.variant === 'threads') return `${info.numThreads} threads`;
  return `1 thread${info.threadsUnavailable ? ` (${info.threadsUnavailable})` : ''}`;
}

function showResult(r) {
  result = r;
  const rows = [
    ['int8 SIMD (qwasm)', r.timings.int8Simd],
    ['float SIMD (qwasm)', r.timings.floatSimd],
    ['int8 scalar (qwasm)', r.timings.int8Scalar],
  ];
  $('p-timings').tBodies[0].replaceChildren(
    ...rows.map(([name, ms]) => {
      const tr = document.createElement('tr');
      tr.insertCell().textContent = name;
      const t = tr.insertCell();
      t.textContent = ms.toFixed(2);
      t.dataset.ms = String(ms);
      tr.insertCell().textContent = (r.macs / (ms * 1e6)).toFixed(1);
      return tr;
    }),
  );
  $('p-diff').textContent =
    `Output [${r.outShape.join(', ')}], scale ${r.scale.toPrecision(4)}, zero point ${r.zeroPoint}. ` +
    `int8 vs float (quantized with the same qparams): max ${r.diff.max} LSB, mean ${r.diff.mean.toFixed(3)} LSB, ` +
    `${(100 * r.diff.over1).toFixed(2)}% of outputs differ by more than 1 LSB. int8 SIMD is ${(r.timings.floatSimd / r.timings.int8Simd).toFixed(2)}x the float SIMD speed. ` +
    `Timed in a worker on ${workerThreads(r.runtime)}.`;
  $('p-frame').max = String(r.outShape[2] - 1);
  $('p-frame').value = String(Math.min(Number($('p-frame').value), r.outShape[2] - 1));
  $('p-channel').max = String(r.outShape[1] - 1);
  $('p-results').hidden = false;
  renderSlices();
}

function finish() {
  $('p-run').disabled = false;
  $('p-progress').hidden = true;
}

function start() {
  $('p-error').hidden = true;
  let params;
  try {
    params = readParams();
  } catch (e) {
    $('p-error').textContent = e.message;
    $('p-error').hidden = false;
    return;
  }
  if (!worker) {
    worker = new Worker(new URL('./playground-worker.mjs', import.meta.url), { type: 'module' });
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'progress') {
        $('p-progress').value = m.value;
        $('p-status').textContent = m.text;
      } else if (m.type === 'result') {
        finish();
        $('p-status').textContent = 'Done.';
        $('p-status').dataset.done = String(Number($('p-status').dataset.done || 0) + 1);
        showResult(m);
      } else if (m.type === 'error') {
        finish();
        $('p-status').textContent = '';
        $('p-error').textContent = m.message;
        $('p-error').hidden = false;
      }
    };
    worker.onerror = (e) => {
      finish();
      $('p-error').textContent = `The worker failed: ${e.message}`;
      $('p-error').hidden = false;
    };
  }
  $('p-run').disabled = true;
  $('p-progress').hidden = false;
  $('p-progress').value = 0;
  worker.postMessage({ type: 'run', params });
}

export function setupPlayground() {
  $('p-run').addEventListener('click', start);
  $('p-frame').addEventListener('input', renderSlices);
  $('p-channel').addEventListener('input', renderSlices);
}
