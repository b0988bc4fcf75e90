// A model's input from video frames: the preprocessing and class names the
// exporter records (export(..., preprocessing=weights.transforms(),
// classes=weights.meta["categories"])), read and checked at load, and
// model.transforms() running them; the model worker's float twin for top-5
// float against int8. torchvision's numbers themselves are
// golden-video-transforms.test.mjs's.
import { readFileSync } from 'node:fs';
import { top5 } from '../../../demo/top5.mjs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { chainModel, KINETICS_8X8 } from '../model-files.mjs';
import { lcgBytes } from '../util.mjs';

const { io, transforms } = qwasm;
const exported = (name) => readFileSync(new URL(`../../golden/exported/${name}`, import.meta.url));
const adaptivePool = { type: 'AdaptiveAvgPool', dims: 3, output_size: [1, 1, 1] };
const model = (metadata, inputShape = [1, 3, 2, 8, 8]) => chainModel(inputShape, [adaptivePool], {}, metadata);

function frames(count, width, height, seed) {
  const bytes = lcgBytes(seed, count * width * height * 4);
  return Array.from({ length: count }, (_, t) => ({
    data: bytes.subarray(t * width * height * 4, (t + 1) * width * height * 4),
    width,
    height,
  }));
}

beforeAll(() => qwasm.init());

describe('the recorded preprocessing and class names', () => {
  test('are read at load, and transforms() runs them', () => {
    const m = io.loadModel(
      model({ preprocessing: JSON.stringify(KINETICS_8X8), classes: JSON.stringify(['a', 'b', 'c']) }),
    );
    expect(m.preprocessing).toEqual({
      cropSize: [8, 8],
      resizeSize: [10, 12],
      mean: KINETICS_8X8.mean,
      std: KINETICS_8X8.std,
      interpolation: 'bilinear',
    });
    expect(m.classes).toEqual(['a', 'b', 'c']);
    const clip = frames(2, 20, 16, 3);
    const got = m.transforms().forward(clip);
    const want = new transforms.VideoClassification({ cropSize: 8, resizeSize: [10, 12] }).forward(clip);
    expect(got.shape).toEqual([1, 3, 2, 8, 8]);
    expect(got.data).toEqual(want.data);
    m.forward(got); // the transform's output is the model's input
    m.dispose();
  });

  test('a file without them reads as null, and transforms() says how to record them', () => {
    const m = io.loadModel(model({}));
    expect(m.preprocessing).toBeNull();
    expect(m.classes).toBeNull();
    expect(() => m.transforms()).toThrow(
      /records no preprocessing; export it with .*preprocessing=weights.transforms\(\)/,
    );
    m.dispose();
  });

  test('the video ResNet goldens carry torchvision Kinetics-400 entries', () => {
    for (const name of [
      'r3d_18.qwasm.safetensors',
      'r3d_18_float.qwasm.safetensors',
      'r2plus1d_18_x86.qwasm.safetensors',
    ]) {
      const m = io.loadModel(exported(name));
      expect(m.classes).toHaveLength(400);
      expect(m.classes.slice(0, 2)).toEqual(['abseiling', 'air drumming']);
      expect(m.preprocessing.cropSize).toEqual([112, 112]);
      expect(m.preprocessing.resizeSize).toEqual([128, 171]);
      m.dispose();
    }
  });

  const bad = [
    ['preprocessing that is not JSON', { preprocessing: '{' }, /metadata preprocessing is not JSON/],
    ['preprocessing that is a list', { preprocessing: '[]' }, /metadata preprocessing must be an object/],
    ['an unknown key', { preprocessing: JSON.stringify({ ...KINETICS_8X8, flip: true }) }, /unknown attribute 'flip'/],
    [
      'another transform',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, transform: 'ImageClassification' }) },
      /transform must be 'VideoClassification'/,
    ],
    [
      'a crop of 0',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, crop_size: [0, 8] }) },
      /cropSize must hold integers/,
    ],
    [
      'a std of 0',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, std: [0, 1, 1] }) },
      /std must hold finite, nonzero/,
    ],
    [
      'a mean that is a string',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, mean: 'x' }) },
      /mean must be an array/,
    ],
    [
      'a crop other than the input',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, crop_size: [112, 112] }) },
      /makes \[N, 3, T, 112, 112\] \(RGB frames cropped to 112x112\), but the model's input is \[1, 3, 2, 8, 8\]/,
    ],
    [
      'preprocessing for a one-channel model',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, mean: [0.5], std: [0.25] }) },
      /makes \[N, 3, T, 8, 8\] \(RGB frames cropped to 8x8\), but the model's input is \[1, 1, 2, 8, 8\]/,
      [1, 1, 2, 8, 8],
    ],
    [
      'nearest interpolation',
      { preprocessing: JSON.stringify({ ...KINETICS_8X8, interpolation: 'nearest' }) },
      /bilinear/,
    ],
    ['classes that are an object', { classes: '{}' }, /metadata classes must be a list/],
    ['no classes', { classes: '[]' }, /metadata classes must be a list of 1/],
    ['a class that is a number', { classes: '["a", 2]' }, /metadata classes\[1\] must be a name, got the number 2/],
    ['a class name of 2000 characters', { classes: JSON.stringify(['x'.repeat(2000)]) }, /classes\[0\] must be a name/],
  ];
  test.each(bad)('%s is refused at load, by name', (label, metadata, message, inputShape = undefined) => {
    const before = qwasm.heapInUse();
    expect(() => io.loadModel(model(metadata, inputShape))).toThrow(message);
    expect(() => io.loadModel(model(metadata, inputShape))).toThrow(/^io\.loadModel\(bytes\): metadata /);
    expect(qwasm.heapInUse()).toBe(before);
  });
});

