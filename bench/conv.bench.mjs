// ConvReLU3d, batch 1, kernel 3, padding 1 (unless said), one thread, same
// data everywhere: qwasm int8 SIMD, qwasm int8 scalar, qwasm float SIMD,
// onnxruntime-web QLinearConv and float Conv + Relu, and the peak of the int8
// kernel's instruction mix, all measured in this one run.
import * as ort from 'onnxruntime-web';
import { initBench, machine, median, saveResult, time } from './harness.mjs';
import { floatConvReluModel, qlinearConvModel } from './onnx-models.mjs';

const SHAPES = [
  { id: 'S1', cin: 16, cout: 32, spatial: [8, 32, 32] },
  { id: 'S2', cin: 64, cout: 64, spatial: [16, 28, 28] },
  { id: 'S3', cin: 3, cout: 64, spatial: [16, 56, 56] },
  { id: 'S4', cin: 128, cout: 128, spatial: [8, 14, 14] },
  { id: 'S5', cin: 64, cout: 128, spatial: [16, 28, 28], stride: 2 },
  { id: 'S6', cin: 64, cout: 64, spatial: [16, 28, 28], groups: 64, note: 'depthwise' },
].map((s) => ({
  n: 1,
  ...s,
  kernel: [3, 3, 3],
  stride: Array(3).fill(s.stride ?? 1),
  pad: [1, 1, 1],
  groups: s.groups ?? 1,
}));

const only = process.env.QWASM_BENCH_SHAPES?.split(',');
const RUNS = Number(process.env.QWASM_BENCH_RUNS ?? 7);

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function outSpatial(c) {
  return c.spatial.map((d, i) => Math.floor((d + 2 * c.pad[i] - c.kernel[i]) / c.stride[i]) + 1);
}

function macs(c) {
  return (
    c.n * c.cout * outSpatial(c).reduce((a, b) => a * b, 1) * (c.cin / c.groups) * c.kernel.reduce((a, b) => a * b, 1)
  );
}

async function timeAsync(fn, { warmup = 2, runs = RUNS } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return { medianMs: median(ms), minMs: Math.min(...ms), runs };
}

