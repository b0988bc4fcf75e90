// Reductions over dimensions, on float tensors (and amax / amin / argmax on a
// QTensor's integers): torch.sum, torch.mean, torch.amax, torch.amin,
// torch.argmax, and softmax / log_softmax over one dimension. What a graph
// holds of them: sum / mean / amax / amin (input, dim, keepdim), argmax
// (input, dim, keepdim), softmax / log_softmax (input, dim); each also as a
// method (x.mean(...)). An argmax's indices are a float32 tensor: qwasm's
// graph values are float32 or quantized, and every index below 2^24 is exact
// in float32 (a larger input is refused). docs/numerics.md ("Reductions")
// has the arithmetic and its PyTorch sources.

import { describe, MAX_RANK } from '../runtime/args.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { floatValue, isTensor, numel, sameKind } from './abstract-values.mjs';
import { cascadeSum, contiguousStrides } from './cascade-sum.mjs';
import { arg, costOf, isFloatTensor, isQ, NodeError, param } from './graph-calls.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

// Indices up to 2^24 are exact in float32.
const MAX_INDEX_ELEMENTS = 2 ** 24;
// Vectorized<float>'s lanes in SoftMaxKernel.cpp's build PyTorch runs on an AVX-512 machine.
const SOFTMAX_LANES = 16;

/**
 * The dimensions `dim` names of a rank-`rank` tensor: an integer, a list (an
 * empty one, or null, for every dimension), each in [-rank, rank).
 * @returns {Set<number> | string} the set, or what is wrong
 */
function reducedDims(dim, rank) {
  if (dim === null || dim === undefined) return new Set(Array.from({ length: rank }, (_, d) => d));
  const list = Array.isArray(dim) ? dim : [dim];
  if (list.length === 0) return new Set(Array.from({ length: rank }, (_, d) => d));
  const out = new Set();
  const span = Math.max(rank, 1); // PyTorch lets a rank-0 tensor name dimension 0 or -1
  for (const d of list) {
    if (!Number.isSafeInteger(d)) return `dim must hold integers, got ${describe(d)}`;
    if (d < -span || d >= span) return `dim ${d} is out of range for rank ${rank}`;
    const n = d < 0 ? d + span : d;
    if (out.has(n)) return `dim ${n} appears twice`;
    out.add(n);
  }
  if (rank === 0) out.clear();
  return out;
}

function wantDims(dim, rank, what) {
  const dims = reducedDims(dim, rank);
  if (typeof dims === 'string') throw new NodeError(`${what}: ${dims}`);
  return dims;
}

function wantBool(v, what) {
  if (typeof v !== 'boolean') throw new NodeError(`${what} must be true or false, got ${describe(v)}`);
  return v;
}

const keptShape = (shape, dims, keepdim) =>
  keepdim ? shape.map((n, d) => (dims.has(d) ? 1 : n)) : shape.filter((_, d) => !dims.has(d));

function wantFloat(x, what) {
  if (isQ(x))
    throw new NodeError(`${what}: the input is quantized; qwasm runs ${what} on float tensors (dequantize first)`);
  if (!isFloatTensor(x)) throw new NodeError(`${what}: the input must be a float tensor, got ${describe(x)}`);
  return x;
}

// torch.sum / torch.mean (ReduceOps.cpp mean_out on CPU: the sum, then div_ by the count in float32).
function sumOrMean(x, dim, keepdim, mean, what) {
  wantFloat(x, what);
  const dims = wantDims(dim, x.shape.length, what);
  const data = cascadeSum(x.data, x.shape, dims);
  if (mean) {
    const count = Math.fround(x.shape.reduce((a, n, d) => (dims.has(d) ? a * n : a), 1));
    for (let i = 0; i < data.length; i++) data[i] /= count;
  }
  return { data, shape: keptShape(x.shape, dims, wantBool(keepdim, `${what}: keepdim`)) };
}

