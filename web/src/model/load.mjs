// io.loadModel(bytes): a model exported by python/qwasm_export.py (one
// .safetensors file: the tensors, and the graph as JSON in its metadata),
// built into qwasm modules and a GraphModule that runs the graph.
//
// The file is untrusted. Everything is checked before it is used: the format
// and version, the JSON's shape (types, sizes, names), each module's
// attributes (by the module constructors, which check geometry in 64-bit
// arithmetic), each tensor's dtype and shape against the module that uses it,
// and the graph (every argument names an earlier node, so it has no cycle).
// Allocation is bounded by the file: weights are copied from it, and modules
// without weights allocate nothing until forward().
import { clipped, describe, isArrayBuffer, MAX_RANK, quoted, readOptions } from '../args.mjs';
import { SUPPORTED_ENGINES, withEngine } from '../engine.mjs';
import { restate } from '../errors.mjs';
import { nn } from '../nn/index.mjs';
import { makePerChannelQuantizedTensor, makePerTensorQuantizedTensor } from '../quantize.mjs';
import { localFileReader, readThreadCount, wasm } from '../runtime.mjs';
import { bytesOfInput, parseSafetensors } from '../safetensors.mjs';
import { getWinograd, readWinograd } from '../winograd.mjs';
import { GraphModule, NODE_FUNCTIONS, NODE_METHODS, NODE_SIGNATURES } from './graph-module.mjs';
import { BudgetError, DEFAULT_LIMITS, planGraph } from './plan.mjs';
import { isModelSource, readModelSource, sourceError } from './source.mjs';
import { loadModelInWorker } from './worker-model.mjs';

export const FORMAT = 'qwasm-model';
// Version 2 adds the engine the model was converted under and each quantized
// conv's backend; version 1 files are read as fbgemm (they were exported so).
export const FORMAT_VERSION = 2;
const READABLE_VERSIONS = ['1', '2'];
const MAX_NODES = 100000;
const MAX_NAME = 1000;

class FormatError extends Error {}

const fail = (msg) => {
  throw new FormatError(msg);
};

// A name from the file, quoted (and cut short) for a message.
const quote = (v) => (typeof v === 'string' ? quoted(v) : describe(v));
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isName = (v) => typeof v === 'string' && v.length > 0 && v.length <= MAX_NAME;

function readInt(v, what, lo, hi) {
  if (!Number.isSafeInteger(v) || v < lo || v > hi)
    fail(`${what} must be an integer in ${lo}..${hi}, got ${describe(v)}`);
  return v;
}

function readInts(v, what, length, lo, hi) {
  if (!Array.isArray(v) || v.length !== length)
    fail(`${what} must be a list of ${length} integers, got ${describe(v)}`);
  return v.map((x, i) => readInt(x, `${what}[${i}]`, lo, hi));
}

