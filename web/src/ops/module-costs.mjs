// The planner's formulas that module types share: PyTorch's output size of a
// window (aten/src/ATen/native/Pool.h pooling_output_shape, ConvUtils.h
// conv_output_size), the batch and channel dimensions of a dims-d op's input,
// a built layer's scratch, and the outputs and costs of the modules whose
// output has their input's shape.

import { floatValue, numel, qValue, sameKind } from './abstract-values.mjs';
import { elementWork } from './graph-calls.mjs';

/**
 * The output of a conv / pool along one dimension (ceil mode as PyTorch: the
 * last window must start inside the input or its left padding); < 1 is an
 * input the op refuses.
 */
export function windowOut(size, kernel, stride, pad, dilation, ceil) {
  const span = size + 2 * pad - dilation * (kernel - 1) - 1 + (ceil ? stride - 1 : 0);
  if (span < 0) return 0;
  let out = Math.floor(span / stride) + 1;
  if (ceil && (out - 1) * stride >= size + pad) out -= 1;
  return out;
}

/** [N, C, spatial...] of a dims-d op's input: rank dims + 2, or dims + 1 when unbatched is allowed; else null. */
export function split(shape, dims, unbatched) {
  if (shape.length === dims + 2) return { lead: shape.slice(0, 2), spatial: shape.slice(2) };
  if (unbatched && shape.length === dims + 1) return { lead: shape.slice(0, 1), spatial: shape.slice(1) };
  return null;
}

/**
 * The scratch a built conv / linear module allocates for an input of this
 * shape, as the core computes it (every ISA and path, every thread: the
 * padded int16 or float input, Winograd's tiles); 0 for an unbuilt one.
 */
export const scratchOf = (info, shape) => (typeof info.scratchBound === 'function' ? info.scratchBound(shape) : 0);

/** A module whose output has its input's shape, each element charged at its kind's element-wise rate. */
export const perElement = (info, x) => ({ shape: x.shape, work: elementWork(x, numel(x.shape)), scratchBytes: 0 });

/** A module whose output has its input's shape, each element charged `rate`. */
export const perElementAt = (rate) => (info, x) => ({ shape: x.shape, work: numel(x.shape) * rate, scratchBytes: 0 });

/** The output is of the input's kind, with its qparams (ReLU, pools, Flatten...). */
export const sameKindOutput = (info, x, shape) => sameKind(x, shape);
/** The output is a float tensor. */
export const floatOutput = (info, x, shape) => floatValue(shape);
/** The output is quantized with the module's fixed qparams (info.scale, info.zeroPoint). */
export const quantizedOutput = (info, x, shape) => qValue(shape, info.scale, info.zeroPoint);

/** The planner needs nothing of the entry but its type. */
export const noInfo = () => ({});
