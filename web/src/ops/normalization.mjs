// InstanceNorm1d / 2d / 3d, GroupNorm and LayerNorm on float tensors: the
// module types of a float model's file, and the float regions of a PT2E
// graph (aten.instance_norm, group_norm, layer_norm); and their quantized
// twins on quint8 QTensors (the eager flow's nnq.InstanceNorm1d/2d/3d,
// nnq.GroupNorm, nnq.LayerNorm). PyTorch's arithmetic to the bit
// (nn/norm-float.mjs; docs/numerics.md, "Normalisation").

import { Module } from '../nn/module.mjs';
import {
  groupNormFloats,
  groupNormRegion,
  instanceNormFloats,
  instanceNormRegion,
  layerNormFloats,
  layerNormRegion,
  quantizedNormInts,
} from '../nn/norm-float.mjs';
import { readFloatTensor, tensorBytes } from '../runtime/args.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { numel } from './abstract-values.mjs';
import { fail, readDims, readFloat, readInt } from './format-readers.mjs';
import { floatOutput, quantizedOutput } from './module-costs.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const MAX_FEATURES = 2 ** 24;
const shapeText = (shape) => `[${shape.join(', ')}]`;

/** eps: finite and >= 0 (a negative one would take the square root of a negative variance). */
function readEps(m, what) {
  const eps = readFloat(m.eps, `${what}.eps`);
  if (eps < 0) fail(`${what}.eps must be >= 0, got ${eps}`);
  return eps;
}

/** weight and bias: each a tensor of `shape` or null (1 and 0, as PyTorch's kernels take a missing one). */
function readAffine(m, read, what, shape) {
  const tensor = (key) => (m[key] === null ? null : read.float32(m[key], shape, `${what}.${key}`));
  return { weight: tensor('weight'), bias: tensor('bias') };
}

/** A float tensor's bytes and shape, for a loaded norm's forward (its data as long as its shape says). */
function floatInput(x, ctx) {
  const t = readFloatTensor(x, ctx);
  if (t.data.length !== t.numel) {
    throw new RangeError(`${ctx}: x.data holds ${t.data.length} elements, its shape ${shapeText(t.shape)} ${t.numel}`);
  }
  return { bytes: tensorBytes(t, ctx), shape: t.shape };
}

/**
 * A loaded float norm, one class for all three: `refusal(shape)` says why it
 * cannot take an input (or null), `normalize(bytes, shape, ctx)` gives the output's
 * floats (same shape).
 */
class LoadedFloatNorm extends Module {
  #name;
  #refusal;
  #normalize;
  constructor(name, refusal, normalize) {
    super();
    this.#name = name;
    this.#refusal = refusal;
    this.#normalize = normalize;
  }
  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    const t = floatInput(x, ctx);
    const why = this.#refusal(t.shape);
    if (why !== null) throw new RangeError(`${ctx}: ${why}`);
    return { data: this.#normalize(t.bytes, t.shape, ctx), shape: t.shape };
  }
  dispose() {}
}

/**
 * A norm's cost entry, charged per element at `rate` (work-rates.mjs: floatNormElement in the core,
 * normElement for the quantized kernels in JS): null (not this module's input) for an x of another
 * kind or one `refusal` turns down.
 */
const costOn = (kind, rate, scratchPerElement, refusal) => (info, x) =>
  x.kind !== kind || refusal(info, x.shape) !== null
    ? null
    : { shape: x.shape, work: numel(x.shape) * rate, scratchBytes: numel(x.shape) * scratchPerElement };
// The core's float norms hold x's copy and their output in wasm memory (4 bytes each per element).
const floatCost = (refusal) => costOn('float', RATE.floatNormElement, 8, refusal);

// -- InstanceNorm ------------------------------------------------------------------------------------------------

