// How each module type of a model file is built into a qwasm module: its
// fields (the model format's vocabulary, vocabulary.json, which
// python/qwasm_export.py's _module_entry writes), build(m, file) that checks
// them and makes the module, and info(m), what the planner (plan.mjs) needs
// of it, read again once build has checked the entry.

import { nn } from '../nn/index.mjs';
import { DeQuantStub, QuantStub } from '../quantization/stubs.mjs';
import { describe } from '../runtime/args.mjs';
import { withEngine } from '../runtime/engine.mjs';
import { makePerChannelQuantizedTensor, makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { fail, isName, isObject, onlyKeys, quote, readBool, readFloat, readInt, readInts } from './format-readers.mjs';

const CONV_GEOMETRY = 2 ** 31 - 1;

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

const readDims = (m, what) => readInt(m.dims, `${what}.dims`, 1, 3);

function convArgs(m, dims, what) {
  const inChannels = readInt(m.in_channels, `${what}.in_channels`, 1, CONV_GEOMETRY);
  const outChannels = readInt(m.out_channels, `${what}.out_channels`, 1, CONV_GEOMETRY);
  const groups = readInt(m.groups, `${what}.groups`, 1, CONV_GEOMETRY);
  if (inChannels % groups !== 0 || outChannels % groups !== 0) {
    fail(`${what}: in_channels ${inChannels} and out_channels ${outChannels} must be multiples of groups ${groups}`);
  }
  const kernel = readInts(m.kernel_size, `${what}.kernel_size`, dims, 1, CONV_GEOMETRY);
  const options = {
    stride: readInts(m.stride, `${what}.stride`, dims, 1, CONV_GEOMETRY),
    padding: readInts(m.padding, `${what}.padding`, dims, 0, CONV_GEOMETRY),
    dilation: readInts(m.dilation, `${what}.dilation`, dims, 1, CONV_GEOMETRY),
    groups,
    bias: m.bias !== null,
  };
  if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null`);
  return { inChannels, outChannels, kernel, options, weightShape: [outChannels, inChannels / groups, ...kernel] };
}

function linearArgs(m, what) {
  const inF = readInt(m.in_features, `${what}.in_features`, 1, CONV_GEOMETRY);
  const outF = readInt(m.out_features, `${what}.out_features`, 1, CONV_GEOMETRY);
  if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null`);
  return { inF, outF };
}

const QCONV = {
  false: [null, nn.quantized.Conv1d, nn.quantized.Conv2d, nn.quantized.Conv3d],
  true: [null, nn.intrinsic.quantized.ConvReLU1d, nn.intrinsic.quantized.ConvReLU2d, nn.intrinsic.quantized.ConvReLU3d],
};
const FCONV = [null, nn.Conv1d, nn.Conv2d, nn.Conv3d];
const FCONV_RELU = [null, nn.intrinsic.ConvReLU1d, nn.intrinsic.ConvReLU2d, nn.intrinsic.ConvReLU3d];
const POOLS = {
  MaxPool: [null, nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d],
  AvgPool: [null, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d],
  AdaptiveAvgPool: [null, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d, nn.AdaptiveAvgPool3d],
};
const BATCHNORM = [null, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d];

// Output qparams of a quantized module (PyTorch keeps the scale as a double).
function setOutputQParams(mod, m, what) {
  mod.scale = readFloat(m.scale, `${what}.scale`);
  mod.zeroPoint = readInt(m.zero_point, `${what}.zero_point`, 0, 255);
}

// A quantized conv / linear module: its weight and bias are read (and so
// checked against the file) before make() allocates anything of the
// geometry's size; then the module takes them and its output qparams.
function quantizedModule(m, read, what, weightShape, make) {
  const bias = m.bias === null ? null : read.float32(m.bias, [weightShape[0]], `${what}.bias`);
  const w = quantizedWeight(m.weight, weightShape, read, `${what}.weight`);
  let mod = null;
  try {
    mod = make();
    mod.setWeightBias(w, bias);
    setOutputQParams(mod, m, what);
    return mod;
  } catch (e) {
    mod?.dispose();
    throw e;
  } finally {
    w.dispose();
  }
}

