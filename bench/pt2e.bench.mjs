// PT2E against eager (issue 22): torchvision's r3d_18 at full size (random
// init, fixed seed), the same float model quantized two ways on the same
// calibration clips, both run by qwasm (io.loadModel, the threaded build with
// a pool of t threads; each thread count in a child process of its own), one
// clip (1x3x16x112x112) at a time, interleaved in one run:
// - eager: PyTorch's eager flow (python/qwasm_video.py, fbgemm QConfig),
//   bench/output/models/r3d_18.qwasm.safetensors from bench/model_prep.py;
// - PT2E: torchao's prepare_pt2e / convert_pt2e with python/qwasm_quantizer.py's
//   QwasmQuantizer, r3d_18.pt2e.qwasm.safetensors from bench/pt2e_prep.py.
// Also: the quantized convolutions of each, the path (exact integer Winograd
// or direct) and micro-kernel each took, conv by conv; where the time goes
// (per layer kind, one thread); top-1 agreement between the two on the
// benchmark clips, and of each with PyTorch (float, and its own int8 logits).
//
// Needs bench/output/models from `python3 bench/model_prep.py` then
// `python3 bench/pt2e_prep.py` (torch, torchvision, torchao); says so and
// exits when they are missing.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { interleave, machine, median, saveResult } from './harness.mjs';

const DIR = new URL('./output/models/', import.meta.url);
const FILES = {
  eager: 'r3d_18.qwasm.safetensors',
  pt2e: 'r3d_18.pt2e.qwasm.safetensors',
};
const THREADS = [1, 2];
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 7);
const PROFILE_ROUNDS = 5;
// Issue 22: PT2E as fast as eager; PT2E / eager at most this (the run-to-run noise of a shared machine).
const TOLERANCE = 1.05;

if (process.argv[2] !== '--render') {
  const missing = (f) => !existsSync(new URL(f, DIR));
  if (['clips.bin', 'r3d_18.json', FILES.eager].some(missing)) {
    console.log('pt2e.bench: bench/output/models is missing: run python3 bench/model_prep.py (needs torch) first');
    process.exit(0);
  }
  if (['r3d_18.pt2e.json', FILES.pt2e].some(missing)) {
    console.log('pt2e.bench: the PT2E model is missing: run python3 bench/pt2e_prep.py (needs torch, torchao) first');
    process.exit(0);
  }
}

const argmax = (a) => a.reduce((best, v, i) => (v > a[best] ? i : best), 0);

