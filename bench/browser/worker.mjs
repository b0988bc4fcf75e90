// The browser benchmark, in a module worker as an app would run it: qwasm's
// int8 ConvReLU3d (S1-S3) and onnxruntime-web's QLinearConv on the same
// integers (models written by bench/browser.bench.mjs), interleaved; then
// quantizePerChannel on 16M floats. Firefox and Safari round
// performance.now() to 1 ms here, so each sample repeats a call until it
// lasts >= 50 ms and counts the time per call.
import * as ort from '../../node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import * as Q from '../../web/src/index.browser.mjs';
import { buildConv, macs, quantizeWorkload, SHAPES } from './workload.mjs';

const SAMPLE_MS = 50;
const ROUNDS = 7;

const report = (value) => fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'bench', value }) });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function repsFor(fn) {
  const t0 = performance.now();
  await fn();
  const once = performance.now() - t0;
  return Math.max(1, Math.ceil(SAMPLE_MS / Math.max(once, 0.5)));
}

/** Interleaved rounds (every contestant once per round, rotating order); median ms per call. */
async function interleave(contestants) {
  for (const c of contestants) {
    await c.fn();
    c.reps = await repsFor(c.fn);
    c.ms = [];
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < contestants.length; k++) {
      const c = contestants[(k + r) % contestants.length];
      const t0 = performance.now();
      for (let i = 0; i < c.reps; i++) await c.fn();
      c.ms.push((performance.now() - t0) / c.reps);
    }
  }
  return Object.fromEntries(contestants.map((c) => [c.name, median(c.ms)]));
}

async function main() {
  await Q.init();
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url).href;
  const conv = [];
  for (const c of SHAPES) {
    const { qmod, qx } = buildConv(Q, c);
    const model = new Uint8Array(await (await fetch(`/bench/output/browser/${c.id}.onnx`)).arrayBuffer());
    const session = await ort.InferenceSession.create(model, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const feeds = { x: new ort.Tensor('uint8', qx.intRepr(), [...qx.shape]) };
    // The same integers out of both (ORT rounds its requantization differently: at most 1 LSB).
    const ours = qmod.forward(qx);
    const theirs = (await session.run(feeds))[session.outputNames[0]].data;
    const mine = ours.intRepr();
    ours.dispose();
    let maxDiff = 0;
    for (let i = 0; i < mine.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mine[i] - theirs[i]));
    const ms = await interleave([
      { name: 'qwasm', fn: () => qmod.forward(qx).dispose() },
      { name: 'ort', fn: () => session.run(feeds) },
    ]);
    conv.push({ id: c.id, macs: macs(c), qwasmMs: ms.qwasm, ortMs: ms.ort, maxDiffLsb: maxDiff });
    await session.release();
    qmod.dispose();
    qx.dispose();
  }
  const { x, scale, zeroPoint } = quantizeWorkload(Q);
  const qt = await interleave([
    { name: 'quantizePerChannel', fn: () => Q.quantizePerChannel(x, scale, zeroPoint, 1, 'qint8').dispose() },
  ]);
  await report({
    userAgent: navigator.userAgent,
    conv,
    quantize: { bytes: x.data.byteLength, ms: qt.quantizePerChannel },
  });
}

main().catch((e) => report({ error: String(e?.stack ?? e) }));