// A float conv / linear module takes its weight and bias (read from the file
// first); `wrap` makes the fused ReLU form around it.
function withFloatWeights(mod, weight, bias, wrap) {
  try {
    mod.weight.data = weight;
    if (bias !== null) mod.bias.data = bias;
    return wrap(mod);
  } catch (e) {
    mod.dispose();
    throw e;
  }
}

// The planner's view of the module types that share a formula.
const convInfo = (m) => {
  const d = m.dims;
  const quantized = m.type === 'QuantizedConv';
  return {
    type: m.type,
    dims: d,
    inChannels: m.in_channels,
    outChannels: m.out_channels,
    groups: m.groups,
    kernel: m.kernel_size.slice(0, d),
    stride: m.stride.slice(0, d),
    padding: m.padding.slice(0, d),
    dilation: m.dilation.slice(0, d),
    scale: quantized ? m.scale : null,
    zeroPoint: quantized ? m.zero_point : null,
  };
};
const linearInfo = (m) => {
  const quantized = m.type === 'QuantizedLinear';
  return {
    type: m.type,
    inFeatures: m.in_features,
    outFeatures: m.out_features,
    scale: quantized ? m.scale : null,
    zeroPoint: quantized ? m.zero_point : null,
  };
};
const poolInfo = (m) => ({
  type: m.type,
  dims: m.dims,
  kernel: m.kernel_size.slice(),
  stride: m.stride.slice(),
  padding: m.padding.slice(),
  dilation: m.type === 'MaxPool' ? m.dilation.slice() : Array(m.dims).fill(1),
  ceilMode: m.ceil_mode,
});
const typeOnly = (m) => ({ type: m.type });

// MaxPool and AvgPool: the options both have, then each one's own.
function buildPool(m, { what }) {
  const d = readDims(m, what);
  const options = {
    stride: readInts(m.stride, `${what}.stride`, d, 1, CONV_GEOMETRY),
    padding: readInts(m.padding, `${what}.padding`, d, 0, CONV_GEOMETRY),
    ceilMode: readBool(m.ceil_mode, `${what}.ceil_mode`),
  };
  if (m.type === 'MaxPool') options.dilation = readInts(m.dilation, `${what}.dilation`, d, 1, CONV_GEOMETRY);
  else {
    options.countIncludePad = readBool(m.count_include_pad, `${what}.count_include_pad`);
    if (m.divisor_override !== null) {
      if (d === 1) fail(`${what}: AvgPool1d has no divisor_override`);
      options.divisorOverride = readInt(m.divisor_override, `${what}.divisor_override`, -CONV_GEOMETRY, CONV_GEOMETRY);
    }
  }
  return new POOLS[m.type][d](readInts(m.kernel_size, `${what}.kernel_size`, d, 1, CONV_GEOMETRY), options);
}

const CONV_FIELDS = ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups'];

/**
 * How one module type is built.
 * @typedef {{fields: string[], build: (m: any, file: {read: any, what: string, version: string, winograd: any}) => any,
 *   info: (m: any) => any}} ModuleBuilder
 */

/**
 * Each module type a model file may hold: {fields, build(m, file), info(m)}.
 * `file` is {read (the tensor readers), what (where the entry is, for
 * messages), version (the format version), winograd (the quantized convs'
 * option)}.
 */