async function child(threads) {
  const qwasm = await import('../web/src/node-entry.mjs');
  await qwasm.init({
    numThreads: threads,
    _moduleFactory: createRequire(import.meta.url)('../build/wasm/qwasm.testing.mt.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
  });
  const meta = JSON.parse(readFileSync(new URL('r3d_18.json', DIR), 'utf8'));
  const pt2eMeta = JSON.parse(readFileSync(new URL('r3d_18.pt2e.json', DIR), 'utf8'));
  const clipsAll = new Float32Array(readFileSync(new URL('clips.bin', DIR)).buffer.slice(0));
  const clipSize = meta.shape.reduce((a, b) => a * b, 1);
  const clip = (i) => ({ data: clipsAll.subarray(i * clipSize, (i + 1) * clipSize), shape: meta.shape });
  const models = Object.fromEntries(
    Object.entries(FILES).map(([k, f]) => [k, qwasm.io.loadModel(readFileSync(new URL(f, DIR)))]),
  );
  const x0 = clip(0);

  // Agreement (at one thread: the integers do not depend on the thread count).
  let agreement = null;
  if (threads === 1) {
    const a = { clips: meta.clips, top1EagerPt2e: 0, top1EagerFloat: 0, top1Pt2eFloat: 0, eagerBitExact: 0 };
    Object.assign(a, { top1Pt2eTorch: 0, pt2eBitExact: 0, pt2eMaxAbsDiff: 0, pt2eDiffering: 0, logits: 0 });
    // The PT2E graph ends with fc's quantize then a dequantize: its logits are steps of fc's scale.
    a.pt2eOutputScale = models.pt2e.getSubmodule('fc').scale;
    for (let i = 0; i < meta.clips; i++) {
      const e = models.eager.forward(clip(i)).data;
      const p = models.pt2e.forward(clip(i)).data;
      const fl = meta.float_logits[i];
      const pt = pt2eMeta.pt2e_logits[i];
      if (argmax(e) === argmax(p)) a.top1EagerPt2e++;
      if (argmax(e) === argmax(fl)) a.top1EagerFloat++;
      if (argmax(p) === argmax(fl)) a.top1Pt2eFloat++;
      if (argmax(p) === argmax(pt)) a.top1Pt2eTorch++;
      const want = Float32Array.from(meta.int8_logits[i]);
      if (e.every((v, k) => Object.is(v, want[k]))) a.eagerBitExact++;
      const wantP = Float32Array.from(pt);
      if (p.every((v, k) => Object.is(v, wantP[k]))) a.pt2eBitExact++;
      for (let k = 0; k < p.length; k++) {
        const d = Math.abs(p[k] - wantP[k]);
        a.pt2eMaxAbsDiff = Math.max(a.pt2eMaxAbsDiff, d);
        if (d > 0) a.pt2eDiffering++;
      }
      a.logits += p.length;
    }
    agreement = a;
  }

  // The quantized convolutions, conv by conv (after a forward: which path and kernel it ran).
  const convs = {};
  for (const [k, m] of Object.entries(models)) {
    m.forward(x0);
    convs[k] = m
      .namedModules()
      .filter(([, mod]) => typeof mod.lastPath === 'function' && /Conv/.test(mod.constructor.name))
      .map(([path, mod]) => ({
        path,
        kind: mod.constructor.name,
        way: mod.lastPath(),
        kernel: mod.lastKernel(),
        backend: mod.backend,
      }));
  }

  const times = await interleave(
    [
      { name: 'eager', fn: () => models.eager.forward(x0) },
      { name: 'pt2e', fn: () => models.pt2e.forward(x0) },
    ],
    { warmup: 1, rounds: ROUNDS },
  );
  // Each round ran both, next to each other: the ratio per round cancels the machine's slow moments.
  const perRound = times.pt2e.all.map((ms, r) => ms / times.eager.all[r]);

  // Where the time goes: per layer kind, the median over profile runs (alternating), at one thread.
  let byKind = null;
  if (threads === 1) {
    byKind = {};
    const runs = { eager: [], pt2e: [] };
    for (let r = 0; r < PROFILE_ROUNDS; r++) {
      for (const k of r % 2 ? ['pt2e', 'eager'] : ['eager', 'pt2e']) {
        const m = models[k];
        const kinds = new Map();
        for (const l of m.profile(x0).layers) {
          const mod = l.op === 'call_module' ? m.getSubmodule(l.target) : null;
          const kind = mod ? mod.constructor.name : l.target;
          kinds.set(kind, (kinds.get(kind) ?? 0) + l.ms);
        }
        runs[k].push(kinds);
      }
    }
    for (const [k, list] of Object.entries(runs)) {
      const names = [...new Set(list.flatMap((kinds) => [...kinds.keys()]))];
      byKind[k] = names.map((n) => [n, median(list.map((kinds) => kinds.get(n) ?? 0))]);
    }
  }
  const result = {
    threads,
    times,
    ratioOfMedians: times.pt2e.medianMs / times.eager.medianMs,
    medianRoundRatio: median(perRound),
    convs,
    agreement,
    byKind,
    bytes: Object.fromEntries(Object.entries(FILES).map(([k, f]) => [k, readFileSync(new URL(f, DIR)).length])),
    engines: Object.fromEntries(Object.entries(models).map(([k, m]) => [k, m.engine])),
    versions: { torch: pt2eMeta.torch, torchao: pt2eMeta.torchao },
  };
  for (const m of Object.values(models)) m.dispose();
  process.stderr.write(`r3d_18 at ${threads}: ${JSON.stringify({ times, perRound })}\n`);
  // Exit once the results are flushed: the thread pool would keep the process alive.
  process.stdout.write(JSON.stringify(result), () => process.exit(0));
}

function render(byThreads, date, machineLine, rounds) {
  const one = byThreads[1];
  const f = (v, d = 1) => v.toFixed(d);
  const count = (list, way) => list.filter((c) => c.way === way).length;
  const { eager, pt2e } = one.convs;
  const byPath = new Map(eager.map((c) => [c.path, c]));
  const same = pt2e.filter((c) => {
    const e = byPath.get(c.path);
    return e && e.kind === c.kind && e.way === c.way && e.kernel === c.kernel;
  }).length;
  const kernels = [...new Set([...eager, ...pt2e].map((c) => `${c.kernel} (${c.way})`))].join(', ');
  const backends = (list) => [...new Set(list.map((c) => c.backend))].join(', ');
  const convSummary = (list) =>
    `${list.length} (${count(list, 'winograd')} Winograd, ${count(list, 'direct')} direct: ${list
      .filter((c) => c.way === 'direct')
      .map((c) => c.path)
      .join(', ')})`;
  const rows = THREADS.map((t) => {
    const r = byThreads[t];
    return `| ${t} | ${f(r.times.eager.medianMs, 0)} | ${f(r.times.pt2e.medianMs, 0)} | ${f(r.ratioOfMedians, 3)} | ${f(r.medianRoundRatio, 3)} |`;
  }).join('\n');
  const kindRows = (() => {
    const e = new Map(one.byKind.eager);
    const p = new Map(one.byKind.pt2e);
    const names = [...new Set([...e.keys(), ...p.keys()])].sort(
      (a, b) => Math.max(p.get(b) ?? 0, e.get(b) ?? 0) - Math.max(p.get(a) ?? 0, e.get(a) ?? 0),
    );
    const cell = (m, n) => (m.has(n) ? f(m.get(n), 1) : '—');
    const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
    return `${names.map((n) => `| ${n} | ${cell(e, n)} | ${cell(p, n)} |`).join('\n')}\n| total | ${f(total(e), 1)} | ${f(total(p), 1)} |`;
  })();
  const a = one.agreement;
  const met = THREADS.map((t) => {
    const r = byThreads[t].ratioOfMedians;
    return `${t} thread${t > 1 ? 's' : ''}: ${f(r, 3)} (<= ${TOLERANCE}: ${r <= TOLERANCE ? 'met' : 'not met'})`;
  }).join('; ');
  const markdown = `## PT2E and eager r3d_18: the same kernels

torchvision's r3d_18 at full size (random init, fixed seed), one clip [1, 3, 16, 112, 112], quantized two ways from the same float model on the same 4 calibration clips and run by qwasm's io.loadModel (default \`winograd: 'auto'\`, the threaded build with a pool of t threads, each thread count in its own process): eager, PyTorch's eager flow (python/qwasm_video.py, fbgemm QConfig; bench/model_prep.py), and PT2E, torch.export then torchao ${one.versions.torchao}'s prepare_pt2e / convert_pt2e with python/qwasm_quantizer.py's QwasmQuantizer (bench/pt2e_prep.py; torch ${one.versions.torch}). Median ms over ${rounds} interleaved rounds (bench/pt2e.bench.mjs); "per-round ratio": the median of PT2E / eager within each round. ${machineLine}, ${date}.

| threads | eager ms | PT2E ms | PT2E / eager (medians) | PT2E / eager (per-round ratio) |
|---|---|---|---|---|
${rows}

- Quantized convolutions: eager ${convSummary(eager)}; PT2E ${convSummary(pt2e)}. The same path and micro-kernel for ${same} / ${pt2e.length} of them, conv by conv (by module path): ${kernels}. Requantization follows each file's engine (eager: ${one.engines.eager}, convs ${backends(eager)}; PT2E: ${one.engines.pt2e}, convs ${backends(pt2e)}), after the same kernels.
- Top-1 agreement on ${a.clips} benchmark clips: qwasm eager vs qwasm PT2E ${a.top1EagerPt2e} / ${a.clips}; with PyTorch float: eager ${a.top1EagerFloat} / ${a.clips}, PT2E ${a.top1Pt2eFloat} / ${a.clips}. Against PyTorch's own int8 logits: eager bit for bit on ${a.eagerBitExact} / ${a.clips} clips; PT2E (PyTorch's reference dequantize -> float op -> quantize graph, not bit for bit: docs/numerics.md) top-1 ${a.top1Pt2eTorch} / ${a.clips}, bit for bit on ${a.pt2eBitExact} / ${a.clips} clips, ${a.pt2eDiffering} of ${a.logits} logits differ, by at most ${a.pt2eMaxAbsDiff.toPrecision(3)} (${f(a.pt2eMaxAbsDiff / a.pt2eOutputScale, 1)} steps of the output scale ${a.pt2eOutputScale.toPrecision(3)}).
- Files: eager ${(one.bytes.eager / 1e6).toFixed(2)} MB, PT2E ${(one.bytes.pt2e / 1e6).toFixed(2)} MB.

Where the time goes at one thread (ms by module kind or function, median of ${PROFILE_ROUNDS} profile() runs each; profile() times node by node):

| layer kind | eager ms | PT2E ms |
|---|---|---|
${kindRows}

Target (issue 22), PT2E / eager (medians) <= ${TOLERANCE}: ${met}.`;
  const readme = `r3d_18 quantized by PyTorch's eager flow and by PT2E (QwasmQuantizer), one 16-frame clip, qwasm ms (${date}):

| r3d_18 | 1 thread | 2 threads |
|---|---|---|
| eager | ${THREADS.map((t) => f(byThreads[t].times.eager.medianMs, 0)).join(' | ')} |
| PT2E | ${THREADS.map((t) => f(byThreads[t].times.pt2e.medianMs, 0)).join(' | ')} |
| PT2E / eager | ${THREADS.map((t) => `${f(byThreads[t].ratioOfMedians, 3)}x`).join(' | ')} |`;
  saveResult('5a-pt2e', { date, machine: machineLine, rounds, byThreads, markdown, readme });
  console.log(markdown);
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else if (process.argv[2] === '--render') {
  const saved = JSON.parse(readFileSync(new URL('./results/5a-pt2e.json', import.meta.url), 'utf8'));
  render(saved.byThreads, saved.date, saved.machine, saved.rounds);
} else {
  const self = fileURLToPath(import.meta.url);
  const byThreads = {};
  for (const t of THREADS) {
    process.stderr.write(`${t} thread(s)...\n`);
    byThreads[t] = JSON.parse(execFileSync(process.execPath, [self, '--child', String(t)], { maxBuffer: 1 << 26 }));
  }
  // machine() says 'one thread': here the thread count is the table's.
  render(byThreads, new Date().toISOString().slice(0, 10), machine().replace(', one thread', ''), ROUNDS);
}
