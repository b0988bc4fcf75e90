// ConvReLU3d, batch 1, kernel 3, padding 1 (unless said), one thread, same
// data everywhere: qwasm int8 SIMD, qwasm int8 scalar, qwasm float SIMD,
// onnxruntime-web QLinearConv and float Conv + Relu, and the peak of the int8
// kernel's instruction mix, all measured in this one run.
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { initBench, interleave, machine, median, saveResult } from './harness.mjs';
import { floatConvReluModel, qlinearConvModel, qlinearMatMulModel } from './onnx-models.mjs';
import { buildConvReLU3d, buildLinear, macs, SHAPES } from './workloads.mjs';

const only = process.env.QWASM_BENCH_SHAPES?.split(',');
const RESULT = new URL('./results/2-conv.json', import.meta.url);
const RUNS = Number(process.env.QWASM_BENCH_RUNS ?? 7);

// Peak of the int8 kernel's instruction mix: the registered kernel itself
// (tests/support/peak.cpp: the dispatcher's qconv kernel, PEAK_PAIRS kblocks of
// its 4 x 8 x 2 tile per call, on L1-resident data), timed in the same rounds
// as the shape it is compared with, so both see the same machine.
const PEAK_REPS = 20000;
const PEAK_PAIRS = 256;
const peakContestant = (M) => ({ name: 'peak', fn: () => M._peakDot16(PEAK_REPS, PEAK_PAIRS) });
const peakGmacsOf = (t) => (PEAK_REPS * PEAK_PAIRS * 64) / (t.medianMs * 1e6);
// The depthwise kernel's own ceiling (its instruction mix, requantization and
// stores included, on L1-resident data: runs of 16 pixels x 64 channels x 27
// taps per call), timed in the depthwise row's rounds. The exact-sum kernel:
// the one S6 runs (symmetric per-channel weights take oneDNN's backend).
const DW_PEAK_REPS = 12500;
const dwPeakContestant = (M) => ({ name: 'dwPeak', fn: () => M._peakDwconv(DW_PEAK_REPS, false) });
const dwPeakGmacsOf = (t) => (DW_PEAK_REPS * 16 * 64 * 27) / (t.medianMs * 1e6);

