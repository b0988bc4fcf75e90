// Loading a model off the calling thread, in Node.js: io.loadModel(source,
// { worker: true }) (a worker_threads worker the library starts) and
// io.loadModelAsync(source) (this thread, without blocking on the download).
// Every kind of source gives the in-process model's output bit for bit;
// progress is reported; the input is transferred unless asked not to be;
// errors reject with the call named; dispose() ends the worker.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, quantize } from '../model-files.mjs';
import { decode, firstBitDifference, lcgBytes, loadGolden } from '../util.mjs';

const PATH = fileURLToPath(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url));
const BYTES = new Uint8Array(readFileSync(PATH));

/** The fixed clip every run here uses (sin(0.37 i)). */
function clip(shape) {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37);
  return { data, shape };
}
const bits = (t) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('base64');

let expected;
let shape;
beforeAll(async () => {
  await qwasm.init();
  const model = qwasm.io.loadModel(BYTES);
  shape = model.inputShape;
  const y = model.forward(clip(shape));
  expected = { shape: y.shape, bits: bits(y) };
  model.dispose();
}, 60_000);

// Each source kind, as a user would pass it.
const SOURCES = [
  ['a path', () => PATH],
  ['a file: URL', () => pathToFileURL(PATH)],
  ['bytes (Uint8Array)', () => BYTES],
  ['an ArrayBuffer', () => BYTES.slice().buffer],
  ['a Response', () => new Response(BYTES, { headers: { 'Content-Length': String(BYTES.length) } })],
  ['a ReadableStream', () => new Response(BYTES).body],
  ['a Blob', () => new Blob([BYTES])],
  // (Node.js: the worker cannot fetch this thread's blob: URLs; qwasm sends it the Blob.)
  ['a blob: URL', () => URL.createObjectURL(new Blob([BYTES]))],
];

