// Runs what scripts/try_architectures.py exported in qwasm (Node.js, SIMD kernels) and prints, per
// architecture, a markdown table row: each quantized layer given PyTorch's own quantized input
// against PyTorch's output (the PT2E bound of docs/numerics.md: at most 1 step on at most 1% of the
// elements), and end to end how far qwasm's output is from PyTorch's int8 graph next to how far
// PyTorch's own graph moves when the input moves by 1e-4.
//   node scripts/try-architectures.mjs /tmp/tried
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { layerSteps } from '../tests/js/pt2e/layer-steps.mjs';
import * as qwasm from '../web/src/index.node.mjs';

/** A little-endian float32 .npy file (what numpy.save writes for float32 arrays). */
function readNpy(path) {
  const b = readFileSync(path);
  const headerLength = b.readUInt16LE(8);
  const header = b.subarray(10, 10 + headerLength).toString('latin1');
  if (!header.includes("'descr': '<f4'")) throw new Error(`${path}: expected float32, got ${header}`);
  const shape = header
    .match(/'shape': \(([^)]*)\)/)[1]
    .split(',')
    .filter((s) => s.trim() !== '')
    .map(Number);
  const bytes = b.subarray(10 + headerLength);
  return { data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), shape };
}

/** The share of positions (over dimension 1 of [N, C, ...]) whose argmax is the same in a and b. */
function argmaxAgreement(a, b, shape) {
  const [n, c] = shape;
  const inner = a.length / n / c;
  let same = 0;
  for (let s = 0; s < n; s++)
    for (let v = 0; v < inner; v++) {
      const at = s * c * inner + v;
      let ia = 0,
        ib = 0;
      for (let k = 1; k < c; k++) {
        if (a[at + k * inner] > a[at + ia * inner]) ia = k;
        if (b[at + k * inner] > b[at + ib * inner]) ib = k;
      }
      if (ia === ib) same++;
    }
  return same / (n * inner);
}

const dir = process.argv[2];
if (!dir) throw new Error('usage: node scripts/try-architectures.mjs <folder of scripts/try_architectures.py>');
const report = JSON.parse(readFileSync(join(dir, 'pytorch.json'), 'utf8'));
await qwasm.init();
/** Per layer, given PyTorch's input: how many layers are within 1 step on <= 1% of elements, and the worst. */
function perLayer(model, layers) {
  let within = 0;
  let worst = 0;
  let qparams = 0;
  for (const layer of layers) {
    const r = layerSteps(model, layer);
    if (r.worst <= 1 && r.off <= r.count / 100) within++;
    if (r.scale !== layer.output.scale) qparams++;
    worst = Math.max(worst, r.worst);
  }
  return `${within} / ${layers.length} (worst ${worst} steps${qparams ? `; ${qparams} with other qparams` : ''})`;
}

console.log(
  '| architecture | input | loads | layers within 1 step on <= 1% | max abs diff to PyTorch | argmax equal | PyTorch itself, input + 1e-4 noise: max abs diff / argmax equal |',
);
console.log('|---|---|---|---|---|---|---|');
for (const [name, r] of Object.entries(report)) {
  const file = join(dir, `${name}.qwasm.safetensors`);
  if (r.error || !existsSync(file)) {
    console.log(`| ${name} | | PyTorch's export failed: ${r.error} | | | | |`);
    continue;
  }
  const pct = (v) => `${(100 * v).toFixed(2)}%`;
  let row;
  try {
    const model = qwasm.io.loadModel(readFileSync(file), { maxWork: 1e13 });
    try {
      const x = readNpy(join(dir, `${name}_x.npy`));
      const y = readNpy(join(dir, `${name}_y.npy`));
      const out = model.forward(x);
      const got = out.dequantize ? out.dequantize().data : out.data;
      let diff = 0;
      for (let i = 0; i < y.data.length; i++) diff = Math.max(diff, Math.abs(got[i] - y.data[i]));
      const layers = JSON.parse(readFileSync(join(dir, `${name}_layers.json`), 'utf8'));
      row = `yes | ${perLayer(model, layers)} | ${diff.toPrecision(3)} | ${pct(argmaxAgreement(got, y.data, y.shape))}`;
    } finally {
      model.dispose();
    }
  } catch (e) {
    row = `no: ${e.message.slice(0, 200)} | | | `;
  }
  console.log(`| ${name} | [${r.shape}] | ${row} | ${r.noise_max_abs.toPrecision(3)} / ${pct(r.noise_argmax_equal)} |`);
}
