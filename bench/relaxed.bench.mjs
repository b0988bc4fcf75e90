// Relaxed SIMD, measured before it is built: the exact int8 path (#12) needs
// i32x4.relaxed_dot_i8x16_i7x16_add_s to beat qwasm's dot16 kernel by >= 1.4x.
// bench/relaxed/peak_relaxed.c holds both kernels' inner loops with the same
// register tile on L1-resident data (the ceiling of each instruction mix);
// this builds it with clang-19 + wasm-ld-19 (apt-get install clang-19 lld-19:
// Emscripten 3.1.6's clang 14 has no relaxed-SIMD builtins), checks that both
// give the same integers, times them interleaved in Node.js (with
// --experimental-wasm-relaxed-simd; without it the module does not validate)
// and in Chromium, and records the machine code V8 generates for the relaxed
// dot (node --print-wasm-code). Writes results/2c-relaxed.json and BENCHMARKS.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { launchEngine } from '../tests/browser/engines.mjs';
import { saveResult } from './harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const WASM = `${here}output/peak_relaxed.wasm`;
const REPS = 20000;
const K = 256;

// The timing loop, as source: it runs in a Node.js child and in a page.
const MEASURE = `async (bytes) => {
  const { instance } = await WebAssembly.instantiate(bytes);
  const e = instance.exports;
  e.fill();
  e.dot16(1, ${K});
  const ref = Array.from({ length: 32 }, (_, i) => e.out_at(i));
  e.relaxed(1, ${K});
  const same = ref.every((v, i) => v === e.out_at(i));
  const macs = ${REPS} * ${K} * 32;
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const t16 = [], t8 = [];
  for (let i = 0; i < 3; i++) { e.dot16(${REPS}, ${K}); e.relaxed(${REPS}, ${K}); }
  for (let round = 0; round < 15; round++) {
    let t0 = performance.now(); e.dot16(${REPS}, ${K}); t16.push(performance.now() - t0);
    t0 = performance.now(); e.relaxed(${REPS}, ${K}); t8.push(performance.now() - t0);
  }
  e.relaxed(1, ${K});
  const sameLater = ref.every((v, i) => v === e.out_at(i));
  return { same, sameLater, dot16: macs / med(t16) / 1e6, relaxed: macs / med(t8) / 1e6 };
}`;

function build() {
  mkdirSync(`${here}output`, { recursive: true });
  const obj = `${here}output/peak_relaxed.o`;
  try {
    execFileSync('clang-19', [
      '--target=wasm32',
      '-O3',
      '-msimd128',
      '-mrelaxed-simd',
      '-c',
      '-o',
      obj,
      `${here}relaxed/peak_relaxed.c`,
    ]);
    execFileSync('wasm-ld-19', ['--no-entry', '-o', WASM, obj]);
  } catch (err) {
    console.error(
      `building bench/relaxed/peak_relaxed.c needs clang-19 and lld-19 (apt-get install clang-19 lld-19): ${err.message}`,
    );
    process.exit(1);
  }
}