function readFloat(v, what) {
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${what} must be a finite number, got ${describe(v)}`);
  return v;
}

function readBool(v, what) {
  if (typeof v !== 'boolean') fail(`${what} must be true or false, got ${describe(v)}`);
  return v;
}

// Tensor readers: the entry must exist with this dtype and shape.
function tensorReader(file) {
  const { view, dataStart, tensors } = file;
  const used = new Set();
  const entry = (name, dtype, shape, what) => {
    if (!isName(name)) fail(`${what} must name a tensor, got ${describe(name)}`);
    const t = tensors.get(name);
    if (t === undefined) fail(`${what}: the file has no tensor ${quote(name)}`);
    // Each tensor belongs to one module (as the exporter writes them): a file
    // cannot make many modules copy one tensor, so memory stays bounded by it.
    if (used.has(name)) fail(`${what}: tensor ${quote(name)} is already used by another module`);
    if (t.dtype !== dtype) fail(`${what}: tensor ${quote(name)} is ${clipped(t.dtype)}, expected ${dtype}`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      fail(`${what}: tensor ${quote(name)} has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
    }
    used.add(name);
    return t;
  };
  return {
    used,
    int8(name, shape, what) {
      const t = entry(name, 'I8', shape, what);
      // A view of the file's bytes: the QTensor made from it copies them once, into wasm memory.
      return new Int8Array(view.buffer, view.byteOffset + dataStart + t.begin, t.end - t.begin);
    },
    float32(name, shape, what) {
      const t = entry(name, 'F32', shape, what);
      const out = new Float32Array((t.end - t.begin) / 4);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(dataStart + t.begin + 4 * i, true);
      return out;
    },
    float64(name, shape, what) {
      const t = entry(name, 'F64', shape, what);
      const out = new Float64Array((t.end - t.begin) / 8);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(dataStart + t.begin + 8 * i, true);
      return out;
    },
    int64(name, shape, what) {
      const t = entry(name, 'I64', shape, what);
      const out = new Array((t.end - t.begin) / 8);
      for (let i = 0; i < out.length; i++) {
        const v = view.getBigInt64(dataStart + t.begin + 8 * i, true);
        if (v < -(2n ** 31n) || v >= 2n ** 31n) fail(`${what}: tensor ${quote(name)} holds ${v}, outside int32`);
        out[i] = Number(v);
      }
      return out;
    },
  };
}

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

const CONV_GEOMETRY = 2 ** 31 - 1;

// An attribute this reader does not know would be ignored, and the model
// would run as something other than what was written: refused.
function onlyKeys(obj, allowed, what) {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  if (extra !== undefined) fail(`${what} has an unknown attribute ${quote(extra)}`);
}

const CONV_KEYS = ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups'];
/** The attributes each module type has in the file (python/qwasm_export.py's _module_entry). */
const MODULE_KEYS = {
  QuantizedConv: ['dims', 'relu', ...CONV_KEYS, 'scale', 'zero_point', 'weight', 'bias', 'backend'],
  QuantizedLinear: ['relu', 'in_features', 'out_features', 'scale', 'zero_point', 'weight', 'bias'],
  Quantize: ['scale', 'zero_point', 'dtype'],
  DeQuantize: [],
  Identity: [],
  ReLU: [],
  ReLU6: [],
  Flatten: ['start_dim', 'end_dim'],
  MaxPool: ['dims', 'kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode'],
  AvgPool: ['dims', 'kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad', 'divisor_override'],
  AdaptiveAvgPool: ['dims', 'output_size'],
  Conv: ['dims', 'relu', ...CONV_KEYS, 'weight', 'bias'],
  Linear: ['relu', 'in_features', 'out_features', 'weight', 'bias'],
  BatchNorm: ['dims', 'num_features', 'eps', 'weight', 'bias', 'running_mean', 'running_var'],
};

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