/** Why an InstanceNorm cannot take an input of `shape`, or null. */
function instanceNormRefusal(info, shape) {
  const { dims, numFeatures, checksChannels } = info;
  if (shape.length !== dims + 2 && shape.length !== dims + 1) {
    return `expected a ${dims + 1}-D or ${dims + 2}-D input, got shape ${shapeText(shape)}`;
  }
  const channels = shape[shape.length - dims - 1];
  if (checksChannels && channels !== numFeatures) {
    return `expected ${numFeatures} channels, got shape ${shapeText(shape)}`;
  }
  if (numel(shape.slice(-dims)) === 0) return `the spatial size of ${shapeText(shape)} is 0: nothing to normalise`;
  return null;
}

/** nn.InstanceNorm1d / 2d / 3d (running_mean / running_var null: the input's own statistics). */
export const instanceNorm = {
  modules: {
    InstanceNorm: {
      fields: ['dims', 'num_features', 'eps', 'weight', 'bias', 'running_mean', 'running_var'],
      build(m, { read, what }) {
        const n = readInstanceNorm(m, read, what);
        return new LoadedFloatNorm(n.name, n.refusal, n.normalize).eval();
      },
      info: (m) => instanceNormInfo(m, 'InstanceNorm'),
      cost: floatCost(instanceNormRefusal),
      output: floatOutput,
    },
  },
};

/** An InstanceNorm entry read: its name, why it refuses a shape, and its two forms (floats; a quantized region). */
function readInstanceNorm(m, read, what) {
  const info = instanceNormInfo(m, what);
  const n = info.numFeatures;
  const eps = readEps(m, what);
  const { weight, bias } = readAffine(m, read, what, [n]);
  if ((m.running_mean === null) !== (m.running_var === null)) {
    fail(`${what}: running_mean and running_var must both be tensors or both null`);
  }
  const running = m.running_mean !== null;
  const runningMean = running ? read.float32(m.running_mean, [n], `${what}.running_mean`) : null;
  const runningVar = running ? read.float32(m.running_var, [n], `${what}.running_var`) : null;
  const stats = { weight, bias, runningMean, runningVar, eps };
  const { dims } = info;
  // [rows, channels, inner]: rows of `inner` elements (N * C, or C unbatched), row r of channel r % channels.
  const sizes = (shape) => {
    const inner = numel(shape.slice(-dims));
    return [numel(shape) / inner, shape[shape.length - dims - 1], inner];
  };
  return {
    name: `InstanceNorm${dims}d`,
    refusal: (shape) => instanceNormRefusal(info, shape),
    normalize: (bytes, shape, ctx) => instanceNormFloats(bytes, ...sizes(shape), stats, ctx),
    region: (q, shape, r, ctx) => instanceNormRegion(q, ...sizes(shape), stats, r, ctx),
  };
}

function instanceNormInfo(m, what) {
  const dims = readDims(m, what);
  const numFeatures = readInt(m.num_features, `${what}.num_features`, 1, MAX_FEATURES);
  // PyTorch checks the channels only where a per-channel tensor needs them (_InstanceNorm.forward).
  return { dims, numFeatures, checksChannels: m.weight !== null || m.bias !== null || m.running_mean !== null };
}

// -- GroupNorm ---------------------------------------------------------------------------------------------------

function groupNormRefusal(info, shape) {
  if (shape.length < 2) return `expected an input of at least 2 dimensions [N, C, *], got shape ${shapeText(shape)}`;
  if (shape[1] !== info.numChannels) return `expected ${info.numChannels} channels, got shape ${shapeText(shape)}`;
  // An empty batch gives an empty output, as PyTorch's; empty spatial dimensions are refused, as there.
  if (shape[0] > 0 && numel(shape.slice(2)) === 0)
    return `the spatial size of ${shapeText(shape)} is 0: nothing to normalise`;
  return null;
}

function groupNormInfo(m, what) {
  const numGroups = readInt(m.num_groups, `${what}.num_groups`, 1, MAX_FEATURES);
  const numChannels = readInt(m.num_channels, `${what}.num_channels`, 1, MAX_FEATURES);
  if (numChannels % numGroups !== 0) {
    fail(`${what}: num_channels ${numChannels} must be divisible by num_groups ${numGroups}`);
  }
  return { numGroups, numChannels };
}

