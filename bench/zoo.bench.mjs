// The model zoo at full size (issue 32): the 3D CNNs users bring
// (tests/models/zoo3d_models.py, at the sizes their libraries or papers
// document; random weights, fixed seed), each quantized by the README's PT2E
// recipe (QwasmQuantizer) and run by qwasm (io.loadModel, the threaded build
// with a pool of t threads), against onnxruntime-web (numThreads the same)
// running the same float model exported to ONNX and its int8 QDQ form from
// onnxruntime's quantize_static on the same calibration inputs; one input at
// a time, interleaved in one run, at 1 and 2 threads (each thread count in a
// child process of its own: onnxruntime-web fixes its threads when its wasm
// starts). Also: where qwasm's time goes (per layer kind, one thread), its
// heap high-water mark, and agreement: qwasm's labels (top-1, or each
// voxel's class) against PyTorch's int8 graph and float model, and
// onnxruntime int8's against PyTorch float.
//
// Needs bench/output/zoo from `python3 bench/zoo_prep.py` (torch, torchao,
// monai, pytorchvideo, onnx, onnxruntime); says so and exits when it is missing.
import { existsSync, readFileSync } from 'node:fs';
import { initSideBySide, interleave, perThreadCount, saveResult } from './harness.mjs';

const DIR = new URL('./output/zoo/', import.meta.url);
const THREADS = [1, 2];
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 5);
// Issue 32's targets: qwasm int8 against onnxruntime-web int8 and float, at the same thread count.
const TARGET_INT8 = 2;
const TARGET_FLOAT = 3;

if (process.argv[2] !== '--render' && !existsSync(new URL('models.json', DIR))) {
  console.log('zoo.bench: bench/output/zoo is missing: run python3 bench/zoo_prep.py (needs torch) first');
  process.exit(0);
}

