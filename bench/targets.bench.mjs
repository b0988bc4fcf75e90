// Issue 34's targets in one table, read from the results of the benchmarks
// that measure them (bench/results/5-models.json, 2d-winograd.json,
// 2e-depthwise.json, and for the 1 -> 2 thread scaling 5f-scaling.json, several
// processes per thread count): it times nothing itself, so run it after those,
// in the same session (`npm run bench` does). Each missed target gets the
// measurement that explains it, computed from the same results, and the next
// step (docs/winograd.md and docs/kernels.md sketch them).
// `node bench/targets.bench.mjs` after model, winograd, dwconv and scaling.bench.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { saveResult } from './harness.mjs';

const read = (name) => JSON.parse(readFileSync(new URL(`./results/${name}.json`, import.meta.url), 'utf8'));
const models = read('5-models');
const winograd = read('2d-winograd');
const depthwise = read('2e-depthwise');
// Several processes per thread count (bench/scaling.bench.mjs), when that run was made.
const scaling = existsSync(new URL('./results/5f-scaling.json', import.meta.url)) ? read('5f-scaling') : null;

const x = (v) => `${v.toFixed(2)}x`;
const pct = (v) => `${Math.round(100 * v)}%`;
const model = (arch, t) => models.byThreads[t].find((r) => r.arch === arch);
const vsOrt = (r) => r.times.ortInt8.medianMs / r.times.qwasmInt8.medianMs;
const kindMs = (r, test) => r.byKind.filter(([k]) => test(k)).reduce((a, [, ms]) => a + ms, 0);
const totalMs = (r) => kindMs(r, () => true);
const isDirectConv = (k) => /Conv\w*3d \(direct\)/.test(k);
const isWinograd = (k) => /\(winograd\)/.test(k);

// The Winograd table's layers of each model (its kinds of Winograd conv).
const LAYERS_OF = { r3d_18: /^(r3d L|S2)/, mc3_18: /^(r3d L|S2)/, r2plus1d_18: /^r\(2\+1\)d/ };
const layersOf = (arch, t) => winograd.byThreads[t].filter((l) => LAYERS_OF[arch].test(l.id));
const range = (values) => {
  const sorted = values.sort((a, b) => a - b);
  return `${x(sorted[0])}-${x(sorted[sorted.length - 1])}`;
};

/** Where a whole model's time goes at one thread, what its Winograd layers reach alone, and (t = 2) the second thread's gain per kind of layer. */
function modelReason(arch, t) {
  const r1 = model(arch, 1);
  const direct = kindMs(r1, isDirectConv) / totalMs(r1);
  const wino = kindMs(r1, isWinograd) / totalMs(r1);
  const alone = range(layersOf(arch, t).map((l) => l.ort.medianMs / l.winograd.medianMs));
  const base = `the direct convs (stem and strided: the layers Winograd skips) are ${pct(direct)} of qwasm's time at one thread, the Winograd convs ${pct(wino)}; its Winograd layers alone reach ${alone} ort (Winograd table, ${t} thread${t > 1 ? 's' : ''})`;
  return t === 1 ? base : `${base}; 1 -> 2 threads by kind: ${scalingByKind(arch)}`;
}

/** qwasm at 1 thread / at 2 threads, per kind of layer (each thread count's own profile() run). */
function scalingByKind(arch) {
  const one = model(arch, 1);
  const two = new Map(model(arch, 2).byKind);
  const smallest = 0.02 * totalMs(one); // kinds under 2% of the time are left out
  return one.byKind
    .filter(([k, ms]) => ms >= smallest && two.has(k))
    .sort((a, b) => b[1] - a[1])
    .map(([k, ms]) => `${k} ${x(ms / two.get(k))}`)
    .join(', ');
}

const rows = [];
function row(work, measured, target, met, reason = '', next = '') {
  rows.push({ work, measured, target, met, reason: met ? '' : reason, next: met ? '' : next });
}

const STRIDED_NEXT =
  "polyphase Winograd for the stride-2 convs (a stride-2 conv is a sum of stride-1 convs on the input phases), not built; the stems run Winograd along D with winograd: true (r3d_18's: about 1.2x at one thread, for about 24 MB of scratch: docs/winograd.md), a version that builds its int16 input a D-tile at a time, for 'auto', not built";
for (const [arch, target] of [
  ['r3d_18', 3],
  ['r2plus1d_18', 2.5],
  ['mc3_18', 3],
]) {
  for (const t of [1, 2]) {
    const r = model(arch, t);
    row(
      `${arch} whole, ${t} thread${t > 1 ? 's' : ''}`,
      `${x(vsOrt(r))} ort int8 (${r.times.qwasmInt8.medianMs.toFixed(0)} / ${r.times.ortInt8.medianMs.toFixed(0)} ms)`,
      `>= ${target}x`,
      vsOrt(r) >= target,
      modelReason(arch, t),
      STRIDED_NEXT,
    );
  }
}

