// Arithmetic on tensors as PyTorch's eager flow does it:
//  - nn.quantized.functional: add / addRelu / mul / mulRelu (quantized::add,
//    ...), addScalar / mulScalar, cat, relu / relu6 / hardtanh / clamp, on
//    quint8 per-tensor QTensors, with PyTorch's integers;
//  - nn.quantized.FloatFunctional: the float ops a model writes in forward()
//    (skip connections), observed once prepare() gives it an observer;
//  - nn.quantized.QFunctional: what convert() makes of it, with the output
//    qparams its observer calibrated.
// PyTorch has no `+` on quantized tensors (neither per tensor nor per
// channel); these are the tools it offers instead.
import { describe, readFloatTensor, readInteger, readNumber } from '../runtime/args.mjs';
import { DTYPE, QSCHEME } from '../runtime/codes.mjs';
import { checked } from '../runtime/errors.mjs';
import { ownBytes } from '../runtime/heap.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { qtensorHandle, wrapHandle } from '../tensors/qtensor.mjs';
import { Module } from './module.mjs';
import { reluFloats } from './torch-float.mjs';

function handle(q, name, ctx) {
  const h = qtensorHandle(q, ctx);
  if (h.qschemeCode() !== QSCHEME.get('per_tensor_affine') || h.dtypeCode() !== DTYPE.get('quint8')) {
    throw new TypeError(
      `${ctx}: ${name} must be a quint8 per_tensor_affine QTensor, got ${q.dtype} ${q.qscheme()}. ` +
        'PyTorch has no arithmetic on per-channel quantized tensors either: dequantize(), compute in float, ' +
        'and quantize again',
    );
  }
  return h;
}

function qparams(scale, zeroPoint, ctx) {
  return [readNumber(scale, 'scale', ctx), readNumber(zeroPoint, 'zeroPoint', ctx)];
}

/** @param {(M: import('../runtime/bridge.mjs').Core) => import('../runtime/bridge.mjs').Result<import('../runtime/bridge.mjs').QTensorHandle>} f */
const run = (ctx, f) => wrapHandle(checked(f(wasm(ctx)), ctx));

/** quantized::add(a, b, scale, zeroPoint): a + b requantized to (scale, zeroPoint); broadcasts. */
export function add(a, b, scale, zeroPoint) {
  const ctx = 'nn.quantized.functional.add(a, b, scale, zeroPoint)';
  const [s, z] = qparams(scale, zeroPoint, ctx);
  return run(ctx, (M) => M._qadd(handle(a, 'a', ctx), handle(b, 'b', ctx), s, z, false));
}

/** quantized::add_relu: relu(a + b), requantized. */
export function addRelu(a, b, scale, zeroPoint) {
  const ctx = 'nn.quantized.functional.addRelu(a, b, scale, zeroPoint)';
  const [s, z] = qparams(scale, zeroPoint, ctx);
  return run(ctx, (M) => M._qadd(handle(a, 'a', ctx), handle(b, 'b', ctx), s, z, true));
}

/** quantized::mul(a, b, scale, zeroPoint): a * b requantized; broadcasts. */
export function mul(a, b, scale, zeroPoint) {
  const ctx = 'nn.quantized.functional.mul(a, b, scale, zeroPoint)';
  const [s, z] = qparams(scale, zeroPoint, ctx);
  return run(ctx, (M) => M._qmul(handle(a, 'a', ctx), handle(b, 'b', ctx), s, z, false));
}

/** quantized::mul_relu: relu(a * b), requantized. */
export function mulRelu(a, b, scale, zeroPoint) {
  const ctx = 'nn.quantized.functional.mulRelu(a, b, scale, zeroPoint)';
  const [s, z] = qparams(scale, zeroPoint, ctx);
  return run(ctx, (M) => M._qmul(handle(a, 'a', ctx), handle(b, 'b', ctx), s, z, true));
}

/** quantized::add_scalar(x, c): the same integers with a shifted zero point (requantized only if it leaves 0..255). */
export function addScalar(x, c) {
  const ctx = 'nn.quantized.functional.addScalar(x, c)';
  const v = readNumber(c, 'c', ctx);
  return run(ctx, (M) => M._qaddScalar(handle(x, 'x', ctx), v, false));
}

/** quantized::mul_scalar(x, c): the same integers with a scaled scale (c < 0 mirrors them; c = 0 gives zeros). */
export function mulScalar(x, c) {
  const ctx = 'nn.quantized.functional.mulScalar(x, c)';
  const v = readNumber(c, 'c', ctx);
  return run(ctx, (M) => M._qmulScalar(handle(x, 'x', ctx), v, false));
}

