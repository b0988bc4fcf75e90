// PyTorch's float32 formulas for the float modules, computed by the core
// (src/qwasm/torch_float.h, bound in bindings/float_bindings.cpp): clamp
// (ReLU6, Hardtanh; ReLU, FloatFunctional.addRelu and a loaded graph's relu
// take the same comparison in JS, reluFloats below),
// BatchNorm in eval mode, and BatchNorm folding (quantization.fuseModules).
// nn and the graph executor call these and nothing else, so -0, NaN and the
// infinities come out as PyTorch's do everywhere. This is the one module that
// calls those bindings. Each function takes the data's bytes (a Uint8Array
// of float32s, read once by the caller) and returns a new Float32Array.
import { checked } from '../runtime/errors.mjs';
import { noteOutOfMemory, ownBytes, withHeapCopy } from '../runtime/heap.mjs';
import { wasm } from '../runtime/runtime.mjs';

/**
 * @internal Copies each {bytes, what} of `copies` into wasm memory and runs
 * call(M, address0, byteLength0, address1, ...); frees them after. A core
 * out-of-memory error gets the live-object note.
 * @template T
 * @param {{bytes: Uint8Array, what: string}[]} copies
 * @param {string} ctx
 * @param {(M: import('../runtime/bridge.mjs').Core, ...placed: number[]) => import('../runtime/bridge.mjs').Result<T>} call
 * @returns {T}
 */
export function inHeap(copies, ctx, call) {
  const M = wasm(ctx);
  const next = (i, placed) =>
    i === copies.length
      ? checked(call(M, ...placed), ctx)
      : withHeapCopy(M, copies[i].bytes, copies[i].what, ctx, (address, n) => next(i + 1, [...placed, address, n]));
  try {
    return next(0, []);
  } catch (e) {
    throw noteOutOfMemory(e);
  }
}

/** torch.clamp(x, lo, hi) on float32s: ±Infinity is no bound; NaN and -0 come through as in PyTorch. */
export function clampFloats(bytes, lo, hi, ctx) {
  return inHeap([{ bytes, what: 'the input' }], ctx, (M, address, n) => M._fclamp(address, n, lo, hi));
}

/**
 * torch.relu (clamp_min(x, 0)): -0 and NaN come through. One pass in JS, with
 * torch_cpu::clamp's comparison (`x < 0 ? 0 : x`, false for NaN and -0):
 * the core's loop is no faster than V8's, so the copies into wasm memory and
 * back were pure cost (measured 1.1-1.5x on 4M-14M floats, the same bits).
 * Bytes not on a float32 boundary take the core.
 */
export function reluFloats(bytes, ctx) {
  if (bytes.byteOffset % 4 !== 0 || bytes.byteLength % 4 !== 0) return clampFloats(bytes, 0, Infinity, ctx);
  const x = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    // biome-ignore lint/complexity/useMathMinMax: not Math.max(v, 0), which turns -0 into +0 where this keeps v
    y[i] = v < 0 ? 0 : v;
  }
  return y;
}

// A BatchNorm's parameters as the core takes them: [weight | bias | mean | var]
// (1 and 0 without affine, which the core then ignores).
function statsBytes(s) {
  const n = s.mean.length;
  const block = new Float32Array(4 * n);
  block.set(s.weight ?? new Float32Array(n).fill(1), 0);
  block.set(s.bias ?? new Float32Array(n), n);
  block.set(s.mean, 2 * n);
  block.set(s.variance, 3 * n);
  return ownBytes(block);
}

/**
 * BatchNorm in eval mode on x (its bytes and shape [N, C, *]), with
 * s = {weight, bias (null without affine), mean, variance, eps}.
 */
export function batchNormFloats(bytes, shape, s, ctx) {
  const copies = [
    { bytes, what: 'the input' },
    { bytes: statsBytes(s), what: 'the BatchNorm parameters' },
  ];
  return inHeap(copies, ctx, (M, address, n, stats, statsN) =>
    M._fbatchNorm(address, n, shape, stats, statsN, s.weight !== null, s.eps),
  );
}

/**
 * A conv's or linear's weight (Float32Array of `shape` [out, ...]) and bias
 * (null: zeros, as fusion.py uses) with the BatchNorm s folded in:
 * {weight, bias}. A linear's BatchNorm may have one channel.
 */
export function foldBatchNorm(weight, shape, bias, s, linear, ctx) {
  const block = new Float32Array(weight.length + shape[0]);
  block.set(weight, 0);
  if (bias !== null) block.set(bias, weight.length);
  const copies = [
    { bytes: ownBytes(block), what: 'the weight and bias' },
    { bytes: statsBytes(s), what: 'the BatchNorm parameters' },
  ];
  return inHeap(copies, ctx, (M, address, n, stats, statsN) =>
    M._ffoldBatchNorm(address, n, shape, stats, statsN, s.eps, linear),
  );
}
