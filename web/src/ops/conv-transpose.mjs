// Transposed convolutions, 1d / 2d / 3d, in float: the module type
// ConvTranspose of a model file (nn.ConvTranspose1d / 2d / 3d, and
// aten.conv_transpose{1,2,3}d in PT2E graphs: the decoders of U-Nets).

import { ConvTransposeFloat, QuantizedConvTranspose, transposedOut } from '../nn/conv-transpose.mjs';
import { axisBox, layerPhases, product } from '../nn/conv-transpose-phases.mjs';
import { describe } from '../runtime/args.mjs';
import { makePerChannelQuantizedTensor, makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { numel } from './abstract-values.mjs';
import { QCONV, QCONV_RELU, readConvChannels } from './conv-parts.mjs';
import {
  CONV_GEOMETRY,
  fail,
  isName,
  isObject,
  onlyKeys,
  readBool,
  readDims,
  readFloat,
  readInt,
  readInts,
} from './format-readers.mjs';
import { floatOutput, quantizedOutput, scratchOf } from './module-costs.mjs';
import { setOutputQParams } from './weights.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

// A multiply-add here runs in JavaScript (float64 sums, one output channel at
// a time): measured at about 65 times the float conv's WASM SIMD kernel per
// multiply-add (ConvTranspose3d 32 -> 16, kernel 3, stride 2, on 16^3, Node 20),
// so charged as 64 of its multiply-adds.
const FLOAT_TRANSPOSED_MAC = 64 * RATE.floatMac;

// The geometry fields of both entries (float and quantized), in the exporter's order.
const GEOMETRY_FIELDS = [
  'in_channels',
  'out_channels',
  'kernel_size',
  'stride',
  'padding',
  'output_padding',
  'groups',
  'dilation',
];

function convTransposeArgs(m, d, what) {
  const { inChannels, outChannels, groups } = readConvChannels(m, what);
  const g = {
    inChannels,
    outChannels,
    groups,
    kernel: readInts(m.kernel_size, `${what}.kernel_size`, d, 1, CONV_GEOMETRY),
    stride: readInts(m.stride, `${what}.stride`, d, 1, CONV_GEOMETRY),
    padding: readInts(m.padding, `${what}.padding`, d, 0, CONV_GEOMETRY),
    outputPadding: readInts(m.output_padding, `${what}.output_padding`, d, 0, CONV_GEOMETRY),
    dilation: readInts(m.dilation, `${what}.dilation`, d, 1, CONV_GEOMETRY),
  };
  // PyTorch's own refusal (ConvUtils.h): an output padding below its stride or its dilation.
  g.outputPadding.forEach((p, i) => {
    if (p >= Math.max(g.stride[i], g.dilation[i])) {
      fail(
        `${what}.output_padding[${i}] ${p} must be smaller than the stride ${g.stride[i]} or the dilation ${g.dilation[i]}`,
      );
    }
  });
  if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null, got ${describe(m.bias)}`);
  return g;
}

// PyTorch's output shape (batched or not) for a float input; work per multiply-add; scratch: one output
// channel's float64 sums. null: an input the module refuses (a QTensor, a wrong rank or channel count).
function convTransposeCost(info, x) {
  const shape = transposeOutShape(info, x, 'float', true);
  if (shape === null) return null;
  const macs = numel(x.shape) * (info.outChannels / info.groups) * numel(info.kernel);
  return { shape, work: macs * FLOAT_TRANSPOSED_MAC, scratchBytes: 8 * numel(shape.slice(shape.length - info.dims)) };
}

// The planner's view of an entry (checked by build).
const transposeInfo = (quantized) => (m) => ({
  dims: m.dims,
  inChannels: m.in_channels,
  outChannels: m.out_channels,
  groups: m.groups,
  kernel: m.kernel_size,
  stride: m.stride,
  padding: m.padding,
  outputPadding: m.output_padding,
  dilation: m.dilation,
  scale: quantized ? m.scale : null,
  zeroPoint: quantized ? m.zero_point : null,
});

// The output shape of a batched input of `kind`, or null.
function transposeOutShape(info, x, kind, unbatched) {
  const d = info.dims;
  if (x.kind !== kind || (x.shape.length !== d + 2 && !(unbatched && x.shape.length === d + 1))) return null;
  const c = x.shape.length - d - 1;
  if (x.shape[c] !== info.inChannels || x.shape.slice(c + 1).includes(0)) return null;
  const out = x.shape
    .slice(c + 1)
    .map((s, i) =>
      transposedOut(s, info.kernel[i], info.stride[i], info.padding[i], info.outputPadding[i], info.dilation[i]),
    );
  return out.some((o) => o < 1) ? null : [...x.shape.slice(0, c), info.outChannels, ...out];
}

// The stride-1 convs of the phases (conv-transpose-phases.mjs): each output takes only its phase's taps (work
// per multiply-add at the quantized conv's rate), plus per element the padded input, the scatter of the
// phases' outputs and the output's copy into wasm; scratch: the module's own bound (nn/conv-transpose.mjs).
function quantizedTransposeCost(info, x) {
  const shape = transposeOutShape(info, x, 'quantized', false);
  if (shape === null) return null;
  let macs = shape[0] * info.outChannels * (info.inChannels / info.groups);
  let padded = x.shape[0] * info.inChannels;
  const axes = layerPhases(info.kernel, info.stride, info.padding, info.dilation, info.outChannels / info.groups);
  info.kernel.forEach((k, i) => {
    const phases = axes[i];
    const box = axisBox(phases, info.stride[i], shape[2 + i]);
    // Each phase's conv computes every output over the padded box; the sum over phase combinations of a
    // product is the product of the per-axis sums.
    macs *= box.phases.reduce((n, p, j) => n + p.outputs * phases[j].taps.length, 0);
    padded *= box.extent;
  });
  return {
    shape,
    work: macs * RATE.quantizedMac + (padded + 2 * numel(shape)) * RATE.quantizedElement,
    scratchBytes: scratchOf(info, x.shape),
  };
}

// The weight [in, out / groups, *kernel]'s integers and qparams per output channel: per tensor (FBGEMM's) or
// per channel on axis 1 (a PT2E graph's: output channel oc reads entry oc mod (out / groups)).
function readTransposeWeight(m, g, read, what) {
  const spec = m.weight;
  if (!isObject(spec)) fail(`${what}.weight must be an object`);
  const perChannel = spec.qscheme === 'per_channel_affine';
  if (!perChannel && spec.qscheme !== 'per_tensor_affine') {
    fail(`${what}.weight.qscheme must be 'per_tensor_affine' or 'per_channel_affine', got ${describe(spec.qscheme)}`);
  }
  onlyKeys(
    spec,
    perChannel ? ['qscheme', 'ints', 'axis', 'scales', 'zero_points'] : ['qscheme', 'ints', 'scale', 'zero_point'],
    `${what}.weight`,
  );
  const ocg = g.outChannels / g.groups;
  const ints = read.int8(spec.ints, [g.inChannels, ocg, ...g.kernel], `${what}.weight.ints`);
  if (!perChannel) {
    const scale = readFloat(spec.scale, `${what}.weight.scale`);
    const zeroPoint = readInt(spec.zero_point, `${what}.weight.zero_point`, -128, 127);
    return { ints, perChannel, scale, zeroPoint, zeroPoints: new Array(g.outChannels).fill(zeroPoint) };
  }
  readInt(spec.axis, `${what}.weight.axis`, 1, 1);
  const scales = read.float64(spec.scales, [ocg], `${what}.weight.scales`);
  const zeroPoints = read.int64(spec.zero_points, [ocg], `${what}.weight.zero_points`);
  const perOutput = (v) => Array.from({ length: g.outChannels }, (_, oc) => v[oc % ocg]);
  return { ints, perChannel, scales: Float64Array.from(perOutput(scales)), zeroPoints: perOutput(zeroPoints) };
}

// The stride-1 conv weight of phases with sub-kernels of one shape, stacked along the output channels
// [P * out, in / groups, *sub-kernel]: in each group, phase by phase, that phase's out / groups channels (the
// in / out axes swapped; tapSets[p][j]: phase p's kernel indices along axis j in the inner conv's order,
// already flipped, -1 for a padding tap holding the weight zero point), per channel on axis 0. tapSets null: the bias-only kernel, one tap holding each output
// channel's weight zero point (every product 0). Also the bias, stacked the same way.
function stackedWeight(w, g, bias, tapSets) {
  const icg = g.inChannels / g.groups;
  const ocg = g.outChannels / g.groups;
  const P = tapSets === null ? 1 : tapSets.length;
  const subKernel = tapSets === null ? g.kernel.map(() => 1) : tapSets[0].map((t) => t.length);
  const kernelStrides = g.kernel.map((_, j) => numel(g.kernel.slice(j + 1)));
  // A padding tap (-1, layerPhases) on any axis: no tap of the kernel (offset -1), its weight the zero point.
  const offsetsOf = (taps) =>
    product(taps).map((ks) => (ks.includes(-1) ? -1 : ks.reduce((o, k, j) => o + k * kernelStrides[j], 0)));
  const offsets = tapSets === null ? [[0]] : tapSets.map(offsetsOf);
  const n = numel(subKernel);
  const kernelTaps = numel(g.kernel);
  const channels = P * g.outChannels;
  const data = new Int8Array(channels * icg * n);
  const source = new Array(channels); // the transposed conv's output channel of each stacked channel
  for (let ch = 0; ch < channels; ch++) {
    const group = Math.floor(ch / (P * ocg));
    const phase = Math.floor((ch % (P * ocg)) / ocg);
    const oc = group * ocg + (ch % ocg);
    source[ch] = oc;
    for (let icl = 0; icl < icg; icl++) {
      const to = (ch * icg + icl) * n;
      if (tapSets === null) {
        data[to] = w.zeroPoints[oc];
        continue;
      }
      const from = ((group * icg + icl) * ocg + (oc - group * ocg)) * kernelTaps;
      for (let t = 0; t < n; t++) {
        const at = offsets[phase][t];
        data[to + t] = at < 0 ? w.zeroPoints[oc] : w.ints[from + at];
      }
    }
  }
  const shape = [channels, icg, ...subKernel];
  const weight = w.perChannel
    ? makePerChannelQuantizedTensor(
        { data, shape },
        Float64Array.from(source, (oc) => w.scales[oc]),
        source.map((oc) => w.zeroPoints[oc]),
        0,
        'qint8',
      )
    : makePerTensorQuantizedTensor({ data, shape }, w.scale, w.zeroPoint, 'qint8');
  return { weight, bias: bias === null ? null : Float32Array.from(source, (oc) => bias[oc]) };
}

// The phases' stride-1 convs (every combination of one phase with taps per axis; the phases whose sub-kernels
// have one shape stacked into one conv, which reads its input once) and, when some phase of an axis has no
// tap, the bias-only conv; each packed for fbgemm with exact sums, as one conv over the zero-inserted input
// would be (its padding-free geometry never takes the depthwise int16 path).
function buildPhases(m, g, d, relu, bias, w, winograd, what) {
  // Every product of the phase arithmetic below 2^53 (a layer reaching further has an output PyTorch refuses).
  g.kernel.forEach((k, i) => {
    if (g.dilation[i] * (k - 1) > 2 ** 52) {
      fail(`${what}: dilation[${i}] * (kernel_size[${i}] - 1) must be at most 2^52, got ${g.dilation[i]} * ${k - 1}`);
    }
  });
  const axes = layerPhases(g.kernel, g.stride, g.padding, g.dilation, g.outChannels / g.groups);
  const convs = [];
  const make = (tapSets, dilation) => {
    const P = tapSets === null ? 1 : tapSets.length;
    const kernel = tapSets === null ? g.kernel.map(() => 1) : tapSets[0].map((t) => t.length);
    const conv = new (relu ? QCONV_RELU : QCONV)[d](g.inChannels, P * g.outChannels, kernel, {
      dilation,
      groups: g.groups,
      bias: bias !== null,
      winograd,
    });
    convs.push(conv);
    const stacked = stackedWeight(w, g, bias, tapSets);
    try {
      conv._setWeightBias(stacked.weight, stacked.bias, 'fbgemm', true);
    } finally {
      stacked.weight.dispose();
    }
    setOutputQParams(conv, m, what);
    return conv;
  };
  try {
    const byShape = new Map();
    for (const at of product(axes.map((list) => list.map((_, a) => a)))) {
      const key = at.map((a, j) => axes[j][a].taps.length).join(',');
      const members = byShape.get(key);
      if (members) members.push(at);
      else byShape.set(key, [at]);
    }
    const stacks = [...byShape.values()].map((ats) => ({
      ats,
      conv: make(
        ats.map((at) => at.map((a, j) => axes[j][a].taps)),
        axes.map((list) => list[0].dilation),
      ),
    }));
    const biasOnly = axes.some((list, i) => list.length < g.stride[i])
      ? make(
          null,
          g.kernel.map(() => 1),
        )
      : null;
    return new QuantizedConvTranspose(d, g, axes, stacks, biasOnly);
  } catch (e) {
    for (const conv of convs) conv.dispose();
    throw e;
  }
}

/** nn.ConvTranspose1d / 2d / 3d in float, and nn.quantized.ConvTranspose1d / 2d / 3d (FBGEMM's). */
export const convTranspose = {
  modules: {
    ConvTranspose: {
      fields: ['dims', ...GEOMETRY_FIELDS, 'weight', 'bias'],
      build(m, { read, what }) {
        const d = readDims(m, what);
        const g = convTransposeArgs(m, d, what);
        const weightShape = [g.inChannels, g.outChannels / g.groups, ...g.kernel];
        const weight = read.float32(m.weight, weightShape, `${what}.weight`);
        const bias = m.bias === null ? null : read.float32(m.bias, [g.outChannels], `${what}.bias`);
        return new ConvTransposeFloat(d, g, weight, bias);
      },
      info: transposeInfo(false),
      cost: convTransposeCost,
      output: floatOutput,
    },
    QuantizedConvTranspose: {
      fields: ['dims', 'relu', ...GEOMETRY_FIELDS, 'scale', 'zero_point', 'weight', 'bias', 'backend'],
      build(m, { read, what, winograd }) {
        const d = readDims(m, what);
        const relu = readBool(m.relu, `${what}.relu`);
        const g = convTransposeArgs(m, d, what);
        if (m.backend !== 'fbgemm') {
          fail(
            `${what}.backend must be 'fbgemm' (qwasm reproduces FBGEMM's transposed convs), got ${describe(m.backend)}`,
          );
        }
        const bias = m.bias === null ? null : read.float32(m.bias, [g.outChannels], `${what}.bias`);
        return buildPhases(m, g, d, relu, bias, readTransposeWeight(m, g, read, what), winograd, what);
      },
      info: transposeInfo(true),
      cost: quantizedTransposeCost,
      output: quantizedOutput,
    },
  },
};
