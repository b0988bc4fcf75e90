// Whole models, one clip (1x3x16x112x112) at a time, at 1 and 2 threads (each
// thread count in a child process of its own: onnxruntime-web fixes its
// threads when its wasm starts): torchvision's r3d_18, mc3_18 and r2plus1d_18
// quantized by PyTorch's eager flow and run by qwasm (io.loadModel, the
// threaded build with a pool of that many threads), against onnxruntime-web
// (numThreads the same) running the same float model exported to ONNX, and
// its int8 QDQ form made by onnxruntime's static quantization on the same
// calibration clips; interleaved in one run. Also: which path each conv took
// (exact integer Winograd or direct), the packed weights' bytes against the
// int8 weights' (issue 34: at most 2x);
// where qwasm's time goes (per layer kind), its heap high-water mark against
// the packed weights plus the two largest activations, file sizes, and the
// top-1 agreement of qwasm int8 with PyTorch float on the benchmark clips.
//
// Needs bench/output/models from `python3 bench/model_prep.py` (torch,
// torchvision, onnx, onnxruntime); says so and exits when it is missing.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { interleave, perThreadCount, saveResult } from './harness.mjs';

const DIR = new URL('./output/models/', import.meta.url);
const ARCHS = ['r3d_18', 'mc3_18', 'r2plus1d_18'];
const THREADS = [1, 2];
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 5);
// Targets (issue 19), qwasm int8 vs onnxruntime-web int8 at the same thread count.
const TARGETS = { r3d_18: 2.5, mc3_18: 2, r2plus1d_18: 2 };
if (process.argv[2] !== '--render' && !ARCHS.every((a) => existsSync(new URL(`${a}.json`, DIR)))) {
  console.log('model.bench: bench/output/models is missing: run python3 bench/model_prep.py (needs torch) first');
  process.exit(0);
}

async function child(threads) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  const qwasm = await import('../web/src/node-entry.mjs');
  await qwasm.init({
    numThreads: threads,
    _moduleFactory: createRequire(import.meta.url)('../build/wasm/qwasm.testing.mt.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
  });
  const clipsAll = new Float32Array(readFileSync(new URL('clips.bin', DIR)).buffer.slice(0));
  const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);

  const results = [];
  for (const arch of ARCHS) {
    const meta = JSON.parse(readFileSync(new URL(`${arch}.json`, DIR), 'utf8'));
    const clipSize = meta.shape.reduce((a, b) => a * b, 1);
    const clip = (i) => ({ data: clipsAll.subarray(i * clipSize, (i + 1) * clipSize), shape: meta.shape });
    const heapBeforeLoad = qwasm.heapInUse();
    const model = qwasm.io.loadModel(readFileSync(new URL(`${arch}.qwasm.safetensors`, DIR)));
    const modelBytes = qwasm.heapInUse() - heapBeforeLoad;
    const opts = {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    };
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
      // Quantized convolutions by the arithmetic they ran (Winograd or direct).
      const kind = m ? `${m.constructor.name}${l.path ? ` (${l.path})` : ''}` : l.target;
      byKind.set(kind, (byKind.get(kind) ?? 0) + l.ms);
    }
    const { packed, winograd } = model.weightBytes();
    // The int8 weights' bytes (one per weight of every quantized conv and linear layer): what the file holds.
    let int8 = 0;
    for (const [, m] of model.namedModules()) {
      if (typeof m.packedWeightBytes !== 'function') continue;
      const w = m.weight();
      int8 += w.shape.reduce((a, b) => a * b, 1);
      w.dispose();
    }
    const paths = { winograd: 0, direct: 0 };
    for (const l of prof.layers) if (l.path) paths[l.path]++;
    const [a1, a2] = prof.layers.map((l) => l.outputBytes).sort((p, q) => q - p);
    const peak = prof.peakHeapBytes - heapBeforeLoad;
    results.push({
      arch,
      // What the tables read of the metadata (its logits stay here: the pipe to the parent is for results).
      meta: {
        clips: meta.clips,
        qwasm_bytes: meta.qwasm_bytes,
        checkpoint_bytes: meta.checkpoint_bytes,
        float_onnx_bytes: meta.float_onnx_bytes,
        int8_onnx_bytes: meta.int8_onnx_bytes,
      },
      times,
      bitExact,
      top1Float,
      top1OrtInt8,
      byKind: [...byKind],
      packed,
      winograd,
      int8,
      paths,
      modelBytes,
      peak,
      largest: a1 + a2,
    });
    model.dispose();
    await fsession.release();
    await qsession.release();
    process.stderr.write(`${arch} at ${threads}: ${JSON.stringify({ times, bitExact, paths })}\n`);
  }
  // Exit once the results are flushed: onnxruntime-web's workers would keep the process alive.
  process.stdout.write(JSON.stringify(results), () => process.exit(0));
}

