// What the graph functions and methods of the op descriptors share: reading a
// node's arguments when it runs (PyTorch's call conventions; a NodeError says
// what does not fit, and the GraphModule names the node), and pricing its
// output on the planner's abstract values (abstract-values.mjs) at the
// measured rates (work-rates.mjs).

import { describe } from '../runtime/args.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { isTensor, numel, sameKind } from './abstract-values.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

/** A node's arguments do not fit its function (the graph names the node). */
export class NodeError extends Error {}

export const isQ = (v) => isQTensorInstance(v);
/** A float tensor {data: Float32Array, shape} as graph values are. */
export const isFloatTensor = (v) =>
  v !== null && typeof v === 'object' && !isQ(v) && v.data instanceof Float32Array && Array.isArray(v.shape);

/** Positional argument i or keyword `name` (PyTorch's call conventions), else the default. */
export function param(args, kwargs, i, name, fallback) {
  if (i < args.length) return args[i];
  if (Object.hasOwn(kwargs, name)) return kwargs[name];
  if (fallback === undefined) throw new NodeError(`missing argument '${name}'`);
  return fallback;
}

/** The same for abstract values: undefined when absent (the planner does not throw). */
export const arg = (args, kwargs, i, name) => (i < args.length ? args[i] : kwargs[name]);

export function wantQ(v, what) {
  if (!isQ(v)) throw new NodeError(`${what} must be a quantized tensor, got ${describe(v)}`);
  return v;
}

export function wantInt(v, what) {
  if (!Number.isSafeInteger(v)) throw new NodeError(`${what} must be an integer, got ${describe(v)}`);
  return v;
}

export function wantNumber(v, what) {
  if (typeof v !== 'number') throw new NodeError(`${what} must be a number, got ${describe(v)}`);
  return v;
}

export function shapeOf(v, what) {
  if (isQ(v)) return [...v.shape];
  if (isFloatTensor(v)) return v.shape;
  throw new NodeError(`${what} must be a tensor, got ${describe(v)}`);
}

/** The same values under another shape: a QTensor's view, a float tensor's data. */
export function withShape(v, shape) {
  return isQ(v) ? v.view(shape) : { data: v.data, shape };
}

/** A cost without scratch. */
export const costOf = (value, work) => ({ value, work, scratchBytes: 0 });

/**
 * A cost of the node's first argument (a tensor): a node whose tensor input
 * has an unknown shape has an output of unknown shape (of `kindOfUnknown`'s kind).
 */
export const onTensor =
  (cost, kindOfUnknown = (x) => sameKind(x, null)) =>
  (args, kwargs) => {
    const x = args[0];
    if (!isTensor(x)) return null;
    if (x.shape === null) return costOf(kindOfUnknown(x), 0);
    return cost(x, args, kwargs);
  };

/** Per output element, at the rate of the value's kind (work-rates.mjs). */
export const elementWork = (value, n) => n * (value.kind === 'quantized' ? RATE.quantizedElement : RATE.floatElement);

/** An element-wise op's cost: its input's kind and shape, each element at its kind's rate. */
export const elementwise = onTensor((x) => costOf(sameKind(x, x.shape), elementWork(x, numel(x.shape))));
