// The speed table per browser engine: S1-S3 int8 ConvReLU3d (qwasm and
// onnxruntime-web's QLinearConv in the same page, interleaved) and
// quantizePerChannel GB/s, in Chromium, Firefox and WebKit, driven by the
// browser tests' drivers (tests/browser/engines.mjs). Writes
// results/3-browsers.json and BENCHMARKS.md. QWASM_ENGINES=firefox,... picks engines.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { engineSkipReason, launchEngine, selectedEngines } from '../tests/browser/engines.mjs';
import { startTestServer } from '../tests/browser/test-server.mjs';
import * as Q from '../web/src/index.node.mjs';
import { buildConv, SHAPES } from './browser/workload.mjs';
import { saveResult } from './harness.mjs';
import { qlinearConvModel } from './onnx-models.mjs';

await Q.init();
const models = new URL('./output/browser/', import.meta.url);
mkdirSync(models, { recursive: true });
for (const c of SHAPES) {
  const { qmod, qx, ortParams } = buildConv(Q, c);
  writeFileSync(new URL(`${c.id}.onnx`, models), qlinearConvModel(c, ortParams));
  qmod.dispose();
  qx.dispose();
}

const server = await startTestServer();
const rows = [];
const skipped = [];
for (const name of selectedEngines()) {
  const reason = engineSkipReason(name);
  if (reason) {
    skipped.push(reason);
    console.warn(`SKIPPED: ${reason}`);
    continue;
  }
  const engine = await launchEngine(name);
  try {
    server.clear();
    console.log(`${name} ${engine.version}: running…`);
    const tab = await engine.open(`${server.base}/bench/browser/index.html`);
    const r = await server.report('bench', 30 * 60_000);
    await tab.close();
    if (r.error) throw new Error(`${name}: ${r.error}`);
    rows.push({ engine: name, version: engine.version, ...r });
    console.log(JSON.stringify(rows.at(-1)));
  } finally {
    await engine.close();
  }
}
await server.close();

const fmt = (v, d = 1) => v.toFixed(d);
const ortVersion = JSON.parse(
  readFileSync(new URL('../node_modules/onnxruntime-web/package.json', import.meta.url), 'utf8'),
).version;
const date = new Date().toISOString().slice(0, 10);
const cpu = `${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}`;
const table = [
  '| engine | shape | qwasm int8 ms | GMAC/s | onnxruntime-web QLinearConv ms | vs ort | max diff (LSB) |',
  '|---|---|---|---|---|---|---|',
  ...rows.flatMap((r) =>
    r.conv.map(
      (c) =>
        `| ${r.engine} ${r.version} | ${c.id} | ${fmt(c.qwasmMs)} | ${fmt(c.macs / (c.qwasmMs * 1e6))} | ${fmt(c.ortMs)} | ${fmt(c.ortMs / c.qwasmMs, 2)}x | ${c.maxDiffLsb} |`,
    ),
  ),
];
const quantizeTable = [
  '| engine | quantizePerChannel ms | GB/s |',
  '|---|---|---|',
  ...rows.map(
    (r) => `| ${r.engine} ${r.version} | ${fmt(r.quantize.ms)} | ${fmt(r.quantize.bytes / (r.quantize.ms * 1e6), 2)} |`,
  ),
];
const markdown = `## Browser engines

The same work in each engine's page, in a module worker, one thread (bench/browser.bench.mjs, driven like the browser tests): qwasm's \`nn.intrinsic.quantized.ConvReLU3d\` (per-channel qint8 weights from \`fromFloat\`, seeded data) and onnxruntime-web ${ortVersion}'s QLinearConv (\`ort.wasm.min.mjs\`, wasm backend, 1 thread) on the same integers, interleaved (7 rounds, medians; Firefox and WebKit round \`performance.now()\` to 1 ms, so each sample repeats a call for at least 50 ms), then quantizePerChannel (qint8, [16, 64, 128, 128], axis 1; GB/s of float32 input). "max diff": qwasm's output against onnxruntime's, which rounds its requantization differently from PyTorch. ${cpu}, ${date}.${skipped.length ? ` Not run: ${skipped.join('; ')}.` : ''}

${table.join('\n')}

${quantizeTable.join('\n')}`;

const readme = `In each browser engine, in a module worker (${date}; qwasm int8 ConvReLU3d against onnxruntime-web's QLinearConv in the same page):

| engine | S1 vs ort | S2 vs ort | S3 vs ort | quantizePerChannel GB/s |
|---|---|---|---|---|
${rows
  .map((r) => {
    const ratios = r.conv.map((c) => `${fmt(c.ortMs / c.qwasmMs, 2)}x`).join(' | ');
    return `| ${r.engine} ${r.version} | ${ratios} | ${fmt(r.quantize.bytes / (r.quantize.ms * 1e6), 2)} |`;
  })
  .join('\n')}`;

saveResult('3-browsers', { date, rows, skipped, markdown, readme });
console.log(markdown);
