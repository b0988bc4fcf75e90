// What differs between Conv1d, Conv2d, Conv3d and Linear: how their arguments,
// input and weight shapes lift onto the one 3-D convolution of the core. Only
// types and structure are checked here; the core validates the values
// (validateGeometry) with messages in the same vocabulary.
import { checkNotRevoked, describe, option, readBoolean, readOptions } from '../runtime/args.mjs';
import { checked } from '../runtime/errors.mjs';
import { wasm } from '../runtime/runtime.mjs';
import { winogradOption } from '../runtime/winograd.mjs';

export const SPECS = {
  1: { name: 'Conv1d', dims: 1, input: '[N, C, L]' },
  2: { name: 'Conv2d', dims: 2, input: '[N, C, H, W]' },
  3: { name: 'Conv3d', dims: 3, input: '[N, C, D, H, W]' },
  linear: { name: 'Linear', dims: 0, input: '[..., inFeatures]' },
};

const CONV_OPTIONS = ['stride', 'padding', 'dilation', 'groups', 'bias', 'paddingMode'];
const LINEAR_OPTIONS = ['bias'];

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v);
}

// An int, or an array of `dims` ints (read once) -> a 3-element array padded
// with `fill` in front.
function triple(value, dims, fill, what, ctx) {
  checkNotRevoked(value, what, ctx);
  let list;
  if (isInt(value)) {
    list = Array(dims).fill(value);
  } else if (Array.isArray(value) && value.length === dims) {
    list = Array.from({ length: dims }, (_, i) => value[i]);
  }
  if (list === undefined || !list.every(isInt)) {
    throw new TypeError(`${ctx}: ${what} must be an integer or an array of ${dims} integers, got ${describe(value)}`);
  }
  return [...Array(3 - dims).fill(fill), ...list];
}

/**
 * @internal Reads PyTorch's constructor arguments into the core's geometry
 * (validated by the core): {dims, inChannels, outChannels, groups, kernel,
 * stride, dilation, padBegin, padEnd, padding (as given, frozen), bias,
 * winograd}. extraOptions: keys accepted beyond PyTorch's ('winograd' for
 * the quantized convolutions; quantization.getWinograd() when absent).
 */
export function readConvArgs(spec, inChannels, outChannels, kernelSize, options, ctx, extraOptions = []) {
  const linear = spec.dims === 0;
  const o = readOptions(options, [...(linear ? LINEAR_OPTIONS : CONV_OPTIONS), ...extraOptions], ctx);
  for (const [name, v] of [
    [linear ? 'inFeatures' : 'inChannels', inChannels],
    [linear ? 'outFeatures' : 'outChannels', outChannels],
  ]) {
    if (!isInt(v)) throw new TypeError(`${ctx}: ${name} must be an integer, got ${describe(v)}`);
  }
  const bias = o.has('bias') ? readBoolean(o.get('bias'), 'bias', ctx) : true;
  const winograd = winogradOption(o, ctx);
  if (linear) {
    return {
      winograd,
      dims: 0,
      inChannels,
      outChannels,
      groups: 1,
      kernel: [1, 1, 1],
      stride: [1, 1, 1],
      dilation: [1, 1, 1],
      padBegin: [0, 0, 0],
      padEnd: [0, 0, 0],
      padding: 0,
      bias,
    };
  }
  const paddingMode = option(o, 'paddingMode', 'zeros');
  if (paddingMode !== 'zeros') {
    throw new RangeError(
      `${ctx}: paddingMode must be 'zeros' (the only mode quantized convolutions have), got ${describe(paddingMode)}`,
    );
  }
  const kernel = triple(kernelSize, spec.dims, 1, 'kernelSize', ctx);
  const stride = triple(option(o, 'stride', 1), spec.dims, 1, 'stride', ctx);
  const dilation = triple(option(o, 'dilation', 1), spec.dims, 1, 'dilation', ctx);
  const groups = option(o, 'groups', 1);
  if (!isInt(groups)) throw new TypeError(`${ctx}: groups must be an integer, got ${describe(groups)}`);
  const paddingValue = option(o, 'padding', 0);
  let padBegin;
  let padEnd;
  let padding;
  if (paddingValue === 'valid') {
    padBegin = padEnd = [0, 0, 0];
    padding = 'valid';
  } else if (paddingValue === 'same') {
    if (stride.some((s) => s !== 1))
      throw new RangeError(`${ctx}: padding='same' is not supported for strided convolutions`);
    // PyTorch: total d * (k - 1), the odd one out at the end.
    const total = kernel.map((k, i) => dilation[i] * (k - 1));
    padBegin = total.map((t) => Math.floor(t / 2));
    padEnd = total.map((t, i) => t - padBegin[i]);
    padding = 'same';
  } else if (typeof paddingValue === 'string') {
    throw new RangeError(
      `${ctx}: padding must be an integer, an array, 'same' or 'valid', got ${describe(paddingValue)}`,
    );
  } else {
    padBegin = padEnd = triple(paddingValue, spec.dims, 0, 'padding', ctx);
    padding = isInt(paddingValue) ? paddingValue : Object.freeze(padBegin.slice(3 - spec.dims));
  }
  return {
    winograd,
    dims: spec.dims,
    inChannels,
    outChannels,
    groups,
    kernel,
    stride,
    dilation,
    padBegin,
    padEnd,
    padding,
    bias,
  };
}

/** @internal The geometry frozen all the way down (its arrays too). */
export function freezeGeometry(g) {
  for (const key of ['kernel', 'stride', 'dilation', 'padBegin', 'padEnd']) Object.freeze(g[key]);
  if (Array.isArray(g.padding)) Object.freeze(g.padding);
  return Object.freeze(g);
}

/** @internal Validates a geometry in the core; returns the weight's element count. */
export function validateGeometry(g, ctx) {
  return checked(wasm(ctx)._convWeightCount(g), ctx);
}

/** @internal The PyTorch weight shape of a module. */
export function weightShape(g) {
  if (g.dims === 0) return [g.outChannels, g.inChannels];
  return [g.outChannels, g.inChannels / g.groups, ...g.kernel.slice(3 - g.dims)];
}

/**
 * @internal A geometry triple (depth, height, width) as the module's own
 * tuple, as PyTorch keeps kernel_size, stride and dilation: one entry per
 * spatial dimension (Conv1d: [k]). A fresh array.
 */
export function userTriple(t, dims) {
  return t.slice(3 - dims);
}

/**
 * @internal Input shape -> the shape the core takes: 5-D for a convolution
 * (RangeError on wrong rank); a linear layer's [..., inFeatures] as it is.
 */
export function liftInputShape(spec, shape, ctx) {
  if (spec.dims === 0) return shape.slice();
  if (shape.length !== spec.dims + 2) {
    throw new RangeError(`${ctx}: expected a ${spec.dims + 2}-D input ${spec.input}, got shape [${shape.join(', ')}]`);
  }
  return [shape[0], shape[1], ...Array(3 - spec.dims).fill(1), ...shape.slice(2)];
}

/** @internal The core's output shape -> the module's output shape. */
export function lowerOutputShape(spec, inputShape, out5) {
  if (spec.dims === 0) return out5.slice();
  return [out5[0], out5[1], ...out5.slice(5 - spec.dims)];
}
