// The abstract values the planner reasons with (a tensor's kind, dtype, shape
// and fixed qparams, known before a run), and the shape rules it applies to
// them: broadcasting, and nn's flatten and reshape rules (nn/shapes.mjs),
// which the graph's flatten and reshape also run with. Each op descriptor's
// costs (this folder) and the planner that walks a graph with them
// (model/plan.mjs) build on them.

import { flattenShape, reshapeShape as reshapeTo } from '../nn/shapes.mjs';
import { MAX_RANK } from '../runtime/args.mjs';

export { flattenShape };

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
export const reshapeShape = (shape, dims) => reshapeTo(shape, dims, MAX_RANK);

/** A reshape node's sizes: its arguments after x, given as a list or one by one (x.view([2, 3]) or x.view(2, 3)). */
export const reshapeDims = (args) => (args.length === 2 && Array.isArray(args[1]) ? args[1] : args.slice(1));