async function benchShape(c) {
  // Calibrated like PyTorch's eager flow (bench/workloads.mjs); onnxruntime-web on the same integers and floats.
  // The direct kernel (the Winograd path has its own table: bench/winograd.bench.mjs).
  const { x, xt, fconv, fmod, qmod, qx, ortParams: q } = buildConvReLU3d(qwasm, c, { winograd: false });
  const bias = fconv.bias.data;
  const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  const qsession = await ort.InferenceSession.create(qlinearConvModel(c, q), opts);
  const fsession = await ort.InferenceSession.create(floatConvReluModel(c, fconv.weight.data, bias), opts);
  const xq = new ort.Tensor('uint8', qx.intRepr(), [c.n, c.cin, ...c.spatial]);
  const xf = new ort.Tensor('float32', x, [c.n, c.cin, ...c.spatial]);

  const scalar = () => {
    qwasm.setKernelIsa('scalar');
    try {
      qmod.forward(qx).dispose();
    } finally {
      qwasm.setKernelIsa('auto');
    }
  };
  const t = await interleave(
    [
      { name: 'int8Simd', fn: () => qmod.forward(qx).dispose() },
      { name: 'int8Scalar', fn: scalar, rounds: 3, warmup: 1 },
      { name: 'floatSimd', fn: () => fmod.forward(xt) },
      { name: 'ortInt8', fn: () => qsession.run({ x: xq }) },
      { name: 'ortFloat', fn: () => fsession.run({ x: xf }) },
      peakContestant(M),
      ...(c.groups > 1 && c.groups === c.cin ? [dwPeakContestant(M)] : []),
    ],
    { warmup: 3, rounds: RUNS },
  );
  const row = { id: c.id, shape: c, macs: macs(c), ...t, peakGmacs: peakGmacsOf(t.peak) };
  if (t.dwPeak) row.dwPeakGmacs = dwPeakGmacsOf(t.dwPeak);
  row.scratchBytes = qmod.lastScratchBytes();
  row.packedWeightBytes = qmod.packedWeightBytes();
  row.kernel = qmod.lastKernel();

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

// nn.quantized.Linear as a GEMM (rows as pixels), against the same MACs as a
// 1x1x1 convolution and onnxruntime-web's QLinearMatMul, same data.
async function benchLinear(rows, inF, outF) {
  const { x, flin, qlin, qx, ortParams: q } = buildLinear(qwasm, rows, inF, outF);
  // The same MACs as a pointwise convolution over [1, in, 1, 1, rows].
  const conv = new qwasm.nn.quantized.Conv3d(inF, outF, 1, { bias: false });
  const wq = qlin.weight();
  const w5 = wq.view([outF, inF, 1, 1, 1]);
  conv.setWeightBias(w5, null);
  conv.scale = qlin.scale;
  conv.zeroPoint = qlin.zeroPoint;
  const qx5 = qwasm.quantizePerTensor({ data: x.data, shape: [1, inF, 1, 1, rows] }, q.aScale, q.aZp, 'quint8');
  w5.dispose();
  wq.dispose();
  const session = await ort.InferenceSession.create(qlinearMatMulModel(rows, inF, outF, q), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const xq = new ort.Tensor('uint8', qx.intRepr(), [rows, inF]);
  const t = await interleave(
    [
      { name: 'linear', fn: () => qlin.forward(qx).dispose() },
      { name: 'pointwiseConv', fn: () => conv.forward(qx5).dispose() },
      { name: 'ortInt8', fn: () => session.run({ x: xq }) },
      peakContestant(M),
    ],
    { warmup: 3, rounds: RUNS },
  );
  const row = {
    rows,
    inF,
    outF,
    macs: rows * inF * outF,
    ...t,
    peakGmacs: peakGmacsOf(t.peak),
    kernel: qlin.lastKernel(),
  };
  await session.release();
  for (const d of [qlin, conv, qx, qx5, flin]) d.dispose();
  return row;
}

ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
const { qwasm, M } = await initBench();

// QWASM_BENCH_KEEP=1 with QWASM_BENCH_SHAPES: re-measure those rows only and
// keep the others (and the Linear section) from the last saved run; the
// text then says which rows were re-measured, when and on what machine.
const keep = only && process.env.QWASM_BENCH_KEEP === '1' ? JSON.parse(readFileSync(RESULT, 'utf8')) : null;
const rows = [];
for (const c of SHAPES) {
  if (only && !only.includes(c.id)) {
    const saved = keep?.rows.find((r) => r.id === c.id);
    if (saved) rows.push(saved);
    continue;
  }
  process.stderr.write(`${c.id}...\n`);
  rows.push(await benchShape(c));
}
process.stderr.write('Linear...\n');
const linear = !only || only.includes('L') ? await benchLinear(1024, 512, 512) : (keep?.linear ?? null);
const peakGmacs = median(rows.map((r) => r.peakGmacs));

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
    `${fmt((100 * gmacs(r, r.int8Simd)) / r.peakGmacs, 0)}%`,
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
const today = new Date().toISOString().slice(0, 10);
const date = keep ? keep.date : today;
const host = keep ? keep.machine : machine();
const ortVersion = keep
  ? (keep.ortVersion ?? keep.markdown.match(/onnxruntime-web ([\d.]+) \(wasm backend/)?.[1] ?? '')
  : (ort.env.versions?.web ?? '');
const remeasured = keep
  ? `; ${only.join(', ')} re-measured ${today} on ${machine()}, in rounds of ${only.length > 1 ? 'their' : 'its'} own (onnxruntime-web ${ort.env.versions?.web ?? ''}), the other rows are from the run above`
  : '';
const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
const targets = [];
if (byId.S2) {
  const s2 = byId.S2;
  targets.push(
    `S2 vs onnxruntime-web QLinearConv: ${fmt(s2.ortInt8.medianMs / s2.int8Simd.medianMs, 2)}x (target >= 1.5x)`,
  );
  targets.push(`S2 int8 vs qwasm float: ${fmt(s2.floatSimd.medianMs / s2.int8Simd.medianMs, 2)}x (target >= 2.5x)`);
  targets.push(`S2 share of peak: ${fmt((100 * gmacs(s2, s2.int8Simd)) / s2.peakGmacs, 0)}% (target >= 85%)`);
}
if (byId.S3)
  targets.push(
    `S3 vs onnxruntime-web QLinearConv: ${fmt(byId.S3.ortInt8.medianMs / byId.S3.int8Simd.medianMs, 2)}x (target >= 4x)`,
  );
for (const r of rows.filter((x) => x.dwPeakGmacs)) {
  targets.push(
    `${r.id} (depthwise): ${fmt(gmacs(r, r.int8Simd))} GMAC/s, ${fmt((100 * gmacs(r, r.int8Simd)) / r.dwPeakGmacs, 0)}% of its own kernel's ceiling, ${fmt(r.dwPeakGmacs)} GMAC/s in the same rounds (target >= 50%)`,
  );
}
const slower = rows
  .filter((r) => r.ortInt8.medianMs < r.int8Simd.medianMs || r.ortFloat.medianMs < r.int8Simd.medianMs)
  .map((r) => r.id);
targets.push(`shapes where onnxruntime-web is faster: ${slower.length ? slower.join(', ') : 'none'}`);

const linearSection = linear
  ? `
### nn.quantized.Linear as a GEMM

\`nn.quantized.Linear(${linear.inF}, ${linear.outF})\` on [${linear.rows}, ${linear.inF}] (per-channel qint8 weights, no bias; kernel \`${linear.kernel}\`, rows as output pixels), the same MACs as a 1x1x1 \`nn.quantized.Conv3d\` over [1, ${linear.inF}, 1, 1, ${linear.rows}], and onnxruntime-web's QLinearMatMul on the same data, interleaved as above.

| implementation | ms | GMAC/s | % peak | vs pointwise conv |
|---|---|---|---|---|
| qwasm Linear | ${fmt(linear.linear.medianMs, 2)} | ${fmt(gmacs(linear, linear.linear))} | ${fmt((100 * gmacs(linear, linear.linear)) / linear.peakGmacs, 0)}% | ${fmt((100 * gmacs(linear, linear.linear)) / gmacs(linear, linear.pointwiseConv), 0)}% |
| qwasm 1x1x1 Conv3d | ${fmt(linear.pointwiseConv.medianMs, 2)} | ${fmt(gmacs(linear, linear.pointwiseConv))} | ${fmt((100 * gmacs(linear, linear.pointwiseConv)) / linear.peakGmacs, 0)}% | 100% |
| onnxruntime-web QLinearMatMul | ${fmt(linear.ortInt8.medianMs, 2)} | ${fmt(gmacs(linear, linear.ortInt8))} | | |

- Linear vs onnxruntime-web QLinearMatMul: ${fmt(linear.ortInt8.medianMs / linear.linear.medianMs, 2)}x`
  : '';
const markdown = `## ConvReLU3d (int8) vs onnxruntime-web

Batch 1, kernel 3x3x3, padding 1, one thread. Every column of a row is timed in the same rounds, interleaved (each round runs every contestant once, in a rotating order, so that all see the same moments of this shared machine); medians of ${RUNS} rounds after warm-up (scalar: 3). qwasm int8: \`nn.intrinsic.quantized.ConvReLU3d.forward\` on a quint8 QTensor (per-channel qint8 weights from \`fromFloat\`), on the direct kernel (\`winograd: false\`; the exact integer Winograd path, which 'auto' takes for S1, S2 and S4, has its own table below), including the input conversion and the output allocation. qwasm float: \`nn.intrinsic.ConvReLU3d.forward\` (copies in and out included). onnxruntime-web ${ortVersion} (wasm backend, SIMD, 1 thread): QLinearConv (uint8 input, int8 per-channel weights) and float Conv + Relu, same data. Peak: the registered int8 kernel itself (its dot_i16x8 loop, requantization and stores; ${PEAK_PAIRS} reduction pairs per call) on L1-resident data, timed in each row's rounds ("% peak" uses the row's own; the median over rows is **${fmt(peakGmacs)} GMAC/s**). The scalar column is the scalar kernels (compiled without SIMD). "vs ort" = onnxruntime time / qwasm int8 time. Extra memory: scratch of one int8 forward call beyond input, output and packed weights. Last column: max difference to onnxruntime's QLinearConv output in LSBs (share of outputs that differ); onnxruntime rounds its requantization differently from PyTorch, qwasm matches PyTorch. ${host}, ${date}${remeasured}.

| shape | channels, DxHxW | GMAC | int8 SIMD ms | GMAC/s | % peak | int8 scalar ms | float SIMD ms | ort int8 ms | ort float ms | vs ort int8 | vs ort float | vs qwasm float | extra memory | vs ort output |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${table.map((t) => `| ${t} |`).join('\n')}

${targets.map((t) => `- ${t}`).join('\n')}
${linearSection}`;
const readme = `ConvReLU3d, batch 1, k3 p1, one thread, median ms (${date}${keep ? `, ${only.join(', ')} re-measured ${today} on ${machine()}` : ''}; peak of the int8 instruction mix ${fmt(peakGmacs)} GMAC/s):

| shape | qwasm int8 SIMD | GMAC/s (% peak) | qwasm float SIMD | onnxruntime-web int8 | onnxruntime-web float | int8 speed-up vs ort int8 |
|---|---|---|---|---|---|---|
${rows.map((r) => `| ${r.id} ${desc(r.shape)} | ${fmt(r.int8Simd.medianMs)} | ${fmt(gmacs(r, r.int8Simd))} (${fmt((100 * gmacs(r, r.int8Simd)) / r.peakGmacs, 0)}%) | ${fmt(r.floatSimd.medianMs)} | ${fmt(r.ortInt8.medianMs)} | ${fmt(r.ortFloat.medianMs)} | ${fmt(r.ortInt8.medianMs / r.int8Simd.medianMs, 2)}x |`).join('\n')}`;
saveResult('2-conv', { date, machine: host, ortVersion, peakGmacs, rows, linear, markdown, readme });
console.log(markdown);