/** quantized::cat(tensors, dim, scale, zeroPoint): each input requantized to (scale, zeroPoint). */
export function cat(tensors, dim, scale, zeroPoint) {
  const ctx = 'nn.quantized.functional.cat(tensors, dim, scale, zeroPoint)';
  if (!Array.isArray(tensors) || tensors.length === 0) {
    throw new TypeError(`${ctx}: tensors must be a non-empty array of QTensors, got ${describe(tensors)}`);
  }
  const d = readInteger(dim, 'dim', ctx);
  const [s, z] = qparams(scale, zeroPoint, ctx);
  const handles = tensors.slice(0, 4096).map((t, i) => handle(t, `tensors[${i}]`, ctx));
  if (tensors.length > 4096) throw new RangeError(`${ctx}: at most 4096 tensors`);
  return run(ctx, (M) => M._qcat(handles, d, s, z));
}

/** relu on a QTensor: max(q, zeroPoint); the qparams stay. */
export function relu(x) {
  const ctx = 'nn.quantized.functional.relu(x)';
  return run(ctx, (M) => M._qclamp(handle(x, 'x', ctx), true, 0, false, 0));
}

/** relu6 (hardtanh(x, 0, 6)) on a QTensor; the qparams stay. */
export function relu6(x) {
  const ctx = 'nn.quantized.functional.relu6(x)';
  return run(ctx, (M) => M._qclamp(handle(x, 'x', ctx), true, 0, true, 6));
}

/** hardtanh(x, minVal = -1, maxVal = 1) on a QTensor: the bounds quantized with x's qparams. */
export function hardtanh(x, minVal = -1, maxVal = 1) {
  const ctx = 'nn.quantized.functional.hardtanh(x, minVal, maxVal)';
  const lo = readNumber(minVal, 'minVal', ctx);
  const hi = readNumber(maxVal, 'maxVal', ctx);
  return run(ctx, (M) => M._qclamp(handle(x, 'x', ctx), true, lo, true, hi));
}

/** clamp(x, min, max) on a QTensor (either bound may be undefined). */
export function clamp(x, min, max) {
  const ctx = 'nn.quantized.functional.clamp(x, min, max)';
  const lo = min === undefined ? 0 : readNumber(min, 'min', ctx);
  const hi = max === undefined ? 0 : readNumber(max, 'max', ctx);
  return run(ctx, (M) => M._qclamp(handle(x, 'x', ctx), min !== undefined, lo, max !== undefined, hi));
}

// ---------------------------------------------------------------------------
// Float element-wise arithmetic with broadcasting (float32, as PyTorch's float ops).

function broadcast(a, b, ctx) {
  const rank = Math.max(a.shape.length, b.shape.length);
  const pad = (s) => [...Array(rank - s.length).fill(1), ...s];
  const sa = pad(a.shape);
  const sb = pad(b.shape);
  const shape = sa.map((d, i) => {
    if (d !== sb[i] && d !== 1 && sb[i] !== 1) {
      throw new RangeError(`${ctx}: shapes [${a.shape.join(', ')}] and [${b.shape.join(', ')}] do not broadcast`);
    }
    return d === 1 ? sb[i] : d;
  });
  return { shape, sa, sb };
}

function floatBinary(x, y, op, ctx) {
  const a = readFloatTensor(x, ctx, 'x');
  const b = readFloatTensor(y, ctx, 'y');
  const { shape, sa, sb } = broadcast(a, b, ctx);
  const n = shape.reduce((p, d) => p * d, 1);
  const data = new Float32Array(n);
  if (sa.every((d, i) => d === shape[i]) && sb.every((d, i) => d === shape[i])) {
    for (let i = 0; i < n; i++) data[i] = op(a.data[i], b.data[i]);
    return { data, shape };
  }
  const strides = (s) => {
    const st = new Array(s.length);
    let step = 1;
    for (let i = s.length - 1; i >= 0; i--) {
      st[i] = s[i] === 1 ? 0 : step;
      step *= s[i];
    }
    return st;
  };
  const ta = strides(sa);
  const tb = strides(sb);
  const index = new Array(shape.length).fill(0);
  let ia = 0;
  let ib = 0;
  for (let i = 0; i < n; i++) {
    data[i] = op(a.data[ia], b.data[ib]);
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d]++;
      ia += ta[d];
      ib += tb[d];
      if (index[d] < shape[d]) break;
      ia -= ta[d] * shape[d];
      ib -= tb[d] * shape[d];
      index[d] = 0;
    }
  }
  return { data, shape };
}

const f = Math.fround;

