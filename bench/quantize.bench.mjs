// quantizePerChannel and dequantize on 16M float32 elements: GB/s of float
// input for the WASM SIMD kernels, their scalar twins and a plain JavaScript
// loop doing the same arithmetic (checked to give the same integers), one run.
import { ISA } from '../web/src/runtime/codes.mjs';
import { initBench, machine, saveResult, time } from './harness.mjs';

const SHAPE = [16, 64, 128, 128]; // 16M elements, per-channel on axis 1 (64 channels of 16K runs)
const AXIS = 1;
const N = SHAPE.reduce((a, b) => a * b, 1);

function makeInput() {
  const data = new Float32Array(N);
  let s = 12345;
  for (let i = 0; i < N; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32 - 0.5) * 8;
  }
  return { data, shape: SHAPE };
}

// The same arithmetic as the kernels, in plain JavaScript: float32 reciprocal,
// multiply, round half to even, add the zero point, clamp.
function jsQuantizePerChannel(x, scales, zps, out) {
  const inner = SHAPE.slice(AXIS + 1).reduce((a, b) => a * b, 1);
  const channels = SHAPE[AXIS];
  for (let o = 0, base = 0; o < N / (channels * inner); o++) {
    for (let c = 0; c < channels; c++, base += inner) {
      const inv = Math.fround(1 / Math.fround(scales[c]));
      const zp = zps[c];
      for (let i = base; i < base + inner; i++) {
        const t = Math.fround(x[i] * inv);
        let r = Math.round(t);
        if (r - t === 0.5 && (r & 1) !== 0) r -= 1;
        const q = r + zp;
        out[i] = Math.min(127, Math.max(-128, q));
      }
    }
  }
}

function jsDequantizePerChannel(q, scales, zps, out) {
  const inner = SHAPE.slice(AXIS + 1).reduce((a, b) => a * b, 1);
  const channels = SHAPE[AXIS];
  for (let o = 0, base = 0; o < N / (channels * inner); o++) {
    for (let c = 0; c < channels; c++, base += inner) {
      const s = scales[c];
      const zp = zps[c];
      for (let i = base; i < base + inner; i++) out[i] = (q[i] - zp) * s;
    }
  }
}

const { qwasm, M, handle } = await initBench();
const x = makeInput();
// qparams as PyTorch's default weight observer picks them (float32 scales).
const observer = new qwasm.quantization.PerChannelMinMaxObserver({
  chAxis: AXIS,
  dtype: 'qint8',
  qscheme: 'per_channel_symmetric',
});
observer.observe(x);
const { scale: scales, zeroPoint: zps } = observer.calculateQParams();
const gbps = (ms) => (N * 4) / (ms * 1e6);

const rows = [];
const intsJs = new Int8Array(N);
const floatsJs = new Float32Array(N);
const opts = { warmup: 3, runs: 7 };

const js = time(() => jsQuantizePerChannel(x.data, scales, zps, intsJs), opts);
const jsDq = time(() => jsDequantizePerChannel(intsJs, scales, zps, floatsJs), opts);
const jsDqNew = time(() => jsDequantizePerChannel(intsJs, scales, zps, new Float32Array(N)), opts);
rows.push({ impl: 'plain JavaScript loop', quantize: js, dequantize: jsDq, dequantizeNew: jsDqNew });

for (const isa of ['wasmsimd', 'scalar']) {
  qwasm.setKernelIsa(isa);
  const q = qwasm.quantizePerChannel(x, scales, zps, AXIS, 'qint8');
  // The benchmark checks what it times: same integers and floats as the JS loop.
  const ints = q.intRepr();
  const floats = q.dequantize().data;
  for (let i = 0; i < N; i += 997) {
    if (ints[i] !== intsJs[i] || Math.fround(floatsJs[i]) !== floats[i]) {
      throw new Error(`${isa} differs from the JS loop at ${i}: ${ints[i]} vs ${intsJs[i]}`);
    }
  }
  const quantize = time(() => qwasm.quantizePerChannel(x, scales, zps, AXIS, 'qint8').dispose(), opts);
  const out = new Float32Array(N);
  const dequantize = time(() => q.dequantize(out), opts);
  const dequantizeNew = time(() => q.dequantize(), opts);
  // The kernel alone, writing into wasm memory (no copy out to JavaScript).
  const address = M._malloc(N * 4) >>> 0;
  const kernelOnly = time(() => handle(q).dequantizeInto(address, 0, N, ISA.get(isa)), opts);
  M._free(address);
  q.dispose();
  rows.push({ impl: `qwasm ${isa}`, quantize, dequantize, dequantizeNew, kernelOnly });
}
qwasm.setKernelIsa('auto');

