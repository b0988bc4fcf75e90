// The element-wise activations on float32 values, as PyTorch's vectorized CPU
// kernels compute them (aten/src/ATen/native/cpu/Activation.cpp, and
// UnaryOpsKernel.cpp for sigmoid and tanh): the same float32 steps in the same
// order, each rounded to float32 (Math.fround). The piecewise-linear ones
// (LeakyReLU, PReLU, Hardsigmoid, Hardswish) are then PyTorch's bits. The
// others call exp, expm1, log1p and tanh, which PyTorch takes from Sleef (1-ulp
// float32 versions) and this file from Math (double, rounded once to float32):
// those differ from PyTorch's by the bound docs/numerics.md states
// ("Element-wise activations"), which tests/js/model/golden-activations.test.mjs
// measures on PyTorch's outputs.

const f = Math.fround;
const exp32 = (x) => f(Math.exp(x));
const log1p32 = (x) => f(Math.log1p(x));
// elu's expm1 is Math.expm1 rounded once, like these.
const tanh32 = (x) => f(Math.tanh(x));

/** Each element of `x` (a Float32Array) through `fn`, into a new Float32Array. */
export function mapFloats(x, fn) {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = fn(x[i]);
  return out;
}

/** leaky_relu: a * (a > 0 ? 1 : negval), negval as float32 (NaN and -0 come through). */
export const leakyRelu = (slope) => {
  const s = f(slope);
  return (a) => (a > 0 ? a : f(a * s));
};

/** hardsigmoid: min(max(x + 3, 0), 6) / 6. */
export const hardsigmoid = (x) => f(Math.min(Math.max(f(x + 3), 0), 6) / 6);

/** hardswish: (x * min(max(x + 3, 0), 6)) / 6, in that order. */
export const hardswish = (x) => f(f(x * Math.min(Math.max(f(x + 3), 0), 6)) / 6);

/** sigmoid: (1 + exp(-x)).reciprocal(). */
export const sigmoid = (x) => f(1 / f(1 + exp32(-x)));

/** tanh. */
export const tanh = tanh32;

/** silu: x / (1 + exp(-x)). */
export const silu = (x) => f(x / f(1 + exp32(-x)));

/** elu (scale and input_scale 1): x > 0 ? x : expm1(x) * alpha (torch 2.15 takes expm1 on both paths). */
export const elu = (alpha) => {
  const negcoef = f(alpha);
  return (a) => (a > 0 ? a : f(f(Math.expm1(a)) * negcoef));
};

/** gelu, approximate='tanh': 0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3))). */
const K_BETA = f(Math.SQRT2 * (2 / Math.sqrt(Math.PI)) * 0.5);
const K_KAPPA = f(0.044715);
export const geluTanh = (x) => {
  const cube = f(f(x * x) * x);
  const inner = f(K_BETA * f(x + f(K_KAPPA * cube)));
  return f(f(0.5 * x) * f(1 + tanh32(inner)));
};

/** softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta. */
export const softplus = (beta, threshold) => {
  const b = f(beta);
  const t = f(threshold);
  return (a) => {
    const ab = f(a * b);
    return ab > t ? a : f(log1p32(exp32(ab)) / b);
  };
};

/** mish: x * tanh(log1p(exp(x))). */
export const mish = (x) => f(x * tanh32(log1p32(exp32(x))));

/**
 * prelu on data of `shape`: x > 0 ? x : weight * x, with one weight, or one
 * per channel (dimension 1) when `weight` holds more.
 */
export function prelu(x, shape, weight) {
  const out = new Float32Array(x.length);
  if (weight.length === 1) {
    const w = weight[0];
    for (let i = 0; i < x.length; i++) out[i] = x[i] > 0 ? x[i] : f(w * x[i]);
    return out;
  }
  let inner = 1;
  for (let d = 2; d < shape.length; d++) inner *= shape[d];
  const channels = weight.length;
  for (let i = 0; i < x.length; i++) {
    const w = weight[Math.floor(i / inner) % channels];
    out[i] = x[i] > 0 ? x[i] : f(w * x[i]);
  }
  return out;
}
