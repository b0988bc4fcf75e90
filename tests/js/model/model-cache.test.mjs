// cache: true in Node.js, which has no Cache API: a load fetches as without
// it (each load downloads), io.clearCache() has nothing to empty; the option
// is checked, and refused where nothing is downloaded (io.loadModel(bytes)).
// The cache itself is tested in the browsers (tests/browser/model-cache.test.mjs).
import { createServer } from 'node:http';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, quantize } from '../model-files.mjs';

const { io } = qwasm;
const MODEL = chainModel([1, 4], [quantize()]);
let server;
let base;
let requests = 0;

beforeAll(async () => {
  await qwasm.init();
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { ETag: '"v1"' }).end(MODEL);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

test('in Node.js cache: true loads as without it (no Cache API: each load downloads); clearCache() resolves false', async () => {
  expect(typeof globalThis.caches).toBe('undefined');
  for (const load of [
    () => io.loadModelAsync(`${base}/model`, { cache: true }),
    () => io.loadModel(`${base}/model`, { worker: true, cache: true }),
  ]) {
    const model = await load();
    expect(model.inputShape).toEqual([1, 4]);
    model.dispose();
  }
  expect(requests).toBe(2);
  await expect(io.clearCache()).resolves.toBe(false);
});

test('cache must be a boolean, and io.loadModel(bytes) refuses it (nothing is downloaded)', async () => {
  await expect(io.loadModelAsync(`${base}/model`, { cache: 'yes' })).rejects.toThrow(
    new TypeError("io.loadModelAsync(source): cache must be a boolean, got the string 'yes'"),
  );
  expect(() => io.loadModel(MODEL, { cache: true })).toThrow(
    new TypeError(
      'io.loadModel(bytes): cache keeps a downloaded file: use io.loadModelAsync(url) or io.loadModel(url, { worker: true })',
    ),
  );
});
