// TensorFlow.js as a second peer for MeshNet (issue 33: "add TensorFlow.js's
// CPU or wasm backend as a second peer if it runs Conv3D"): its wasm backend
// (@tensorflow/tfjs-backend-wasm, SIMD; its Node.js build has no threads) runs
// Conv3D with dilations, the kernel brainchop-style pages would reach for
// outside WebGL. The zoo's MeshNet (bench/zoo_prep.py: 21 channels, dilations
// 1,1,1,2,4,8,1, random weights): TF.js runs the float ONNX model's convs
// (BatchNorm folded by the exporter; channels-last, filters [d, h, w, in,
// out]), qwasm the PT2E int8 file, onnxruntime-web the same float and int8
// ONNX models; one thread each, one seeded volume per size, interleaved
// rounds. TF.js's Conv3D is a direct loop (about 0.1 GMAC/s here), so the
// volume is small: 32^3 by default (QWASM_TFJS_SIZES=32,48 for more).
// Also: the share of voxel labels TF.js float and onnxruntime float agree
// on (the same float model), and qwasm against onnxruntime int8.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import onnxPkg from 'onnx-proto';
import { initSideBySide, interleave, saveResult } from './harness.mjs';
import { resizedModel } from './onnx-models.mjs';

const { onnx } = onnxPkg;
const require = createRequire(import.meta.url);
const DIR = new URL('./output/zoo/', import.meta.url);
const SIZES = (process.env.QWASM_TFJS_SIZES ?? '32').split(',').map(Number);
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 3);
const SEED = 33;

if (!existsSync(new URL('meshnet.float.onnx', DIR))) {
  console.log(
    'meshnet-tfjs.bench: bench/output/zoo is missing: run python3 bench/zoo_prep.py meshnet (needs torch) first',
  );
  process.exit(0);
}

/** The float ONNX MeshNet as a list of layers: {weight [d, h, w, in, out], bias, dilation, relu}. */
function meshnetLayers() {
  const m = onnx.ModelProto.decode(readFileSync(new URL('meshnet.float.onnx', DIR)));
  const tensors = new Map(
    m.graph.initializer.map((t) => {
      const raw = t.rawData;
      const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
      return [t.name, { dims: t.dims.map(Number), data }];
    }),
  );
  const layers = [];
  for (const node of m.graph.node) {
    if (node.opType === 'Relu') {
      layers[layers.length - 1].relu = true;
      continue;
    }
    if (node.opType !== 'Conv') throw new Error(`meshnet-tfjs: unexpected ONNX op ${node.opType}`);
    const attr = Object.fromEntries(node.attribute.map((a) => [a.name, a.ints.map(Number)]));
    const w = tensors.get(node.input[1]);
    const [out, inC, kd, kh, kw] = w.dims;
    // [out, in, d, h, w] -> [d, h, w, in, out]
    const weight = new Float32Array(w.data.length);
    for (let o = 0; o < out; o++)
      for (let i = 0; i < inC; i++)
        for (let z = 0; z < kd; z++)
          for (let y = 0; y < kh; y++)
            for (let x = 0; x < kw; x++)
              weight[(((z * kh + y) * kw + x) * inC + i) * out + o] =
                w.data[(((o * inC + i) * kd + z) * kh + y) * kw + x];
    layers.push({
      weight,
      shape: [kd, kh, kw, inC, out],
      bias: tensors.get(node.input[2]).data,
      dilation: attr.dilations[0],
      relu: false,
    });
  }
  return layers;
}

/** A seeded volume in [-1, 1] (mulberry32). */
function volume(size) {
  let s = SEED + size;
  const x = new Float32Array(size ** 3);
  for (let i = 0; i < x.length; i++) {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    x[i] = ((t ^ (t >>> 14)) >>> 0) / 2 ** 31 - 1;
  }
  return x;
}

/** Per voxel, the class of the largest of `classes` values, channels first ([C, inner]) or last ([inner, C]). */
function labels(data, classes, inner, channelsLast) {
  const out = new Uint8Array(inner);
  for (let v = 0; v < inner; v++) {
    let best = 0;
    for (let c = 1; c < classes; c++) {
      const at = (k) => (channelsLast ? data[v * classes + k] : data[v + k * inner]);
      if (at(c) > at(best)) best = c;
    }
    out[v] = best;
  }
  return out;
}

const agreement = (a, b) => a.reduce((n, v, i) => n + (v === b[i]), 0) / a.length;

