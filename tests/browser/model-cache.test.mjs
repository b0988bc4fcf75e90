// Cached model files (cache: true) in each engine: the first load downloads
// and keeps the file; a second asks the server with the file's ETag and,
// answered 304, downloads nothing (the page's load and the model worker's
// alike: one cache per origin); a changed file is downloaded again and
// replaces the kept one; io.clearCache() empties the cache; a cache that
// cannot keep the file (a full quota) leaves each load on the network, with
// a warning in the console. The page is tests/browser/model-cache/page.mjs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as Q from '../../web/src/index.node.mjs';
import { chainModel, quantize } from '../js/model-files.mjs';
import { engineTest, selectedEngines, useEngine } from './engines.mjs';
import { startTestServer } from './test-server.mjs';

const FILES = [
  chainModel([1, 4], [quantize()]),
  readFileSync(fileURLToPath(new URL('../golden/exported/activations_fx_tanh.qwasm.safetensors', import.meta.url))),
];
let nodes; // each file's node count, as loaded here

beforeAll(async () => {
  await Q.init();
  nodes = FILES.map((bytes) => {
    const model = Q.io.loadModel(bytes);
    const n = model.nodes.length;
    model.dispose();
    return n;
  });
});

/** A server of /model (version `v`, its ETag; 304 when If-None-Match has it), /__bump (next version), /__log. */
function modelRoutes() {
  let v = 0;
  let log = [];
  return {
    '/model': (req, res, headers) => {
      const etag = `"model-v${v}"`;
      if (req.headers['if-none-match'] === etag) {
        log.push(304);
        res.writeHead(304, { ...headers, ETag: etag }).end();
        return;
      }
      log.push(200);
      // no-store: the browser's HTTP cache keeps nothing, so what is kept is qwasm's doing.
      res
        .writeHead(200, {
          ...headers,
          ETag: etag,
          'Content-Type': 'application/octet-stream',
          'Cache-Control': 'no-store',
        })
        .end(FILES[v]);
    },
    '/__bump': (_req, res, headers) => {
      v = 1;
      res.writeHead(204, headers).end();
    },
    '/__log': (_req, res, headers) => {
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(log));
      log = [];
    },
  };
}

describe.each(selectedEngines())('%s', (engineName) => {
  const it = engineTest(engineName, test);
  const engine = useEngine(engineName);

  it('a second load downloads nothing (304), in the page and in the model worker; a changed file is downloaded again; clearCache empties it; a full quota leaves the load on the network, with a warning', async () => {
    const server = await startTestServer({ routes: modelRoutes() });
    const tab = await engine().open(`${server.base}/tests/browser/model-cache/index.html`);
    try {
      const r = await server.report('model-cache', 60_000);
      const [v0, v1] = nodes;
      expect(r).toEqual({
        steps: {
          cleared: expect.any(Boolean),
          first: { nodes: v0, requests: [200] },
          second: { nodes: v0, requests: [304] }, // revalidated: no download
          worker: { nodes: v0, requests: [304] }, // the worker finds the page's copy
          changed: { nodes: v1, requests: [200] }, // the new file, which replaces the kept one
          afterChange: { nodes: v1, requests: [304] },
          clearedAgain: true,
          afterClear: { nodes: v1, requests: [200] },
          full: { nodes: v1, requests: [200] },
          fullAgain: { nodes: v1, requests: [200] }, // nothing kept: downloaded again
        },
        warnings: [
          `qwasm: could not keep ${server.base}/model in the cache (QuotaExceededError: the quota is full); it loads from the network`,
          `qwasm: could not keep ${server.base}/model in the cache (QuotaExceededError: the quota is full); it loads from the network`,
        ],
      });
    } finally {
      await tab.close();
      await server.close();
    }
  }, 90_000);
});
