// Runs the ConvReLU3d playground off the main thread: builds the volume and the
// float module, calibrates, converts with fromFloat, times the int8 (SIMD and
// scalar) and float forwards, and reports progress as it goes.
import * as qwasm from '../web/src/index.browser.mjs';
import { mulberry32 } from './random.mjs';

/**
 * A blob moving left to right across the frames, in noise, at the same height
 * in every frame and channel (the channels differ in brightness and noise):
 * an output mixes all channels and, through the kernel's depth, neighbouring
 * frames, so the blob must not jump between them for the input slice shown
 * (channel 0) and the outputs to line up.
 */
export function movingBlob(cin, depth, size, seed = 1) {
  const next = mulberry32(seed);
  const data = new Float32Array(cin * depth * size * size);
  const r = size * 0.12;
  let i = 0;
  for (let c = 0; c < cin; c++) {
    for (let d = 0; d < depth; d++) {
      const cx = size * (0.2 + (0.6 * d) / Math.max(1, depth - 1));
      const cy = size * 0.5;
      for (let y = 0; y < size; y++) {
        for (let x = 0; x < size; x++, i++) {
          const blob = Math.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r));
          data[i] = blob * (1 + 0.3 * c) + (next() - 0.5) * 0.3;
        }
      }
    }
  }
  return { data, shape: [1, cin, depth, size, size] };
}

/**
 * PyTorch's default initialisation (uniform in +-1/sqrt(fan_in) for weight and
 * bias), from a seeded generator instead of Math.random: the same settings
 * give the same layer, so what the playground shows can be reproduced (and
 * tested).
 */
function seedParameters(conv, seed = 2) {
  const next = mulberry32(seed);
  const [, cin, ...kernel] = conv.weight.shape;
  const bound = 1 / Math.sqrt(cin * kernel.reduce((a, b) => a * b, 1));
  for (const param of [conv.weight, conv.bias]) {
    param.data = Float32Array.from(param.data, () => (next() * 2 - 1) * bound);
  }
}

function progress(value, text) {
  postMessage({ type: 'progress', value, text });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

// Firefox and Safari round performance.now() to 1 ms outside cross-origin
// isolated pages, so a 2 ms forward cannot be timed on its own: each sample
// repeats the call until it lasts at least 25 ms, and reports the time per call.
const SAMPLE_MS = 25;

function timed(samples, fn) {
  const t0 = performance.now();
  fn();
  const once = performance.now() - t0;
  const reps = Math.max(1, Math.ceil(SAMPLE_MS / Math.max(once, 0.5)));
  const ms = [];
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    for (let r = 0; r < reps; r++) fn();
    ms.push((performance.now() - start) / reps);
  }
  return median(ms);
}

async function run(p) {
  progress(2, 'Loading qwasm in the worker…');
  await qwasm.init();
  const x = movingBlob(p.cin, p.depth, p.size);
  progress(8, 'Building and calibrating the float ConvReLU3d…');
  const conv = new qwasm.nn.Conv3d(p.cin, p.cout, p.kernel, { stride: p.stride, padding: p.padding });
  seedParameters(conv);
  const fmod = new qwasm.nn.intrinsic.ConvReLU3d(conv, new qwasm.nn.ReLU());
  const inObs = new qwasm.quantization.MinMaxObserver();
  const outObs = new qwasm.quantization.MinMaxObserver();
  const yFloat = fmod.forward(inObs.observe(x));
  outObs.observe(yFloat);
  progress(20, 'Converting with fromFloat (per-channel qint8 weights)…');
  const qmod = qwasm.nn.intrinsic.quantized.ConvReLU3d.fromFloat(fmod, { activationObserver: outObs });
  const { scale, zeroPoint } = inObs.calculateQParams();
  const qx = qwasm.quantizePerTensor(x, scale, zeroPoint, 'quint8');
  try {
    progress(30, 'Timing int8 SIMD…');
    qwasm.setKernelIsa('wasmsimd');
    qmod.forward(qx).dispose(); // warm up
    const int8Simd = timed(3, () => qmod.forward(qx).dispose());
    progress(45, 'Timing float SIMD…');
    fmod.forward(x);
    const floatSimd = timed(3, () => fmod.forward(x));
    progress(60, 'Timing int8 scalar (the slow one)…');
    qwasm.setKernelIsa('scalar');
    const int8Scalar = timed(1, () => qmod.forward(qx).dispose());
    qwasm.setKernelIsa('auto');
    progress(90, 'Comparing int8 with float…');
    const qy = qmod.forward(qx);
    const ints = qy.intRepr();
    const int8Out = qy.dequantize().data;
    const outShape = qy.shape.slice();
    qy.dispose();
    // LSBs between the int8 output and the float output quantized with the same qparams.
    const lsb = new Uint8Array(ints.length);
    let max = 0;
    let sum = 0;
    let over1 = 0;
    for (let i = 0; i < ints.length; i++) {
      const ref = Math.min(255, Math.max(qmod.zeroPoint, Math.round(yFloat.data[i] / qmod.scale) + qmod.zeroPoint));
      const d = Math.abs(ints[i] - ref);
      lsb[i] = Math.min(255, d);
      max = Math.max(max, d);
      sum += d;
      over1 += d > 1;
    }
    const [, cout, dOut, hOut, wOut] = outShape;
    const macs = cout * dOut * hOut * wOut * p.cin * p.kernel ** 3;
    const input0 = x.data.slice(0, p.depth * p.size * p.size); // channel 0
    const result = {
      type: 'result',
      params: p,
      outShape,
      macs,
      scale: qmod.scale,
      zeroPoint: qmod.zeroPoint,
      timings: { int8Simd, floatSimd, int8Scalar },
      runtime: qwasm.runtimeInfo(), // this worker's threads (Firefox workers run one)
      diff: { max, mean: sum / ints.length, over1: over1 / ints.length },
      input0,
      floatOut: yFloat.data,
      int8Out,
      lsb,
    };
    postMessage(result, [input0.buffer, yFloat.data.buffer, int8Out.buffer, lsb.buffer]);
  } finally {
    qx.dispose();
    qmod.dispose();
    fmod.dispose();
  }
}

self.onmessage = (e) => {
  if (e.data?.type !== 'run') return;
  run(e.data.params).catch((err) => postMessage({ type: 'error', message: err.message }));
};