const tf = await import('@tensorflow/tfjs-core');
const { setWasmPaths } = await import('@tensorflow/tfjs-backend-wasm');
setWasmPaths(`${dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
await tf.setBackend('wasm');
await tf.ready();
const tfVersion = tf.version_core;

const { qwasm, ort, ortOptions } = await initSideBySide(1);
const model = qwasm.io.loadModel(readFileSync(new URL('meshnet.qwasm.safetensors', DIR)), { maxWork: Infinity });
const layers = meshnetLayers().map((l) => ({ ...l, w: tf.tensor5d(l.weight, l.shape), b: tf.tensor1d(l.bias) }));
const classes = layers[layers.length - 1].shape[4];

/** TF.js: the float MeshNet on a channels-last volume; returns the output's floats ([inner, classes]). */
async function tfjsForward(x, size) {
  const y = tf.tidy(() => {
    let h = tf.tensor5d(x, [1, size, size, size, 1]);
    for (const l of layers) {
      h = tf.add(tf.conv3d(h, l.w, 1, 'same', 'NDHWC', l.dilation), l.b);
      if (l.relu) h = tf.relu(h);
    }
    return h;
  });
  const data = await y.data();
  y.dispose();
  return data;
}

const resized = (file, size) => resizedModel(new URL(file, DIR), size);

const rows = [];
for (const size of SIZES) {
  const x = volume(size);
  const shape = [1, 1, size, size, size];
  const inner = size ** 3;
  const fsession = await ort.InferenceSession.create(resized('meshnet.float.onnx', size), ortOptions);
  const qsession = await ort.InferenceSession.create(resized('meshnet.int8.onnx', size), ortOptions);
  const ortInput = { x: new ort.Tensor('float32', x, shape) };
  let tfOut = null;
  const times = await interleave(
    [
      { name: 'qwasmInt8', fn: () => model.forward({ data: x, shape }) },
      { name: 'tfjsFloat', fn: async () => (tfOut = await tfjsForward(x, size)) },
      { name: 'ortFloat', fn: () => fsession.run(ortInput) },
      { name: 'ortInt8', fn: () => qsession.run(ortInput) },
    ],
    { warmup: 1, rounds: ROUNDS },
  );
  const q = model.forward({ data: x, shape }).data;
  const of = (await fsession.run(ortInput)).y.data;
  const oq = (await qsession.run(ortInput)).y.data;
  const agree = {
    tfjsVsOrtFloat: agreement(labels(tfOut, classes, inner, true), labels(of, classes, inner, false)),
    qwasmVsOrtInt8: agreement(labels(q, classes, inner, false), labels(oq, classes, inner, false)),
  };
  rows.push({ size, times, agree });
  process.stderr.write(`${size}: ${JSON.stringify({ times, agree })}\n`);
  await fsession.release();
  await qsession.release();
}
model.dispose();

const ms = (r, k) => r.times[k].medianMs;
const markdown = `## A second peer: TensorFlow.js on MeshNet

The zoo's MeshNet (21 channels, dilations 1,1,1,2,4,8,1, random weights) at one thread: qwasm int8 (PT2E file), TensorFlow.js ${tfVersion} (\`@tensorflow/tfjs-backend-wasm\`, SIMD; its Node.js build runs one thread) on the same float model's convs (BatchNorm folded by the ONNX exporter, channels-last), and onnxruntime-web float and int8 (\`bench/meshnet-tfjs.bench.mjs\`; interleaved rounds, medians of ${ROUNDS}; 2 x AMD EPYC, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}). TensorFlow.js's wasm Conv3D is a direct loop, so the volumes are small. Labels: TensorFlow.js float against onnxruntime float (the same float model); qwasm against onnxruntime int8.

| volume | qwasm int8 ms | TF.js wasm float ms | ort float ms | ort int8 ms | vs TF.js | vs ort float | vs ort int8 | labels TF.js = ort float | labels qwasm = ort int8 |
|---|---|---|---|---|---|---|---|---|---|
${rows
  .map(
    (r) =>
      `| ${r.size}^3 | ${ms(r, 'qwasmInt8').toFixed(0)} | ${ms(r, 'tfjsFloat').toFixed(0)} | ${ms(r, 'ortFloat').toFixed(0)} | ${ms(r, 'ortInt8').toFixed(0)} | ${(ms(r, 'tfjsFloat') / ms(r, 'qwasmInt8')).toFixed(1)}x | ${(ms(r, 'ortFloat') / ms(r, 'qwasmInt8')).toFixed(2)}x | ${(ms(r, 'ortInt8') / ms(r, 'qwasmInt8')).toFixed(2)}x | ${(100 * r.agree.tfjsVsOrtFloat).toFixed(2)}% | ${(100 * r.agree.qwasmVsOrtInt8).toFixed(2)}% |`,
  )
  .join('\n')}
`;
saveResult('meshnet-tfjs', { name: 'meshnet-tfjs', rows, markdown });
console.log(markdown);
process.exit(0);