function floatCat(tensors, dim, ctx) {
  if (!Array.isArray(tensors) || tensors.length === 0) {
    throw new TypeError(`${ctx}: tensors must be a non-empty array of float tensors`);
  }
  const ts = tensors.map((t, i) => readFloatTensor(t, ctx, `tensors[${i}]`));
  const rank = ts[0].shape.length;
  const d0 = readInteger(dim, 'dim', ctx);
  const d = d0 < 0 ? d0 + rank : d0;
  if (d < 0 || d >= rank) throw new RangeError(`${ctx}: dim ${d0} is out of range for rank ${rank}`);
  const shape = ts[0].shape.slice();
  shape[d] = 0;
  for (const [i, t] of ts.entries()) {
    if (t.shape.length !== rank || t.shape.some((s, k) => k !== d && s !== ts[0].shape[k])) {
      throw new RangeError(
        `${ctx}: tensors[${i}] has shape [${t.shape.join(', ')}], which does not stack with [${ts[0].shape.join(', ')}] along ${d}`,
      );
    }
    shape[d] += t.shape[d];
  }
  const outer = shape.slice(0, d).reduce((p, s) => p * s, 1);
  const inner = shape.slice(d + 1).reduce((p, s) => p * s, 1);
  const data = new Float32Array(outer * shape[d] * inner);
  let offset = 0;
  for (const t of ts) {
    const block = t.shape[d] * inner;
    for (let o = 0; o < outer; o++)
      data.set(t.data.subarray(o * block, (o + 1) * block), o * shape[d] * inner + offset);
    offset += block;
  }
  return { data, shape };
}

/** Documented at nn.quantized.FloatFunctional (web/declarations/nn.d.ts). */
export class FloatFunctional extends Module {
  /** The observer prepare() installed (PyTorch's activation_post_process), or null. */
  activationPostProcess = null;

  #observe(y) {
    if (this.activationPostProcess) this.activationPostProcess.observe(y);
    return y;
  }

  add(x, y) {
    return this.#observe(floatBinary(x, y, (a, b) => f(a + b), 'FloatFunctional.add(x, y)'));
  }

  addRelu(x, y) {
    const ctx = 'FloatFunctional.addRelu(x, y)';
    const sum = floatBinary(x, y, (a, b) => f(a + b), ctx);
    return this.#observe({ data: reluFloats(ownBytes(sum.data), ctx), shape: sum.shape });
  }

  mul(x, y) {
    return this.#observe(floatBinary(x, y, (a, b) => f(a * b), 'FloatFunctional.mul(x, y)'));
  }

  cat(tensors, dim = 0) {
    return this.#observe(floatCat(tensors, dim, 'FloatFunctional.cat(tensors, dim)'));
  }

  addScalar(x, c) {
    const ctx = 'FloatFunctional.addScalar(x, c)';
    const t = readFloatTensor(x, ctx);
    const v = f(readNumber(c, 'c', ctx));
    return { data: t.data.map((a) => f(a + v)), shape: t.shape };
  }

  mulScalar(x, c) {
    const ctx = 'FloatFunctional.mulScalar(x, c)';
    const t = readFloatTensor(x, ctx);
    const v = f(readNumber(c, 'c', ctx));
    return { data: t.data.map((a) => f(a * v)), shape: t.shape };
  }

  forward() {
    throw new Error(
      'FloatFunctional.forward() is not meant to be called: use add, addRelu, mul, cat, addScalar or mulScalar',
    );
  }
}

/** Documented at nn.quantized.QFunctional (web/declarations/nn.d.ts). */
export class QFunctional extends Module {
  #scale = 1;
  #zeroPoint = 0;

  get scale() {
    return this.#scale;
  }
  set scale(v) {
    this.#scale = readNumber(v, 'scale', 'QFunctional.scale');
  }
  get zeroPoint() {
    return this.#zeroPoint;
  }
  set zeroPoint(v) {
    this.#zeroPoint = readNumber(v, 'zeroPoint', 'QFunctional.zeroPoint');
  }

  add(x, y) {
    return add(x, y, this.#scale, this.#zeroPoint);
  }
  addRelu(x, y) {
    return addRelu(x, y, this.#scale, this.#zeroPoint);
  }
  mul(x, y) {
    return mul(x, y, this.#scale, this.#zeroPoint);
  }
  cat(tensors, dim = 0) {
    return cat(tensors, dim, this.#scale, this.#zeroPoint);
  }
  addScalar(x, c) {
    return addScalar(x, c);
  }
  mulScalar(x, c) {
    return mulScalar(x, c);
  }

  forward() {
    throw new Error(
      'QFunctional.forward() is not meant to be called: use add, addRelu, mul, cat, addScalar or mulScalar',
    );
  }

  /** PyTorch from_float: the scale and zero point of the FloatFunctional's observer. */
  static fromFloat(mod) {
    const ctx = 'QFunctional.fromFloat(mod)';
    if (!(mod instanceof FloatFunctional))
      throw new TypeError(`${ctx}: mod must be a FloatFunctional, got ${describe(mod)}`);
    const q = new QFunctional();
    const obs = mod.activationPostProcess;
    const { scale, zeroPoint } = obs ? obs.calculateQParams() : { scale: 1, zeroPoint: 0 };
    q.scale = scale;
    q.zeroPoint = zeroPoint;
    return q;
  }

  toString() {
    return `QFunctional(scale=${this.#scale}, zero_point=${this.#zeroPoint})`;
  }
}