/** A GroupNorm entry read (as readInstanceNorm). */
function readGroupNorm(m, read, what) {
  const info = groupNormInfo(m, what);
  const eps = readEps(m, what);
  const { weight, bias } = readAffine(m, read, what, [info.numChannels]);
  const params = { weight, bias, eps };
  const sizes = (shape) => [shape[0], shape[1], numel(shape.slice(2)), info.numGroups];
  return {
    name: 'GroupNorm',
    refusal: (shape) => groupNormRefusal(info, shape),
    normalize: (bytes, shape, ctx) => groupNormFloats(bytes, ...sizes(shape), params, ctx),
    region: (q, shape, r, ctx) => groupNormRegion(q, ...sizes(shape), params, r, ctx),
  };
}

/** nn.GroupNorm. */
export const groupNorm = {
  modules: {
    GroupNorm: {
      fields: ['num_groups', 'num_channels', 'eps', 'weight', 'bias'],
      build(m, { read, what }) {
        const n = readGroupNorm(m, read, what);
        return new LoadedFloatNorm(n.name, n.refusal, n.normalize).eval();
      },
      info: (m) => groupNormInfo(m, 'GroupNorm'),
      cost: floatCost(groupNormRefusal),
      output: floatOutput,
    },
  },
};

// -- LayerNorm ---------------------------------------------------------------------------------------------------

function layerNormRefusal(info, shape) {
  const k = info.normalizedShape;
  const tail = shape.slice(shape.length - k.length);
  if (shape.length < k.length || tail.some((s, i) => s !== k[i])) {
    return `expected an input whose last dimensions are ${shapeText(k)}, got shape ${shapeText(shape)}`;
  }
  return null;
}

// At most 8 normalised dimensions, each >= 1 (PyTorch refuses an empty normalized_shape's elements:
// a row of 0 elements has no mean).
function layerNormInfo(m, what) {
  const k = m.normalized_shape;
  if (!Array.isArray(k) || k.length < 1 || k.length > 8) {
    fail(`${what}.normalized_shape must be a list of 1 to 8 sizes`);
  }
  const normalizedShape = k.map((s, i) => readInt(s, `${what}.normalized_shape[${i}]`, 1, 2 ** 31 - 1));
  if (numel(normalizedShape) > 2 ** 31 - 1) fail(`${what}.normalized_shape holds more than 2^31 - 1 elements`);
  return { normalizedShape };
}

/** A LayerNorm entry read (as readInstanceNorm). */
function readLayerNorm(m, read, what) {
  const info = layerNormInfo(m, what);
  const eps = readEps(m, what);
  const { weight, bias } = readAffine(m, read, what, info.normalizedShape);
  const inner = numel(info.normalizedShape);
  const params = { weight, bias, eps };
  return {
    name: 'LayerNorm',
    refusal: (shape) => layerNormRefusal(info, shape),
    normalize: (bytes, shape, ctx) => layerNormFloats(bytes, numel(shape) / inner, inner, params, ctx),
    region: (q, shape, r, ctx) => layerNormRegion(q, numel(shape) / inner, inner, params, r, ctx),
  };
}

/** nn.LayerNorm (elementwise_affine with or without bias: weight and bias both or neither). */
export const layerNorm = {
  modules: {
    LayerNorm: {
      fields: ['normalized_shape', 'eps', 'weight', 'bias'],
      build(m, { read, what }) {
        const n = readLayerNorm(m, read, what);
        return new LoadedFloatNorm(n.name, n.refusal, n.normalize).eval();
      },
      info: (m) => layerNormInfo(m, 'LayerNorm'),
      cost: floatCost(layerNormRefusal),
      output: floatOutput,
    },
  },
};

// -- The quantized twins (quantized::instance_norm, group_norm, layer_norm) -------------------------------------------

