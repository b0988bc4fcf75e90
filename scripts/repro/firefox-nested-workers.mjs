#!/usr/bin/env node
// Measures the Firefox hang that makes qwasm run single-threaded in Firefox
// workers (isFirefoxWorker in web/src/runtime/wasm-loader.mjs): a page starts a module
// worker that constructs three workers (firefox-nested-workers/), with no
// qwasm code at all; a load is counted as hung when the three have not all
// answered within 10 s. The hang shows most under CPU load, so by default
// the run keeps three busy loops going (--no-load to run without).
//
//   node scripts/repro/firefox-nested-workers.mjs [loads=40] [engine=firefox] [--no-load]
import { fork } from 'node:child_process';
import { launchEngine } from '../../tests/browser/engines.mjs';
import { startTestServer } from '../../tests/browser/test-server.mjs';

if (process.argv[2] === '--busy') {
  for (;;) {}
}
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const loads = Number(args[0] ?? 40);
const engineName = args[1] ?? 'firefox';
const busy = process.argv.includes('--no-load')
  ? []
  : [0, 1, 2].map(() => fork(new URL(import.meta.url).pathname, ['--busy']));

const engine = await launchEngine(engineName);
let hung = 0;
try {
  for (let i = 0; i < loads; i++) {
    const server = await startTestServer({
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    });
    const tab = await engine.open(`${server.base}/scripts/repro/firefox-nested-workers/index.html`);
    try {
      await server.report('outer', 10_000);
    } catch {
      hung++;
      console.log(
        `load ${i}: hung; the outer worker's last steps: ${await tab.evaluate('JSON.stringify(window.steps)')}`,
      );
    } finally {
      await tab.close();
      await server.close();
    }
  }
} finally {
  await engine.close();
  for (const b of busy) b.kill();
}
console.log(
  `${engineName} ${engine.version}: ${hung} of ${loads} loads hung${busy.length ? ' (3 busy loops running)' : ''}`,
);