/** One module of the file, built and loaded; its weights checked against its geometry. */
function buildModule(m, read, what, version, winograd) {
  if (!isObject(m)) fail(`${what} must be an object`);
  if (!Object.hasOwn(MODULE_KEYS, m.type)) fail(`${what}.type ${quote(m.type)} is not a module type this qwasm knows`);
  onlyKeys(m, ['type', ...MODULE_KEYS[m.type].filter((k) => version !== '1' || k !== 'backend')], what);
  const dims = () => readInt(m.dims, `${what}.dims`, 1, 3);
  switch (m.type) {
    case 'QuantizedConv': {
      const d = dims();
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
    }
    case 'QuantizedLinear': {
      const relu = readBool(m.relu, `${what}.relu`);
      const inF = readInt(m.in_features, `${what}.in_features`, 1, CONV_GEOMETRY);
      const outF = readInt(m.out_features, `${what}.out_features`, 1, CONV_GEOMETRY);
      if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null`);
      const Cls = relu ? nn.intrinsic.quantized.LinearReLU : nn.quantized.Linear;
      return quantizedModule(m, read, what, [outF, inF], () => new Cls(inF, outF, { bias: m.bias !== null }));
    }
    case 'Quantize': {
      if (m.dtype !== 'quint8') fail(`${what}.dtype must be 'quint8', got ${describe(m.dtype)}`);
      const scale = readFloat(m.scale, `${what}.scale`);
      // quantize_per_tensor computes 1 / (float)scale: a scale that is 0 (or
      // not finite) in float32 cannot quantize anything.
      const f = Math.fround(scale);
      if (!(f > 0) || !Number.isFinite(f)) {
        fail(`${what}.scale ${scale} is ${f === 0 ? '0' : 'not a positive finite number'} in float32`);
      }
      return new nn.quantized.Quantize(scale, readInt(m.zero_point, `${what}.zero_point`, 0, 255), 'quint8');
    }
    case 'DeQuantize':
      return new nn.quantized.DeQuantize();
    case 'Identity':
      return new nn.Identity();
    case 'ReLU':
      return new nn.ReLU();
    case 'ReLU6':
      return new nn.ReLU6();
    case 'Flatten':
      return new nn.Flatten(
        readInt(m.start_dim, `${what}.start_dim`, -64, 63),
        readInt(m.end_dim, `${what}.end_dim`, -64, 63),
      );
    case 'MaxPool':
    case 'AvgPool': {
      const d = dims();
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
          options.divisorOverride = readInt(
            m.divisor_override,
            `${what}.divisor_override`,
            -CONV_GEOMETRY,
            CONV_GEOMETRY,
          );
        }
      }
      return new POOLS[m.type][d](readInts(m.kernel_size, `${what}.kernel_size`, d, 1, CONV_GEOMETRY), options);
    }
    case 'AdaptiveAvgPool': {
      const d = dims();
      const size = readInts(m.output_size, `${what}.output_size`, d, 1, CONV_GEOMETRY);
      return new POOLS.AdaptiveAvgPool[d](d === 1 ? size[0] : size);
    }
    case 'Conv': {
      const d = dims();
      const relu = readBool(m.relu, `${what}.relu`);
      const a = convArgs(m, d, what);
      const weight = read.float32(m.weight, a.weightShape, `${what}.weight`);
      const bias = m.bias === null ? null : read.float32(m.bias, [a.outChannels], `${what}.bias`);
      const conv = new FCONV[d](a.inChannels, a.outChannels, a.kernel, a.options);
      try {
        conv.weight.data = weight;
        if (bias !== null) conv.bias.data = bias;
        return relu ? new FCONV_RELU[d](conv) : conv;
      } catch (e) {
        conv.dispose();
        throw e;
      }
    }
    case 'Linear': {
      const relu = readBool(m.relu, `${what}.relu`);
      const inF = readInt(m.in_features, `${what}.in_features`, 1, CONV_GEOMETRY);
      const outF = readInt(m.out_features, `${what}.out_features`, 1, CONV_GEOMETRY);
      if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null`);
      const weight = read.float32(m.weight, [outF, inF], `${what}.weight`);
      const bias = m.bias === null ? null : read.float32(m.bias, [outF], `${what}.bias`);
      const lin = new nn.Linear(inF, outF, { bias: m.bias !== null });
      try {
        lin.weight.data = weight;
        if (bias !== null) lin.bias.data = bias;
        return relu ? new nn.intrinsic.LinearReLU(lin) : lin;
      } catch (e) {
        lin.dispose();
        throw e;
      }
    }
    case 'BatchNorm': {
      const d = dims();
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
    }
    default:
      return fail(`${what}.type ${quote(m.type)} is not a module type this qwasm knows`);
  }
}