for (const arch of ['r3d_18', 'r2plus1d_18']) {
  const ofModels = model(arch, 1).times.qwasmInt8.medianMs / model(arch, 2).times.qwasmInt8.medianMs;
  const sc = scaling?.scaling[arch];
  const s = sc ? sc.median : ofModels;
  const perKind = `per kind of layer in the model: ${scalingByKind(arch)}; its Winograd layers alone (Winograd table) scale ${range(layersOf(arch, 1).map((l) => l.winograd.medianMs / layersOf(arch, 2).find((m) => m.id === l.id).winograd.medianMs))}`;
  row(
    `${arch} scaling, 1 -> 2 threads`,
    sc
      ? `${x(s)} (median of ${scaling.processes} processes per thread count, range ${x(sc.low)}-${x(sc.high)}; the whole-model table's one process each: ${x(ofModels)})`
      : `${x(s)} (each thread count in its own process)`,
    '>= 1.8x',
    s >= 1.8,
    sc
      ? `${perKind}; its 2-thread processes differ by up to ${pct(sc.twoThreadSpread)}; at 2 threads ${sc.outsideAtTwo.toFixed(0)} ms of its ${sc.forwardAtTwo.toFixed(0)} ms forward lie outside the layers' own times`
      : `${perKind}; at 2 threads its layers' own times (profile()) sum to ${totalMs(model(arch, 2)).toFixed(0)} ms while its forward took ${model(arch, 2).times.qwasmInt8.medianMs.toFixed(0)} ms: the difference lies outside the layers`,
    sc
      ? 'the kinds of layer that scale least (above), each split per thread; not built'
      : 'run each thread count in several processes and report the spread (bench/scaling.bench.mjs), then find where the time outside the layers goes',
  );
}

const one = winograd.byThreads[1];
for (const l of one.filter((r) => r.kind === '3x1x1')) {
  const ratio = l.ort.medianMs / l.winograd.medianMs;
  const [tin, gemm, tout] = l.split;
  const gemmShare = gemm / (tin + gemm + tout);
  // The ratio if the transforms took no time: below the target, only fewer GEMM products close the gap.
  const freeTransforms = ratio / gemmShare;
  row(
    `(3,1,1) conv ${l.id}, 1 thread`,
    `${x(ratio)} ort int8 (Winograd ${l.winograd.medianMs.toFixed(1)} / ${l.ort.medianMs.toFixed(1)} ms)${l.remeasured ? ' *' : ''}`,
    '>= 2.2x',
    ratio >= 2.2,
    // These layers run F(4, 3) along D (6 points per 4 outputs; tests/native/conv_test.cpp checks the choice).
    freeTransforms < 2.2
      ? `on F(4,3) along D, GEMMs are ${pct(gemmShare)} of its Winograd time: with the transforms free it would reach ${x(freeTransforms)}, still short; the GEMMs run at the dense dot16 kernel's rate`
      : `on F(4,3) along D, GEMMs are ${pct(gemmShare)} of its Winograd time, the transforms the rest (with them free it would reach ${x(freeTransforms)})`,
    ratio >= 2.2
      ? ''
      : freeTransforms < 2.2
        ? `none that a larger tile gives: F(6,3) would be exact in int16 too (G' = 90G and 4B^T: |U| <= 28560, |V| <= 15300) but takes ${Math.ceil(l.shape.spatial[0] / 6) * 8} points for this depth of ${l.shape.spatial[0]} against F(4,3)'s ${Math.ceil(l.shape.spatial[0] / 4) * 6}; the GEMMs would need a faster int8 dot (relaxed SIMD, where the engine lowers it to VNNI: BENCHMARKS.md)`
        : 'cheaper transforms of its 1-D tiles, not built',
  );
}

const s6 = depthwise.rows.find((r) => r.id === 'S6');
const s6Gmacs = s6.macs / s6.ms.exact / 1e6;
row(
  'depthwise 3x3x3, 64 ch, 16x28x28 (S6), 1 thread',
  `${s6Gmacs.toFixed(1)} GMAC/s: ${pct(s6Gmacs / s6.peakGmacs)} of the dense dot16 kernel's ceiling in the same rounds (${s6.peakGmacs.toFixed(1)} GMAC/s), ${pct(s6Gmacs / s6.dwPeakGmacs)} of its own kernel's`,
  '>= 50% of the ceiling',
  s6Gmacs >= 0.5 * s6.peakGmacs,
  `the depthwise kernel itself, on L1-resident data, reaches ${s6.dwPeakGmacs.toFixed(1)} GMAC/s (${pct(s6.dwPeakGmacs / s6.peakGmacs)} of dot16): with no reduction over channels, each pair of taps must be interleaved for each pixel before its dot, so the kernel, not the layer's loop, is what is short`,
  'pair taps of two rows at the same W offset, so that one interleaved pair serves three pixels (docs/kernels.md), not built',
);

const r3d = model('r3d_18', 1);
row(
  'r3d_18 packed weights',
  `${(r3d.packed / 1e6).toFixed(1)} MB, ${x(r3d.packed / r3d.int8)} its ${(r3d.int8 / 1e6).toFixed(1)} MB of int8 weights`,
  '<= 2x int8, same speed',
  r3d.packed <= 2 * r3d.int8,
);

const cell = (s) => s.replaceAll('|', '\\|');
const markdown = `## Issue 34's targets, from one run

Read from the sections this run wrote before it (whole models: ${models.date}; Winograd layers: ${winograd.date}; depthwise: ${depthwise.date}${scaling ? `; two threads, process by process: ${scaling.date}` : ''}), on ${models.machine.replace(/, one thread$/, '')}; bench/targets.bench.mjs times nothing itself. Ratios against onnxruntime-web are medians of interleaved rounds; the 1 -> 2 thread scaling compares ${scaling ? `${scaling.processes} processes per thread count` : 'two processes'}. Where a target is missed, the reason is measured in the same results and the next step named.

| work | measured | target | met | why not, measured | next step |
|---|---|---|---|---|---|
${rows.map((r) => `| ${cell(r.work)} | ${cell(r.measured)} | ${cell(r.target)} | ${r.met ? 'yes' : 'no'} | ${cell(r.reason)} | ${cell(r.next)} |`).join('\n')}`;

const sameDay = new Set([models.date, winograd.date, depthwise.date]).size === 1;
if (!sameDay)
  console.warn('targets.bench: the three results are from different days: run the three benchmarks again together');
saveResult('6-targets', { date: models.date, machine: models.machine, rows, markdown });
console.log(markdown);
