// Timing helpers shared by the benchmarks: warm up until V8's optimizing wasm
// tier has run, then take the median of several runs. Results go to
// bench/results/<name>.json and BENCHMARKS.md is rendered from all of them.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as qwasm from '../web/src/node-entry.mjs';
import { wasm } from '../web/src/runtime/runtime.mjs';
import { qtensorHandle } from '../web/src/tensors/qtensor.mjs';

const require = createRequire(import.meta.url);

/**
 * The library (its ES module sources) on the benchmark build of the wasm:
 * the release core with the package's bindings plus the test-only entry
 * points (the peak microbenchmark). Returns {qwasm, M, handle}.
 */
export async function initBench() {
  await qwasm.init({
    _moduleFactory: require('../build/wasm/qwasm.bench.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.bench.wasm', import.meta.url)),
  });
  return { qwasm, M: wasm(), handle: (q) => qtensorHandle(q, 'bench') };
}

/** The library on its threaded (testing) build with a pool of `threads`. Returns qwasm. */
export async function initThreaded(threads) {
  await qwasm.init({
    numThreads: threads,
    _moduleFactory: require('../build/wasm/qwasm.testing.mt.js'),
    wasmBinary: readFileSync(new URL('../build/wasm/qwasm.testing.mt.wasm', import.meta.url)),
  });
  return qwasm;
}

/**
 * One side-by-side child of a thread-count run: qwasm on its threaded build
 * with a pool of `threads`, and onnxruntime-web at the same count with SIMD,
 * sessions on its wasm provider with every graph optimization and its
 * threads not spinning (`ortOptions`). Returns {qwasm, ort, ortOptions}.
 */
export async function initSideBySide(threads) {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  await initThreaded(threads);
  const ortOptions = {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
  return { qwasm, ort, ortOptions };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Runs fn `warmup` times, then `runs` times; returns {medianMs, minMs, runs}. */
export function time(fn, { warmup = 3, runs = 9 } = {}) {
  for (let i = 0; i < warmup; i++) fn();
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    ms.push(performance.now() - t0);
  }
  return { medianMs: median(ms), minMs: Math.min(...ms), runs: ms.length };
}

/**
 * Times several contestants side by side: after warming each up, every round
 * runs each contestant once, in an order rotated from round to round, so that
 * all of them see the same moments of a shared, noisy machine. A contestant
 * ({name, fn, rounds?, warmup?}) may take fewer rounds (slow ones). Returns
 * {name: {medianMs, minMs, runs, all}} (all: every time, in ms).
 */
export async function interleave(contestants, { warmup = 2, rounds = 7 } = {}) {
  for (const c of contestants) for (let i = 0; i < (c.warmup ?? warmup); i++) await c.fn();
  const ms = contestants.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contestants.length; k++) {
      const i = (k + r) % contestants.length;
      if (ms[i].length >= (contestants[i].rounds ?? rounds)) continue;
      const t0 = performance.now();
      await contestants[i].fn();
      ms[i].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(
    contestants.map((c, i) => [
      c.name,
      { medianMs: median(ms[i]), minMs: Math.min(...ms[i]), runs: ms[i].length, all: ms[i] },
    ]),
  );
}

/**
 * qwasm's contestants (`ours`) interleaved, then a threaded peer's rounds
 * (`theirs`, e.g. onnxruntime-web at t threads), then qwasm's again:
 * onnxruntime-web's threads keep the cores busy for a while after a run (even
 * with spinning turned off, on a 2-core machine), which slowed whichever
 * qwasm contestant came next by up to 3x when all were interleaved. Each
 * side's median is over both of its blocks, so both see the machine at the
 * same moments of the run. `rounds`: the peer's; qwasm's are split in two.
 */
export async function timeAroundPeer(ours, theirs, rounds) {
  const a = await interleave(ours, { warmup: 2, rounds: Math.ceil(rounds / 2) });
  const o = await interleave([theirs], { warmup: 2, rounds });
  const b = await interleave(ours, { warmup: 1, rounds: Math.ceil(rounds / 2) });
  const merged = {};
  for (const { name } of ours) {
    const ms = [...a[name].all, ...b[name].all];
    merged[name] = { medianMs: median(ms), minMs: Math.min(...ms), runs: ms.length };
  }
  return { ...merged, [theirs.name]: o[theirs.name] };
}

export function machine() {
  const c = cpus();
  return `${c.length} x ${c[0]?.model ?? 'unknown CPU'}, Node ${process.version}, one thread`;
}

const RESULTS = new URL('./results/', import.meta.url);

export function saveResult(name, result) {
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(new URL(`${name}.json`, RESULTS), `${JSON.stringify(result, null, 2)}\n`);
  renderBenchmarksMd();
}

/**
 * BENCHMARKS.md = every results/*.json rendered by its own `markdown` field, in
 * name order; README.md's benchmark section (between the bench:start / bench:end
 * markers) = their compact `readme` fields, so the README quotes the same run
 * (unless QWASM_BENCH_README=0).
 */
export function renderBenchmarksMd() {
  const results = readdirSync(RESULTS)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(new URL(f, RESULTS), 'utf8')));
  const md = `# Benchmarks\n\nGenerated by \`npm run bench\` (bench/*.bench.mjs); medians after warm-up, measured side by side in one run per section. Timing never decides a test.\n\n${results.map((r) => r.markdown).join('\n\n')}\n`;
  writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), md);
  // QWASM_BENCH_README=0: BENCHMARKS.md only (README.md left as it is, e.g. while it is being edited).
  if (process.env.QWASM_BENCH_README === '0') return;
  const readmeUrl = new URL('../README.md', import.meta.url);
  const readme = readFileSync(readmeUrl, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const i = readme.indexOf(start);
  const j = readme.indexOf(end);
  if (i >= 0 && j > i) {
    const body = results
      .filter((r) => r.readme)
      .map((r) => r.readme)
      .join('\n\n');
    writeFileSync(readmeUrl, `${readme.slice(0, i + start.length)}\n${body}\n${readme.slice(j)}`);
  }
}

/**
 * A benchmark run at several thread counts, each in a child process of its
 * own (onnxruntime-web and qwasm's pool fix their threads when their wasm
 * starts): `node <file>` runs every count and renders the tables,
 * `node <file> --child t` is one count (child(t) prints its results as JSON
 * on stdout), `node <file> --render` renders the saved results/<name>.json again.
 */
export async function perThreadCount({ file, threads, name, child, render }) {
  if (process.argv[2] === '--child') return child(Number(process.argv[3]));
  if (process.argv[2] === '--render') {
    const saved = JSON.parse(readFileSync(new URL(`./results/${name}.json`, import.meta.url), 'utf8'));
    return render(saved.byThreads, saved.date, saved.machine);
  }
  const self = fileURLToPath(file);
  const byThreads = {};
  for (const t of threads) {
    process.stderr.write(`${t} thread(s)...\n`);
    byThreads[t] = JSON.parse(execFileSync(process.execPath, [self, '--child', String(t)], { maxBuffer: 1 << 26 }));
  }
  return render(byThreads, new Date().toISOString().slice(0, 10), machine());
}