async function benchShape(c) {
  const next = rng(7 + c.cin * 131 + c.cout);
  const inNumel = c.n * c.cin * c.spatial.reduce((a, b) => a * b, 1);
  const x = new Float32Array(inNumel).map(() => next() * 4 - 1);
  const fconv = new qwasm.nn.Conv3d(c.cin, c.cout, c.kernel, { stride: c.stride, padding: c.pad, groups: c.groups });
  const fmod = new qwasm.nn.intrinsic.ConvReLU3d(fconv, new qwasm.nn.ReLU());
  const xt = { data: x, shape: [c.n, c.cin, ...c.spatial] };

  // Calibrate like PyTorch's eager flow: observe input and float output, then fromFloat.
  const inObs = new qwasm.quantization.MinMaxObserver();
  inObs.observe(xt);
  const outObs = new qwasm.quantization.MinMaxObserver();
  outObs.observe(fmod.forward(xt));
  const qmod = qwasm.nn.intrinsic.quantized.ConvReLU3d.fromFloat(fmod, { activationObserver: outObs });
  const { scale: aScale, zeroPoint: aZp } = inObs.calculateQParams();
  const qx = qwasm.quantizePerTensor(xt, aScale, aZp, 'quint8');

  const row = { id: c.id, shape: c, macs: macs(c) };
  row.int8Simd = time(() => qmod.forward(qx).dispose(), { warmup: 3, runs: RUNS });
  row.scratchBytes = qmod.lastScratchBytes();
  row.packedWeightBytes = qmod.packedWeightBytes();
  qwasm.setKernelIsa('scalar');
  row.int8Scalar = time(() => qmod.forward(qx).dispose(), { warmup: 1, runs: 3 });
  qwasm.setKernelIsa('auto');
  row.floatSimd = time(() => fmod.forward(xt), { warmup: 2, runs: RUNS });

  // onnxruntime-web on the same integers and floats.
  const w = qmod.weight();
  const wScales = Float32Array.from(w.qPerChannelScales());
  const wInt8 = w.intRepr();
  w.dispose();
  const bias = fconv.bias.data;
  const biasInt32 = Int32Array.from(bias, (b, oc) => Math.round(b / (Math.fround(aScale) * wScales[oc])));
  const q = { wInt8, wScales, biasInt32, aScale, aZp, outScale: qmod.scale, outZp: qmod.zeroPoint };
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const qsession = await ort.InferenceSession.create(qlinearConvModel(c, q), opts);
  const fsession = await ort.InferenceSession.create(floatConvReluModel(c, fconv.weight.data, bias), opts);
  const xq = new ort.Tensor('uint8', qx.intRepr(), [c.n, c.cin, ...c.spatial]);
  const xf = new ort.Tensor('float32', x, [c.n, c.cin, ...c.spatial]);
  row.ortInt8 = await timeAsync(() => qsession.run({ x: xq }));
  row.ortFloat = await timeAsync(() => fsession.run({ x: xf }));

  // Agreement (information, not a test): LSBs between qwasm and onnxruntime's QLinearConv.
  const ours = qmod.forward(qx);
  const theirs = (await qsession.run({ x: xq })).y.data;
  const mine = ours.intRepr();
  ours.dispose();
  let maxDiff = 0;
  let differing = 0;
  for (let i = 0; i < mine.length; i++) {
    const d = Math.abs(mine[i] - theirs[i]);
    maxDiff = Math.max(maxDiff, d);
    differing += d !== 0;
  }
  row.ortAgreement = { maxLsb: maxDiff, differingShare: differing / mine.length };
  await qsession.release();
  await fsession.release();
  qx.dispose();
  qmod.dispose();
  fmod.dispose();
  return row;
}

ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
const { qwasm, M } = await initBench();

// Peak of the int8 kernel's instruction mix, measured now, on this machine.
const peakReps = 20000;
const peakPairs = 256;
const peak = time(() => M._peakDot16(peakReps, peakPairs), { warmup: 3, runs: 9 });
const peakGmacs = (peakReps * peakPairs * 64) / (peak.medianMs * 1e6);

const rows = [];
for (const c of SHAPES) {
  if (only && !only.includes(c.id)) continue;
  process.stderr.write(`${c.id}...\n`);
  rows.push(await benchShape(c));
}

const gmacs = (r, t) => r.macs / (t.medianMs * 1e6);
const fmt = (v, d = 1) => v.toFixed(d);
const desc = (c) =>
  `${c.cin}->${c.cout}${c.groups > 1 ? ` g${c.groups}` : ''}, ${c.spatial.join('x')}${c.stride[0] > 1 ? `, s${c.stride[0]}` : ''}`;
const table = rows.map((r) =>
  [
    r.id,
    desc(r.shape),
    fmt(r.macs / 1e9, 2),
    fmt(r.int8Simd.medianMs),
    fmt(gmacs(r, r.int8Simd)),
    `${fmt((100 * gmacs(r, r.int8Simd)) / peakGmacs, 0)}%`,
    fmt(r.int8Scalar.medianMs),
    fmt(r.floatSimd.medianMs),
    fmt(r.ortInt8.medianMs),
    fmt(r.ortFloat.medianMs),
    `${fmt(r.ortInt8.medianMs / r.int8Simd.medianMs, 2)}x`,
    `${fmt(r.ortFloat.medianMs / r.int8Simd.medianMs, 2)}x`,
    `${fmt(r.floatSimd.medianMs / r.int8Simd.medianMs, 2)}x`,
    `${fmt(r.scratchBytes / 2 ** 20, 2)} MiB`,
    `${r.ortAgreement.maxLsb} (${fmt(100 * r.ortAgreement.differingShare, 1)}%)`,
  ].join(' | '),
);
const date = new Date().toISOString().slice(0, 10);
const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
const targets = [];
if (byId.S2) {
  const s2 = byId.S2;
  targets.push(
    `S2 vs onnxruntime-web QLinearConv: ${fmt(s2.ortInt8.medianMs / s2.int8Simd.medianMs, 2)}x (target >= 1.5x)`,
  );
  targets.push(`S2 int8 vs qwasm float: ${fmt(s2.floatSimd.medianMs / s2.int8Simd.medianMs, 2)}x (target >= 2.5x)`);
  targets.push(`S2 share of peak: ${fmt((100 * gmacs(s2, s2.int8Simd)) / peakGmacs, 0)}% (target >= 85%)`);
}
if (byId.S3)
  targets.push(
    `S3 vs onnxruntime-web QLinearConv: ${fmt(byId.S3.ortInt8.medianMs / byId.S3.int8Simd.medianMs, 2)}x (target >= 4x)`,
  );