export const MODULE_BUILDERS = /** @type {Readonly<Record<string, ModuleBuilder>>} */ (
  Object.freeze({
    QuantizedConv: {
      fields: ['dims', 'relu', ...CONV_FIELDS, 'scale', 'zero_point', 'weight', 'bias', 'backend'],
      build(m, { read, what, version, winograd }) {
        const d = readDims(m, what);
        const relu = readBool(m.relu, `${what}.relu`);
        const a = convArgs(m, d, what);
        // The backend PyTorch packed the weights for (version 1: fbgemm). The
        // module is built under the engine that gives it; qwasm's routing rule
        // must then agree, or the file asks for numbers qwasm would not give.
        const backend = version === '1' ? 'fbgemm' : m.backend;
        if (backend !== 'onednn' && backend !== 'fbgemm') {
          fail(`${what}.backend must be 'onednn' or 'fbgemm', got ${describe(m.backend)}`);
        }
        const mod = withEngine(backend === 'onednn' ? 'x86' : 'fbgemm', () =>
          quantizedModule(
            m,
            read,
            what,
            a.weightShape,
            () => new QCONV[relu][d](a.inChannels, a.outChannels, a.kernel, { ...a.options, winograd }),
          ),
        );
        const ours = mod.backend;
        if (ours !== backend) {
          mod.dispose();
          fail(
            `${what} ran on ${backend} in PyTorch, and qwasm would run it on ${ours} (PyTorch's x86 engine sends a conv to onednn only with symmetric weights and groups <= 100)`,
          );
        }
        return mod;
      },
      info: convInfo,
    },
    QuantizedLinear: {
      fields: ['relu', 'in_features', 'out_features', 'scale', 'zero_point', 'weight', 'bias'],
      build(m, { read, what }) {
        const relu = readBool(m.relu, `${what}.relu`);
        const { inF, outF } = linearArgs(m, what);
        const Cls = relu ? nn.intrinsic.quantized.LinearReLU : nn.quantized.Linear;
        return quantizedModule(m, read, what, [outF, inF], () => new Cls(inF, outF, { bias: m.bias !== null }));
      },
      info: linearInfo,
    },
    Quantize: {
      fields: ['scale', 'zero_point', 'dtype'],
      build(m, { what }) {
        if (m.dtype !== 'quint8') fail(`${what}.dtype must be 'quint8', got ${describe(m.dtype)}`);
        const scale = readFloat(m.scale, `${what}.scale`);
        // quantize_per_tensor computes 1 / (float)scale: a scale that is 0 (or
        // not finite) in float32 cannot quantize anything.
        const f = Math.fround(scale);
        if (!(f > 0) || !Number.isFinite(f)) {
          fail(`${what}.scale ${scale} is ${f === 0 ? '0' : 'not a positive finite number'} in float32`);
        }
        return new nn.quantized.Quantize(scale, readInt(m.zero_point, `${what}.zero_point`, 0, 255), 'quint8');
      },
      info: (m) => ({ type: m.type, scale: m.scale, zeroPoint: m.zero_point }),
    },
    DeQuantize: { fields: [], build: () => new nn.quantized.DeQuantize(), info: typeOnly },
    // A float model's stubs: the identity (quantization.QuantStub / DeQuantStub).
    QuantStub: { fields: [], build: () => new QuantStub(), info: typeOnly },
    DeQuantStub: { fields: [], build: () => new DeQuantStub(), info: typeOnly },
    Identity: { fields: [], build: () => new nn.Identity(), info: typeOnly },
    ReLU: { fields: [], build: () => new nn.ReLU(), info: typeOnly },
    ReLU6: { fields: [], build: () => new nn.ReLU6(), info: typeOnly },
    Flatten: {
      fields: ['start_dim', 'end_dim'],
      build: (m, { what }) =>
        new nn.Flatten(
          readInt(m.start_dim, `${what}.start_dim`, -64, 63),
          readInt(m.end_dim, `${what}.end_dim`, -64, 63),
        ),
      info: (m) => ({ type: m.type, startDim: m.start_dim, endDim: m.end_dim }),
    },
    MaxPool: {
      fields: ['dims', 'kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode'],
      build: buildPool,
      info: poolInfo,
    },
    AvgPool: {
      fields: ['dims', 'kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad', 'divisor_override'],
      build: buildPool,
      info: poolInfo,
    },
    AdaptiveAvgPool: {
      fields: ['dims', 'output_size'],
      build(m, { what }) {
        const d = readDims(m, what);
        const size = readInts(m.output_size, `${what}.output_size`, d, 1, CONV_GEOMETRY);
        return new POOLS.AdaptiveAvgPool[d](d === 1 ? size[0] : size);
      },
      info: (m) => ({ type: m.type, dims: m.dims, outputSize: m.output_size.slice() }),
    },
    Conv: {
      fields: ['dims', 'relu', ...CONV_FIELDS, 'weight', 'bias'],
      build(m, { read, what }) {
        const d = readDims(m, what);
        const relu = readBool(m.relu, `${what}.relu`);
        const a = convArgs(m, d, what);
        const weight = read.float32(m.weight, a.weightShape, `${what}.weight`);
        const bias = m.bias === null ? null : read.float32(m.bias, [a.outChannels], `${what}.bias`);
        const conv = new FCONV[d](a.inChannels, a.outChannels, a.kernel, a.options);
        return withFloatWeights(conv, weight, bias, (c) => (relu ? new FCONV_RELU[d](c) : c));
      },
      info: convInfo,
    },
    Linear: {
      fields: ['relu', 'in_features', 'out_features', 'weight', 'bias'],
      build(m, { read, what }) {
        const relu = readBool(m.relu, `${what}.relu`);
        const { inF, outF } = linearArgs(m, what);
        const weight = read.float32(m.weight, [outF, inF], `${what}.weight`);
        const bias = m.bias === null ? null : read.float32(m.bias, [outF], `${what}.bias`);
        const lin = new nn.Linear(inF, outF, { bias: m.bias !== null });
        return withFloatWeights(lin, weight, bias, (l) => (relu ? new nn.intrinsic.LinearReLU(l) : l));
      },
      info: linearInfo,
    },
    BatchNorm: {
      fields: ['dims', 'num_features', 'eps', 'weight', 'bias', 'running_mean', 'running_var'],
      build(m, { read, what }) {
        const d = readDims(m, what);
        const n = readInt(m.num_features, `${what}.num_features`, 1, 2 ** 24);
        const affine = m.weight !== null;
        if ((m.bias !== null) !== affine) fail(`${what}: weight and bias must both be tensors or both null`);
        // The tensors are read (and so checked against the file) before the module allocates.
        const vector = (key) => read.float32(m[key], [n], `${what}.${key}`);
        const weight = affine ? vector('weight') : null;
        const bias = affine ? vector('bias') : null;
        const mean = vector('running_mean');
        const variance = vector('running_var');
        const bn = new BATCHNORM[d](n, { eps: readFloat(m.eps, `${what}.eps`), affine });
        if (affine) {
          bn.weight.data = weight;
          bn.bias.data = bias;
        }
        bn.runningMean.data = mean;
        bn.runningVar.data = variance;
        return bn.eval();
      },
      info: typeOnly,
    },
  })
);

/**
 * One module of the file, built and loaded (its weights checked against its
 * geometry), and what the planner needs of it: {module, info}.
 */
export function buildModule(m, read, what, version, winograd) {
  if (!isObject(m)) fail(`${what} must be an object`);
  if (!Object.hasOwn(MODULE_BUILDERS, m.type))
    fail(`${what}.type ${quote(m.type)} is not a module type this qwasm knows`);
  const builder = MODULE_BUILDERS[m.type];
  // Version 1 files predate each quantized conv's backend.
  onlyKeys(m, ['type', ...builder.fields.filter((k) => version !== '1' || k !== 'backend')], what);
  const module = builder.build(m, { read, what, version, winograd });
  const info = builder.info(m);
  // A conv or linear layer's scratch for an input shape, as the core allocates it (the planner's charge).
  if (typeof module._scratchBound === 'function') info.scratchBound = (shape) => module._scratchBound(shape);
  return { module, info };
}
