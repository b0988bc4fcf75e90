// The abstract values the planner reasons with (a tensor's kind, dtype, shape
// and fixed qparams, known before a run) and PyTorch's shape rules for the
// ops that only change a shape. The planner (plan.mjs) and each graph
// function's cost (graph-functions.mjs) build on them; the graph's flatten and
// reshape compute their output shapes with the same rules.

import { MAX_RANK } from '../args.mjs';

/**
 * An abstract value: a tensor's kind and what is known of it.
 * @typedef {{kind: 'quantized' | 'float', dtype: 'quint8' | 'float32', shape: number[] | null,
 *   scale: number | null, zeroPoint: number | null}} Value
 */

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);
export const isTensor = (v) => v !== null && typeof v === 'object' && (v.kind === 'quantized' || v.kind === 'float');
export const floatValue = (shape) => ({ kind: 'float', dtype: 'float32', shape, scale: null, zeroPoint: null });
export const qValue = (shape, scale, zeroPoint) => ({ kind: 'quantized', dtype: 'quint8', shape, scale, zeroPoint });
export const sameKind = (v, shape) => ({ ...v, shape });

/** The output of torch.flatten(x, start, end) on a tensor of `shape`, or null when the dims are out of range. */
export function flattenShape(shape, start, end) {
  const rank = Math.max(shape.length, 1);
  const s = start < 0 ? start + rank : start;
  const e = end < 0 ? end + rank : end;
  if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0 || e >= rank || s > e) return null;
  if (shape.length === 0) return [1];
  return [...shape.slice(0, s), numel(shape.slice(s, e + 1)), ...shape.slice(e + 1)];
}

/** torch.broadcast_shapes; null where the shapes do not broadcast. */
export function broadcast(a, b) {
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

/** A reshape node's sizes: its arguments after x, given as a list or one by one (x.view([2, 3]) or x.view(2, 3)). */
export const reshapeDims = (args) => (args.length === 2 && Array.isArray(args[1]) ? args[1] : args.slice(1));
