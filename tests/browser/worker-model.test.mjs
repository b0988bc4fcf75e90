// io.loadModel(url, { worker: true }) in each engine: the model downloads
// with progress, loads and runs in the library's worker, gives Node's output
// bit for bit, transfers its input, reports bad inputs as rejections, and
// dispose() ends it. On a cross-origin isolated page, the worker runs the
// threaded variant where the engine allows (Chromium; Firefox workers and
// WebKit run one thread: see wasm-loader.mjs).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as Q from '../../web/src/index.node.mjs';
import { engineTest, selectedEngines, useEngine } from './engines.mjs';
import { startTestServer } from './test-server.mjs';

const MODEL = '/tests/golden/exported/r3d_18.qwasm.safetensors';
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; object-src 'none'";
const FILE_BYTES = readFileSync(fileURLToPath(new URL(`../..${MODEL}`, import.meta.url)));

let expected;
beforeAll(async () => {
  await Q.init();
  const model = Q.io.loadModel(FILE_BYTES);
  const shape = model.inputShape;
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37);
  const y = model.forward({ data, shape });
  expected = { shape: y.shape, output: Buffer.from(y.data.buffer).toString('base64') };
  model.dispose();
}, 60_000);

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  const engine = useEngine(engineName);

  it("a model loaded by URL in a worker: progress, Node's bits, a transferred input, errors, dispose (COOP/COEP, strict CSP)", async () => {
    const server = await startTestServer({ headers: { ...ISOLATED, 'Content-Security-Policy': STRICT_CSP } });
    const tab = await engine().open(`${server.base}/tests/browser/worker-model/index.html?model=${MODEL}`);
    try {
      const r = await server.report('worker-model', 120_000);
      expect(r.error).toBeUndefined();
      const total = FILE_BYTES.length;
      expect(r.progress.at(-1)).toEqual([total, total]);
      expect(r.progress[0]).toEqual([0, total]);
      for (let i = 1; i < r.progress.length; i++) expect(r.progress[i][0]).toBeGreaterThanOrEqual(r.progress[i - 1][0]);
      expect({ shape: r.shape, output: r.output }).toEqual(expected);
      expect(r).toMatchObject({
        sameAgain: true,
        inputDetached: true,
        keptLength: 3 * 16 * 112 * 112, // transfer: false keeps the caller's data
        profiledSame: true,
        afterDispose: 'WorkerModel.forward(x): the model was disposed',
        modules: expect.any(Number),
        nodes: 72,
      });
      expect(r.bad).toMatch(/^WorkerModel\.forward\(x\): node 'stem_0' .* expected a 5-D input/);
      expect(r.profiledLayers).toBe(70);
      // The worker's default numThreads: as init()'s on this machine.
      if (engineName === 'chromium') {
        expect(r.runtime).toEqual({ variant: 'threads', numThreads: 2, maxThreads: 2, isa: 'wasmsimd' });
      } else {
        expect(r.runtime).toEqual({
          variant: 'single-thread',
          numThreads: 1,
          maxThreads: 1,
          isa: 'wasmsimd',
          threadsUnavailable: expect.any(String),
        });
      }
    } finally {
      await tab.close();
      await server.close();
    }
  }, 180_000);
  it('a model worker script that cannot load: the load rejects and says so (no hang)', async () => {
    const server = await startTestServer({
      headers: ISOLATED,
      fileResponses: { '/dist/qwasm.model-worker.mjs': { status: 404, type: 'text/plain', body: 'not found' } },
    });
    const tab = await engine().open(`${server.base}/tests/browser/worker-model/index.html?model=${MODEL}`);
    try {
      const r = await server.report('worker-model', 60_000);
      expect(r.error).toMatch(/^Error: io\.loadModel\(source, \{ worker: true \}\): the model worker failed: /);
      // An io.LoadError: what to set (locateFile) when the bundler did not emit the worker's script.
      expect(r).toMatchObject({
        kind: 'worker',
        url: `${server.base}${MODEL}`,
        status: null,
        hint: expect.stringContaining(
          "If its script (qwasm.model-worker.mjs) did not load: a bundler that does not emit it (esbuild, Rollup) needs node_modules/qwasm/dist/ copied and io.loadModel(url, { worker: true, locateFile: (file) => '/qwasm/' + file })",
        ),
      });
    } finally {
      await tab.close();
      await server.close();
    }
  }, 90_000);

  it.each([
    ['answered with 404', { status: 404, type: 'text/plain', body: 'not found' }, { kind: 'http', status: 404 }],
    [
      "answered with the app's HTML page (a dev server's fallback)",
      { type: 'text/html', body: '<!doctype html><html><body>app</body></html>' },
      {
        kind: 'not-a-model',
        status: 200,
        hint: expect.stringMatching(/^An HTML page came back \(content-type text\/html/),
      },
    ],
  ])(
    'a wrong model URL %s: an io.LoadError with its kind, the URL, the status',
    async (_, response, fields) => {
      const typo = '/models/typo.qwasm.safetensors';
      const server = await startTestServer({ headers: ISOLATED, fileResponses: { [typo]: response } });
      const tab = await engine().open(`${server.base}/tests/browser/worker-model/index.html?model=${typo}`);
      try {
        const r = await server.report('worker-model', 60_000);
        expect(r).toMatchObject({ url: `${server.base}${typo}`, ...fields });
        expect(r.error).toContain(`${server.base}${typo}`);
      } finally {
        await tab.close();
        await server.close();
      }
    },
    90_000,
  );
});
