// The browser benchmark's work, built identically in Node (which writes the
// onnxruntime-web models from it) and in each engine's page: S1-S3 of the
// conv benchmark with seeded weights (nn.Conv3d's own initialisation uses
// Math.random), calibrated and converted by PyTorch's eager flow.
import { mulberry32 } from '../../demo/random.mjs';
import { quantizedInputAndOrtParams } from '../workloads.mjs';

export const SHAPES = [
  { id: 'S1', cin: 16, cout: 32, spatial: [8, 32, 32] },
  { id: 'S2', cin: 64, cout: 64, spatial: [16, 28, 28] },
  { id: 'S3', cin: 3, cout: 64, spatial: [16, 56, 56] },
].map((s) => ({ n: 1, ...s, kernel: [3, 3, 3], stride: [1, 1, 1], pad: [1, 1, 1], groups: 1 }));

const prod = (xs) => xs.reduce((a, b) => a * b, 1);

export const macs = (c) => c.cout * prod(c.spatial) * c.cin * prod(c.kernel); // stride 1, 'same' output

function uniform(seed, n, lo, hi) {
  const next = mulberry32(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * next());
}

/** The quantized ConvReLU3d of shape c, its quint8 input, and what onnxruntime's QLinearConv needs. */
export function buildConv(Q, c) {
  const x = { data: uniform(1, c.n * c.cin * prod(c.spatial), -1, 3), shape: [c.n, c.cin, ...c.spatial] };
  const conv = new Q.nn.Conv3d(c.cin, c.cout, c.kernel, { padding: c.pad });
  const bound = 1 / Math.sqrt(c.cin * prod(c.kernel));
  conv.weight = Q.tensor(uniform(2, conv.weight.data.length, -bound, bound), [...conv.weight.shape]);
  conv.bias = Q.tensor(uniform(3, c.cout, -bound, bound), [c.cout]);
  const fused = new Q.nn.intrinsic.ConvReLU3d(conv);
  const inObs = new Q.quantization.MinMaxObserver();
  const outObs = new Q.quantization.MinMaxObserver();
  outObs.observe(fused.forward(inObs.observe(x)));
  const qmod = Q.nn.intrinsic.quantized.ConvReLU3d.fromFloat(fused, { activationObserver: outObs });
  fused.dispose();
  const { qx, ortParams } = quantizedInputAndOrtParams(Q, qmod, inObs, x, conv.bias.data);
  return { qmod, qx, ortParams };
}

/** quantizePerChannel's benchmark input: 16M floats, [16, 64, 128, 128], qint8 along axis 1. */
export function quantizeWorkload(Q) {
  const shape = [16, 64, 128, 128];
  const x = { data: uniform(4, prod(shape), -4, 4), shape };
  const obs = new Q.quantization.PerChannelMinMaxObserver({
    chAxis: 1,
    dtype: 'qint8',
    qscheme: 'per_channel_symmetric',
  });
  obs.observe(x);
  const { scale, zeroPoint } = obs.calculateQParams();
  return { x, scale, zeroPoint };
}
