// The exact integer Winograd path, layer by layer: r3d_18's stride-1 3x3x3
// convolutions, S2, r2plus1d_18's (1,3,3) and (3,1,1) convolutions and an
// odd-sized layer (ConvReLU3d, batch 1), each as qwasm's direct convolution,
// qwasm's Winograd path (same module from the same float weights, fromFloat
// with winograd false / true) and onnxruntime-web's QLinearConv on the same
// integers, at 1 and 2 threads. Each thread count runs in a child process of
// its own (onnxruntime-web fixes its threads when its wasm starts); qwasm
// runs the threaded benchmark build with a pool of that many threads. The
// Winograd time is split into input transform / GEMMs / output transform +
// requantization (summed over threads, from the core's own timers on extra
// runs), and the outputs of both paths are compared byte for byte.
// QWASM_BENCH_ONLY=<regexp on layer ids> with QWASM_BENCH_MERGE=1 re-measures
// some layers and puts their rows, marked, into the saved run's table.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { median, saveResult, timeAroundPeer } from './harness.mjs';
import { qlinearConvModel } from './onnx-models.mjs';
import { buildConvReLU3d, macs } from './workloads.mjs';

const THREADS = [1, 2];
const RUNS = Number(process.env.QWASM_BENCH_RUNS ?? 7);
const K333 = [3, 3, 3];
const K133 = [1, 3, 3];
const K311 = [3, 1, 1];
const LAYERS = [
  { id: 'r3d L1', kind: '3x3x3', cin: 64, cout: 64, spatial: [16, 56, 56], kernel: K333 },
  { id: 'r3d L2', kind: '3x3x3', cin: 128, cout: 128, spatial: [8, 28, 28], kernel: K333 },
  { id: 'r3d L3', kind: '3x3x3', cin: 256, cout: 256, spatial: [4, 14, 14], kernel: K333 },
  { id: 'r3d L4', kind: '3x3x3', cin: 512, cout: 512, spatial: [2, 7, 7], kernel: K333 },
  { id: 'S2', kind: 'S2', cin: 64, cout: 64, spatial: [16, 28, 28], kernel: K333 },
  { id: 'r(2+1)d L1 s', kind: '1x3x3', cin: 64, cout: 144, spatial: [16, 56, 56], kernel: K133 },
  { id: 'r(2+1)d L1 t', kind: '3x1x1', cin: 144, cout: 64, spatial: [16, 56, 56], kernel: K311 },
  { id: 'r(2+1)d L3 s', kind: '1x3x3', cin: 256, cout: 576, spatial: [4, 14, 14], kernel: K133 },
  { id: 'r(2+1)d L3 t', kind: '3x1x1', cin: 576, cout: 256, spatial: [4, 14, 14], kernel: K311 },
  // The second half of r2plus1d_18's stem (45 -> 64 after the (1,7,7) conv), at its full 16x56x56.
  { id: 'r(2+1)d stem t', kind: '3x1x1', cin: 45, cout: 64, spatial: [16, 56, 56], kernel: K311 },
  { id: 'odd', kind: '3x3x3', cin: 48, cout: 40, spatial: [7, 13, 11], kernel: K333 },
  // MeshNet's dilated layers (brainchop; 21 channels, padding = dilation) at 64^3:
  // interleaved undilated tiles.
  ...[1, 2, 4, 8].map((d) => ({
    id: `MeshNet d${d}`,
    kind: 'dilated',
    cin: 21,
    cout: 21,
    spatial: [64, 64, 64],
    kernel: K333,
    dilation: [d, d, d],
  })),
].map((s) => ({
  n: 1,
  ...s,
  stride: [1, 1, 1],
  pad: s.kernel.map((k, i) => ((k - 1) / 2) * (s.dilation?.[i] ?? 1)),
  groups: 1,
}));
// Targets, one thread, vs onnxruntime-web QLinearConv (issue 19).
const TARGETS = { '3x3x3': 2.5, S2: 3, '1x3x3': 2, '3x1x1': 2.2 };

const timeBoth = (ours, theirs) => timeAroundPeer(ours, theirs, RUNS);