// The tables from the measurements (`--render` redoes them from the saved results).
async function render(byThreads, date, machineLine) {
  const results = byThreads[1];
  const ortVersion = (await import('onnxruntime-web')).env.versions?.web ?? '1.30';
  const f = (v, d = 1) => v.toFixed(d);
  const mb = (b) => (b / 1e6).toFixed(1);
  const vsOrt = (r) => r.times.ortInt8.medianMs / r.times.qwasmInt8.medianMs;
  const rows = THREADS.flatMap((t) =>
    byThreads[t].map(
      (r) =>
        `| ${r.arch} | ${t} | ${f(r.times.qwasmInt8.medianMs, 0)} | ${f(r.times.ortInt8.medianMs, 0)} | ${f(r.times.ortFloat.medianMs, 0)} | ${f(vsOrt(r), 2)}x | ${f(r.times.ortFloat.medianMs / r.times.qwasmInt8.medianMs, 2)}x | ${r.paths.winograd} / ${r.paths.winograd + r.paths.direct} |`,
    ),
  ).join('\n');
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
        `- ${r.arch}: exported file ${mb(r.meta.qwasm_bytes)} MB vs float checkpoint ${mb(r.meta.checkpoint_bytes)} MB (${f(r.meta.checkpoint_bytes / r.meta.qwasm_bytes, 2)}x smaller; ONNX float ${mb(r.meta.float_onnx_bytes)} MB, ONNX int8 QDQ ${mb(r.meta.int8_onnx_bytes)} MB); the loaded model holds ${mb(r.modelBytes)} MB of wasm heap (packed weights ${mb(r.packed)} MB, ${f(r.packed / r.int8, 2)}x its ${mb(r.int8)} MB of int8 weights (target <= 2x: ${r.packed <= 2 * r.int8 ? 'met' : 'not met'}), of which the Winograd layers' int8 weights ${mb(r.winograd)} MB, transformed per call into scratch memory; weight() rebuilds the int8 integers on demand); one forward's heap high-water mark (model included) is ${mb(r.peak)} MB, ${f(r.peak / (r.packed + r.largest), 2)}x the packed weights plus the two largest activations (${mb(r.largest)} MB; target <= 1.5x: ${r.peak <= 1.5 * (r.packed + r.largest) ? 'met' : 'not met'}); qwasm's logits equal PyTorch int8's bit for bit on ${r.bitExact} / ${r.meta.clips} clips; top-1 agreement with PyTorch float: qwasm int8 ${r.top1Float} / ${r.meta.clips}, onnxruntime int8 ${r.top1OrtInt8} / ${r.meta.clips}.`,
    )
    .join('\n');
  const markdown = `## Whole models: 3D ResNets vs onnxruntime-web

torchvision's r3d_18, mc3_18 and r2plus1d_18 (random init, fixed seed), one clip [1, 3, 16, 112, 112], at 1 and 2 threads (each in its own process; onnxruntime-web with \`numThreads\` the same, spinning off), median ms over ${ROUNDS} interleaved rounds (bench/model.bench.mjs; inputs from bench/model_prep.py). qwasm: the model quantized by PyTorch's eager flow (fbgemm QConfig, 4 calibration clips), exported by python/qwasm_export.py, run by io.loadModel with the default \`winograd: 'auto'\` on the threaded build (a pool of t threads). onnxruntime-web ${ortVersion}: the same float model exported to ONNX, and its int8 QDQ form from onnxruntime's quantize_static (per-channel qint8 weights, quint8 activations) on the same calibration clips. "Winograd convs": the quantized convolutions that ran on the exact integer Winograd path, of all. ${machineLine}, ${date}.

| model | threads | qwasm int8 ms | onnxruntime-web int8 ms | onnxruntime-web float ms | vs ort int8 | vs ort float | Winograd convs |
|---|---|---|---|---|---|---|---|
${rows}

Where qwasm's time goes (one forward at one thread, by module or function):

| model | time by layer kind |
|---|---|
${layerRows}

${other}

Targets (issue 19), qwasm int8 vs onnxruntime-web int8 at the same thread count: ${THREADS.flatMap((t) => byThreads[t].map((r) => `${r.arch} at ${t}: ${f(vsOrt(r), 2)}x (>= ${TARGETS[r.arch]}x: ${vsOrt(r) >= TARGETS[r.arch] ? 'met' : 'not met'})`)).join('; ')}.`;
  const readme = `Whole 3D ResNets, one 16-frame clip, qwasm int8 ms / onnxruntime-web int8 ms (onnxruntime time / qwasm's) at the same thread count (${date}):

| model | 1 thread | 2 threads |
|---|---|---|
${results
  .map(
    (r, i) =>
      `| ${r.arch} | ${THREADS.map((t) => {
        const x = byThreads[t][i];
        return `${f(x.times.qwasmInt8.medianMs, 0)} / ${f(x.times.ortInt8.medianMs, 0)} (${f(vsOrt(x), 2)}x)`;
      }).join(' | ')} |`,
  )
  .join('\n')}`;
  saveResult('5-models', { date, machine: machineLine, byThreads, markdown, readme });
  console.log(markdown);
}

await perThreadCount({ file: import.meta.url, threads: THREADS, name: '5-models', child, render });