describe('io.loadModel(source, { worker: true })', () => {
  test.each(SOURCES)(
    'from %s: the in-process output bit for bit, with progress',
    async (_name, make) => {
      const progress = [];
      const model = await qwasm.io.loadModel(make(), { worker: true, onProgress: (l, t) => progress.push([l, t]) });
      try {
        const y = await model.forward(clip(shape));
        expect({ shape: y.shape, bits: bits(y) }).toEqual(expected);
        expect(progress.at(-1)[0]).toBe(BYTES.length);
        for (let i = 1; i < progress.length; i++) expect(progress[i][0]).toBeGreaterThanOrEqual(progress[i - 1][0]);
      } finally {
        model.dispose();
      }
    },
    60_000,
  );

  test.each(['video_resnets.json', 'video_resnets_x86.json'])(
    "PyTorch's logits bit for bit through the worker: every video ResNet case of %s",
    async (goldenFile) => {
      const golden = loadGolden(goldenFile);
      for (const c of golden.cases) {
        const path = fileURLToPath(new URL(`../../golden/${c.file}`, import.meta.url));
        const model = await qwasm.io.loadModel(path, { worker: true });
        try {
          // The clip the golden's generator built: (byte - 128) / 64 from its seeded LCG.
          const n = c.input.shape.reduce((a, b) => a * b, 1);
          const x = { data: Float32Array.from(lcgBytes(c.input.lcg, n), (b) => (b - 128) / 64), shape: c.input.shape };
          const y = await model.forward(x);
          expect({
            case: c.name,
            engine: model.engine,
            shape: y.shape,
            firstBitDifference: firstBitDifference(y.data, decode(c.y)),
          }).toEqual({
            case: c.name,
            engine: golden.engine,
            shape: c.y.shape,
            firstBitDifference: -1,
          });
        } finally {
          model.dispose();
        }
      }
    },
    120_000,
  );

  test("the caller's bytes stay theirs; a forward's input is transferred unless transfer: false", async () => {
    const bytes = BYTES.slice();
    const model = await qwasm.io.loadModel(bytes, { worker: true });
    try {
      expect(bytes.byteLength).toBe(BYTES.length);
      const x = clip(shape);
      await model.forward(x);
      expect(x.data.byteLength).toBe(0); // transferred
      const kept = clip(shape);
      const y = await model.forward(kept, { transfer: false });
      expect(kept.data.length).toBe(3 * 16 * 112 * 112);
      expect(bits(y)).toBe(expected.bits);
      // A view into a larger buffer is copied, never the whole buffer sent.
      const big = new Float32Array(kept.data.length + 8);
      big.set(kept.data, 8);
      const view = { data: big.subarray(8), shape };
      expect(bits(await model.forward(view))).toBe(expected.bits);
      expect(big.length).toBe(kept.data.length + 8);
    } finally {
      model.dispose();
    }
  }, 60_000);

  test('what the worker describes: nodes, modules with their weight qparams, weight bytes, its runtime', async () => {
    const local = qwasm.io.loadModel(BYTES);
    const model = await qwasm.io.loadModel(PATH, { worker: true, numThreads: 2 });
    try {
      expect(model.nodes).toEqual(local.nodes);
      expect(model.inputShape).toEqual(local.inputShape);
      expect(model.engine).toBe(local.engine);
      expect(model.weightBytes()).toEqual(local.weightBytes());
      expect(model.runtime).toEqual({ variant: 'threads', numThreads: 2, maxThreads: 2, isa: 'wasmsimd' });
      const stem = model.modules.find((m) => m.path === 'stem.0');
      const w = local.getSubmodule('stem.0').weight();
      expect(stem).toEqual({
        path: 'stem.0',
        type: 'ConvReLU3d',
        backend: local.getSubmodule('stem.0').backend,
        scale: local.getSubmodule('stem.0').scale,
        zeroPoint: local.getSubmodule('stem.0').zeroPoint,
        weight: {
          shape: w.shape,
          dtype: 'qint8',
          qscheme: w.qscheme(),
          axis: 0,
          scales: Array.from(w.qPerChannelScales()),
          zeroPoints: Array.from(w.qPerChannelZeroPoints()),
        },
      });
      w.dispose();
      expect(model.modules.map((m) => m.path)).toEqual(local.namedModules().map(([p]) => p));
      const p = await model.profile(clip(shape));
      expect(p.layers.map((l) => l.name)).toEqual(local.profile(clip(shape)).layers.map((l) => l.name));
      expect(bits(p.output)).toBe(expected.bits);
    } finally {
      model.dispose();
      local.dispose();
    }
  }, 60_000);

  test('one thread when asked: numThreads: 1 runs the single-thread variant in the worker', async () => {
    const model = await qwasm.io.loadModel(PATH, { worker: true, numThreads: 1 });
    try {
      expect(model.runtime).toEqual({ variant: 'single-thread', numThreads: 1, maxThreads: 1, isa: 'wasmsimd' });
      expect(bits(await model.forward(clip(shape)))).toBe(expected.bits);
    } finally {
      model.dispose();
    }
  }, 60_000);

  test('errors reject with the call named; the model keeps working after a bad input', async () => {
    await expect(qwasm.io.loadModel('/no/such/model.safetensors', { worker: true })).rejects.toThrow(
      'io.loadModel(source, { worker: true }): reading /no/such/model.safetensors failed (ENOENT)',
    );
    await expect(qwasm.io.loadModel(new Uint8Array(12), { worker: true })).rejects.toThrow(
      /^io\.loadModel\(source, \{ worker: true \}\): /,
    );
    const revoked = URL.createObjectURL(new Blob([BYTES]));
    URL.revokeObjectURL(revoked);
    await expect(qwasm.io.loadModel(revoked, { worker: true })).rejects.toThrow(
      `io.loadModel(source, { worker: true }): ${revoked} names no Blob (it was revoked, or made with URL.createObjectURL in another thread)`,
    );
    await expect(qwasm.io.loadModel(42, { worker: true })).rejects.toThrow(
      'io.loadModel(source, { worker: true }): source must be a URL (string or URL), a Response, a ReadableStream, a Blob or the',
    );
    const model = await qwasm.io.loadModel(BYTES, { worker: true });
    try {
      await expect(model.forward({ data: new Float32Array(3), shape: [1, 3] })).rejects.toThrow(
        /^WorkerModel\.forward\(x\): node 'stem_0' \(call_module stem\.0\): .*expected a 5-D input/,
      );
      await expect(model.forward({ data: new Float32Array(2), shape: [3] })).rejects.toThrow(
        new RangeError('WorkerModel.forward(x): shape [3] holds 3 elements but data has 2'),
      );
      await expect(model.forward(clip(shape), { transfer: true, copy: 1 })).rejects.toThrow(
        "WorkerModel.forward(x): unknown option 'copy' (expected 'transfer', 'maxMemoryBytes', 'onProgress')",
      );
      await expect(model.forward(null)).rejects.toThrow('WorkerModel.forward(x): x must be a float tensor');
      // The caller's own error (a getter, even a TypeError) reaches them unchanged, as in-process.
      for (const thrown of [new Error('camera frame gone'), new TypeError('frame is not ready')]) {
        const x = {
          get data() {
            throw thrown;
          },
          shape: [1, 3],
        };
        await expect(model.forward(x)).rejects.toBe(thrown);
        await expect(model.forwardFloat(x)).rejects.toBe(thrown);
      }
      await expect(model.forward(clip(shape), { transfer: 'yes' })).rejects.toThrow('transfer must be a boolean');
      expect(bits(await model.forward(clip(shape)))).toBe(expected.bits);
      const pending = model.forward(clip(shape));
      model.dispose();
      await expect(pending).rejects.toThrow('WorkerModel.forward(x): the model was disposed');
      await expect(model.forward(clip(shape))).rejects.toThrow('the model was disposed');
    } finally {
      model.dispose();
    }
  }, 60_000);

  test('an onProgress that throws fails the load with its error (the process and the worker are not left behind)', async () => {
    const boom = new Error('progress bar gone');
    for (const source of [PATH, new Blob([BYTES])]) {
      await expect(
        qwasm.io.loadModel(source, {
          worker: true,
          onProgress() {
            throw boom;
          },
        }),
      ).rejects.toBe(boom);
    }
    // onProgress is called as a plain function: it cannot reach qwasm's own promise.
    let self = 'unset';
    const model = await qwasm.io.loadModel(PATH, {
      worker: true,
      onProgress() {
        self = this;
      },
    });
    model.dispose();
    expect(self).toBeUndefined();
  }, 60_000);

  test('a source that cannot be read: detached bytes, a locked or failing stream, a bad locateFile', async () => {
    const detached = BYTES.slice();
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    await expect(qwasm.io.loadModel(detached, { worker: true })).rejects.toThrow(
      new TypeError('io.loadModel(source, { worker: true }): bytes is backed by a detached ArrayBuffer'),
    );
    const locked = new Response(BYTES).body;
    locked.getReader();
    await expect(qwasm.io.loadModel(locked, { worker: true })).rejects.toThrow(
      new TypeError('io.loadModel(source, { worker: true }): the stream is locked (another reader is reading it)'),
    );
    const failing = new ReadableStream({
      pull(controller) {
        controller.error(new Error('network gone'));
      },
    });
    await expect(qwasm.io.loadModelAsync(failing)).rejects.toThrow(
      'io.loadModelAsync(source): reading the source failed (network gone)',
    );
    await expect(
      qwasm.io.loadModel(PATH, { worker: true, locateFile: () => 'relative/qwasm.model-worker.cjs' }),
    ).rejects.toThrow(/^io\.loadModel\(source, \{ worker: true \}\): the model worker could not be started \(/);
    await expect(
      qwasm.io.loadModel(PATH, {
        worker: true,
        locateFile: () => {
          throw new Error('no map');
        },
      }),
    ).rejects.toThrow('io.loadModel(source, { worker: true }): the model worker could not be started (no map)');
  }, 60_000);

  test('a model without a final DeQuantStub answers with its integers and qparams', async () => {
    // x -> QuantStub (scale 0.05, zero point 10) -> output: a quint8 answer.
    const file = chainModel([1, 4], [quantize(0.05, 10)]);
    const model = await qwasm.io.loadModel(file, { worker: true });
    try {
      const got = await model.forward({ data: new Float32Array([0, 0.05, -0.5, 100]), shape: [1, 4] });
      expect(got).toEqual({
        dtype: 'quint8',
        data: new Uint8Array([10, 11, 0, 255]), // round(x / 0.05) + 10, clamped to 0..255
        shape: [1, 4],
        scale: 0.05,
        zeroPoint: 10,
      });
    } finally {
      model.dispose();
    }
  }, 60_000);
});

describe('io.loadModelAsync(source)', () => {
  test.each(SOURCES)(
    'from %s: the same model, on this thread',
    async (_name, make) => {
      const progress = [];
      const model = await qwasm.io.loadModelAsync(make(), { onProgress: (l, t) => progress.push([l, t]) });
      try {
        const y = model.forward(clip(shape));
        expect({ shape: y.shape, bits: bits(y) }).toEqual(expected);
        expect(progress.at(-1)[0]).toBe(BYTES.length);
      } finally {
        model.dispose();
      }
    },
    60_000,
  );

  test('its errors name it; a Response that failed says its status', async () => {
    await expect(qwasm.io.loadModelAsync(new Response('gone', { status: 404 }))).rejects.toThrow(
      'io.loadModelAsync(source): fetching the Response failed: HTTP 404',
    );
    await expect(qwasm.io.loadModelAsync(new Uint8Array(12))).rejects.toThrow(/^io\.loadModelAsync\(source\): /);
    await expect(qwasm.io.loadModelAsync(BYTES, { worker: true })).rejects.toThrow(
      "io.loadModelAsync(source): worker: true is io.loadModel's option",
    );
    const used = new Response(BYTES);
    await used.arrayBuffer();
    await expect(qwasm.io.loadModelAsync(used)).rejects.toThrow("the Response's body was already read");
  });
});

describe("io.loadModel's new options are checked", () => {
  test.each([
    [{ worker: 'yes' }, TypeError, "io.loadModel(bytes): worker must be a boolean, got the string 'yes'"],
    [{ onProgress: 1 }, TypeError, 'io.loadModel(bytes): onProgress must be a function'],
    [{ onProgress: () => {} }, TypeError, 'io.loadModel(bytes): onProgress follows a download'],
    [{ numThreads: 2 }, TypeError, "io.loadModel(bytes): numThreads is the model worker's (worker: true)"],
  ])('%j is refused', (options, Type, message) => {
    expect(() => qwasm.io.loadModel(BYTES, options)).toThrow(Type);
    expect(() => qwasm.io.loadModel(BYTES, options)).toThrow(message);
  });

  test.each([
    [{ worker: true, numThreads: 0 }, RangeError, 'numThreads must be 1..64, got 0'],
    [{ worker: true, onProgress: 'x' }, TypeError, 'onProgress must be a function'],
    [{ worker: true, maxWork: -1 }, RangeError, 'maxWork must be > 0'],
  ])('with worker: true, %j is a rejection, not a throw', async (options, Type, message) => {
    const pending = qwasm.io.loadModel(BYTES, options);
    await expect(pending).rejects.toThrow(Type);
    await expect(pending).rejects.toThrow(`io.loadModel(source, { worker: true }): ${message}`);
  });

  test('a URL, a Response, a stream or a Blob without worker: true points to loadModelAsync', () => {
    for (const source of [PATH, new Blob([BYTES]), new Response(BYTES)]) {
      expect(() => qwasm.io.loadModel(source)).toThrow(
        'for a URL, Response, stream or Blob use await io.loadModelAsync(source) or io.loadModel(source, { worker: true })',
      );
    }
  });
});

describe('the numeric suite in the model worker (loadFloatModel, compareWeights, compareModelOutputs)', () => {
  const FLOAT_PATH = fileURLToPath(new URL('../../golden/exported/r3d_18_float.qwasm.safetensors', import.meta.url));
  // Statistics as the worker sends them: the tensors stay there, their shape comes back.
  const statsOf = (results) =>
    Object.fromEntries(
      Object.entries(results).map(([key, { float, quantized, ...stats }]) => [key, { ...stats, shape: float.shape }]),
    );

  test("the worker's results are the in-process API's, for a float twin given as a path, as bytes or as a Blob (a chosen file), with progress", async () => {
    const x = clip([1, 3, 8, 112, 112]);
    const floatModel = qwasm.io.loadModel(new Uint8Array(readFileSync(FLOAT_PATH)));
    const int8 = qwasm.io.loadModel(BYTES);
    const want = {
      weights: statsOf(qwasm.quantization.ns.compareWeights(floatModel, int8)),
      outputs: statsOf(qwasm.quantization.ns.compareModelOutputs(floatModel, int8, x)),
    };
    floatModel.dispose();
    int8.dispose();
    const floatBytes = readFileSync(FLOAT_PATH);
    for (const source of [FLOAT_PATH, new Uint8Array(floatBytes), new Blob([floatBytes])]) {
      const model = await qwasm.io.loadModel(PATH, { worker: true });
      try {
        const progress = [];
        await model.loadFloatModel(source, { onProgress: (loaded, total) => progress.push([loaded, total]) });
        expect(progress.at(-1)).toEqual([floatBytes.length, floatBytes.length]);
        expect({
          weights: await model.compareWeights(),
          outputs: await model.compareModelOutputs(x, { transfer: false }),
        }).toEqual(want);
      } finally {
        model.dispose();
      }
    }
    expect(Object.keys(want.outputs).length).toBe(30);
  }, 120_000);

  test('before a float twin is loaded, or with a file that is not a model, the calls reject saying why', async () => {
    const model = await qwasm.io.loadModel(PATH, { worker: true });
    try {
      await expect(model.compareWeights()).rejects.toThrow(
        new Error('WorkerModel.compareWeights(): no float model: call loadFloatModel(source) first'),
      );
      await expect(model.loadFloatModel(new Uint8Array([1, 2, 3]))).rejects.toThrow(
        /^WorkerModel\.loadFloatModel\(source\): .*not a \.safetensors file/,
      );
      await expect(model.loadFloatModel(BYTES, { onProgress: 3 })).rejects.toThrow(
        new TypeError('WorkerModel.loadFloatModel(source): onProgress must be a function, got the number 3'),
      );
    } finally {
      model.dispose();
    }
  }, 60_000);
});