async function child(threads) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  const require = createRequire(import.meta.url);
  const qwasm = await import('../web/src/node-entry.mjs');
  await qwasm.init({
    numThreads: threads,
    _moduleFactory: require('../build/wasm/qwasm.testing.mt.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
  });
  const opts = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  const rows = [];
  // QWASM_BENCH_ONLY (a regular expression on the layer ids) runs some layers only.
  const only = process.env.QWASM_BENCH_ONLY ? new RegExp(process.env.QWASM_BENCH_ONLY) : null;
  for (const c of LAYERS.filter((l) => !only || only.test(l.id))) {
    process.stderr.write(`  ${c.id} at ${threads}\n`);
    const { qmod: wino, qx, fmod, outObs, ortParams: q } = buildConvReLU3d(qwasm, c, { winograd: true });
    const direct = qwasm.nn.intrinsic.quantized.ConvReLU3d.fromFloat(fmod, {
      activationObserver: outObs,
      winograd: false,
    });
    const session = await ort.InferenceSession.create(qlinearConvModel(c, q), opts);
    const xq = new ort.Tensor('uint8', qx.intRepr(), [1, c.cin, ...c.spatial]);
    const a = wino.forward(qx);
    const path = wino.lastPath();
    const b = direct.forward(qx);
    const bInts = b.intRepr();
    const same = a.intRepr().every((v, i) => v === bInts[i]);
    a.dispose();
    b.dispose();
    const t = await timeBoth(
      [
        { name: 'direct', fn: () => direct.forward(qx).dispose() },
        { name: 'winograd', fn: () => wino.forward(qx).dispose() },
      ],
      { name: 'ort', fn: () => session.run({ x: xq }) },
    );
    // The split, from the core's timers (the package's diagnostics), on runs of their own.
    wino.timeWinogradPhases(true);
    const splits = [];
    for (let i = 0; i < 5; i++) {
      wino.forward(qx).dispose();
      const ms = wino.lastWinogradPhaseMs();
      splits.push([ms.inputTransform, ms.gemm, ms.outputTransform]);
    }
    wino.timeWinogradPhases(false);
    const split = [0, 1, 2].map((k) => median(splits.map((s) => s[k])));
    rows.push({
      id: c.id,
      kind: c.kind,
      shape: c,
      macs: macs(c),
      same,
      path,
      split,
      winogradBytes: wino.winogradWeightBytes(),
      directBytes: direct.packedWeightBytes(),
      ...t,
    });
    await session.release();
    for (const d of [qx, wino, direct, fmod]) d.dispose();
  }
  // Exit once the rows are flushed: onnxruntime-web's workers would keep the process alive.
  process.stdout.write(JSON.stringify(rows), () => process.exit(0));
}

