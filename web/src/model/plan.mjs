// What each node of a loaded graph produces and costs, known before it runs.
//
// A model file is small; the work it asks for need not be (a 1 KB file can
// hold a pool with a 100,000-wide window, or an adaptive pool to 40000 x
// 40000). From the shapes of a node's inputs this module infers its output
// (kind, dtype, shape, qparams where they are fixed) and its cost: the bytes
// of its output and scratch, and its work in multiply-adds. io.loadModel runs
// it over the whole graph on the input shape the file declares, refusing a
// model over budget at load; GraphModule checks each node again on the real
// input before running it. The formulas are PyTorch's (output sizes:
// aten/src/ATen/native/Pool.h pooling_output_shape, ConvUtils.h
// conv_output_size; broadcasting: ExpandUtils.cpp infer_size).

import { MAX_RANK } from '../args.mjs';

/** The budget of one forward unless io.loadModel's options raise it. */
export const DEFAULT_LIMITS = Object.freeze({
  maxActivationBytes: 2 ** 28, // one node's output or scratch (256 MiB)
  maxWork: 5e11, // multiply-adds over one forward (about 25 s on one thread)
});

// A window element of a max / average pool costs about 32 multiply-adds of
// the conv kernels (measured: 0.5-2 G window elements/s against 20-30 GMAC/s).
const POOL_ELEMENT_WORK = 32;

export class BudgetError extends Error {}

/**
 * An abstract value: a tensor's kind and what is known of it.
 * @typedef {{kind: 'quantized' | 'float', dtype: 'quint8' | 'float32', shape: number[] | null,
 *   scale: number | null, zeroPoint: number | null}} Value
 */

const numel = (shape) => shape.reduce((a, b) => a * b, 1);
const isTensor = (v) => v !== null && typeof v === 'object' && (v.kind === 'quantized' || v.kind === 'float');
const floatValue = (shape) => ({ kind: 'float', dtype: 'float32', shape, scale: null, zeroPoint: null });
const qValue = (shape, scale, zeroPoint) => ({ kind: 'quantized', dtype: 'quint8', shape, scale, zeroPoint });
const sameKind = (v, shape) => ({ ...v, shape });
const bytesOf = (v) => (v.shape === null ? 0 : numel(v.shape) * (v.kind === 'quantized' ? 1 : 4));

// The output of a conv / pool along one dimension (ceil mode as PyTorch: the
// last window must start inside the input or its left padding); < 1 is an
// input the op refuses.
function windowOut(size, kernel, stride, pad, dilation, ceil) {
  const span = size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0);
  if (span < 0) return 0;
  let out = Math.floor(span / stride) + 1;
  if (ceil && (out - 1) * stride >= size + pad) out -= 1;
  return out;
}

// [N, C, spatial...] of a dims-d op's input: rank dims + 2, or dims + 1 when unbatched is allowed.
function split(shape, dims, unbatched) {
  if (shape.length === dims + 2) return { lead: shape.slice(0, 2), spatial: shape.slice(2) };
  if (unbatched && shape.length === dims + 1) return { lead: shape.slice(0, 1), spatial: shape.slice(1) };
  return null;
}

function convCost(info, x) {
  const parts = split(x.shape, info.dims, false);
  if (parts === null || parts.lead[1] !== info.inChannels) return null;
  const out = parts.spatial.map((s, i) =>
    windowOut(s, info.kernel[i], info.stride[i], info.padding[i], info.dilation[i], false),
  );
  if (out.some((o) => o < 1)) return null;
  const shape = [parts.lead[0], info.outChannels, ...out];
  const elementBytes = x.kind === 'quantized' ? 1 : 4;
  const padded = parts.lead[0] * info.inChannels * numel(parts.spatial.map((s, i) => s + 2 * info.padding[i]));
  return {
    shape,
    work: numel(shape) * (info.inChannels / info.groups) * numel(info.kernel),
    scratchBytes: padded * elementBytes,
  };
}

function poolCost(info, x) {
  const parts = split(x.shape, info.dims, true);
  if (parts === null) return null;
  const out = parts.spatial.map((s, i) =>
    windowOut(s, info.kernel[i], info.stride[i], info.padding[i], info.dilation[i], info.ceilMode),
  );
  if (out.some((o) => o < 1)) return null;
  const shape = [...parts.lead, ...out];
  return { shape, work: numel(shape) * numel(info.kernel) * POOL_ELEMENT_WORK, scratchBytes: 0 };
}

function adaptiveCost(info, x) {
  const parts = split(x.shape, info.dims, true);
  if (parts === null) return null;
  const shape = [...parts.lead, ...info.outputSize];
  // Each output's window spans at most ceil(in / out) + 1 inputs per dimension.
  const work = numel(parts.lead) * numel(parts.spatial.map((s, i) => s + info.outputSize[i]));
  return { shape, work, scratchBytes: 0 };
}

