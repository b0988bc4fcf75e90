// Load errors that say what happened (io.LoadError): every failed load, on
// this thread (io.loadModelAsync, io.loadModel(bytes)) and in the model
// worker (io.loadModel(source, { worker: true })), rejects with an Error
// whose `kind` says what went wrong ('network', 'http', 'not-a-model',
// 'format', 'budget', 'worker'), whose `url` says what was loaded (the URL,
// or 'bytes', 'Blob', 'Response', 'stream'), with the HTTP status and a
// hint where one helps. A server on the loopback interface answers as a
// wrong URL would: 404, or an HTML page with 200 (a dev server's fallback).
import { createServer } from 'node:http';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, quantize } from '../model-files.mjs';

const { io } = qwasm;
const MODEL = chainModel([1, 4], [quantize()]);
const HTML = new TextEncoder().encode('<!doctype html>\n<html><head><title>app</title></head><body></body></html>\n');
const NOT_QWASM = chainModel([1, 4], [quantize()], {}, { format: 'something-else' });
const NEWER = chainModel([1, 4], [quantize()], {}, { format_version: '99' });
const TEXT = new TextEncoder().encode('hello, this is not a model file at all\n');

let server;
let base;
let closedUrl; // a port nothing listens on

beforeAll(async () => {
  await qwasm.init();
  server = createServer((req, res) => {
    if (req.url === '/model') res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(MODEL);
    else if (req.url === '/spa') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(HTML);
    else if (req.url === '/newer') res.writeHead(200).end(NEWER);
    else res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not Found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
  const other = createServer();
  await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${other.address().port}/model`;
  await new Promise((resolve) => other.close(resolve));
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The rejection of `promise` (the test fails if it fulfils). */
async function rejection(promise) {
  try {
    const model = await promise;
    model.dispose();
  } catch (e) {
    return e;
  }
  throw new Error('the load succeeded');
}

/** The fields a test compares: class, kind, url, status, hint (or whether there is one), and the message. */
const fieldsOf = (e) => ({
  isError: e instanceof Error,
  kind: e.kind,
  url: e.url,
  status: e.status,
  hint: e.hint,
  message: e.message,
});

const LOADS = [
  ['io.loadModelAsync', 'io.loadModelAsync(source)', (source, options) => io.loadModelAsync(source, options)],
  [
    'io.loadModel with worker: true',
    'io.loadModel(source, { worker: true })',
    (source, options) => io.loadModel(source, { ...options, worker: true }),
  ],
];

describe.each(LOADS)('%s', (_, ctx, load) => {
  test("a wrong URL answered with 404: kind 'http', the URL, status 404, a hint to check the URL", async () => {
    const url = `${base}/typo.qwasm.safetensors`;
    const e = await rejection(load(url));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'http',
      url,
      status: 404,
      hint: expect.stringContaining('Check the URL'),
      message: `${ctx}: fetching ${url} failed: HTTP 404 Not Found. ${e.hint}`,
    });
  });

  test("a wrong URL answered with an HTML page (a dev server's fallback): kind 'not-a-model', the status, content-type and first bytes", async () => {
    const url = `${base}/spa`;
    const e = await rejection(load(url));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'not-a-model',
      url,
      status: 200,
      hint: expect.stringMatching(
        /^An HTML page came back \(content-type text\/html; charset=utf-8\), not the model: check the URL .* it starts with 3c 21 64 6f 63 74 79 70 \("<!doctype html>\."\)$/,
      ),
      message: expect.stringContaining(`${ctx}: ${url} is not a model file (HTTP 200). An HTML page came back`),
    });
  });

  test("no server: kind 'network', the URL, no status", async () => {
    const e = await rejection(load(closedUrl));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'network',
      url: closedUrl,
      status: null,
      hint: expect.stringContaining('The server did not answer'),
      message: expect.stringContaining(`${ctx}: fetching ${closedUrl} failed (`),
    });
  });

  test("a path with no file (Node.js): kind 'network', the path, a hint to check it", async () => {
    const e = await rejection(load('/no/such/dir/model.qwasm.safetensors'));
    expect(fieldsOf(e)).toMatchObject({
      kind: 'network',
      url: '/no/such/dir/model.qwasm.safetensors',
      status: null,
      hint: 'Check the path: there is no file there',
    });
  });

  test("a file of a newer format (from a URL): kind 'format', the URL", async () => {
    const url = `${base}/newer`;
    const e = await rejection(load(url));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'format',
      url,
      status: null,
      hint: null,
      message: `${ctx}: format version the string '99': this qwasm reads versions 1 and 2`,
    });
  });

  // Each source kind: what `url` says, and the kind of what is wrong with the bytes.
  test.each([
    ['bytes', () => TEXT, 'bytes'],
    ['a Blob', () => new Blob([TEXT]), 'Blob'],
    ['a Response', () => new Response(TEXT), 'Response'],
    ['a stream', () => new Blob([TEXT]).stream(), 'stream'],
  ])("text from %s: kind 'not-a-model', url %s, the first bytes in the hint", async (_, source, name) => {
    const e = await rejection(load(source()));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'not-a-model',
      url: name,
      status: null,
      hint: expect.stringMatching(
        /^It is 39 bytes starting with 68 65 6c 6c 6f 2c 20 74 \("hello, this is n"\); a qwasm model is a .safetensors file written by qwasm-export/,
      ),
      message: expect.stringContaining(`${ctx}: `),
    });
  });

  test.each([
    ['bytes', () => HTML, 'bytes'],
    ['a Blob', () => new Blob([HTML]), 'Blob'],
  ])("an HTML page from %s: kind 'not-a-model', the hint says an HTML page came", async (_, source, name) => {
    const e = await rejection(load(source()));
    expect(fieldsOf(e)).toMatchObject({
      kind: 'not-a-model',
      url: name,
      hint: expect.stringMatching(/^An HTML page came back, not the model/),
    });
  });

  test("a .safetensors file that is not a qwasm model: kind 'not-a-model', a hint to use qwasm-export", async () => {
    const e = await rejection(load(new Blob([NOT_QWASM])));
    expect(fieldsOf(e)).toEqual({
      isError: true,
      kind: 'not-a-model',
      url: 'Blob',
      status: null,
      hint: 'Write it with qwasm-export (python/qwasm_export.py)',
      message: `${ctx}: not a qwasm model: its metadata has format the string 'something-else', expected 'qwasm-model'. Write it with qwasm-export (python/qwasm_export.py)`,
    });
  });

  test("over the budget on the declared input: kind 'budget', a hint to raise it", async () => {
    const e = await rejection(load(`${base}/model`, { maxActivationBytes: 1 }));
    expect(fieldsOf(e)).toMatchObject({
      kind: 'budget',
      url: `${base}/model`,
      status: null,
      hint: expect.stringMatching(
        /^Raise it with io\.loadModel\(bytes, \{ maxActivationBytes, maxLiveBytes, maxWork \}\)/,
      ),
    });
    expect(e.message).toContain(`${ctx}: `);
  });

  test('a good model still loads from a URL', async () => {
    const model = await load(`${base}/model`);
    expect(model.inputShape).toEqual([1, 4]);
    model.dispose();
  });
});

test("io.loadModel(bytes) on this thread: kind 'not-a-model', url 'bytes'; 'format' and 'budget' too", () => {
  const fields = (bytes, options) => {
    try {
      io.loadModel(bytes, options).dispose();
    } catch (e) {
      return { kind: e.kind, url: e.url, status: e.status, hint: e.hint !== null };
    }
    return null;
  };
  expect(fields(HTML)).toEqual({ kind: 'not-a-model', url: 'bytes', status: null, hint: true });
  expect(fields(NEWER)).toEqual({ kind: 'format', url: 'bytes', status: null, hint: false });
  expect(fields(MODEL, { maxActivationBytes: 1 })).toEqual({ kind: 'budget', url: 'bytes', status: null, hint: true });
  expect(fields(MODEL)).toBe(null);
});

test("a model worker whose script does not load: kind 'worker', the URL, a hint naming the script and locateFile", async () => {
  const script = '/no/such/dir/qwasm.model-worker.cjs';
  const e = await rejection(io.loadModel(`${base}/model`, { worker: true, locateFile: () => script }));
  expect(fieldsOf(e)).toEqual({
    isError: true,
    kind: 'worker',
    url: `${base}/model`,
    status: null,
    hint: expect.stringContaining(`If its script (${script}) did not load`),
    message: expect.stringMatching(
      /^io\.loadModel\(source, \{ worker: true \}\): the model worker failed: .*locateFile/s,
    ),
  });
  expect(e.hint).toContain("locateFile: (file) => '/qwasm/' + file");
});
