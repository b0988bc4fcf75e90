// Runs the exported brain MeshNet files (demo/data/*.qwasm.safetensors) in qwasm (io.loadModel, the
// package's build in dist/, one thread) on the held-out slab, and scores them as train_meshnet.py scored
// PyTorch: Dice per class against the template's labels, and agreement with PyTorch's int8 output
// (labels, and output integers: the difference in steps of the output's quantize).
//
// Needs scripts/brain/output/ from `python3 scripts/brain/train_meshnet.py --export-only`; adds the
// numbers to scripts/brain/results.json under "qwasm".
//     node scripts/brain/run_qwasm_slab.mjs
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as qwasm from '../../web/src/index.node.mjs';

const OUTPUT = new URL('./output/', import.meta.url);
const REPOSITORY = new URL('../../', import.meta.url);
const RESULTS = new URL('./results.json', import.meta.url);

if (!existsSync(new URL('meta.json', OUTPUT))) {
  console.log('run_qwasm_slab: scripts/brain/output is missing: run python3 scripts/brain/train_meshnet.py first');
  process.exit(1);
}

// A file's bytes as a typed array of its own (Node hands small files out of a shared pool).
function read(name, Type) {
  const b = readFileSync(new URL(name, OUTPUT));
  return new Type(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

// Dice per class: 2 |P & T| / (|P| + |T|), 1 when both are empty (meshnet_data.dice).
function dice(pred, truth, classes) {
  const out = [];
  for (let c = 0; c < classes; c++) {
    let p = 0;
    let t = 0;
    let both = 0;
    for (let v = 0; v < pred.length; v++) {
      const a = pred[v] === c;
      const b = truth[v] === c;
      p += a;
      t += b;
      both += a && b;
    }
    out.push(p + t === 0 ? 1 : (2 * both) / (p + t));
  }
  return out;
}

const meta = JSON.parse(readFileSync(new URL('meta.json', OUTPUT), 'utf8'));
const [, , X, Y, K] = meta.input_shape;
const [evalLo] = meta.eval_k;
const [slabLo, slabHi] = meta.slab_k;
const S = slabHi - slabLo;
const classes = meta.classes.length;
const x = { data: read('slab_input.bin', Float32Array), shape: meta.input_shape };
const truth = read('slab_truth.bin', Uint8Array);

await qwasm.init();
qwasm.setNumThreads(1); // the machine is shared; the times are one thread's
const results = {};
for (const [flow, info] of Object.entries(meta.flows)) {
  const torchLabels = read(`slab_${flow}_labels.bin`, Uint8Array);
  const torchQ = read(`slab_${flow}_q.bin`, Uint8Array);
  const model = qwasm.io.loadModel(readFileSync(new URL(info.file, REPOSITORY)), { maxWork: 1e15 });
  const start = performance.now();
  const y = model.forward(x);
  const seconds = (performance.now() - start) / 1000;
  model.dispose();
  if (y.shape.join() !== [1, classes, X, Y, K].join()) throw new Error(`output shape ${y.shape}`);
  // The slab's planes of y [1, classes, X, Y, K] (k fastest), as PyTorch's files hold them: [classes, X, Y, S].
  const labels = new Uint8Array(X * Y * S);
  let maxSteps = 0;
  let differing = 0;
  for (let i = 0; i < X; i++)
    for (let j = 0; j < Y; j++)
      for (let k = 0; k < S; k++) {
        const v = (i * Y + j) * S + k;
        let best = 0;
        let bestValue = -Infinity;
        for (let c = 0; c < classes; c++) {
          const value = y.data[((c * X + i) * Y + j) * K + k + slabLo - evalLo];
          if (value > bestValue) {
            best = c;
            bestValue = value;
          }
          const steps = Math.abs(Math.round(value / info.scale) + info.zero_point - torchQ[c * X * Y * S + v]);
          maxSteps = Math.max(maxSteps, steps);
          differing += steps !== 0;
        }
        labels[v] = best;
      }
  let same = 0;
  for (let v = 0; v < labels.length; v++) same += labels[v] === torchLabels[v];
  results[flow] = {
    dice: dice(labels, truth, classes),
    labels_equal_torch_int8: same / labels.length,
    output_integers_differing: differing,
    output_integers_max_steps: maxSteps,
    output_integers: labels.length * classes,
    seconds: Math.round(seconds * 10) / 10,
  };
  console.log(flow, JSON.stringify(results[flow]));
}
const all = existsSync(RESULTS) ? JSON.parse(readFileSync(RESULTS, 'utf8')) : {};
all.qwasm = { threads: qwasm.getNumThreads(), engineDefault: qwasm.quantization.getEngine(), ...results };
writeFileSync(RESULTS, `${JSON.stringify(all, null, 2)}\n`);
console.log('wrote scripts/brain/results.json');