// A graph argument: a reference to an earlier node, or a constant (number,
// boolean, null, string, or a list of those).
function checkArg(a, known, what, depth = 0) {
  if (depth > 8) fail(`${what}: arguments nest too deeply`);
  if (a === null || typeof a === 'number' || typeof a === 'boolean' || typeof a === 'string') return;
  if (Array.isArray(a)) {
    if (a.length > 4096) fail(`${what}: a list of ${a.length} arguments`);
    for (const x of a) checkArg(x, known, what, depth + 1);
    return;
  }
  if (isObject(a) && Object.keys(a).length === 1 && isName(a.node)) {
    if (!known.has(a.node)) fail(`${what}: argument ${quote(a.node)} is not an earlier node`);
    return;
  }
  fail(`${what}: argument ${describe(a)} is not a node reference or a constant`);
}

// What a node of each op may carry: [most positional arguments, keyword arguments].
function signatureOf(n) {
  switch (n.op) {
    case 'placeholder':
      return { args: 0, kwargs: [] };
    case 'output':
    case 'call_module':
      return { args: 1, kwargs: [] };
    case 'call_function':
      return NODE_SIGNATURES.function[n.target];
    default:
      return NODE_SIGNATURES.method[n.target];
  }
}

function checkGraph(graph, modules) {
  if (!Array.isArray(graph.nodes)) fail('graph.nodes must be a list');
  if (graph.nodes.length < 2 || graph.nodes.length > MAX_NODES) {
    fail(`graph.nodes must hold 2..${MAX_NODES} nodes, got ${graph.nodes.length}`);
  }
  const known = new Set();
  graph.nodes.forEach((n, i) => {
    let what = `graph.nodes[${i}]`;
    if (!isObject(n) || !isName(n.name)) fail(`${what} must be an object with a name`);
    if (known.has(n.name)) fail(`${what}: two nodes are named ${quote(n.name)}`);
    what = `${what} (${quote(n.name)})`;
    onlyKeys(
      n,
      n.op === 'placeholder' || n.op === 'output' ? ['name', 'op', 'args', 'kwargs', 'target'] : NODE_KEYS,
      what,
    );
    if (!Array.isArray(n.args) || !isObject(n.kwargs)) fail(`${what} must have args (a list) and kwargs`);
    const first = i === 0;
    const last = i === graph.nodes.length - 1;
    if (first !== (n.op === 'placeholder')) fail(`${what}: the first node, and only it, is the input`);
    if (last !== (n.op === 'output')) fail(`${what}: the last node, and only it, is the output`);
    switch (n.op) {
      case 'placeholder':
      case 'output':
        break;
      case 'call_module':
        if (!isName(n.target) || !Object.hasOwn(modules, n.target)) {
          fail(`${what} calls module ${quote(n.target)}, which the file does not define`);
        }
        break;
      case 'call_function':
        if (!Object.hasOwn(NODE_FUNCTIONS, n.target)) fail(`${what}: unknown function ${quote(n.target)}`);
        break;
      case 'call_method':
        if (!Object.hasOwn(NODE_METHODS, n.target)) fail(`${what}: unknown method ${quote(n.target)}`);
        break;
      default:
        fail(`${what}: unknown op ${quote(n.op)}`);
    }
    const signature = signatureOf(n);
    const extra = Object.keys(n.kwargs).filter((k) => !signature.kwargs.includes(k));
    if (extra.length > 0) fail(`${what}: keyword argument ${quote(extra[0])} is not supported here`);
    // An argument past the signature would be ignored, and the node would compute something else.
    if (n.args.length > signature.args) {
      fail(`${what}: ${n.args.length} positional arguments, ${n.op} ${n.target ?? ''} takes at most ${signature.args}`);
    }
    checkArg(n.args, known, what);
    checkArg(Object.values(n.kwargs), known, what);
    if (n.op === 'call_method' && n.target === 'reshape') checkReshape(n.args, what);
    if (n.op === 'output' && !(n.args.length === 1 && isObject(n.args[0]))) {
      fail(`${what}: the output must be one node`);
    }
    known.add(n.name);
  });
}

