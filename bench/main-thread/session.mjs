// What the main-thread benches (bench/main-thread.bench.mjs: the bench's own
// page; bench/model-view.bench.mjs: the demo's Model view) share on the Node
// side: the full-size models they need, rounds of page loads in headless
// Chromium on a cross-origin isolated page (so the model worker runs
// threads), the worst of each phase over the rounds, and how the tables
// read.
import { existsSync } from 'node:fs';
import { launchEngine } from '../../tests/browser/engines.mjs';
import { startTestServer } from '../../tests/browser/test-server.mjs';

export const MODELS = '/bench/output/models';
export const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 3);

/** Exits (successfully: a bench without its inputs is skipped) when one of the server paths is not built. */
export function requireModels(bench, paths) {
  const missing = paths.filter((p) => !existsSync(new URL(`../..${p}`, import.meta.url)));
  if (missing.length === 0) return;
  console.log(`${bench}: ${missing.join(', ')} missing: run python3 bench/model_prep.py (needs torch) first`);
  process.exit(0);
}

/**
 * ROUNDS rounds of round(open, server): a fresh isolated page each (open(path)
 * gives a tab); serverOptions: startTestServer's (e.g. capture). Returns
 * {runs, version} (Chromium's).
 */
export async function isolatedRounds(round, serverOptions = {}) {
  const server = await startTestServer({
    ...serverOptions,
    headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
  });
  const engine = await launchEngine('chromium');
  const runs = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      server.clear();
      const result = await round((path) => engine.open(`${server.base}${path}`), server);
      runs.push(result);
      console.log(JSON.stringify(result.phases.map(({ longestFrame, ...p }) => p)));
    }
  } finally {
    await engine.close();
    await server.close();
  }
  return { runs, version: engine.version ?? '' };
}

/** Per phase, the worst over the rounds (the figure that matters is the longest block). */
export function worstPhases(runs) {
  return runs[0].phases.map(({ name }) => {
    const all = runs.map((r) => r.phases.find((p) => p.name === name));
    return {
      name,
      wallMs: Math.max(...all.map((p) => p.wallMs)),
      maxGapMs: Math.max(...all.map((p) => p.maxGapMs)),
      longTasks: Math.max(...all.map((p) => p.longTasks)),
      longestTaskMs: Math.max(...all.map((p) => p.longestTaskMs)),
    };
  });
}

/** What the tables' last two columns mean. */
export const MEASURES =
  '"Longest task" is the Long Tasks API\'s (it reports tasks over 50 ms; — when there was none); "longest gap" is the longest time between two beats of a heartbeat (a 0 ms timer re-posted from each beat, which the engine clamps to 4 ms)';

const taskMs = (ms) => (ms === 0 ? '—' : ms.toFixed(0));

/** The phases as a markdown table. */
export function phaseTable(phases) {
  return `| phase | wall (ms) | long tasks | longest task (ms) | longest gap (ms) |
|---|---:|---:|---:|---:|
${phases.map((p) => `| ${p.name} | ${p.wallMs.toFixed(0)} | ${p.longTasks} | ${taskMs(p.longestTaskMs)} | ${p.maxGapMs.toFixed(1)} |`).join('\n')}`;
}

/** "under 50 ms (no long task)" or "<n> ms": the longest task of phases, for a sentence. */
export function longestTaskText(phases) {
  const ms = Math.max(...phases.map((p) => p.longestTaskMs));
  return ms === 0 ? 'under 50 ms (no long task)' : `${ms.toFixed(0)} ms`;
}
