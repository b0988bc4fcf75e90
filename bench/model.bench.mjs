// Whole models, one clip (1x3x16x112x112) at a time, one thread: torchvision's
// r3d_18 and r2plus1d_18 quantized by PyTorch's eager flow and run by qwasm
// (io.loadModel), against onnxruntime-web running the same float model
// exported to ONNX, and its int8 QDQ form made by onnxruntime's static
// quantization on the same calibration clips; interleaved in one run. Also:
// where qwasm's time goes (per layer kind), its heap high-water mark against
// the packed weights plus the two largest activations, file sizes, and the
// top-1 agreement of qwasm int8 with PyTorch float on the benchmark clips.
//
// Needs bench/output/models from `python3 bench/model_prep.py` (torch,
// torchvision, onnx, onnxruntime); says so and exits when it is missing.
import { existsSync, readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { initBench, interleave, machine, saveResult } from './harness.mjs';

const DIR = new URL('./output/models/', import.meta.url);
const ARCHS = ['r3d_18', 'r2plus1d_18'];
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 5);
if (!ARCHS.every((a) => existsSync(new URL(`${a}.json`, DIR)))) {
  console.log('model.bench: bench/output/models is missing: run python3 bench/model_prep.py (needs torch) first');
  process.exit(0);
}

ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
const { qwasm } = await initBench();
const clipsAll = new Float32Array(readFileSync(new URL('clips.bin', DIR)).buffer.slice(0));
const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);
const mb = (b) => (b / 1e6).toFixed(1);

const results = [];
for (const arch of ARCHS) {
  const meta = JSON.parse(readFileSync(new URL(`${arch}.json`, DIR), 'utf8'));
  const clipSize = meta.shape.reduce((a, b) => a * b, 1);
  const clip = (i) => ({ data: clipsAll.subarray(i * clipSize, (i + 1) * clipSize), shape: meta.shape });
  const heapBeforeLoad = qwasm.heapInUse();
  const model = qwasm.io.loadModel(readFileSync(new URL(`${arch}.qwasm.safetensors`, DIR)));
  const modelBytes = qwasm.heapInUse() - heapBeforeLoad;
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const fsession = await ort.InferenceSession.create(readFileSync(new URL(`${arch}.float.onnx`, DIR)), opts);
  const qsession = await ort.InferenceSession.create(readFileSync(new URL(`${arch}.int8.onnx`, DIR)), opts);
  const x0 = clip(0);
  const ortInput = { x: new ort.Tensor('float32', x0.data, meta.shape) };

  // Agreement: qwasm int8 against PyTorch's int8 (bit for bit) and float (top-1) on every clip.
  let bitExact = 0;
  let top1Float = 0;
  let top1OrtInt8 = 0;
  for (let i = 0; i < meta.clips; i++) {
    const y = model.forward(clip(i)).data;
    const want = Float32Array.from(meta.int8_logits[i]);
    if (y.every((v, k) => Object.is(v, want[k]))) bitExact++;
    if (argmax(y) === argmax(meta.float_logits[i])) top1Float++;
    const o = await qsession.run({ x: new ort.Tensor('float32', clip(i).data, meta.shape) });
    if (argmax(o.y.data) === argmax(meta.float_logits[i])) top1OrtInt8++;
  }

  const times = await interleave(
    [
      { name: 'qwasmInt8', fn: () => model.forward(x0) },
      { name: 'ortInt8', fn: () => qsession.run(ortInput) },
      { name: 'ortFloat', fn: () => fsession.run(ortInput) },
    ],
    { warmup: 1, rounds: ROUNDS },
  );

  // Where the time goes, and the heap of one forward.
  const prof = model.profile(x0);
  const byKind = new Map();
  for (const l of prof.layers) {
    const m = l.op === 'call_module' ? model.getSubmodule(l.target) : null;
    const kind = m ? m.constructor.name : l.target;
    byKind.set(kind, (byKind.get(kind) ?? 0) + l.ms);
  }
  let packed = 0;
  for (const [, m] of model.namedModules())
    if (typeof m.packedWeightBytes === 'function') packed += m.packedWeightBytes();
  const [a1, a2] = prof.layers.map((l) => l.outputBytes).sort((p, q) => q - p);
  const peak = prof.peakHeapBytes - heapBeforeLoad;
  results.push({
    arch,
    meta,
    times,
    bitExact,
    top1Float,
    top1OrtInt8,
    byKind: [...byKind],
    packed,
    modelBytes,
    peak,
    largest: a1 + a2,
  });
  model.dispose();
  await fsession.release();
  await qsession.release();
  console.log(arch, times, { bitExact, top1Float, top1OrtInt8 });
}

