// What differs between Conv1d, Conv2d, Conv3d and Linear: how their arguments,
// input and weight shapes lift onto the one 3-D convolution of the core.
import { describe } from '../runtime.mjs';

export const SPECS = {
  1: { name: 'Conv1d', dims: 1, input: '[N, C, L]', weightDims: 3 },
  2: { name: 'Conv2d', dims: 2, input: '[N, C, H, W]', weightDims: 4 },
  3: { name: 'Conv3d', dims: 3, input: '[N, C, D, H, W]', weightDims: 5 },
  linear: { name: 'Linear', dims: 0, input: '[..., inFeatures]', weightDims: 2 },
};

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v);
}

// An int or a tuple of `dims` ints -> a 3-element array padded with `fill` in front.
function triple(value, dims, fill, what, ctx) {
  const list = isInt(value) ? Array(dims).fill(value) : value;
  if (!Array.isArray(list) || list.length !== dims || !list.every(isInt)) {
    throw new TypeError(`${ctx}: ${what} must be an integer or an array of ${dims} integers, got ${describe(value)}`);
  }
  return [...Array(3 - dims).fill(fill), ...list];
}

/**
 * @internal Normalizes PyTorch's constructor arguments into the core's geometry:
 * {inChannels, outChannels, groups, kernel, stride, dilation, padBegin, padEnd}.
 */
export function convGeometry(spec, inChannels, outChannels, kernelSize, options, ctx) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${ctx}: options must be an object, got ${describe(options)}`);
  }
  for (const [name, v] of [['inChannels', inChannels], ['outChannels', outChannels]]) {
    if (!isInt(v)) throw new TypeError(`${ctx}: ${name} must be an integer, got ${describe(v)}`);
    if (v < 1) throw new RangeError(`${ctx}: ${name} must be >= 1, got ${v}`);
  }
  if (spec.dims === 0) {
    return { inChannels, outChannels, groups: 1, kernel: [1, 1, 1], stride: [1, 1, 1], dilation: [1, 1, 1], padBegin: [0, 0, 0], padEnd: [0, 0, 0] };
  }
  const { stride = 1, padding = 0, dilation = 1, groups = 1, paddingMode = 'zeros' } = options;
  if (paddingMode !== 'zeros') {
    throw new RangeError(`${ctx}: paddingMode '${paddingMode}' is not supported; qwasm implements 'zeros' only (the only mode quantized convolutions have)`);
  }
  const kernel = triple(kernelSize, spec.dims, 1, 'kernelSize', ctx);
  const strides = triple(stride, spec.dims, 1, 'stride', ctx);
  const dilations = triple(dilation, spec.dims, 1, 'dilation', ctx);
  if (!isInt(groups)) throw new TypeError(`${ctx}: groups must be an integer, got ${describe(groups)}`);
  for (const [what, t] of [['kernelSize', kernel], ['stride', strides], ['dilation', dilations]]) {
    if (t.some((v) => v < 1)) throw new RangeError(`${ctx}: ${what} must be >= 1, got [${t.slice(3 - spec.dims).join(', ')}]`);
  }
  if (groups < 1) throw new RangeError(`${ctx}: groups must be >= 1, got ${groups}`);
  if (inChannels % groups !== 0) throw new RangeError(`${ctx}: inChannels (${inChannels}) must be divisible by groups (${groups})`);
  if (outChannels % groups !== 0) throw new RangeError(`${ctx}: outChannels (${outChannels}) must be divisible by groups (${groups})`);
  let padBegin;
  let padEnd;
  if (padding === 'valid') {
    padBegin = padEnd = [0, 0, 0];
  } else if (padding === 'same') {
    if (strides.some((s) => s !== 1)) throw new RangeError(`${ctx}: padding='same' is not supported for strided convolutions`);
    // PyTorch: total d * (k - 1), the odd one out at the end.
    const total = kernel.map((k, i) => dilations[i] * (k - 1));
    padBegin = total.map((t) => Math.floor(t / 2));
    padEnd = total.map((t, i) => t - padBegin[i]);
  } else if (typeof padding === 'string') {
    throw new RangeError(`${ctx}: padding must be an integer, an array, 'same' or 'valid', got '${padding}'`);
  } else {
    padBegin = padEnd = triple(padding, spec.dims, 0, 'padding', ctx);
    if (padBegin.some((p) => p < 0)) throw new RangeError(`${ctx}: padding must be >= 0, got ${describe(padding)}`);
  }
  return { inChannels, outChannels, groups, kernel, stride: strides, dilation: dilations, padBegin, padEnd };
}

/** @internal The PyTorch weight shape of a module. */
export function weightShape(spec, g) {
  if (spec.dims === 0) return [g.outChannels, g.inChannels];
  return [g.outChannels, g.inChannels / g.groups, ...g.kernel.slice(3 - spec.dims)];
}

/** @internal Input shape -> the 5-D shape the core convolves (throws on wrong rank). */
export function liftInputShape(spec, shape, ctx) {
  if (spec.dims === 0) {
    if (shape.length < 1) throw new RangeError(`${ctx}: expected an input ${spec.input}, got rank 0`);
    const features = shape[shape.length - 1];
    const rows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
    return [rows, features, 1, 1, 1];
  }
  if (shape.length !== spec.dims + 2) {
    throw new RangeError(`${ctx}: expected a ${spec.dims + 2}-D input ${spec.input}, got rank ${shape.length} [${shape.join(', ')}]`);
  }
  return [shape[0], shape[1], ...Array(3 - spec.dims).fill(1), ...shape.slice(2)];
}

/** @internal The core's 5-D output shape -> the module's output shape. */
export function lowerOutputShape(spec, inputShape, out5) {
  if (spec.dims === 0) return [...inputShape.slice(0, -1), out5[1]];
  return [out5[0], out5[1], ...out5.slice(5 - spec.dims)];
}
