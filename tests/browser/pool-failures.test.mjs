// init() always settles, whatever happens to the threaded variant's pool
// workers, in the engines that start threads on a page (Chromium and
// Firefox; WebKitGTK has no SharedArrayBuffer): a worker script that is missing, served with a MIME type that is
// not JavaScript, does not parse, is refused by a CSP, or hangs in its
// start-up. Each leads, within a bounded time, to the single-thread variant
// (same integers) with runtimeInfo().threadsUnavailable saying what failed
// and what to do, and a note in the console.
import { engineTest, selectedEngines, useEngine } from './engines.mjs';
import { startTestServer } from './test-server.mjs';

const WORKER = '/dist/qwasm.mt.worker.mjs';
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'";
const REMEDY = "init({ locateFile: (file) => '/qwasm/' + file })";
const WORKER_FAILED = /^loading the threaded variant failed: a thread pool worker failed: /;

describe.each(selectedEngines().filter((e) => e !== 'webkit'))('%s', (engineName) => {
  const it = engineTest(engineName, test);
  const engine = useEngine(engineName);

  /** Opens the pool page on a server set up by `serverOptions`; returns its report. */
  async function initWith(serverOptions, query = '') {
    const server = await startTestServer({ ...serverOptions, headers: { ...ISOLATED, ...serverOptions.headers } });
    const tab = await engine().open(`${server.base}/tests/browser/pool/index.html${query}`);
    try {
      return await server.report('pool', 60_000);
    } finally {
      await tab.close();
      await server.close();
    }
  }

  function expectSingleThreadFallback(r, reason) {
    expect(r).toEqual({
      settled: 'resolved',
      ms: expect.any(Number),
      runtime: { variant: 'single-thread', numThreads: 1, maxThreads: 1, isa: 'wasmsimd', threadsUnavailable: reason },
      intRepr: [138, 108, 158],
      warnings: [`qwasm: running on one thread: ${r.runtime.threadsUnavailable}`], // the fallback is said in the console
    });
    expect(r.runtime.threadsUnavailable).toContain(REMEDY);
  }

  it('the pool starts when nothing is broken (the cases below can fail)', async () => {
    const r = await initWith({ headers: { 'Content-Security-Policy': CSP } });
    expect(r.runtime).toEqual({ variant: 'threads', numThreads: 2, maxThreads: 2, isa: 'wasmsimd' });
    expect(r.intRepr).toEqual([138, 108, 158]);
    expect(r.warnings).toEqual([]);
  }, 90_000);

  it.each([
    ['missing (HTTP 404)', { status: 404, type: 'text/plain', body: 'not found' }],
    ['served as text/html (a dev server fallback page)', { type: 'text/html', body: '<!doctype html><p>app</p>' }],
    ['not parseable JavaScript', { body: 'export default function ( {' }],
  ])(
    'a pool worker script that is %s: init() falls back to one thread and says why',
    async (_name, response) => {
      const r = await initWith({ fileResponses: { [WORKER]: response } });
      expectSingleThreadFallback(r, expect.stringMatching(WORKER_FAILED));
    },
    90_000,
  );

  it("a page whose CSP refuses workers (worker-src 'none'): init() falls back to one thread and says why", async () => {
    const r = await initWith({
      headers: { 'Content-Security-Policy': CSP.replace("worker-src 'self'", "worker-src 'none'") },
    });
    expectSingleThreadFallback(r, expect.stringMatching(/^loading the threaded variant failed: /));
  }, 90_000);

  it('a pool worker that hangs in its start-up: init() gives up on threads after its timeout and says why', async () => {
    // A module worker whose top-level await never settles: it never takes the glue's 'load' message.
    const hang = { body: 'await new Promise(() => {});\nexport {};\n' };
    const r = await initWith({ fileResponses: { [WORKER]: hang } }, '?timeout=3000');
    expectSingleThreadFallback(
      r,
      expect.stringMatching(/^loading the threaded variant failed: the thread pool's workers did not start within 3 s/),
    );
    expect(r.ms).toBeGreaterThanOrEqual(3000);
    expect(r.ms).toBeLessThan(30_000);
  }, 90_000);
});