/** The quantized kernel's input: a per-tensor quint8 QTensor, its integers in contiguous order. */
function quantizedInput(x, ctx) {
  if (!isQTensorInstance(x) || x.dtype !== 'quint8' || x.qscheme() !== 'per_tensor_affine') {
    throw new TypeError(`${ctx}: x must be a per-tensor quint8 QTensor`);
  }
  const c = x.contiguous(); // PyTorch's kernel reads qx.contiguous()
  try {
    return { ints: c.intRepr(), shape: [...x.shape], scale: x.qScale(), zeroPoint: x.qZeroPoint() };
  } finally {
    if (c !== x) c.dispose();
  }
}

/**
 * A loaded quantized norm: `refusal(shape)` says why it cannot take an input,
 * `layout(shape)` gives [rows, inner, perChannel, channels, groups] for
 * quantizedNormInts; p holds its weight, bias, eps and output qparams.
 */
class LoadedQuantizedNorm extends Module {
  #name;
  #refusal;
  #layout;
  #p;
  constructor(name, refusal, layout, p) {
    super();
    this.#name = name;
    this.#refusal = refusal;
    this.#layout = layout;
    this.#p = p;
  }
  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    const t = quantizedInput(x, ctx);
    const why = this.#refusal(t.shape);
    if (why !== null) throw new RangeError(`${ctx}: ${why}`);
    const [rows, inner, perChannel, channels, groups] = this.#layout(t.shape);
    const p = { ...this.#p, inputScale: t.scale, inputZeroPoint: t.zeroPoint };
    const ints = quantizedNormInts(t.ints, rows, inner, perChannel, channels, groups, p);
    return makePerTensorQuantizedTensor({ data: ints, shape: t.shape }, p.scale, p.zeroPoint, 'quint8');
  }
  dispose() {}
}

const quantizedCost = (refusal) => costOn('quantized', RATE.normElement, 0, refusal);

/** The output qparams of a quantized norm's entry (a scale positive and finite in float32, as Quantize's), with info. */
function withOutputQParams(m, what, info) {
  const scale = readFloat(m.scale, `${what}.scale`);
  if (!(Math.fround(scale) > 0 && Number.isFinite(Math.fround(scale)))) {
    fail(`${what}.scale ${scale} is not a positive finite number in float32`);
  }
  return { ...info, scale, zeroPoint: readInt(m.zero_point, `${what}.zero_point`, 0, 255) };
}

// quantized::instance_norm is quantized::group_norm with one group per channel, batched only (rank >= 3).
function quantizedInstanceNormRefusal(info, shape) {
  if (shape.length !== info.dims + 2) return `expected a ${info.dims + 2}-D input, got shape ${shapeText(shape)}`;
  return instanceNormRefusal(info, shape);
}

/** nnq.InstanceNorm1d / 2d / 3d (always the input's own statistics). */
export const quantizedInstanceNorm = {
  modules: {
    QuantizedInstanceNorm: {
      fields: ['dims', 'num_features', 'eps', 'weight', 'bias', 'scale', 'zero_point'],
      build(m, { read, what }) {
        const info = withOutputQParams(m, what, { ...instanceNormInfo(m, what), checksChannels: true });
        const { weight, bias } = readAffine(m, read, what, [info.numFeatures]);
        const p = { weight, bias, eps: readEps(m, what), scale: info.scale, zeroPoint: info.zeroPoint };
        const refusal = (shape) => quantizedInstanceNormRefusal(info, shape);
        const layout = (shape) => {
          const [batch, channels] = shape;
          return [batch * channels, numel(shape.slice(2)), true, channels, channels];
        };
        return new LoadedQuantizedNorm(`QuantizedInstanceNorm${info.dims}d`, refusal, layout, p).eval();
      },
      info: (m) =>
        withOutputQParams(m, 'QuantizedInstanceNorm', {
          ...instanceNormInfo(m, 'QuantizedInstanceNorm'),
          checksChannels: true,
        }),
      cost: quantizedCost(quantizedInstanceNormRefusal),
      output: quantizedOutput,
    },
  },
};

