// The qwasm side of scripts/verify_torch.py: loads each exported full-size
// model, runs the clips PyTorch ran, and compares the logits' integers and the
// output floats bit for bit. Exits 1 on any difference.
import { readFileSync } from 'node:fs';
import * as qwasm from '../web/src/index.node.mjs';

const cases = JSON.parse(readFileSync(process.argv[2], 'utf8'));
await qwasm.init();

function clip(seed, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = Number((1103515245n * BigInt(x) + 12345n) & 0x7fffffffn);
    data[i] = (((x >> 16) & 0xff) - 128) / 64;
  }
  return { data, shape };
}

let failed = 0;
let model = null;
let loaded = '';
for (const c of cases) {
  if (c.file !== loaded) {
    model?.dispose();
    model = qwasm.io.loadModel(readFileSync(c.file));
    loaded = c.file;
  }
  const x = clip(c.seed, c.shape);
  const t = performance.now();
  const y = model.forward(x);
  const ms = performance.now() - t;
  const want = Float32Array.from(c.y);
  let floats = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(want[i], y.data[i])) floats++;
  const quant = model.getSubmodule('quant');
  const q = qwasm.quantizePerTensor(x, quant.scale, quant.zeroPoint, 'quint8');
  const logits = model.forwardQuantized(q);
  const ints = logits.intRepr();
  let intDiffs = 0;
  for (let i = 0; i < c.logits.length; i++) if (ints[i] !== c.logits[i]) intDiffs++;
  const qparams = logits.qScale() === c.scale && logits.qZeroPoint() === c.zero_point;
  logits.dispose();
  q.dispose();
  const ok = floats === 0 && intDiffs === 0 && qparams && want.length === y.data.length;
  if (!ok) failed++;
  console.log(
    `  ${c.name}: ${ok ? 'bit for bit' : `DIFFERS (${floats} floats, ${intDiffs} integers, qparams ${qparams ? 'equal' : 'differ'})`} (qwasm ${ms.toFixed(0)} ms)`,
  );
}
model?.dispose();
process.exit(failed ? 1 : 0);
