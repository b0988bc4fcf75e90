// The model worker's protocol (web/src/model/worker-protocol.mjs): the
// worker answers every message, a malformed one or one of an unknown type
// with an error that says why, and goes on serving; the load options are read
// once, at the public call, into the frozen object that crosses to the worker.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as qwasm from '../../../web/src/index.node.mjs';
import { readLoadOptions } from '../../../web/src/model/load-options.mjs';
import { setWinograd } from '../../../web/src/runtime/winograd.mjs';
import { chainModel, quantize } from '../model-files.mjs';

const MODEL = chainModel([1, 4], [quantize(0.05, 10)]); // x -> QuantStub: a quint8 answer
const X = () => ({ data: new Float32Array([0, 0.05, -0.5, 100]), shape: [1, 4] });
const ANSWER = { dtype: 'quint8', data: new Uint8Array([10, 11, 0, 255]), shape: [1, 4], scale: 0.05, zeroPoint: 10 };
const OPTIONS = {
  budget: { maxActivationBytes: 2 ** 28, maxLiveBytes: 2 ** 30, maxWork: 5e11 },
  winograd: 'auto',
  numThreads: null,
  cache: false,
};
const TYPES =
  'load, loadFloat, dropFloat, forward, profile, forwardFloat, compareWeights, heap, compareModelOutputs, preprocess';
const GREY = { data: new Uint8Array(4 * 4 * 3).fill(128), width: 4, height: 4 };
const malformed = (why) => ({ name: 'TypeError', message: `the model worker got a malformed request: ${why}` });

beforeAll(() => qwasm.init());

/**
 * A model worker's side served on a port of our own, in this thread: send(message)
 * and replies(n), the first n answers (progress messages apart), in order.
 */
function servedHere() {
  const answers = [];
  let handler = null;
  const queued = []; // as a MessagePort keeps what arrives before anyone listens (_serve loads the host first)
  let waiting = null;
  qwasm.io.WorkerModel._serve({
    post: (message) => {
      if (message.progress !== undefined) return;
      answers.push(message);
      waiting?.();
    },
    onMessage: (h) => {
      handler = h;
      for (const m of queued.splice(0)) h(m);
    },
  });
  return {
    send: (message) => (handler === null ? queued.push(message) : handler(message)),
    async replies(n) {
      while (answers.length < n) await new Promise((resolve) => (waiting = resolve));
      return answers.slice(0, n);
    },
  };
}

describe('the worker answers each message in order', () => {
  test('malformed and unknown messages get an error saying why, and the requests after them are served', async () => {
    const worker = servedHere();
    const messages = [
      42,
      null,
      { type: 'explode', id: 1, payload: {} },
      { type: 'forward', id: 2.5, payload: { x: X() } },
      { type: 'forward', id: 3 },
      { type: 'load', id: 4, payload: { source: MODEL } },
      { type: 'abort' },
      { type: 'forward', id: 5, payload: { x: X() } },
      { type: 'load', id: 6, payload: { source: MODEL, options: OPTIONS } },
      { type: 'forward', id: 7, payload: { x: X() } },
      { type: 'load', id: 8, payload: { source: MODEL, options: OPTIONS } },
      { type: 'compareWeights', id: 9, payload: {} },
      { type: 'forward', id: 10, payload: { x: { data: new Float32Array(2), shape: [3] } } },
      { type: 'dropFloat', id: 11, payload: {} },
      { type: 'preprocess', id: 12, payload: { frames: [] } },
      {
        type: 'preprocess',
        id: 13,
        payload: { frames: [GREY], transform: { cropSize: 1, resizeSize: 1, mean: [0.5], std: [0.25] } },
      },
    ];
    for (const m of messages) worker.send(m);
    const replies = await worker.replies(messages.length);
    const loaded = replies[8];
    expect(loaded.result.nodes.map((n) => n.name)).toEqual(['x', 'm0', 'output']);
    expect(replies.map((r, i) => (i === 8 ? { id: r.id, result: 'the model' } : r))).toEqual([
      { id: null, error: malformed('a request must be an object, got number') },
      { id: null, error: malformed('a request must be an object, got object') },
      { id: 1, error: malformed(`unknown request type 'explode' (expected ${TYPES})`) },
      { id: null, error: malformed('a forward request needs an integer id') },
      { id: 3, error: malformed('a forward request needs a payload object') },
      { id: 4, error: malformed("a load request's payload has no options") },
      { id: null, error: malformed('an abort needs the integer id of its target') },
      { id: 5, error: { name: 'Error', message: 'no model is loaded in this worker' } },
      { id: 6, result: 'the model' },
      { id: 7, result: ANSWER },
      { id: 8, error: { name: 'Error', message: 'this worker already holds a model' } },
      { id: 9, error: { name: 'Error', message: 'no float model: call loadFloatModel(source) first' } },
      {
        id: 10,
        error: { name: 'RangeError', message: 'tensor(data, shape): shape [3] holds 3 elements but data has 2' },
      },
      { id: 11, result: null },
      { id: 12, error: malformed("a preprocess request's payload has no transform") },
      // One grey frame, resized to 1x1, normalised: (128/255 - 0.5) / 0.25 for every channel, each step in float32.
      {
        id: 13,
        result: {
          data: new Float32Array(3).fill(Math.fround(Math.fround(Math.fround(128 / 255) - 0.5) / 0.25)),
          shape: [1, 3, 1, 1, 1],
        },
      },
    ]);
  });

  test("a real Node.js model worker answers the same way across the thread's boundary", async () => {
    const worker = new Worker(fileURLToPath(new URL('../../../dist/qwasm.model-worker.cjs', import.meta.url)));
    try {
      const replies = [];
      const all = new Promise((resolve) => {
        worker.on('message', (m) => {
          replies.push(m);
          if (replies.length === 3) resolve();
        });
      });
      worker.postMessage('load');
      worker.postMessage({ type: 'constructor', id: 1, payload: {} });
      worker.postMessage({ type: 'profile', id: 2, payload: { x: X() } });
      await all;
      expect(replies).toEqual([
        { id: null, error: malformed('a request must be an object, got string') },
        { id: 1, error: malformed(`unknown request type 'constructor' (expected ${TYPES})`) },
        { id: 2, error: { name: 'Error', message: 'no model is loaded in this worker' } },
      ]);
    } finally {
      await worker.terminate();
    }
  }, 30_000);
});