/** nnq.GroupNorm. */
export const quantizedGroupNorm = {
  modules: {
    QuantizedGroupNorm: {
      fields: ['num_groups', 'num_channels', 'eps', 'weight', 'bias', 'scale', 'zero_point'],
      build(m, { read, what }) {
        const info = withOutputQParams(m, what, groupNormInfo(m, what));
        const { weight, bias } = readAffine(m, read, what, [info.numChannels]);
        const p = { weight, bias, eps: readEps(m, what), scale: info.scale, zeroPoint: info.zeroPoint };
        const layout = (shape) => {
          const [batch, channels] = shape;
          return [batch * info.numGroups, numel(shape.slice(1)) / info.numGroups, true, channels, info.numGroups];
        };
        return new LoadedQuantizedNorm(
          'QuantizedGroupNorm',
          (shape) => groupNormRefusal(info, shape),
          layout,
          p,
        ).eval();
      },
      info: (m) => withOutputQParams(m, 'QuantizedGroupNorm', groupNormInfo(m, 'QuantizedGroupNorm')),
      cost: quantizedCost(groupNormRefusal),
      output: quantizedOutput,
    },
  },
};

/** nnq.LayerNorm. */
export const quantizedLayerNorm = {
  modules: {
    QuantizedLayerNorm: {
      fields: ['normalized_shape', 'eps', 'weight', 'bias', 'scale', 'zero_point'],
      build(m, { read, what }) {
        const info = withOutputQParams(m, what, layerNormInfo(m, what));
        const { weight, bias } = readAffine(m, read, what, info.normalizedShape);
        const p = { weight, bias, eps: readEps(m, what), scale: info.scale, zeroPoint: info.zeroPoint };
        const inner = numel(info.normalizedShape);
        const layout = (shape) => [numel(shape) / inner, inner, false, 1, 1];
        return new LoadedQuantizedNorm(
          'QuantizedLayerNorm',
          (shape) => layerNormRefusal(info, shape),
          layout,
          p,
        ).eval();
      },
      info: (m) => withOutputQParams(m, 'QuantizedLayerNorm', layerNormInfo(m, 'QuantizedLayerNorm')),
      cost: quantizedCost(layerNormRefusal),
      output: quantizedOutput,
    },
  },
};

// -- A PT2E graph's region dequantize -> norm -> [relu] -> quantize ------------------------------------------------

// The float norms a region may hold: their entries' fields and readers.
const REGION_NORMS = {
  InstanceNorm: { read: readInstanceNorm, fields: instanceNorm.modules.InstanceNorm.fields },
  GroupNorm: { read: readGroupNorm, fields: groupNorm.modules.GroupNorm.fields },
  LayerNorm: { read: readLayerNorm, fields: layerNorm.modules.LayerNorm.fields },
};

/** The region's float norm entry: a known type with exactly its fields. */
function regionNorm(m, what) {
  const norm = m.norm;
  const type = norm !== null && typeof norm === 'object' && !Array.isArray(norm) ? norm.type : undefined;
  if (typeof type !== 'string' || !Object.hasOwn(REGION_NORMS, type)) {
    fail(`${what}.norm must be an InstanceNorm, GroupNorm or LayerNorm entry, got ${describeNorm(norm)}`);
  }
  const want = ['type', ...REGION_NORMS[type].fields].sort();
  const got = Object.keys(norm).sort();
  if (got.length !== want.length || got.some((k, i) => k !== want[i])) {
    fail(`${what}.norm (${type}) must have the fields ${want.join(', ')}, got ${got.join(', ')}`);
  }
  return { type, norm };
}

const describeNorm = (v) => (v === null || typeof v !== 'object' ? String(v) : `an object of type ${v.type}`);