test('a frame whose resizable buffer a later frame resizes is refused, not read as NaN', () => {
  const transform = new transforms.VideoClassification({ cropSize: 2, resizeSize: [3, 4] });
  for (const [what, view, size] of [
    ['a length-tracking view that shrinks', (b) => new Uint8Array(b), 8],
    ['a fixed view that falls out of bounds', (b) => new Uint8ClampedArray(b, 0, 12), 8],
    ['a length-tracking view that grows', (b) => new Uint8Array(b), 16],
  ]) {
    const buffer = new ArrayBuffer(12, { maxByteLength: 16 });
    new Uint8Array(buffer).fill(200);
    const first = { data: view(buffer), width: 2, height: 2 };
    const second = {
      get data() {
        buffer.resize(size);
        return new Uint8Array(12);
      },
      width: 2,
      height: 2,
    };
    let error = null;
    try {
      transform.forward([first, second]);
    } catch (e) {
      error = e;
    }
    expect([what, error?.constructor]).toEqual([what, TypeError]);
    expect(error.message).toMatch(
      /^VideoClassification\.forward\(frames\): frames\[0\]\.data changed size while the frames were read \(its resizable ArrayBuffer was resized\): 12 bytes were checked, it has \d+ now/,
    );
  }
  // Unresized, the same frames run.
  const buffer = new ArrayBuffer(12, { maxByteLength: 16 });
  const y = transform.forward([
    { data: new Uint8Array(buffer), width: 2, height: 2 },
    { data: new Uint8Array(12), width: 2, height: 2 },
  ]);
  expect(y.data.every(Number.isFinite)).toBe(true);
});

describe('in the model worker', () => {
  let worker;
  let floatModel;
  beforeAll(async () => {
    worker = await io.loadModel(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url), {
      worker: true,
    });
    await worker.loadFloatModel(new URL('../../golden/exported/r3d_18_float.qwasm.safetensors', import.meta.url));
    floatModel = io.loadModel(exported('r3d_18_float.qwasm.safetensors'));
  }, 120_000);
  afterAll(() => {
    worker?.dispose();
    floatModel?.dispose();
  });

  test('preprocessing, classes and transforms() come from the file', () => {
    expect(worker.classes).toHaveLength(400);
    expect(worker.preprocessing.cropSize).toEqual([112, 112]);
    expect(worker.transforms()).toBeInstanceOf(transforms.VideoClassification);
  });

  test('forwardFloat runs the float twin: the same bits as in-process, and int8 next to it', async () => {
    const x = worker.transforms().forward(frames(16, 171, 128, 11));
    const want = floatModel.forward(x);
    const got = await worker.forwardFloat(x, { transfer: false });
    expect(got.shape).toEqual([1, 400]);
    expect(got.data).toEqual(want.data);
    const int8 = await worker.forward(x);
    expect(int8.shape).toEqual([1, 400]);
  });

  test('preprocessing and classes are read-only, as GraphModule has them', () => {
    expect(Object.isFrozen(worker.preprocessing) && Object.isFrozen(worker.preprocessing.cropSize)).toBe(true);
    expect(() => {
      worker.classes[0] = 'changed';
    }).toThrow(TypeError);
    expect(worker.transforms().cropSize).toEqual([112, 112]);
  });

  test('an onProgress that throws while the float twin is read fails that load only: the model stays', async () => {
    const other = await io.loadModel(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url), {
      worker: true,
    });
    try {
      const boom = new Error('progress went wrong');
      const blob = new Blob([exported('r3d_18_float.qwasm.safetensors')]);
      await expect(
        other.loadFloatModel(blob, {
          onProgress() {
            throw boom;
          },
        }),
      ).rejects.toBe(boom);
      const x = other.transforms().forward(frames(16, 171, 128, 5));
      expect((await other.forward(x)).shape).toEqual([1, 400]);
      // The twin whose load failed is not kept.
      await expect(other.compareWeights()).rejects.toThrow(/no float model/);
    } finally {
      other.dispose();
    }
  });

  test('forwardFloat before loadFloatModel, and on a bad input, rejects by name', async () => {
    const other = await io.loadModel(new URL('../../golden/exported/r3d_18.qwasm.safetensors', import.meta.url), {
      worker: true,
    });
    try {
      await expect(other.forwardFloat({ data: new Float32Array(4), shape: [4] })).rejects.toThrow(
        /^WorkerModel\.forwardFloat\(x\): no float model: call loadFloatModel\(source\) first/,
      );
      await expect(worker.forwardFloat({ data: new Float32Array(3), shape: [4] })).rejects.toThrow(
        /^WorkerModel\.forwardFloat\(x\): shape \[4\] holds 4 elements/,
      );
    } finally {
      other.dispose();
    }
  });
});

test("the demo's top-5: softmax order, names from the model, and a 300,000-value output (a feature map) works", () => {
  const logits = new Float32Array(300_000);
  logits[7] = 3;
  logits[299_999] = 2;
  logits[5] = 2;
  const got = top5(logits, null);
  expect(got.map((r) => r.index)).toEqual([7, 5, 299_999, 0, 1]);
  expect(got[0].name).toBe('class 7');
  const z = Math.exp(3) + 2 * Math.exp(2) + (300_000 - 3);
  expect(got[0].p).toBeCloseTo(Math.exp(3) / z, 12);
  expect(top5([0, 1], ['a', 'b']).map((r) => r.name)).toEqual(['b', 'a']);
});