function linearCost(info, x) {
  if (x.shape.length < 1 || x.shape[x.shape.length - 1] !== info.inFeatures) return null;
  const shape = [...x.shape.slice(0, -1), info.outFeatures];
  return { shape, work: numel(shape) * info.inFeatures, scratchBytes: 0 };
}

/** The output of torch.flatten(x, start, end) on a tensor of `shape`, or null when the dims are out of range. */
export function flattenShape(shape, start, end) {
  const rank = Math.max(shape.length, 1);
  const s = start < 0 ? start + rank : start;
  const e = end < 0 ? end + rank : end;
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0 || e >= rank || s > e) return null;
  if (shape.length === 0) return [1];
  return [...shape.slice(0, s), numel(shape.slice(s, e + 1)), ...shape.slice(e + 1)];
}

// torch.broadcast_shapes; null where the shapes do not broadcast.
function broadcast(a, b) {
  const rank = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) return null;
    out.push(x === 1 ? y : x);
  }
  return out;
}

/** The output of view / reshape to `dims` (one -1 inferred), or null when PyTorch would refuse it. */
export function reshapeShape(shape, dims) {
  if (dims.length > MAX_RANK || dims.some((d) => !Number.isSafeInteger(d) || d < -1)) return null;
  const inferred = dims.filter((d) => d === -1).length;
  if (inferred > 1) return null;
  const known = numel(dims.filter((d) => d !== -1));
  const total = numel(shape);
  if (inferred === 0) return known === total ? dims.slice() : null;
  if (known === 0 || total % known !== 0) return null;
  return dims.map((d) => (d === -1 ? total / known : d));
}

// A module's output and cost from its description (the checked file entry).
function moduleCost(info, x) {
  const same = { shape: x.shape, work: numel(x.shape), scratchBytes: 0 };
  switch (info.type) {
    case 'QuantizedConv':
    case 'Conv':
      return convCost(info, x);
    case 'QuantizedLinear':
    case 'Linear':
      return linearCost(info, x);
    case 'MaxPool':
    case 'AvgPool':
      return poolCost(info, x);
    case 'AdaptiveAvgPool':
      return adaptiveCost(info, x);
    case 'Flatten': {
      const shape = flattenShape(x.shape, info.startDim, info.endDim);
      return shape === null ? null : { shape, work: 0, scratchBytes: 0 };
    }
    default:
      return same;
  }
}

// The kind of a module's output given its input's.
function moduleOutput(info, x, shape) {
  switch (info.type) {
    case 'QuantizedConv':
    case 'QuantizedLinear':
      return qValue(shape, info.scale, info.zeroPoint);
    case 'Quantize':
      return qValue(shape, info.scale, info.zeroPoint);
    case 'DeQuantize':
      return floatValue(shape);
    case 'Conv':
    case 'Linear':
    case 'BatchNorm':
      return floatValue(shape);
    default:
      return sameKind(x, shape); // Identity, ReLU, ReLU6, Flatten, pools: the input's kind and qparams
  }
}

const arg = (args, kwargs, i, name) => (i < args.length ? args[i] : kwargs[name]);

// A call_function / call_method node's output and cost, from its resolved arguments.
function callCost(node, args, kwargs) {
  const t = node.target;
  const x = args[0];
  if (node.op === 'call_function' && t.startsWith('quantized.')) {
    if (t === 'quantized.cat') {
      const xs = arg(args, kwargs, 0, 'qx');
      const dim = arg(args, kwargs, 1, 'dim');
      if (!Array.isArray(xs) || xs.length === 0 || !xs.every(isTensor) || !Number.isSafeInteger(dim)) return null;
      if (xs.some((v) => v.shape === null)) return { value: qValue(null, null, null), work: 0, scratchBytes: 0 };
      const rank = xs[0].shape.length;
      const d = dim < 0 ? dim + rank : dim;
      if (d < 0 || d >= rank || xs.some((v) => v.shape.length !== rank)) return null;
      const shape = xs[0].shape.slice();
      shape[d] = xs.reduce((s, v) => s + v.shape[d], 0);
      const scale = arg(args, kwargs, 2, 'scale');
      const zeroPoint = arg(args, kwargs, 3, 'zero_point');
      return { value: qValue(shape, scale, zeroPoint), work: numel(shape), scratchBytes: 0 };
    }
    if (!isTensor(x)) return null;
    if (t === 'quantized.add_scalar' || t === 'quantized.mul_scalar') {
      // The output qparams follow from the input's and the scalar (known after a run).
      return { value: qValue(x.shape, null, null), work: x.shape === null ? 0 : numel(x.shape), scratchBytes: 0 };
    }
    const y = arg(args, kwargs, 1, 'qb');
    if (!isTensor(y)) return null;
    const scale = arg(args, kwargs, 2, 'scale');
    const zeroPoint = arg(args, kwargs, 3, 'zero_point');
    if (x.shape === null || y.shape === null)
      return { value: qValue(null, scale, zeroPoint), work: 0, scratchBytes: 0 };
    const shape = broadcast(x.shape, y.shape);
    return shape === null ? null : { value: qValue(shape, scale, zeroPoint), work: numel(shape), scratchBytes: 0 };
  }
  if (!isTensor(x)) return null;
  if (x.shape === null) {
    return { value: t === 'dequantize' ? floatValue(null) : sameKind(x, null), work: 0, scratchBytes: 0 };
  }
  switch (t) {
    case 'flatten': {
      const shape = flattenShape(
        x.shape,
        arg(args, kwargs, 1, 'start_dim') ?? 0,
        arg(args, kwargs, 2, 'end_dim') ?? -1,
      );
      return shape === null ? null : { value: sameKind(x, shape), work: 0, scratchBytes: 0 };
    }
    case 'reshape': {
      const dims = args.length === 2 && Array.isArray(args[1]) ? args[1] : args.slice(1);
      const shape = reshapeShape(x.shape, dims);
      return shape === null ? null : { value: sameKind(x, shape), work: 0, scratchBytes: 0 };
    }
    case 'add': {
      const y = args[1];
      if (!isTensor(y) || y.shape === null) return null;
      return { value: floatValue(x.shape), work: numel(x.shape), scratchBytes: 0 };
    }
    case 'dequantize':
      return { value: floatValue(x.shape), work: numel(x.shape), scratchBytes: 0 };
    default: // relu, contiguous
      return { value: sameKind(x, x.shape), work: numel(x.shape), scratchBytes: 0 };
  }
}

