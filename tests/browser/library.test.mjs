// The library itself (not only the demo) in Chromium, Firefox and WebKit:
// init() in a page and in a module worker, under a strict CSP, with the wasm
// found by default, through locateFile and from wasmBinary; every public
// function on small inputs; the three 3D CNNs of the model goldens through
// the whole eager flow (PyTorch's bits); memory growth past 1 GiB; and the
// threaded variant on a cross-origin isolated page (COOP/COEP): loaded in
// Chromium (page and worker) and Firefox (page), its results the same bits. Every result must equal
// Node's bit for bit: the wasm is the same, so any difference is a bug (an
// engine's SIMD lowering, a float corner, a JS-side difference) to find.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as Q from '../../web/src/index.node.mjs';
import { ENGINE_LAUNCH_HOOK_MS, engineSkipReason, engineTest, launchEngine, selectedEngines } from './engines.mjs';
import { FIXTURES, runGrowthCheck, runLibraryChecks } from './library/checks.mjs';
import { startTestServer } from './test-server.mjs';

const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; object-src 'none'";

let expected;
let expectedGrowth;
beforeAll(async () => {
  await Q.init();
  const fixture = (f) =>
    new Uint8Array(readFileSync(fileURLToPath(new URL(`../golden/fixtures/${f}`, import.meta.url))));
  const models = JSON.parse(readFileSync(fileURLToPath(new URL('../golden/models.json', import.meta.url)), 'utf8'));
  expected = runLibraryChecks(Q, Object.fromEntries(FIXTURES.map((f) => [f, fixture(f)])), models);
  // Node's results are PyTorch's (golden-models.test.mjs); every engine's must equal them.
  for (const [name, m] of Object.entries(expected.models)) expect([name, m.pytorchBits]).toEqual([name, true]);
  expectedGrowth = runGrowthCheck(Q);
}, 60_000);

/** Every named check equal to Node's (each one named in a failure). */
function expectSameAsNode(where, report, growth) {
  expect([where, report.error]).toEqual([where, undefined]);
  const got = report.results;
  for (const name of Object.keys(expected)) expect([where, name, got[name]]).toEqual([where, name, expected[name]]);
  expect(Object.keys(got).filter((k) => !(k in expected) && k !== 'growth')).toEqual([]);
  if (growth) expect([where, 'growth past 1 GiB', got.growth]).toEqual([where, 'growth past 1 GiB', expectedGrowth]);
}

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  let engine;
  let server;

  beforeAll(async () => {
    if (engineSkipReason(engineName)) return;
    server = await startTestServer({ headers: { 'Content-Security-Policy': STRICT_CSP } });
    engine = await launchEngine(engineName);
    console.log(`${engineName} ${engine.version}`);
  }, ENGINE_LAUNCH_HOOK_MS);

  afterAll(async () => {
    await engine?.close();
    await server?.close();
  });

  // COOP/COEP make the page and its workers cross-origin isolated, so the
  // threaded variant can load; a page and a module worker each ask for 4
  // threads. Chromium runs them in both; Firefox on the page only (a Firefox
  // worker that starts workers can hang: isFirefoxWorker in wasm-loader.mjs).
  it("on a cross-origin isolated page, 4 threads give Node's bits (threaded: Chromium page and worker, Firefox page)", async () => {
    const isolated = await startTestServer({
      headers: {
        'Content-Security-Policy': STRICT_CSP,
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      },
    });
    const tab = await engine.open(`${isolated.base}/tests/browser/library/index.html?load=default&threads=4`);
    try {
      const [page, worker] = await Promise.all([isolated.report('page'), isolated.report('worker')]);
      console.log(
        `${engineName} threads: page ${JSON.stringify(page.runtime)}, worker ${JSON.stringify(worker.runtime)}`,
      );
      expectSameAsNode('page', page, false);
      expectSameAsNode('worker', worker, false);
      const threaded = { variant: 'threads', numThreads: 4, maxThreads: 4, isa: 'wasmsimd' };
      if (engineName === 'chromium') {
        for (const r of [page.runtime, worker.runtime]) expect(r).toEqual(threaded);
      }
      if (engineName === 'firefox') {
        expect(page.runtime).toEqual(threaded);
        expect(worker.runtime).toEqual({
          variant: 'single-thread',
          numThreads: 1,
          maxThreads: 1,
          isa: 'wasmsimd',
          threadsUnavailable:
            'Firefox can hang when a worker starts workers, so in a Firefox worker qwasm runs on one thread (threads run on Firefox pages)',
        });
      }
      expect(isolated.notFound).toEqual([]);
    } finally {
      await tab.close();
      await isolated.close();
    }
  }, 180_000);

  it.each([
    ['default', true],
    ['locateFile', false],
    ['wasmBinary', false],
  ])(
    'every public function in a page and a module worker equals Node bit for bit (wasm by %s, strict CSP)',
    async (load, growth) => {
      server.clear();
      const tab = await engine.open(
        `${server.base}/tests/browser/library/index.html?load=${load}${growth ? '&growth=1' : ''}`,
      );
      try {
        const [page, worker] = await Promise.all([server.report('page'), server.report('worker')]);
        expectSameAsNode('page', page, growth);
        expectSameAsNode('worker', worker, false);
        expect(server.notFound).toEqual([]);
      } finally {
        await tab.close();
      }
    },
    180_000,
  );
});