describe('the load options are read once, into the frozen object the worker builds from', () => {
  const CTX = 'io.loadModel(source, { worker: true })';

  test('each option is read once; the result is frozen; its model part survives a structured clone unchanged', () => {
    const reads = {};
    const counted = (values) =>
      Object.defineProperties(
        {},
        Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            key,
            {
              enumerable: true,
              get() {
                reads[key] = (reads[key] ?? 0) + 1;
                return value;
              },
            },
          ]),
        ),
      );
    const onProgress = () => {};
    const read = readLoadOptions(
      counted({
        maxWork: 1e9,
        winograd: true,
        worker: true,
        numThreads: 2,
        onProgress,
        signal: undefined,
        cache: true,
      }),
      CTX,
    );
    expect(reads).toEqual({ maxWork: 1, winograd: 1, worker: 1, numThreads: 1, onProgress: 1, signal: 1, cache: 1 });
    expect(read).toEqual({
      model: {
        budget: { maxActivationBytes: 2 ** 28, maxLiveBytes: 2 ** 30, maxWork: 1e9 },
        winograd: true,
        numThreads: 2,
        cache: true,
      },
      worker: true,
      onProgress,
      locateFile: undefined,
      signal: null,
    });
    for (const frozen of [read, read.model, read.model.budget]) expect(Object.isFrozen(frozen)).toBe(true);
    expect(structuredClone(read.model)).toEqual(read.model);
  });

  test("an absent winograd is the caller's setWinograd default, read at the call", () => {
    setWinograd(false);
    try {
      expect(readLoadOptions({}, CTX).model.winograd).toBe(false);
    } finally {
      setWinograd('auto');
    }
    expect(readLoadOptions(undefined, CTX).model).toEqual({ ...OPTIONS, winograd: 'auto' });
  });

  test("the calling thread's winograd default reaches the worker's convolutions", async () => {
    const path = fileURLToPath(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url));
    const local = qwasm.io.loadModel(readFileSync(path), { winograd: true });
    const withWinograd = local.weightBytes();
    local.dispose();
    expect(withWinograd.winograd).toBeGreaterThan(0);
    qwasm.quantization.setWinograd(false);
    let model;
    try {
      model = await qwasm.io.loadModel(path, { worker: true });
    } finally {
      qwasm.quantization.setWinograd('auto');
    }
    try {
      // Off Winograd, the layers hold the direct int16 packing instead of their int8 taps.
      const without = model.weightBytes();
      expect(without.winograd).toBe(0);
      expect(without.packed).toBeGreaterThan(withWinograd.packed);
    } finally {
      model.dispose();
    }
    const on = await qwasm.io.loadModel(path, { worker: true, winograd: true });
    try {
      expect(on.weightBytes()).toEqual(withWinograd);
    } finally {
      on.dispose();
    }
  }, 60_000);
});