// Walks `shape` in contiguous order and gives each element the sum of its index times `strides`
// (a stride of 0 leaves that dimension out), updated by one carry per step rather than a product per element.
function positionsAlong(shape, strides) {
  const pos = new Int32Array(numel(shape));
  const index = new Array(shape.length).fill(0);
  let at = 0;
  for (let i = 0; i < pos.length; i++) {
    pos[i] = at;
    for (let d = shape.length - 1; d >= 0; d--) {
      index[d]++;
      at += strides[d];
      if (index[d] < shape[d]) break;
      at -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return pos;
}

// For each input element (contiguous order), its output element (the kept dims' index).
function outputIndexOf(shape, dims) {
  const outStrides = contiguousStrides(shape.map((n, d) => (dims.has(d) ? 1 : n)));
  return positionsAlong(
    shape,
    shape.map((_, d) => (dims.has(d) ? 0 : outStrides[d])),
  );
}

// The reduced position (0..count) of each input element within its output's group, in contiguous order.
function reducedPositionOf(shape, dims) {
  const rStrides = contiguousStrides(shape.map((n, d) => (dims.has(d) ? n : 1)));
  return positionsAlong(
    shape,
    shape.map((_, d) => (dims.has(d) ? rStrides[d] : 0)),
  );
}

// amax / amin: the largest / smallest element (NaN wins, as PyTorch's max_impl / min_impl). On a
// QTensor, of its integers: a scale > 0 keeps their order, so the output keeps the input's qparams.
function extremum(x, dim, keepdim, largest, what) {
  const shape = isQ(x) ? [...x.shape] : wantFloat(x, what).shape;
  const dims = wantDims(dim, shape.length, what);
  const outShape = keptShape(shape, dims, wantBool(keepdim, `${what}: keepdim`));
  const n = numel(shape);
  if (shape.some((s, d) => dims.has(d) && s === 0) || (n === 0 && dims.size === shape.length)) {
    throw new NodeError(`${what}: a reduction over an empty dimension has no identity (PyTorch refuses it)`);
  }
  const map = outputIndexOf(shape, dims);
  const better = largest ? (a, b) => a > b : (a, b) => a < b;
  if (isQ(x)) {
    if (x.qscheme() !== 'per_tensor_affine' || x.dtype !== 'quint8') {
      throw new NodeError(`${what}: a quantized input must be quint8, per tensor (got ${x.dtype}, ${x.qscheme()})`);
    }
    const ints = x.intRepr();
    const out = new Uint8Array(numel(outShape));
    const seen = new Uint8Array(out.length);
    for (let i = 0; i < n; i++) {
      const o = map[i];
      if (!seen[o] || better(ints[i], out[o])) out[o] = ints[i];
      seen[o] = 1;
    }
    return makePerTensorQuantizedTensor({ data: out, shape: outShape }, x.qScale(), x.qZeroPoint(), 'quint8');
  }
  const out = new Float32Array(numel(outShape));
  const seen = new Uint8Array(out.length);
  for (let i = 0; i < n; i++) {
    const o = map[i];
    const v = x.data[i];
    if (!seen[o] || Number.isNaN(v) || (!Number.isNaN(out[o]) && better(v, out[o]))) out[o] = v;
    seen[o] = 1;
  }
  return { data: out, shape: outShape };
}

// torch.argmax: the index of the first largest element along dim (a NaN counts as the largest;
// without dim, of the flattened tensor), as float32 (exact below 2^24).
function argmaxOf(x, dim, keepdim) {
  const what = 'argmax';
  const shape = isQ(x) ? [...x.shape] : wantFloat(x, what).shape;
  const n = numel(shape);
  // Without dim, an empty input has no maximum (PyTorch refuses it); along a dim, only an empty dim.
  if (n === 0 && (dim === null || dim === undefined)) {
    throw new NodeError('argmax: an empty input has no maximum (PyTorch refuses it)');
  }
  if (n > MAX_INDEX_ELEMENTS) {
    throw new NodeError(`argmax: ${n} elements; qwasm holds indices in float32, exact up to 2^24 elements`);
  }
  if (Array.isArray(dim)) throw new NodeError(`argmax: dim must be one integer or null, got ${describe(dim)}`);
  const flat = dim === null || dim === undefined;
  const dims = flat ? new Set(shape.map((_, d) => d)) : wantDims(dim, shape.length, what);
  if (!flat && shape.some((s, d) => dims.has(d) && s === 0)) throw new NodeError('argmax: the dimension is empty');
  const keep = wantBool(keepdim, 'argmax: keepdim');
  const outShape = flat ? (keep ? shape.map(() => 1) : []) : keptShape(shape, dims, keep);
  const values = isQ(x) ? x.intRepr() : x.data;
  const map = outputIndexOf(shape, dims);
  const pos = reducedPositionOf(shape, dims);
  const best = new Float64Array(numel(outShape)).fill(Number.NaN);
  const index = new Float32Array(best.length).fill(-1);
  for (let i = 0; i < n; i++) {
    const o = map[i];
    const v = values[i];
    const first = index[o] === -1;
    if (first || (!Number.isNaN(best[o]) && (Number.isNaN(v) || v > best[o]))) {
      best[o] = v;
      index[o] = pos[i];
    }
  }
  return { data: index, shape: outShape };
}

// vec::reduce_all's sum (aten/src/ATen/cpu/vec/functional_base.h) of `size` float32s at data[base + k *
// stride]: below one vector, lane by lane in order; else vector accumulators, the partial last vector into
// its first lanes, then the lanes by halves (vec_reduce_all's shuffles: lane i meets lane i ^ 8, i ^ 4...).
function vectorSum(data, base, stride, size, lanes) {
  const f = new Float32Array(lanes);
  if (size < lanes) {
    for (let k = 0; k < size; k++) f[0] += data[base + k * stride];
    return f[0];
  }
  for (let l = 0; l < lanes; l++) f[l] = data[base + l * stride];
  for (let k = lanes; k < size; k++) f[k % lanes] += data[base + k * stride];
  for (let half = lanes / 2; half >= 1; half /= 2) {
    const prev = f.slice();
    for (let l = 0; l < lanes; l++) f[l] = prev[l] + prev[l ^ half];
  }
  return f[0];
}

// softmax / log_softmax along one dimension (SoftMaxKernel.cpp): per line, its maximum m, e = exp(x - m)
// in float32 (Math.exp rounded to float, where PyTorch uses Sleef's vectorized exp, within 1 ulp), their
// float32 sum s, then e * (1 / s) along the last dimension (_vec_softmax_lastdim: s by vec::reduce_all) and
// e / s along another (_vec_softmax: s in order); log_softmax: (x - m) - log(s).
function softmaxOf(x, dim, log) {
  const what = log ? 'log_softmax' : 'softmax';
  wantFloat(x, what);
  const rank = x.shape.length;
  if (!Number.isSafeInteger(dim)) throw new NodeError(`${what}: dim must be an integer, got ${describe(dim)}`);
  const span = Math.max(rank, 1);
  if (dim < -span || dim >= span) throw new NodeError(`${what}: dim ${dim} is out of range for rank ${rank}`);
  const d = rank === 0 ? 0 : dim < 0 ? dim + span : dim;
  const size = rank === 0 ? 1 : x.shape[d];
  const inner = rank === 0 ? 1 : numel(x.shape.slice(d + 1));
  const outer = size * inner === 0 ? 0 : x.data.length / (size * inner);
  const lastDim = inner === 1;
  const out = new Float32Array(x.data.length);
  const f = new Float32Array(3); // [max, sum, 1 / sum or log(sum)]: float32 steps
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const base = o * size * inner + i;
      f[0] = x.data[base];
      for (let k = 1; k < size; k++) {
        const v = x.data[base + k * inner];
        if (Number.isNaN(v) || v > f[0]) f[0] = v;
      }
      for (let k = 0; k < size; k++) {
        const at = base + k * inner;
        out[at] = x.data[at] - f[0];
        out[at] = Math.exp(out[at]);
      }
      if (lastDim) {
        f[1] = vectorSum(out, base, 1, size, SOFTMAX_LANES);
      } else {
        f[1] = 0;
        for (let k = 0; k < size; k++) f[1] += out[base + k * inner];
      }
      if (log) {
        f[2] = Math.log(f[1]);
        for (let k = 0; k < size; k++) {
          const at = base + k * inner;
          out[at] = x.data[at] - f[0];
          out[at] -= f[2];
        }
      } else if (lastDim) {
        f[2] = 1 / f[1];
        for (let k = 0; k < size; k++) out[base + k * inner] *= f[2];
      } else {
        for (let k = 0; k < size; k++) out[base + k * inner] /= f[1];
      }
    }
  }
  return { data: out, shape: x.shape.slice() };
}