// A reshape's sizes are constants in an exported graph: checked here, not at the first forward.
function checkReshape(args, what) {
  const dims = args.length === 2 && Array.isArray(args[1]) ? args[1] : args.slice(1);
  if (dims.length > MAX_RANK) fail(`${what}: reshape to ${dims.length} dimensions, at most ${MAX_RANK}`);
  const bad = dims.find((d) => !Number.isSafeInteger(d) || d < -1);
  if (bad !== undefined) fail(`${what}: reshape's sizes must be integers >= -1, got ${describe(bad)}`);
  if (dims.filter((d) => d === -1).length > 1) {
    fail(`${what}: reshape to [${dims.join(', ')}]: at most one dimension can be -1`);
  }
}

const NODE_KEYS = ['name', 'op', 'target', 'args', 'kwargs'];
const GRAPH_KEYS = ['format', 'version', 'torch', 'engine', 'input_shape', 'modules', 'nodes'];

// What the planner needs of a module: its file entry, read again now that buildModule has checked it.
function moduleInfo(m) {
  switch (m.type) {
    case 'QuantizedConv':
    case 'Conv': {
      const d = m.dims;
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
        scale: m.type === 'QuantizedConv' ? m.scale : null,
        zeroPoint: m.type === 'QuantizedConv' ? m.zero_point : null,
      };
    }
    case 'QuantizedLinear':
    case 'Linear':
      return {
        type: m.type,
        inFeatures: m.in_features,
        outFeatures: m.out_features,
        scale: m.type === 'QuantizedLinear' ? m.scale : null,
        zeroPoint: m.type === 'QuantizedLinear' ? m.zero_point : null,
      };
    case 'Quantize':
      return { type: m.type, scale: m.scale, zeroPoint: m.zero_point };
    case 'MaxPool':
    case 'AvgPool':
      return {
        type: m.type,
        dims: m.dims,
        kernel: m.kernel_size.slice(),
        stride: m.stride.slice(),
        padding: m.padding.slice(),
        dilation: m.type === 'MaxPool' ? m.dilation.slice() : Array(m.dims).fill(1),
        ceilMode: m.ceil_mode,
      };
    case 'AdaptiveAvgPool':
      return { type: m.type, dims: m.dims, outputSize: m.output_size.slice() };
    case 'Flatten':
      return { type: m.type, startDim: m.start_dim, endDim: m.end_dim };
    default:
      return { type: m.type };
  }
}

// io.loadModel's options: the budget ({maxActivationBytes, maxWork}), the
// quantized convolutions' winograd option, and for loading off the calling
// thread: worker, onProgress and the worker's numThreads.
function readLoadOptions(options, ctx) {
  const o = readOptions(
    options,
    ['maxActivationBytes', 'maxWork', 'winograd', 'worker', 'onProgress', 'numThreads', 'locateFile'],
    ctx,
  );
  const limits = { ...DEFAULT_LIMITS };
  for (const key of ['maxActivationBytes', 'maxWork']) {
    if (!o.has(key)) continue;
    const v = o.get(key);
    if (typeof v !== 'number') throw new TypeError(`${ctx}: ${key} must be a number, got ${describe(v)}`);
    if (!(v > 0)) throw new RangeError(`${ctx}: ${key} must be > 0 (Infinity for no limit), got ${v}`);
    limits[key] = v;
  }
  const worker = o.get('worker') ?? false;
  if (typeof worker !== 'boolean') throw new TypeError(`${ctx}: worker must be a boolean, got ${describe(worker)}`);
  const onProgress = o.get('onProgress');
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(
      `${ctx}: onProgress must be a function (loadedBytes, totalBytes) => void, got ${describe(onProgress)}`,
    );
  }
  let numThreads;
  if (o.has('numThreads')) {
    numThreads = readThreadCount(o.get('numThreads'), ctx);
    if (!worker)
      throw new TypeError(
        `${ctx}: numThreads is the model worker's (worker: true); init({ numThreads }) sets this thread's`,
      );
  }
  const locateFile = o.get('locateFile');
  if (locateFile !== undefined) {
    if (typeof locateFile !== 'function') {
      throw new TypeError(`${ctx}: locateFile must be a function (file) => url, got ${describe(locateFile)}`);
    }
    if (!worker) throw new TypeError(`${ctx}: locateFile finds the model worker (worker: true)`);
  }
  return {
    limits: Object.freeze(limits),
    winograd: o.has('winograd') ? readWinograd(o.get('winograd'), ctx) : getWinograd(),
    worker,
    onProgress,
    numThreads,
    locateFile,
  };
}

