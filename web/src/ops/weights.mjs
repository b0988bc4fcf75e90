// A layer's weights, read from a model file into the module that holds them:
// what the conv and linear descriptors share. Every tensor is read (and so
// checked against the file) before the module of the geometry's size is made.

import { describe } from '../runtime/args.mjs';
import { makePerChannelQuantizedTensor, makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { fail, isObject, onlyKeys, readFloat, readInt } from './format-readers.mjs';

// The quantized weight of a conv / linear module: per channel (axis 0) or per tensor.
function quantizedWeight(spec, shape, read, what) {
  if (!isObject(spec)) fail(`${what} must be an object`);
  onlyKeys(
    spec,
    spec.qscheme === 'per_channel_affine'
      ? ['qscheme', 'ints', 'axis', 'scales', 'zero_points']
      : ['qscheme', 'ints', 'scale', 'zero_point'],
    what,
  );
  const data = read.int8(spec.ints, shape, `${what}.ints`);
  if (spec.qscheme === 'per_channel_affine') {
    const axis = readInt(spec.axis, `${what}.axis`, 0, 0);
    const scales = read.float64(spec.scales, [shape[axis]], `${what}.scales`);
    const zeroPoints = read.int64(spec.zero_points, [shape[axis]], `${what}.zero_points`);
    return makePerChannelQuantizedTensor({ data, shape }, scales, zeroPoints, axis, 'qint8');
  }
  if (spec.qscheme === 'per_tensor_affine') {
    const scale = readFloat(spec.scale, `${what}.scale`);
    const zeroPoint = readInt(spec.zero_point, `${what}.zero_point`, -128, 127);
    return makePerTensorQuantizedTensor({ data, shape }, scale, zeroPoint, 'qint8');
  }
  return fail(`${what}.qscheme must be 'per_channel_affine' or 'per_tensor_affine', got ${describe(spec.qscheme)}`);
}

/** Output qparams of a quantized module (PyTorch keeps the scale as a double). */
export function setOutputQParams(mod, m, what) {
  mod.scale = readFloat(m.scale, `${what}.scale`);
  mod.zeroPoint = readInt(m.zero_point, `${what}.zero_point`, 0, 255);
}

/**
 * A quantized conv / linear module: its weight and bias are read (and so
 * checked against the file) before make() allocates anything of the
 * geometry's size; then the module takes them, packed for `engine` ('x86' or
 * 'fbgemm'; the engine in force when undefined), and its output qparams.
 */
export function quantizedModule(m, read, what, weightShape, make, engine = undefined, exactSums = false) {
  const bias = m.bias === null ? null : read.float32(m.bias, [weightShape[0]], `${what}.bias`);
  const w = quantizedWeight(m.weight, weightShape, read, `${what}.weight`);
  let mod = null;
  try {
    mod = make();
    if (engine === undefined) mod.setWeightBias(w, bias);
    else mod._setWeightBias(w, bias, engine, exactSums);
    setOutputQParams(mod, m, what);
    return mod;
  } catch (e) {
    mod?.dispose();
    throw e;
  } finally {
    w.dispose();
  }
}

/**
 * A float conv / linear module takes its weight and bias (read from the file
 * first); `wrap` makes the fused ReLU form around it.
 */
export function withFloatWeights(mod, weight, bias, wrap) {
  try {
    mod.weight.data = weight;
    if (bias !== null) mod.bias.data = bias;
    return wrap(mod);
  } catch (e) {
    mod.dispose();
    throw e;
  }
}