// The planner's view: the output shape from the constant dims, each input element at `rate`.
const reductionCost =
  (rate, outputKind = (x, shape) => sameKind(x, shape)) =>
  (args, kwargs) => {
    const x = args[0];
    if (!isTensor(x)) return null;
    if (x.shape === null) return costOf(outputKind(x, null), 0);
    const dim = arg(args, kwargs, 1, 'dim');
    const keepdim = arg(args, kwargs, 2, 'keepdim') ?? false;
    const dims = reducedDims(dim, x.shape.length);
    if (typeof dims === 'string' || typeof keepdim !== 'boolean') return null;
    return costOf(outputKind(x, keptShape(x.shape, dims, keepdim)), numel(x.shape) * rate);
  };

const floatOnly = (cost) => (args, kwargs) =>
  isTensor(args[0]) && args[0].kind !== 'float' ? null : cost(args, kwargs);

// A reduction's dims and keepdim are constants in an exported graph: the loader checks them (a message, or
// null when they fit); whether a dim fits the input's rank is the run's to say.
function checkDims(dim, listAllowed) {
  if (dim === undefined || dim === null) return null;
  if (Array.isArray(dim) && !listAllowed) return `dim must be one integer or null, got ${describe(dim)}`;
  const list = Array.isArray(dim) ? dim : [dim];
  if (list.length > MAX_RANK) return `dim names ${list.length} dimensions, at most ${MAX_RANK}`;
  const bad = list.find((d) => !Number.isSafeInteger(d) || d < -MAX_RANK || d >= MAX_RANK);
  return bad === undefined ? null : `dim must hold integers in [-${MAX_RANK}, ${MAX_RANK}), got ${describe(bad)}`;
}