/**
 * Loads a model without blocking on its download, on the calling thread (for
 * code that already runs in its own worker): `source` is a URL (a path in
 * Node.js), a Response, a ReadableStream, a Blob or the bytes;
 * onProgress(loadedBytes, totalBytes) follows the download. Building the
 * modules then takes one task, as io.loadModel does. Needs init().
 * @returns {Promise<GraphModule>}
 */
export async function loadModelAsync(source, options) {
  const ctx = 'io.loadModelAsync(source)';
  const { limits, winograd, worker, onProgress } = readLoadOptions(options, ctx);
  if (worker) throw new TypeError(`${ctx}: worker: true is io.loadModel's option; loadModelAsync runs on this thread`);
  if (!isModelSource(source)) throw sourceError(source, ctx);
  wasm(ctx);
  const bytes = await readModelSource(source, onProgress, ctx, localFileReader());
  return buildModel(bytes, limits, winograd, ctx);
}

/**
 * Reads a model written by python/qwasm_export.py and builds it: a
 * GraphModule whose forward(x) runs the exported graph.
 * @param {ArrayBuffer | ArrayBufferView} input
 * winograd ('auto', true or false) is every quantized convolution's
 * Winograd option (nn.quantized.Conv3d's); the model's weightBytes()
 * and profile() report what it holds and which path each layer took.
 * With worker: true, `input` may be any source io.loadModelAsync takes, and
 * the result is a Promise of a WorkerModel: the model is loaded and runs in
 * a worker the library starts (worker-model.mjs).
 * @param {{maxActivationBytes?: number, maxWork?: number, winograd?: 'auto' | boolean, worker?: boolean, onProgress?: (loaded: number, total: number | null) => void, numThreads?: number, locateFile?: (file: string) => string | URL}} [options]
 * @returns {any}
 */
export function loadModel(input, options) {
  if (asksForWorker(options)) return loadInWorker(input, options);
  const ctx = 'io.loadModel(bytes)';
  const { limits, winograd, onProgress } = readLoadOptions(options, ctx);
  if (onProgress !== undefined) {
    throw new TypeError(
      `${ctx}: onProgress follows a download: use io.loadModelAsync(source) or io.loadModel(source, { worker: true })`,
    );
  }
  if (isModelSource(input) && !isArrayBuffer(input) && !ArrayBuffer.isView(input)) {
    throw new TypeError(
      `${ctx}: expected the file's bytes (ArrayBuffer or typed array), got ${describe(input)}; for a URL, Response, stream or Blob use await io.loadModelAsync(source) or io.loadModel(source, { worker: true })`,
    );
  }
  return buildModel(input, limits, winograd, ctx);
}

/** options.worker === true, read without throwing (readLoadOptions reports a hostile options object). */
function asksForWorker(options) {
  try {
    return options !== null && typeof options === 'object' && options.worker === true;
  } catch {
    return false;
  }
}

/** io.loadModel(source, { worker: true }): every error, a bad option too, is a rejection. */
async function loadInWorker(input, options) {
  const ctx = 'io.loadModel(source, { worker: true })';
  const { limits, winograd, onProgress, numThreads, locateFile } = readLoadOptions(options, ctx);
  if (!isModelSource(input)) throw sourceError(input, ctx);
  return loadModelInWorker(input, { limits, winograd, numThreads, onProgress, locateFile });
}

