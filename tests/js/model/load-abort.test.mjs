// Loads that can be stopped: every load from a source takes an AbortSignal
// (`signal`): io.loadModelAsync, io.loadModel(source, { worker: true }) and
// WorkerModel.loadFloatModel. A server on the loopback interface that stalls
// (before its headers, or in the middle of the body) stands for the server
// that would otherwise hold a load until Node's fetch gives up (300 s); an
// aborted load rejects with the signal's reason and lets go of the
// connection, and nothing it took is kept. Also: the float twin's budget.
import { createServer } from 'node:http';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, quantize } from '../model-files.mjs';

const { io } = qwasm;
const MODEL = chainModel([1, 4], [quantize()]); // a small quantized model
const STALL_MS = 30_000; // the server's sockets are ended after the tests in any case

let server;
let base;
const requests = []; // [url, closed: Promise] per request the server saw
let onRequest = () => {}; // called with each request's url

beforeAll(async () => {
  await qwasm.init();
  server = createServer((req, res) => {
    requests.push([req.url, new Promise((resolve) => req.socket.once('close', resolve))]);
    onRequest(req.url);
    if (req.url === '/model') {
      res.writeHead(200, { 'Content-Length': String(MODEL.length) }).end(MODEL);
      return;
    }
    if (req.url === '/stall-body') {
      // Headers and the first bytes, then nothing.
      res.writeHead(200, { 'Content-Length': String(MODEL.length) });
      res.write(MODEL.subarray(0, 16));
    }
    // '/stall-headers': never answered. Either way the socket is ended at STALL_MS at the latest.
    setTimeout(() => res.destroy(), STALL_MS).unref();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// The rejection of `promise` (null if it fulfils) and how long it took.
async function rejection(promise) {
  const start = performance.now();
  try {
    await promise;
    return { error: null, ms: performance.now() - start };
  } catch (error) {
    return { error, ms: performance.now() - start };
  }
}

// Resolves with `value` after ms, or earlier with `promise`'s value.
async function within(promise, ms, value) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms, value);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

// The server's request for `path` made since `before` lets go of its socket soon.
async function connectionClosed(path, before) {
  const seen = requests.slice(before).find(([url]) => url === path);
  expect([path, seen !== undefined]).toEqual([path, true]);
  expect([
    path,
    await within(
      seen[1].then(() => true),
      5000,
      false,
    ),
  ]).toEqual([path, true]);
}

// A signal that aborts (with `reason`) once the server sees a request for `path`.
function abortOnRequest(path, reason) {
  const controller = new AbortController();
  onRequest = (url) => {
    if (url !== path) return;
    onRequest = () => {};
    setTimeout(() => controller.abort(reason), 50); // the request stalls by then
  };
  return controller.signal;
}

const LOADS = [
  ['io.loadModelAsync', (url, signal) => io.loadModelAsync(url, { signal })],
  ['io.loadModel with worker: true', (url, signal) => io.loadModel(url, { worker: true, signal })],
];

describe.each(LOADS)('%s from a stalled server', (_name, load) => {
  test.each(['/stall-headers', '/stall-body'])(
    '%s: AbortSignal.timeout rejects with its TimeoutError, and the connection is let go',
    async (path) => {
      const heap = qwasm.heapInUse();
      const before = requests.length;
      const { error, ms } = await rejection(load(`${base}${path}`, AbortSignal.timeout(1500)));
      expect(error).toBeInstanceOf(DOMException);
      expect(error.name).toBe('TimeoutError');
      expect(ms).toBeLessThan(10_000);
      // (a worker may be ended before it asks: then there is no request)
      if (requests.length > before) await connectionClosed(path, before);
      expect(qwasm.heapInUse()).toBe(heap);
    },
    20_000,
  );

  test('abort() rejects with an AbortError, abort(reason) with that reason, once the request stalls', async () => {
    for (const path of ['/stall-headers', '/stall-body']) {
      for (const [reason, check] of [
        [undefined, (e) => expect([e instanceof DOMException, e.name]).toEqual([true, 'AbortError'])],
        [new Error('the user went elsewhere'), (e, r) => expect(e).toBe(r)],
      ]) {
        const before = requests.length;
        const { error } = await rejection(load(`${base}${path}`, abortOnRequest(path, reason)));
        check(error, reason);
        await connectionClosed(path, before);
      }
    }
  }, 20_000);

  test('an aborted signal rejects before any request; a signal that never fires changes nothing', async () => {
    const before = requests.length;
    const reason = new Error('already cancelled');
    const { error } = await rejection(load(`${base}/stall-headers`, AbortSignal.abort(reason)));
    expect(error).toBe(reason);
    expect(requests.length).toBe(before);
    const model = await load(`${base}/model`, new AbortController().signal);
    const y = await model.forward(qwasm.tensor([0.1, 0.2, 0.3, 0.4], [1, 4]));
    expect(y.shape).toEqual([1, 4]);
    y.dispose?.(); // a QTensor in-process (the model ends quantized)
    model.dispose();
  }, 20_000);
});

test('sources read on the calling thread (a Response, a stream) stop too, worker or not', async () => {
  const stalled = () => new ReadableStream({ pull: () => new Promise(() => {}) }); // never gives a chunk
  for (const [what, make] of [
    ['a Response', () => new Response(stalled())],
    ['a ReadableStream', stalled],
  ]) {
    for (const load of [
      (s, signal) => io.loadModelAsync(s, { signal }),
      (s, signal) => io.loadModel(s, { worker: true, signal }),
    ]) {
      const { error, ms } = await rejection(load(make(), AbortSignal.timeout(200)));
      expect([what, error?.name]).toEqual([what, 'TimeoutError']);
      expect(ms).toBeLessThan(10_000);
    }
  }
}, 20_000);

test('a path: an aborted signal rejects with its reason', async () => {
  const { fileURLToPath } = await import('node:url');
  const path = fileURLToPath(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url));
  const reason = new Error('stop');
  expect((await rejection(io.loadModelAsync(path, { signal: AbortSignal.abort(reason) }))).error).toBe(reason);
  expect((await rejection(io.loadModel(path, { worker: true, signal: AbortSignal.abort(reason) }))).error).toBe(reason);
});

describe('WorkerModel.loadFloatModel', () => {
  test('an abort rejects with the reason, lets go of the connection, drops the twin and keeps the model', async () => {
    const model = await io.loadModel(MODEL, { worker: true });
    try {
      await model.loadFloatModel(MODEL); // a twin that the aborted load must not leave behind either
      for (const path of ['/stall-headers', '/stall-body']) {
        const at = requests.length;
        const { error } = await rejection(model.loadFloatModel(`${base}${path}`, { signal: abortOnRequest(path) }));
        expect(error?.name).toBe('AbortError');
        await connectionClosed(path, at);
      }
      const before = requests.length;
      const { error } = await rejection(
        model.loadFloatModel(`${base}/stall-body`, { signal: AbortSignal.timeout(300) }),
      );
      expect(error?.name).toBe('TimeoutError');
      const x = qwasm.tensor([0.1, 0.2, 0.3, 0.4], [1, 4]);
      expect((await model.forward(x, { transfer: false })).shape).toEqual([1, 4]);
      await expect(model.compareWeights()).rejects.toThrow('no float model: call loadFloatModel(source) first');
      // An aborted signal: no request at all; the model still answers.
      const reason = new Error('never mind');
      expect(
        (await rejection(model.loadFloatModel(`${base}/model`, { signal: AbortSignal.abort(reason) }))).error,
      ).toBe(reason);
      expect(requests.length).toBe(before + 1);
      await model.loadFloatModel(`${base}/model`, { signal: new AbortController().signal });
      expect(await model.compareWeights()).toEqual({});
    } finally {
      model.dispose();
    }
  }, 30_000);

  test("its budget is the model's unless it has its own", async () => {
    // The twin pools to a 100 x 100 float map: 40,000 bytes.
    const twin = chainModel([1, 1, 4, 4], [{ type: 'AdaptiveAvgPool', dims: 2, output_size: [100, 100] }]);
    const small = await io.loadModel(MODEL, { worker: true, maxActivationBytes: 1000 });
    const unlimited = await io.loadModel(MODEL, { worker: true });
    try {
      await expect(small.loadFloatModel(twin)).rejects.toThrow(
        /^WorkerModel\.loadFloatModel\(source\): node 'm0' .*over maxActivationBytes/,
      );
      await small.loadFloatModel(twin, { maxActivationBytes: 40_000 });
      await unlimited.loadFloatModel(twin);
      await expect(unlimited.loadFloatModel(twin, { maxActivationBytes: 1000 })).rejects.toThrow(/maxActivationBytes/);
      await expect(unlimited.loadFloatModel(twin, { maxWork: 1 })).rejects.toThrow(/over maxWork/);
      await expect(unlimited.loadFloatModel(twin, { maxWork: '1e12' })).rejects.toThrow(
        new TypeError("WorkerModel.loadFloatModel(source): maxWork must be a number, got the string '1e12'"),
      );
      await expect(unlimited.loadFloatModel(twin, { maxActivationBytes: 0 })).rejects.toThrow(RangeError);
    } finally {
      small.dispose();
      unlimited.dispose();
    }
  }, 30_000);
});

test('signal is checked: an AbortSignal, and only where a load can be stopped', async () => {
  await expect(io.loadModelAsync(MODEL, { signal: 300 })).rejects.toThrow(
    new TypeError(
      "io.loadModelAsync(source): signal must be an AbortSignal (e.g. AbortSignal.timeout(ms) or an AbortController's), got the number 300",
    ),
  );
  await expect(io.loadModel(MODEL, { worker: true, signal: {} })).rejects.toThrow(TypeError);
  const model = await io.loadModel(MODEL, { worker: true });
  await expect(model.loadFloatModel(MODEL, { signal: 'soon' })).rejects.toThrow(TypeError);
  model.dispose();
  expect(() => io.loadModel(MODEL, { signal: AbortSignal.timeout(1000) })).toThrow(
    'io.loadModel(bytes): signal cancels a download, and loading bytes cannot be stopped: use io.loadModelAsync(source) or io.loadModel(source, { worker: true })',
  );
});