const checkReduction =
  (listAllowed) =>
  ([, dim, keepdim]) =>
    checkDims(dim, listAllowed) ??
    (keepdim === undefined || typeof keepdim === 'boolean'
      ? null
      : `keepdim must be true or false, got ${describe(keepdim)}`);

// A reduction as a function (torch.sum(input, ...)) and as a method (x.sum(...)).
const reduction = (self, run, cost, listAllowed) => ({
  args: 3,
  kwargs: ['dim', 'keepdim'],
  run: (args, kwargs) =>
    run(param(args, kwargs, 0, self), param(args, kwargs, 1, 'dim', null), param(args, kwargs, 2, 'keepdim', false)),
  cost,
  checkConstants: checkReduction(listAllowed),
});

const both = (run, cost, listAllowed = true) => ({
  functions: reduction('input', run, cost, listAllowed),
  methods: reduction('self', run, cost, listAllowed),
});

const sumCost = floatOnly(reductionCost(RATE.floatReduceElement));
const extremumCost = reductionCost(RATE.floatReduceElement);
const argmaxCost = (args, kwargs) => {
  const dim = arg(args, kwargs, 1, 'dim');
  const keepdim = arg(args, kwargs, 2, 'keepdim') ?? false;
  const x = args[0];
  if (!isTensor(x) || Array.isArray(dim)) return null;
  if (x.shape === null) return costOf(floatValue(null), 0);
  if (dim === null || dim === undefined) {
    if (typeof keepdim !== 'boolean') return null;
    return costOf(floatValue(keepdim ? x.shape.map(() => 1) : []), numel(x.shape) * RATE.floatReduceElement);
  }
  return reductionCost(RATE.floatReduceElement, (_, shape) => floatValue(shape))(args, kwargs);
};

const splitNames = (d) => ({ functions: { [d.name]: d.functions }, methods: { [d.name]: d.methods } });

/** torch.sum(input, dim, keepdim) and x.sum(...), on float tensors. */
export const sum = splitNames({ name: 'sum', ...both((x, d, k) => sumOrMean(x, d, k, false, 'sum'), sumCost) });

/** torch.mean(input, dim, keepdim) and x.mean(...), on float tensors: the sum divided by the count. */
export const mean = splitNames({ name: 'mean', ...both((x, d, k) => sumOrMean(x, d, k, true, 'mean'), sumCost) });

/** torch.amax(input, dim, keepdim) and x.amax(...): float, or a QTensor's integers with its qparams. */
export const amax = splitNames({ name: 'amax', ...both((x, d, k) => extremum(x, d, k, true, 'amax'), extremumCost) });

/** torch.amin(input, dim, keepdim) and x.amin(...). */
export const amin = splitNames({ name: 'amin', ...both((x, d, k) => extremum(x, d, k, false, 'amin'), extremumCost) });

/** torch.argmax(input, dim, keepdim) and x.argmax(...): float32 indices. */
export const argmax = splitNames({ name: 'argmax', ...both(argmaxOf, argmaxCost, false) });

const softmaxCall = (self, log) => ({
  args: 2,
  kwargs: ['dim'],
  run: (args, kwargs) => softmaxOf(param(args, kwargs, 0, self), param(args, kwargs, 1, 'dim'), log),
  checkConstants: ([, dim]) =>
    dim === undefined || Number.isSafeInteger(dim) ? null : `dim must be an integer, got ${describe(dim)}`,
  cost: (args, kwargs) => {
    const x = args[0];
    if (!isTensor(x) || x.kind !== 'float') return null;
    if (x.shape === null) return costOf(floatValue(null), 0);
    const dim = arg(args, kwargs, 1, 'dim');
    const span = Math.max(x.shape.length, 1);
    if (!Number.isSafeInteger(dim) || dim < -span || dim >= span) return null;
    return costOf(floatValue(x.shape), numel(x.shape) * RATE.floatTranscendentalElement);
  },
});

/** torch.softmax(input, dim) / F.softmax and x.softmax(dim). */
export const softmax = {
  functions: { softmax: softmaxCall('input', false) },
  methods: { softmax: softmaxCall('self', false) },
};

/** torch.log_softmax(input, dim) / F.log_softmax and x.log_softmax(dim). */
export const logSoftmax = {
  functions: { log_softmax: softmaxCall('input', true) },
  methods: { log_softmax: softmaxCall('self', true) },
};