const jsRow = rows[0];
const table = rows.map((r) => {
  const qr = jsRow.quantize.medianMs / r.quantize.medianMs;
  const dr = jsRow.dequantize.medianMs / r.dequantize.medianMs;
  const nr = jsRow.dequantizeNew.medianMs / r.dequantizeNew.medianMs;
  return `| ${r.impl} | ${r.quantize.medianMs.toFixed(1)} | ${gbps(r.quantize.medianMs).toFixed(2)} | ${qr.toFixed(1)}x | ${r.dequantize.medianMs.toFixed(1)} | ${gbps(r.dequantize.medianMs).toFixed(2)} | ${dr.toFixed(1)}x | ${r.dequantizeNew.medianMs.toFixed(1)} | ${nr.toFixed(1)}x |`;
});
const simd = rows.find((r) => r.impl === 'qwasm wasmsimd');
const scalar = rows.find((r) => r.impl === 'qwasm scalar');
const date = new Date().toISOString().slice(0, 10);
const markdown = `## Quantize and dequantize, 16M elements

quantizePerChannel (qint8, shape [${SHAPE.join(', ')}], axis ${AXIS}, scales from PerChannelMinMaxObserver) and QTensor.dequantize(out) through the public API, so the wasm times include copying the 64 MB input into wasm memory (quantize) and the result back out (dequantize). GB/s counts float32 bytes (input for quantize, output for dequantize). "vs JS": speed relative to the plain JavaScript loop. The last two columns allocate a fresh 64 MB output on every call (dequantize() without out, and the JS loop into a new array): page-faulting fresh memory then costs more than the arithmetic. ${machine()}, ${date}.

| implementation | quantize ms | GB/s | vs JS | dequantize(out) ms | GB/s | vs JS | dequantize() new array ms | vs JS |
|---|---|---|---|---|---|---|---|---|
${table.join('\n')}

Dequantize kernel alone, into wasm memory (no copy out): SIMD ${simd.kernelOnly.medianMs.toFixed(1)} ms (${gbps(simd.kernelOnly.medianMs).toFixed(1)} GB/s, ${(jsRow.dequantize.medianMs / simd.kernelOnly.medianMs).toFixed(1)}x the JS loop), scalar ${scalar.kernelOnly.medianMs.toFixed(1)} ms. Through the API the copy of 64 MB into the caller's array bounds dequantize: it runs at memory-write speed.

Targets (issue 2): SIMD >= 4x the JS loop and >= 2 GB/s. Quantize: ${(jsRow.quantize.medianMs / simd.quantize.medianMs).toFixed(1)}x, ${gbps(simd.quantize.medianMs).toFixed(2)} GB/s; dequantize(out): ${(jsRow.dequantize.medianMs / simd.dequantize.medianMs).toFixed(1)}x, ${gbps(simd.dequantize.medianMs).toFixed(2)} GB/s.`;
const readme = `quantizePerChannel / dequantize(out), 16M float32 elements (${date}):

| implementation | quantize GB/s | vs JS loop | dequantize GB/s | vs JS loop |
|---|---|---|---|---|
${rows.map((r) => `| ${r.impl} | ${gbps(r.quantize.medianMs).toFixed(2)} | ${(jsRow.quantize.medianMs / r.quantize.medianMs).toFixed(1)}x | ${gbps(r.dequantize.medianMs).toFixed(2)} | ${(jsRow.dequantize.medianMs / r.dequantize.medianMs).toFixed(1)}x |`).join('\n')}`;
saveResult('1-quantize', { date, machine: machine(), shape: SHAPE, axis: AXIS, rows, markdown, readme });
console.log(markdown);