// The tables from the measurements (`--render` redoes them from the saved results).
// machine: the run's CPU and Node line (a saved run keeps its own).
const thisMachine = () => `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
function savedMachine(saved) {
  return (
    saved.machine ?? /Winograd path taken: (?:yes|\*\*NO\*\*)\. (.*), \d{4}-\d\d-\d\d\.\n/.exec(saved.markdown)?.[1]
  );
}

function render(byThreads, date, machine = thisMachine()) {
  const fmt = (v, d = 1) => v.toFixed(d);
  const desc = (c) =>
    `${c.cin}->${c.cout}, k${c.kernel.join('x')}${c.dilation ? `, dilation ${c.dilation[0]}` : ''}, ${c.spatial.join('x')}`;
  const pct = (part, whole) => `${fmt((100 * part) / whole, 0)}%`;
  const row = (t, r) => {
    const total = r.split[0] + r.split[1] + r.split[2];
    return `| ${r.id}${r.remeasured ? ' *' : ''} | ${desc(r.shape)} | ${t} | ${fmt(r.direct.medianMs)} | ${fmt(r.winograd.medianMs)} | ${fmt(r.ort.medianMs)} | ${fmt(r.direct.medianMs / r.winograd.medianMs, 2)}x | ${fmt(r.ort.medianMs / r.winograd.medianMs, 2)}x | ${fmt(r.ort.medianMs / r.direct.medianMs, 2)}x | ${pct(r.split[0], total)} / ${pct(r.split[1], total)} / ${pct(r.split[2], total)} | ${fmt(r.winogradBytes / 2 ** 20, 2)} |`;
  };
  const table = THREADS.flatMap((t) => byThreads[t].map((r) => row(t, r))).join('\n');
  const allSame = Object.values(byThreads).every((rows) => rows.every((r) => r.same && r.path === 'winograd'));
  const one = byThreads[1];
  const ratio = (r) => r.ort.medianMs / r.winograd.medianMs;
  const targets = Object.entries(TARGETS).map(([kind, want]) => {
    const rs = one.filter((r) => r.kind === kind);
    const got = rs.map((r) => `${r.id} ${fmt(ratio(r), 2)}x`).join(', ');
    return `- ${kind === 'S2' ? 'S2' : `${kind} layers`}: ${got} (target >= ${want}x: ${rs.every((r) => ratio(r) >= want) ? 'met' : 'not met'})`;
  });
  // Rows re-measured in a run of their own (QWASM_BENCH_MERGE), marked *.
  const remeasured = [...new Set(Object.values(byThreads).flatMap((rows) => rows.map((r) => r.remeasured)))].filter(
    Boolean,
  );
  const remeasuredNote = remeasured.length
    ? `\n\n\\* Re-measured in a run of its own (\`QWASM_BENCH_ONLY\` with \`QWASM_BENCH_MERGE=1\`), the other rows are from the run above: ${remeasured.join('; ')}.`
    : '';
  const sixtyFour = one.filter((r) => r.shape.cin === 64 && r.shape.cout === 64);
  const transforms = sixtyFour
    .map((r) => `${r.id} ${pct(r.split[0] + r.split[2], r.split[0] + r.split[1] + r.split[2])}`)
    .join(', ');
  const markdown = `## Exact integer Winograd: layer by layer

ConvReLU3d, batch 1, stride 1, 'same' padding, calibrated like the conv table (bench/workloads.mjs): qwasm's direct convolution and its exact integer Winograd path (the same float module through \`fromFloat\` with \`winograd: false\` / \`true\`) and onnxruntime-web's QLinearConv on the same integers (bench/winograd.bench.mjs). Each thread count runs in its own process; qwasm at t threads is the threaded build with a pool of t threads, onnxruntime-web has \`numThreads = t\`; qwasm's two paths are timed in interleaved rounds before and after onnxruntime-web's rounds, medians of ${RUNS}. Split: the Winograd path's time in input transform / GEMMs / output transform + requantization, summed over threads (the core's own timers, 5 extra runs). Both paths gave the same bytes on every row, with the Winograd path taken: ${allSame ? 'yes' : '**NO**'}. ${machine}, ${date}.

| layer | shape | threads | direct ms | Winograd ms | ort int8 ms | Winograd vs direct | Winograd vs ort | direct vs ort | split in / GEMM / out | Winograd weights MiB |
|---|---|---|---|---|---|---|---|---|---|---|
${table}${remeasuredNote}

Targets, one thread, Winograd vs onnxruntime-web QLinearConv:
${targets.join('\n')}

The transforms' share of the 64-channel layers' Winograd time (one thread): ${transforms}.`;
  const readmeNote = remeasured.length
    ? `\n\n\\* re-measured later in a run of its own (BENCHMARKS.md says when and how): its ratio to onnxruntime-web is of that run; its milliseconds do not compare with the other rows'.`
    : '';
  const readme = `Exact integer Winograd (stride-1 3-tap convolutions, the same bytes as the direct kernel), one thread, ms (${date}):

| layer | shape | Winograd | direct | onnxruntime-web int8 | Winograd vs ort |
|---|---|---|---|---|---|
${one.map((r) => `| ${r.id}${r.remeasured ? ' *' : ''} | ${desc(r.shape)} | ${fmt(r.winograd.medianMs)} | ${fmt(r.direct.medianMs)} | ${fmt(r.ort.medianMs)} | ${fmt(ratio(r), 2)}x |`).join('\n')}${readmeNote}`;
  saveResult('2d-winograd', { date, machine, byThreads, markdown, readme });
  console.log(markdown);
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else if (process.argv[2] === '--render') {
  const saved = JSON.parse(readFileSync(new URL('./results/2d-winograd.json', import.meta.url), 'utf8'));
  render(saved.byThreads, saved.date, savedMachine(saved));
} else {
  const self = fileURLToPath(import.meta.url);
  const byThreads = {};
  for (const t of THREADS) {
    process.stderr.write(`${t} thread(s)...\n`);
    byThreads[t] = JSON.parse(execFileSync(process.execPath, [self, '--child', String(t)], { maxBuffer: 1 << 24 }));
  }
  const date = new Date().toISOString().slice(0, 10);
  if (process.env.QWASM_BENCH_MERGE === '1') {
    // The rows of QWASM_BENCH_ONLY replace the saved run's rows of the same layer;
    // QWASM_BENCH_NOTE says under what conditions (e.g. a loaded machine).
    const saved = JSON.parse(readFileSync(new URL('./results/2d-winograd.json', import.meta.url), 'utf8'));
    const note = `${date}, ${thisMachine()}${process.env.QWASM_BENCH_NOTE ? `, ${process.env.QWASM_BENCH_NOTE}` : ''}`;
    for (const t of THREADS) {
      for (const row of byThreads[t]) {
        const i = saved.byThreads[t].findIndex((r) => r.id === row.id);
        const tagged = { ...row, remeasured: note };
        if (i >= 0) saved.byThreads[t][i] = tagged;
        else saved.byThreads[t].push(tagged);
      }
    }
    render(saved.byThreads, saved.date, savedMachine(saved));
  } else {
    render(byThreads, date);
  }
}