const date = new Date().toISOString().slice(0, 10);
const f = (v, d = 1) => v.toFixed(d);
const rows = results
  .map(
    (r) =>
      `| ${r.arch} | ${f(r.times.qwasmInt8.medianMs, 0)} | ${f(r.times.ortInt8.medianMs, 0)} | ${f(r.times.ortFloat.medianMs, 0)} | ${f(r.times.ortInt8.medianMs / r.times.qwasmInt8.medianMs, 2)}x | ${f(r.times.ortFloat.medianMs / r.times.qwasmInt8.medianMs, 2)}x |`,
  )
  .join('\n');
const layerRows = results
  .map((r) => {
    const total = r.byKind.reduce((a, [, ms]) => a + ms, 0);
    return `| ${r.arch} | ${r.byKind
      .sort((a, b) => b[1] - a[1])
      .map(([k, ms]) => `${k} ${f(ms, 0)} ms (${f((100 * ms) / total, 0)}%)`)
      .join(', ')} |`;
  })
  .join('\n');
const other = results
  .map(
    (r) =>
      `- ${r.arch}: exported file ${mb(r.meta.qwasm_bytes)} MB vs float checkpoint ${mb(r.meta.checkpoint_bytes)} MB (${f(r.meta.checkpoint_bytes / r.meta.qwasm_bytes, 2)}x smaller; ONNX float ${mb(r.meta.float_onnx_bytes)} MB, ONNX int8 QDQ ${mb(r.meta.int8_onnx_bytes)} MB); the loaded model holds ${mb(r.modelBytes)} MB of wasm heap (packed weights ${mb(r.packed)} MB; weight() rebuilds the int8 integers on demand); one forward's heap high-water mark (model included) is ${mb(r.peak)} MB, ${f(r.peak / (r.packed + r.largest), 2)}x the packed weights plus the two largest activations (${mb(r.largest)} MB; target <= 1.5x: ${r.peak <= 1.5 * (r.packed + r.largest) ? 'met' : 'not met'}); qwasm's logits equal PyTorch int8's bit for bit on ${r.bitExact} / ${r.meta.clips} clips; top-1 agreement with PyTorch float: qwasm int8 ${r.top1Float} / ${r.meta.clips}, onnxruntime int8 ${r.top1OrtInt8} / ${r.meta.clips}.`,
  )
  .join('\n');
const markdown = `## Whole models: 3D ResNets vs onnxruntime-web

torchvision's r3d_18 and r2plus1d_18 (random init, fixed seed), one clip [1, 3, 16, 112, 112], one thread, median ms over ${ROUNDS} interleaved rounds (bench/model.bench.mjs; inputs from bench/model_prep.py). qwasm: the model quantized by PyTorch's eager flow (fbgemm QConfig, 4 calibration clips), exported by python/qwasm_export.py, run by io.loadModel. onnxruntime-web ${ort.env.versions?.web ?? '1.30'}: the same float model exported to ONNX, and its int8 QDQ form from onnxruntime's quantize_static (per-channel qint8 weights, quint8 activations) on the same calibration clips. ${machine()}, ${date}.

| model | qwasm int8 ms | onnxruntime-web int8 ms | onnxruntime-web float ms | vs ort int8 | vs ort float |
|---|---|---|---|---|---|
${rows}

Where qwasm's time goes (one forward, by module or function):

| model | time by layer kind |
|---|---|
${layerRows}

${other}

Targets (issue 11): qwasm int8 >= 2x onnxruntime-web int8: ${results.map((r) => `${r.arch} ${r.times.ortInt8.medianMs / r.times.qwasmInt8.medianMs >= 2 ? 'met' : 'not met'}`).join(', ')}; >= 3x onnxruntime-web float: ${results.map((r) => `${r.arch} ${r.times.ortFloat.medianMs / r.times.qwasmInt8.medianMs >= 3 ? 'met' : 'not met'}`).join(', ')}.`;
const readme = `Whole 3D ResNets, one 16-frame clip, one thread (${date}): ${results.map((r) => `${r.arch} qwasm int8 ${f(r.times.qwasmInt8.medianMs, 0)} ms, ${f(r.times.ortInt8.medianMs / r.times.qwasmInt8.medianMs, 2)}x onnxruntime-web int8, ${f(r.times.ortFloat.medianMs / r.times.qwasmInt8.medianMs, 2)}x onnxruntime-web float`).join('; ')}.`;
saveResult('5-models', {
  date,
  machine: machine(),
  rows: results.map((r) => ({ arch: r.arch, times: r.times, bitExact: r.bitExact, top1Float: r.top1Float })),
  markdown,
  readme,
});
console.log(markdown);