/** A region entry's qparams: the input's (the graph's dequantize) and the output's (its quantize). */
function regionInfo(m, what) {
  const { type: normType } = regionNorm(m, what);
  const inputScale = readFloat(m.input_scale, `${what}.input_scale`);
  if (!(Math.fround(inputScale) > 0 && Number.isFinite(Math.fround(inputScale)))) {
    fail(`${what}.input_scale ${inputScale} is not a positive finite number in float32`);
  }
  const info = withOutputQParams(m, what, {
    normType,
    inputScale,
    inputZeroPoint: readInt(m.input_zero_point, `${what}.input_zero_point`, 0, 255),
  });
  if (typeof m.relu !== 'boolean') fail(`${what}.relu must be true or false`);
  return { ...info, relu: m.relu };
}

/**
 * dequantize -> InstanceNorm / GroupNorm / LayerNorm -> [relu] -> quantize of a
 * PT2E graph, in one call of the core (src/qwasm/norm_region.h): the integers
 * of the four nodes run one by one, without the float tensors leaving wasm memory.
 */
class QuantizedNormRegion extends Module {
  #n;
  #info;
  constructor(n, info) {
    super();
    this.#n = n;
    this.#info = info;
  }
  forward(x) {
    const ctx = `QuantizedNormRegion(${this.#n.name}).forward(x)`;
    if (!isQTensorInstance(x) || x.dtype !== 'quint8' || x.qscheme() !== 'per_tensor_affine') {
      throw new TypeError(`${ctx}: x must be a per-tensor quint8 QTensor`);
    }
    const { inputScale, inputZeroPoint, relu, scale, zeroPoint } = this.#info;
    // The graph's dequantize reads x with x's own qparams; the exporter wrote the ones it saw.
    if (x.qScale() !== inputScale || x.qZeroPoint() !== inputZeroPoint) {
      throw new RangeError(
        `${ctx}: the region was exported for input qparams (${inputScale}, ${inputZeroPoint}), x has (${x.qScale()}, ${x.qZeroPoint()})`,
      );
    }
    const shape = [...x.shape];
    const why = this.#n.refusal(shape);
    if (why !== null) throw new RangeError(`${ctx}: ${why}`);
    const c = x.isContiguous() ? null : x.contiguous();
    try {
      return this.#n.region(c ?? x, shape, { relu, scale, zeroPoint }, ctx);
    } finally {
      c?.dispose();
    }
  }
  toString() {
    return `QuantizedNormRegion(${this.#n.name}${this.#info.relu ? ', relu' : ''})`;
  }
}

/** The refusal of the region's norm, for the planner (info holds the entry's own fields). */
function regionRefusal(info, shape) {
  const n = info.normInfo;
  if (info.normType === 'InstanceNorm') return instanceNormRefusal(n, shape);
  if (info.normType === 'GroupNorm') return groupNormRefusal(n, shape);
  return layerNormRefusal(n, shape);
}

/** A PT2E graph's dequantize -> norm -> [relu] -> quantize (python/qwasm_ops.py's QuantizedNormRegion). */
export const quantizedNormRegion = {
  modules: {
    QuantizedNormRegion: {
      fields: ['norm', 'relu', 'input_scale', 'input_zero_point', 'scale', 'zero_point'],
      build(m, { read, what }) {
        const info = regionInfo(m, what);
        const n = REGION_NORMS[info.normType].read(m.norm, read, `${what}.norm`);
        return new QuantizedNormRegion(n, info).eval();
      },
      info(m) {
        const info = regionInfo(m, 'QuantizedNormRegion');
        const what = 'QuantizedNormRegion.norm';
        const normInfo =
          info.normType === 'InstanceNorm'
            ? instanceNormInfo(m.norm, what)
            : info.normType === 'GroupNorm'
              ? groupNormInfo(m.norm, what)
              : layerNormInfo(m.norm, what);
        return { ...info, normInfo };
      },
      // The dequantized input and the norm's output stay in wasm memory for the call (4 bytes each per element).
      cost: costOn('quantized', RATE.floatNormElement, 8, regionRefusal),
      output: quantizedOutput,
    },
  },
};