const slower = rows
  .filter((r) => r.ortInt8.medianMs < r.int8Simd.medianMs || r.ortFloat.medianMs < r.int8Simd.medianMs)
  .map((r) => r.id);
targets.push(`shapes where onnxruntime-web is faster: ${slower.length ? slower.join(', ') : 'none'}`);

const markdown = `## ConvReLU3d (int8) vs onnxruntime-web

Batch 1, kernel 3x3x3, padding 1, one thread, medians of ${RUNS} runs after warm-up (scalar: 3 runs). qwasm int8: \`nn.intrinsic.quantized.ConvReLU3d.forward\` on a quint8 QTensor (per-channel qint8 weights from \`fromFloat\`), including the input conversion and the output allocation. qwasm float: \`nn.intrinsic.ConvReLU3d.forward\` (copies in and out included). onnxruntime-web ${ort.env.versions?.web ?? ''} (wasm backend, SIMD, 1 thread): QLinearConv (uint8 input, int8 per-channel weights) and float Conv + Relu, same data. Peak: the int8 kernel's inner loop (dot_i16x8 + add, broadcast and weight loads) on L1-resident data, measured in this run: **${fmt(peakGmacs)} GMAC/s**. "vs ort" = onnxruntime time / qwasm int8 time. Extra memory: scratch of one int8 forward call beyond input, output and packed weights. Last column: max difference to onnxruntime's QLinearConv output in LSBs (share of outputs that differ); onnxruntime rounds its requantization differently from PyTorch, qwasm matches PyTorch. ${machine()}, ${date}.

| shape | channels, DxHxW | GMAC | int8 SIMD ms | GMAC/s | % peak | int8 scalar ms | float SIMD ms | ort int8 ms | ort float ms | vs ort int8 | vs ort float | vs qwasm float | extra memory | vs ort output |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${table.map((t) => `| ${t} |`).join('\n')}

${targets.map((t) => `- ${t}`).join('\n')}`;
const readme = `ConvReLU3d, batch 1, k3 p1, one thread, median ms (${date}; peak of the int8 instruction mix ${fmt(peakGmacs)} GMAC/s):

| shape | qwasm int8 SIMD | GMAC/s (% peak) | qwasm float SIMD | onnxruntime-web int8 | onnxruntime-web float | int8 speed-up vs ort int8 |
|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.id} ${desc(r.shape)} | ${fmt(r.int8Simd.medianMs)} | ${fmt(gmacs(r, r.int8Simd))} (${fmt((100 * gmacs(r, r.int8Simd)) / peakGmacs, 0)}%) | ${fmt(r.floatSimd.medianMs)} | ${fmt(r.ortInt8.medianMs)} | ${fmt(r.ortFloat.medianMs)} | ${fmt(r.ortInt8.medianMs / r.int8Simd.medianMs, 2)}x |`).join('\n')}`;
saveResult('2-conv', { date, machine: machine(), peakGmacs, rows, markdown, readme });
console.log(markdown);