/** The file's bytes, checked and built into a GraphModule (errors name `ctx`). */
function buildModel(input, limits, winograd, ctx) {
  wasm(ctx); // before init() this is the Error to give, not one of an internal call
  const file = parseSafetensors(bytesOfInput(input, ctx), ctx);
  const built = [];
  try {
    const meta = file.metadata;
    if (meta.format !== FORMAT) {
      fail(
        `not a qwasm model: its metadata has format ${describe(meta.format)}, expected '${FORMAT}' (write it with python/qwasm_export.py)`,
      );
    }
    const version = meta.format_version;
    if (!READABLE_VERSIONS.includes(version)) {
      fail(`format version ${describe(version)}: this qwasm reads versions ${READABLE_VERSIONS.join(' and ')}`);
    }
    let graph;
    try {
      graph = JSON.parse(meta.graph);
    } catch (e) {
      fail(`the graph is not JSON: ${e.message}`);
    }
    if (!isObject(graph) || !isObject(graph.modules)) fail('the graph must be an object with modules');
    onlyKeys(graph, version === '1' ? GRAPH_KEYS.filter((k) => k !== 'engine') : GRAPH_KEYS, 'the graph');
    const engine = version === '1' ? 'fbgemm' : graph.engine;
    if (!SUPPORTED_ENGINES.includes(engine))
      fail(`the graph's engine must be 'x86' or 'fbgemm', got ${describe(graph.engine)}`);
    checkGraph(graph, graph.modules);
    // The example input's shape the exporter traced with: the budget is checked on it now, and on each real input in forward().
    const inputShape =
      graph.input_shape === undefined || graph.input_shape === null
        ? null
        : Array.isArray(graph.input_shape) && graph.input_shape.length <= 16
          ? graph.input_shape.map((d, i) => readInt(d, `input_shape[${i}]`, 0, CONV_GEOMETRY))
          : fail(`input_shape must be a list of at most 16 integers, got ${describe(graph.input_shape)}`);
    const read = tensorReader(file);
    /** @type {Map<string, import('../nn/module.mjs').Module>} */
    const modules = new Map();
    const infos = new Map();
    // Every module is called by a node (nothing is built that does not run).
    const called = new Set(graph.nodes.filter((n) => n.op === 'call_module').map((n) => n.target));
    const uncalled = Object.keys(graph.modules).filter((p) => !called.has(p));
    if (uncalled.length > 0)
      fail(`module ${quote(uncalled[0])} is not called by any node (${uncalled.length} uncalled)`);
    for (const [path, m] of Object.entries(graph.modules)) {
      if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path) || path.length > MAX_NAME) {
        fail(`module path ${quote(path)} is not a dotted name`);
      }
      const where = `module ${quote(path)}`;
      let mod;
      try {
        mod = buildModule(m, read, where, version, winograd);
      } catch (e) {
        throw e instanceof FormatError ? e : restate(e, where);
      }
      built.push(mod);
      modules.set(path, mod);
      infos.set(path, moduleInfo(m));
    }
    const unused = [...file.tensors.keys()].filter((k) => !read.used.has(k));
    if (unused.length > 0) fail(`tensor ${quote(unused[0])} is not used by any module (${unused.length} unused)`);
    const hint = ': raise it with io.loadModel(bytes, { maxActivationBytes, maxWork }) if the model is trusted';
    let planned;
    try {
      planned = planGraph(graph.nodes, infos, inputShape, limits, hint);
    } catch (e) {
      if (e instanceof BudgetError)
        fail(`${e.message}${inputShape === null ? '' : ` (on the declared input [${inputShape.join(', ')}])`}`);
      throw e;
    }
    return new GraphModule(modules, graph.nodes, inputShape, { infos, limits, planned, hint, engine });
  } catch (e) {
    for (const m of built) m.dispose();
    if (e instanceof FormatError) throw new Error(`${ctx}: ${e.message}`);
    throw restate(e, ctx);
  }
}