// A file of float32s (its own copy: Node hands small files out of a shared pool).
function floats(name) {
  const b = readFileSync(new URL(name, DIR));
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

// Per sample (classification) or per voxel (segmentation): the argmax over the classes (dim 1).
function labels(data, shape) {
  const [n, classes] = shape;
  const inner = shape.slice(2).reduce((a, b) => a * b, 1);
  const out = new Int32Array(n * inner);
  for (let b = 0; b < n; b++)
    for (let v = 0; v < inner; v++) {
      const at = b * classes * inner + v;
      let best = 0;
      for (let c = 1; c < classes; c++) if (data[at + c * inner] > data[at + best * inner]) best = c;
      out[b * inner + v] = best;
    }
  return out;
}

// The share of equal labels.
function agreement(a, b, shape) {
  const x = labels(a, shape);
  const y = labels(b, shape);
  let same = 0;
  for (let i = 0; i < x.length; i++) if (x[i] === y[i]) same++;
  return same / x.length;
}

async function child(threads) {
  const { qwasm, ort, ortOptions: opts } = await initSideBySide(threads);
  const results = [];
  for (const name of JSON.parse(readFileSync(new URL('models.json', DIR), 'utf8'))) {
    const meta = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8'));
    const x = { data: floats(`${name}.input.bin`), shape: meta.shape };
    const heapBeforeLoad = qwasm.heapInUse();
    // A benchmark trusts its models: no load budget (SegResNet at 96^3 is charged 3.9e11 of the default 5e11).
    const model = qwasm.io.loadModel(readFileSync(new URL(`${name}.qwasm.safetensors`, DIR)), { maxWork: 1e15 });
    const modelBytes = qwasm.heapInUse() - heapBeforeLoad;
    const fsession = await ort.InferenceSession.create(readFileSync(new URL(`${name}.float.onnx`, DIR)), opts);
    const qsession = await ort.InferenceSession.create(readFileSync(new URL(`${name}.int8.onnx`, DIR)), opts);
    const ortInput = { x: new ort.Tensor('float32', x.data, meta.shape) };

    const y = model.forward(x).data;
    const ortY = (await qsession.run(ortInput)).y.data;
    const int8 = floats(`${name}.int8.bin`);
    const float = floats(`${name}.float.bin`);
    const agree = {
      qwasmVsTorchInt8: agreement(y, int8, meta.output_shape),
      qwasmVsTorchFloat: agreement(y, float, meta.output_shape),
      ortInt8VsTorchFloat: agreement(ortY, float, meta.output_shape),
    };

    const times = await interleave(
      [
        { name: 'qwasmInt8', fn: () => model.forward(x) },
        { name: 'ortInt8', fn: () => qsession.run(ortInput) },
        { name: 'ortFloat', fn: () => fsession.run(ortInput) },
      ],
      { warmup: 1, rounds: ROUNDS },
    );

    const prof = model.profile(x);
    const byKind = new Map();
    for (const l of prof.layers) {
      const m = l.op === 'call_module' ? model.getSubmodule(l.target) : null;
      const kind = m ? `${m.constructor.name}${l.path ? ` (${l.path})` : ''}` : l.target;
      byKind.set(kind, (byKind.get(kind) ?? 0) + l.ms);
    }
    const { packed, winograd } = model.weightBytes();
    results.push({
      name,
      meta: { about: meta.about, task: meta.task, shape: meta.shape, bytes: meta.bytes, parameters: meta.parameters },
      times,
      agree,
      byKind: [...byKind],
      packed,
      winograd,
      modelBytes,
      peak: prof.peakHeapBytes - heapBeforeLoad,
    });
    model.dispose();
    await fsession.release();
    await qsession.release();
    process.stderr.write(`${name} at ${threads}: ${JSON.stringify({ times, agree })}\n`);
  }
  // Exit once the results are flushed: onnxruntime-web's workers would keep the process alive.
  process.stdout.write(JSON.stringify(results), () => process.exit(0));
}

async function render(byThreads, date, machineLine) {
  const ortVersion = (await import('onnxruntime-web')).env.versions?.web ?? '';
  const f = (v, d = 1) => v.toFixed(d);
  const mb = (b) => (b / 1e6).toFixed(1);
  const pct = (v) => `${(100 * v).toFixed(2)}%`;
  const vs = (r, peer) => r.times[peer].medianMs / r.times.qwasmInt8.medianMs;
  const met = (ok) => (ok ? 'met' : 'not met');
  const rows = THREADS.flatMap((t) =>
    byThreads[t].map(
      (r) =>
        `| ${r.name} | ${t} | ${f(r.times.qwasmInt8.medianMs, 0)} | ${f(r.times.ortInt8.medianMs, 0)} | ${f(r.times.ortFloat.medianMs, 0)} | ${f(vs(r, 'ortInt8'), 2)}x | ${f(vs(r, 'ortFloat'), 2)}x |`,
    ),
  ).join('\n');
  const one = byThreads[1];
  const about = one
    .map(
      (r) =>
        `| ${r.name} | ${r.meta.about} | [${r.meta.shape.join(', ')}] | ${(r.meta.parameters / 1e6).toFixed(2)} M | ${mb(r.meta.bytes['qwasm.safetensors'])} / ${mb(r.meta.bytes['int8.onnx'])} / ${mb(r.meta.bytes['float.onnx'])} | ${mb(r.modelBytes)} (${mb(r.winograd)} Winograd) | ${mb(r.peak)} |`,
    )
    .join('\n');
  const agreeRows = one
    .map(
      (r) =>
        `| ${r.name} | ${r.meta.task === 'segmentation' ? 'voxel classes' : 'top-1'} | ${pct(r.agree.qwasmVsTorchInt8)} | ${pct(r.agree.qwasmVsTorchFloat)} | ${pct(r.agree.ortInt8VsTorchFloat)} |`,
    )
    .join('\n');
  const layerRows = one
    .map((r) => {
      const total = r.byKind.reduce((a, [, ms]) => a + ms, 0);
      return `| ${r.name} | ${r.byKind
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([k, ms]) => `${k} ${f(ms, 0)} ms (${f((100 * ms) / total, 0)}%)`)
        .join(', ')} |`;
    })
    .join('\n');
  const targets = THREADS.flatMap((t) =>
    byThreads[t].map(
      (r) =>
        `${r.name} at ${t}: ${f(vs(r, 'ortInt8'), 2)}x int8 (${met(vs(r, 'ortInt8') >= TARGET_INT8)}), ${f(vs(r, 'ortFloat'), 2)}x float (${met(vs(r, 'ortFloat') >= TARGET_FLOAT)})`,
    ),
  ).join('; ');
  const markdown = `## The model zoo: 3D CNNs users bring, vs onnxruntime-web

Each model of the zoo (tests/models/zoo3d_models.py) at the size its library or paper documents, random weights (fixed seed; BatchNorm statistics from the calibration inputs), one input at a time, at 1 and 2 threads (each in its own process; onnxruntime-web with \`numThreads\` the same, spinning off), median ms over ${ROUNDS} interleaved rounds (bench/zoo.bench.mjs; inputs from bench/zoo_prep.py). qwasm: the model quantized by the README's PT2E recipe (QwasmQuantizer, 2 calibration inputs), run by io.loadModel on the threaded build. onnxruntime-web ${ortVersion}: the same float model exported to ONNX, and its int8 QDQ form from onnxruntime's quantize_static (per-channel qint8 weights, quint8 activations) on the same calibration inputs. Models bench/zoo_prep.py could not prepare (an op qwasm or onnxruntime lacks) are not listed. ${machineLine}, ${date}.

| model | threads | qwasm int8 ms | onnxruntime-web int8 ms | onnxruntime-web float ms | vs ort int8 | vs ort float |
|---|---|---|---|---|---|---|
${rows}

| model | what | input | parameters | file MB: qwasm / ONNX int8 / ONNX float | loaded qwasm model MB | qwasm heap high-water MB (one forward, model included) |
|---|---|---|---|---|---|---|
${about}

Agreement on the benchmark input (the share of equal labels):

| model | labels | qwasm vs PyTorch int8 (PT2E graph) | qwasm vs PyTorch float | onnxruntime int8 vs PyTorch float |
|---|---|---|---|---|
${agreeRows}

Where qwasm's time goes (one forward at one thread, the six largest kinds):

| model | time by layer kind |
|---|---|
${layerRows}

Targets (issue 32: >= ${TARGET_INT8}x onnxruntime-web int8 and >= ${TARGET_FLOAT}x its float at the same thread count): ${targets}.`;
  const readme = `The 3D CNN zoo at documented sizes, qwasm int8 ms / onnxruntime-web int8 ms / its float ms at 1 thread (${date}):

| model | input | qwasm | ort int8 | ort float |
|---|---|---|---|---|
${one
  .map(
    (r) =>
      `| ${r.name} | [${r.meta.shape.join(', ')}] | ${f(r.times.qwasmInt8.medianMs, 0)} | ${f(r.times.ortInt8.medianMs, 0)} (${f(vs(r, 'ortInt8'), 2)}x) | ${f(r.times.ortFloat.medianMs, 0)} (${f(vs(r, 'ortFloat'), 2)}x) |`,
  )
  .join('\n')}`;
  saveResult('5d-zoo', { date, machine: machineLine, byThreads, markdown, readme });
  console.log(markdown);
}

await perThreadCount({ file: import.meta.url, threads: THREADS, name: '5d-zoo', child, render });