function inNode(flags) {
  const script = `const fs = require('fs'); (${MEASURE})(fs.readFileSync(${JSON.stringify(WASM)})).then((r) => console.log(JSON.stringify(r)), (e) => console.log(JSON.stringify({ error: String(e.message) })));`;
  const r = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// V8's code for the relaxed kernel (TurboFan): the instructions between two
// consecutive accumulations, i.e. what one relaxed dot costs.
function v8Lowering() {
  const script = `const fs = require('fs'); const instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(${JSON.stringify(WASM)}))); instance.exports.fill(); for (let i = 0; i < 20; i++) instance.exports.relaxed(${REPS}, ${K});`;
  const r = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', '--print-wasm-code', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const text = r.stdout;
  const start = text.lastIndexOf('name: relaxed');
  const body = text.slice(start, text.indexOf('\n\n', text.indexOf('Instructions', start) + 20));
  const ins = body
    .split('\n')
    .filter((l) => /^0x[0-9a-f]+\s/.test(l))
    .map((l) =>
      l
        .trim()
        .split(/\s{2,}/)
        .pop(),
    );
  const first = ins.findIndex((i) => /maddubsw|vpdpbusd/.test(i));
  if (first < 0) return { sequence: [], compiler: /compiler: (\w+)/.exec(body)?.[1] ?? '?' };
  const next = ins.findIndex((i, k) => k > first && /maddubsw|vpdpbusd/.test(i));
  // From the instruction after the previous accumulation to this dot's accumulation.
  let from = first;
  while (from > 0 && !/vpaddd|vpdpbusd/.test(ins[from - 1]) && first - from < 6) from--;
  const seq = ins.slice(from, next > first ? Math.min(next, first + 6) : first + 4);
  return { sequence: seq, compiler: /compiler: (\w+)/.exec(body)?.[1] ?? '?' };
}

async function inChromium() {
  const engine = await launchEngine('chromium');
  try {
    const tab = await engine.open('about:blank');
    const b64 = readFileSync(WASM).toString('base64');
    const r = await tab.evaluate(`(${MEASURE})(Uint8Array.from(atob(${JSON.stringify(b64)}), (c) => c.charCodeAt(0)))`);
    await tab.close();
    return { ...r, version: engine.version };
  } finally {
    await engine.close();
  }
}

build();
const plainNode = inNode([]);
const node = inNode(['--experimental-wasm-relaxed-simd']);
const chromium = await inChromium();
const lowering = v8Lowering();
const fmt = (v, d = 1) => v.toFixed(d);
const date = new Date().toISOString().slice(0, 10);
const row = (name, r) =>
  `| ${name} | ${fmt(r.dot16)} | ${fmt(r.relaxed)} | ${fmt(r.relaxed / r.dot16, 2)}x | ${r.same ? 'yes' : '**no**'} | ${r.sameLater ? 'yes' : '**no**'} |`;
const tiers = [
  ['Node.js', node],
  ['Chromium', chromium],
]
  .filter(([, r]) => r.same !== r.sameLater)
  .map(([name]) => name);
const tierNote = tiers.length
  ? ` In ${tiers.join(' and ')}, the relaxed dot's baseline and optimized code give different integers for the same inputs (second operand in 0..127, where the spec makes the result deterministic): one more reason not to ship it there.`
  : '';
const markdown = `## Relaxed SIMD: the exact int8 dot against dot16

\`bench/relaxed/peak_relaxed.c\`: the inner loop of qwasm's int8 conv kernel (4 pixels x 8 channels, \`i32x4.dot_i16x8_s\`, 64 multiply-adds per 2 reduction values) and the same tile with \`i32x4.relaxed_dot_i8x16_i7x16_add_s\` (raw activations in 0..127, as PyTorch's \`reduce_range\` qconfig gives, against int8 weights: 128 multiply-adds per 4 reduction values), on L1-resident data, built with clang-19 + wasm-ld-19 as a standalone module, interleaved, medians of 15. "Same integers": one pass of each kernel over the same activations and weights, compared, on the first call (the engine's baseline code) and again after the timed calls (its optimized code). This is the ceiling of each instruction mix: the relaxed variant could not beat dot16 by more than its row here. Node.js without \`--experimental-wasm-relaxed-simd\`: ${plainNode.error ? `the module does not compile (${plainNode.error})` : 'compiles'}. ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${date}.

| engine | dot16 GMAC/s | relaxed GMAC/s | relaxed / dot16 | same integers as dot16, first call | after the timed calls |
|---|---|---|---|---|---|
${row(`Node.js ${process.version} (V8 ${process.versions.v8}, flag)`, node)}
${row(`Chromium ${chromium.version}`, chromium)}

V8's ${lowering.compiler} code for one relaxed dot on this CPU (\`node --print-wasm-code\`): \`${lowering.sequence.join('; ')}\`. ${
  lowering.sequence.some((i) => /vpdpbusd/.test(i))
    ? 'V8 uses VNNI here.'
    : 'No VNNI: this CPU has AVX512-VNNI but not the VEX-encoded AVX-VNNI that V8 emits, so the 16 multiply-adds cost pmaddubsw + pmaddwd (with a vector of ones V8 rebuilds each time) + paddd, about as many instructions as two dot_i16x8 + add pairs. The >= 1.4x target cannot be met on this machine, so qwasm does not ship a relaxed-SIMD variant (a third wasm, a clang-19 build and feature detection for no speed-up); this table is re-measured by `npm run bench` and decides again on a machine whose engine lowers the instruction to VNNI.'
}${tierNote}`;
saveResult('2c-relaxed', { date, node, chromium, plainNode, lowering, markdown });
console.log(markdown);