/**
 * One node's output value and cost from its input values (abstract values,
 * or constants). Returns null where the node cannot run on these inputs (the
 * op itself then says why) and a value with a null shape where the inputs'
 * shapes are unknown.
 */
export function nodeCost(node, info, args, kwargs) {
  if (node.op === 'call_module') {
    const x = args[0];
    if (!isTensor(x)) return null;
    if (x.shape === null) return { value: moduleOutput(info, x, null), work: 0, scratchBytes: 0 };
    const c = moduleCost(info, x);
    return c === null ? null : { value: moduleOutput(info, x, c.shape), work: c.work, scratchBytes: c.scratchBytes };
  }
  return callCost(node, args, kwargs);
}

/**
 * Checks one node's cost against the budget; `spent` is the work of the
 * nodes before it in this forward. Returns the new total.
 */
export function chargeNode(node, cost, spent, limits, hint) {
  const bytes = Math.max(bytesOf(cost.value), cost.scratchBytes);
  if (bytes > limits.maxActivationBytes) {
    throw new BudgetError(
      `node '${node.name}' would need ${bytes} bytes (output [${cost.value.shape.join(', ')}]), over maxActivationBytes ${limits.maxActivationBytes}${hint}`,
    );
  }
  const total = spent + cost.work;
  if (total > limits.maxWork) {
    throw new BudgetError(
      `node '${node.name}' would bring one forward's work to ${total.toExponential(2)} multiply-adds, over maxWork ${limits.maxWork}${hint}`,
    );
  }
  return total;
}

/** The abstract value of a run-time value (a QTensor or a float tensor), or the constant itself. */
export function abstractOf(v, isQ) {
  if (isQ(v)) return qValue([...v.shape], null, null);
  if (v !== null && typeof v === 'object' && v.data instanceof Float32Array && Array.isArray(v.shape)) {
    return floatValue(v.shape.slice());
  }
  return v;
}

/**
 * The whole graph on an input of `inputShape` (or unknown shapes when null):
 * each node's output value, checked against the budget node by node.
 * @returns {Map<string, Value>}
 */
export function planGraph(nodes, infos, inputShape, limits, hint) {
  const values = new Map();
  const resolve = (a) =>
    Array.isArray(a) ? a.map(resolve) : a !== null && typeof a === 'object' ? values.get(a.node) : a;
  values.set(nodes[0].name, floatValue(inputShape === null ? null : inputShape.slice()));
  let spent = 0;
  for (const node of nodes.slice(1)) {
    const args = resolve(node.args);
    if (node.op === 'output') {
      if (!isTensor(args[0])) throw new BudgetError(`the output '${node.args[0].node}' is not a tensor`);
      values.set(node.name, args[0]);
      continue;
    }
    const kwargs = Object.fromEntries(Object.entries(node.kwargs).map(([k, v]) => [k, resolve(v)]));
    const cost = nodeCost(node, node.op === 'call_module' ? infos.get(node.target) : null, args, kwargs);
    if (cost === null) {
      // Kinds that can never work are refused now; shapes that do not fit are the op's to report.
      const tensorArg = node.op === 'call_function' && node.target === 'quantized.cat' ? true : isTensor(args[0]);
      if (!tensorArg) throw new BudgetError(`node '${node.name}' takes a tensor, and its input is a constant`);
      values.set(node.name, { ...(isTensor(args[0]) ? args[0] : floatValue(null)), shape: null });
      continue;
    }
    if (cost.value.shape !== null) spent = chargeNode(node, cost, spent, limits, hint);
    values.set(node.name, cost.value);
  }
  return values;
}
