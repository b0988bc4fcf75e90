// The Node.js benchmarks' shared work: the conv shapes S1-S6, and the
// quantized ConvReLU3d and Linear they time, built from seeded data and
// calibrated like PyTorch's eager flow (observe the input and the float
// output, then fromFloat), with what onnxruntime-web needs for the same
// integers (conv.bench.mjs, threads.bench.mjs).

export const SHAPES = [
  { id: 'S1', cin: 16, cout: 32, spatial: [8, 32, 32] },
  { id: 'S2', cin: 64, cout: 64, spatial: [16, 28, 28] },
  { id: 'S3', cin: 3, cout: 64, spatial: [16, 56, 56] },
  { id: 'S4', cin: 128, cout: 128, spatial: [8, 14, 14] },
  { id: 'S5', cin: 64, cout: 128, spatial: [16, 28, 28], stride: 2 },
  { id: 'S6', cin: 64, cout: 64, spatial: [16, 28, 28], groups: 64, note: 'depthwise' },
].map((s) => ({
  n: 1,
  ...s,
  kernel: [3, 3, 3],
  stride: Array(3).fill(s.stride ?? 1),
  pad: [1, 1, 1],
  groups: s.groups ?? 1,
}));

/** A seeded LCG in [0, 1). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function outSpatial(c) {
  const dilation = c.dilation ?? [1, 1, 1];
  return c.spatial.map(
    (d, i) => Math.floor((d + 2 * c.pad[i] - dilation[i] * (c.kernel[i] - 1) - 1) / c.stride[i]) + 1,
  );
}

export function macs(c) {
  return (
    c.n * c.cout * outSpatial(c).reduce((a, b) => a * b, 1) * (c.cin / c.groups) * c.kernel.reduce((a, b) => a * b, 1)
  );
}

/**
 * The quint8 input (x quantized with the input observer's qparams) and what
 * onnxruntime-web's QLinearConv / QLinearMatMul need for qmod's integers: its
 * int8 weight and per-channel scales, the activation and output qparams, and
 * (with a float bias) the bias requantized to int32 as fbgemm does,
 * round(b / (fround(aScale) * wScale)). Shared with bench/browser/workload.mjs.
 */
export function quantizedInputAndOrtParams(qwasm, qmod, inObs, x, bias) {
  const { scale: aScale, zeroPoint: aZp } = inObs.calculateQParams();
  const qx = qwasm.quantizePerTensor(x, aScale, aZp, 'quint8');
  const w = qmod.weight();
  const wScales = Float32Array.from(w.qPerChannelScales());
  const wInt8 = w.intRepr();
  w.dispose();
  const ortParams = { wInt8, wScales, aScale, aZp, outScale: qmod.scale, outZp: qmod.zeroPoint };
  if (bias) {
    ortParams.biasInt32 = Int32Array.from(bias, (b, oc) => Math.round(b / (Math.fround(aScale) * wScales[oc])));
  }
  return { qx, ortParams };
}

/**
 * The float and quantized ConvReLU3d of shape c, the float input x (NCDHW
 * data) and its quint8 form qx, `ortParams` for onnxruntime-web's
 * QLinearConv, and the output observer (to build another qmod from fmod).
 * fromFloatOptions go to fromFloat (e.g. winograd). The caller disposes
 * qmod, fmod and qx.
 */
export function buildConvReLU3d(qwasm, c, fromFloatOptions = {}) {
  const next = rng(7 + c.cin * 131 + c.cout);
  const x = new Float32Array(c.n * c.cin * c.spatial.reduce((a, b) => a * b, 1)).map(() => next() * 4 - 1);
  const fconv = new qwasm.nn.Conv3d(c.cin, c.cout, c.kernel, {
    stride: c.stride,
    padding: c.pad,
    groups: c.groups,
    dilation: c.dilation ?? [1, 1, 1],
  });
  const fmod = new qwasm.nn.intrinsic.ConvReLU3d(fconv, new qwasm.nn.ReLU());
  const xt = { data: x, shape: [c.n, c.cin, ...c.spatial] };
  const inObs = new qwasm.quantization.MinMaxObserver();
  inObs.observe(xt);
  const outObs = new qwasm.quantization.MinMaxObserver();
  outObs.observe(fmod.forward(xt));
  const qmod = qwasm.nn.intrinsic.quantized.ConvReLU3d.fromFloat(fmod, {
    activationObserver: outObs,
    ...fromFloatOptions,
  });
  const { qx, ortParams } = quantizedInputAndOrtParams(qwasm, qmod, inObs, xt, fconv.bias.data);
  return { x, xt, fconv, fmod, qmod, qx, ortParams, outObs };
}

/**
 * nn.quantized.Linear(inF, outF) without bias on [rows, inF], its float
 * module and input, the quint8 input qx, and `ortParams` for onnxruntime-web's
 * QLinearMatMul. The caller disposes qlin, flin and qx.
 */
export function buildLinear(qwasm, rows, inF, outF) {
  const next = rng(99);
  const x = { data: new Float32Array(rows * inF).map(() => next() * 2 - 1), shape: [rows, inF] };
  const flin = new qwasm.nn.Linear(inF, outF, { bias: false });
  const inObs = new qwasm.quantization.MinMaxObserver();
  inObs.observe(x);
  const outObs = new qwasm.quantization.MinMaxObserver();
  outObs.observe(flin.forward(x));
  const qlin = qwasm.nn.quantized.Linear.fromFloat(flin, { activationObserver: outObs });
  const { qx, ortParams } = quantizedInputAndOrtParams(qwasm, qlin, inObs, x);
  return { x, flin, qlin, qx, ortParams };
}
