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

import { describe } from '../runtime/args.mjs';
import { flattenShape, floatValue, isTensor, numel, qValue, sameKind } from './abstract-values.mjs';
import { graphCallable } from './graph-functions.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

/** The budget of one forward unless io.loadModel's options raise it. */
export const DEFAULT_LIMITS = Object.freeze({
  maxActivationBytes: 2 ** 28, // one node's output or scratch (256 MiB)
  maxLiveBytes: 2 ** 30, // what one forward holds at once: live values + a node's output and scratch (1 GiB)
  maxWork: 5e11, // conv multiply-adds over one forward (about 25 s on one thread; work-rates.mjs)
});

export class BudgetError extends Error {}

// A planned value's bytes: a QTensor's integers, a float tensor's float32s (0 when unknown).
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

// The scratch a built conv / linear module allocates for an input of this
// shape, as the core computes it (every ISA and path, every thread: the
// padded int16 or float input, Winograd's tiles); 0 for an unbuilt one.
const scratchOf = (info, shape) => (typeof info.scratchBound === 'function' ? info.scratchBound(shape) : 0);

function convCost(info, x) {
  const parts = split(x.shape, info.dims, false);
  if (parts === null || parts.lead[1] !== info.inChannels) return null;
  const out = parts.spatial.map((s, i) =>
    windowOut(s, info.kernel[i], info.stride[i], info.padding[i], info.dilation[i], false),
  );
  if (out.some((o) => o < 1)) return null;
  const shape = [parts.lead[0], info.outChannels, ...out];
  const rate = x.kind === 'quantized' ? RATE.quantizedMac : RATE.floatMac;
  return {
    shape,
    work: numel(shape) * (info.inChannels / info.groups) * numel(info.kernel) * rate,
    scratchBytes: scratchOf(info, x.shape),
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
  const rate = x.kind === 'quantized' ? RATE.poolWindowElement : RATE.floatPoolWindowElement;
  return { shape, work: numel(shape) * numel(info.kernel) * rate, scratchBytes: 0 };
}

function adaptiveCost(info, x) {
  const parts = split(x.shape, info.dims, true);
  if (parts === null) return null;
  const shape = [...parts.lead, ...info.outputSize];
  // Each output's window spans at most ceil(in / out) + 1 inputs per
  // dimension (at least one: an upsampling pool reads one or two per output).
  const window = numel(parts.spatial.map((s, i) => Math.ceil(s / info.outputSize[i]) + 1));
  return { shape, work: numel(shape) * window * RATE.adaptiveWindowElement, scratchBytes: 0 };
}

function linearCost(info, x) {
  if (x.shape.length < 1 || x.shape[x.shape.length - 1] !== info.inFeatures) return null;
  const shape = [...x.shape.slice(0, -1), info.outFeatures];
  const rate = x.kind === 'quantized' ? RATE.quantizedLinearMac : RATE.floatLinearMac;
  return { shape, work: numel(shape) * info.inFeatures * rate, scratchBytes: scratchOf(info, x.shape) };
}

// The per-element rate of the element-wise modules (by what they read and write).
function elementRate(type, x) {
  switch (type) {
    case 'Identity':
      return 0;
    case 'Quantize':
      return RATE.quantizeElement;
    case 'DeQuantize':
      return RATE.dequantizeElement;
    default: // ReLU, ReLU6, BatchNorm on the input's kind
      return x.kind === 'quantized' ? RATE.quantizedElement : RATE.floatElement;
  }
}

// A module's output and cost from its description (the checked file entry).
function moduleCost(info, x) {
  const same = { shape: x.shape, work: numel(x.shape) * elementRate(info.type, x), scratchBytes: 0 };
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
  return graphCallable(node.op, node.target)?.cost(args, kwargs) ?? null;
}

/**
 * Checks one node's cost against the budget; `spent` is the work of the
 * nodes before it in this forward, `heldBytes` what the forward holds while
 * it runs (the values later nodes still read). Returns the new total work.
 */
export function chargeNode(node, cost, spent, limits, hint, heldBytes = 0) {
  const bytes = Math.max(bytesOf(cost.value), cost.scratchBytes);
  if (bytes > limits.maxActivationBytes) {
    throw new BudgetError(
      `node '${node.name}' would need ${bytes} bytes (output [${cost.value.shape.join(', ')}]), over maxActivationBytes ${limits.maxActivationBytes}${hint}`,
    );
  }
  const live = heldBytes + bytesOf(cost.value) + cost.scratchBytes;
  if (live > limits.maxLiveBytes) {
    throw new BudgetError(
      `node '${node.name}' would bring what one forward holds at once to ${live} bytes (${heldBytes} held for later nodes, its output and scratch ${live - heldBytes}), over maxLiveBytes ${limits.maxLiveBytes}${hint}`,
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
 * @returns {Map<string, import('./abstract-values.mjs').Value>}
 */
export function planGraph(nodes, infos, inputShape, limits, hint) {
  const values = new Map();
  const resolve = (a) =>
    Array.isArray(a) ? a.map(resolve) : a !== null && typeof a === 'object' ? values.get(a.node) : a;
  values.set(nodes[0].name, floatValue(inputShape === null ? null : inputShape.slice()));
  // The index of each value's last reader: a value is held from its node to there.
  const lastUse = new Map();
  nodes.forEach((n, i) => {
    for (const name of referencedNames([n.args, Object.values(n.kwargs)])) lastUse.set(name, i);
  });
  const heldUntil = new Map([[nodes[0].name, lastUse.get(nodes[0].name) ?? 0]]);
  let spent = 0;
  for (const [i, node] of nodes.entries()) {
    if (i === 0) continue;
    let held = 0;
    for (const [name, until] of heldUntil) {
      if (until < i) heldUntil.delete(name);
      else held += bytesOf(values.get(name));
    }
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
      // (cat and quantized.cat take a list of tensors: the op reports what does not fit;
      // the float add takes its tensor as either operand, as in 1.0 + x.)
      const fn = node.op === 'call_function' ? node.target : null;
      const takesList = fn === 'quantized.cat' || fn === 'cat';
      const tensorArg = takesList || isTensor(args[0]) || (fn === 'add' && isTensor(args[1]));
      if (!tensorArg) throw new BudgetError(`node '${node.name}' takes a tensor, and its input is a constant`);
      values.set(node.name, { ...(isTensor(args[0]) ? args[0] : floatValue(null)), shape: null });
      continue;
    }
    if (cost.value.shape !== null) spent = chargeNode(node, cost, spent, limits, hint, held);
    values.set(node.name, cost.value);
    if ((lastUse.get(node.name) ?? 0) > i) heldUntil.set(node.name, lastUse.get(node.name));
  }
  return values;
}

/** @internal The node names an argument structure refers to ({node: name} anywhere inside), once per reference. */
export function referencedNames(value, out = []) {
  if (Array.isArray(value)) for (const v of value) referencedNames(v, out);
  else if (value !== null && typeof value === 'object') out.push(value.node);
  return out;
}

/**
 * The budget options present in `o` (a readOptions map): {maxActivationBytes?, maxLiveBytes?, maxWork?}.
 * @returns {{maxActivationBytes?: number, maxLiveBytes?: number, maxWork?: number}}
 */
export function readBudget(o, ctx) {
  /** @type {{maxActivationBytes?: number, maxLiveBytes?: number, maxWork?: number}} */
  const budget = {};
  for (const key of /** @type {const} */ (['maxActivationBytes', 'maxLiveBytes', 'maxWork'])) {
    if (!o.has(key)) continue;
    const v = o.get(key);
    if (typeof v !== 'number') throw new TypeError(`${ctx}: ${key} must be a number, got ${describe(v)}`);
    if (!(v > 0)) throw new RangeError(`${ctx}: ${key} must be > 0 (Infinity for no limit), got ${v}`);
    budget[key] = v;
  }
  return budget;
}
