// Transposed convolutions, 1d / 2d / 3d, in float: the module type
// ConvTranspose of a model file (nn.ConvTranspose1d / 2d / 3d, and
// aten.conv_transpose{1,2,3}d in PT2E graphs: the decoders of U-Nets).

import { ConvTransposeFloat, QuantizedConvTranspose, transposedOut } from '../nn/conv-transpose.mjs';
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

// The stride-1 conv over the zero-inserted input: every output takes every tap (work per multiply-add at the
// quantized conv's rate, plus the zero insertion per element); scratch: the inserted input and the conv's.
function quantizedTransposeCost(info, x) {
  const shape = transposeOutShape(info, x, 'quantized', false);
  if (shape === null) return null;
  const macs = numel(shape) * (info.inChannels / info.groups) * numel(info.kernel);
  const inner =
    numel(shape.slice(2).map((o, i) => o + info.dilation[i] * (info.kernel[i] - 1))) * shape[0] * info.inChannels;
  return {
    shape,
    work: macs * RATE.quantizedMac + inner * RATE.quantizedElement,
    scratchBytes: scratchOf(info, x.shape),
  };
}

// The weight [in, out / groups, *kernel] (per tensor, as FBGEMM's; or per channel on axis 1, a PT2E graph's)
// as the stride-1 conv's: [out, in / groups, *kernel], each kernel flipped, per channel on axis 0.
function flippedWeight(m, g, read, what) {
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
  const icg = g.inChannels / g.groups;
  const ocg = g.outChannels / g.groups;
  const taps = numel(g.kernel);
  const src = read.int8(spec.ints, [g.inChannels, ocg, ...g.kernel], `${what}.weight.ints`);
  const data = new Int8Array(src.length);
  for (let ic = 0; ic < g.inChannels; ic++) {
    const group = Math.floor(ic / icg);
    for (let ocl = 0; ocl < ocg; ocl++) {
      const from = (ic * ocg + ocl) * taps;
      const to = ((group * ocg + ocl) * icg + (ic - group * icg)) * taps;
      // Reversing the taps' flat order flips every spatial axis at once.
      for (let t = 0; t < taps; t++) data[to + taps - 1 - t] = src[from + t];
    }
  }
  const shape = [g.outChannels, icg, ...g.kernel];
  if (!perChannel) {
    const scale = readFloat(spec.scale, `${what}.weight.scale`);
    const zeroPoint = readInt(spec.zero_point, `${what}.weight.zero_point`, -128, 127);
    return makePerTensorQuantizedTensor({ data, shape }, scale, zeroPoint, 'qint8');
  }
  // Axis 1 holds the output channels of a group: output channel oc reads entry oc mod (out / groups).
  readInt(spec.axis, `${what}.weight.axis`, 1, 1);
  const scales = read.float64(spec.scales, [ocg], `${what}.weight.scales`);
  const zeroPoints = read.int64(spec.zero_points, [ocg], `${what}.weight.zero_points`);
  const perOutput = (v) => Array.from({ length: g.outChannels }, (_, oc) => v[oc % ocg]);
  return makePerChannelQuantizedTensor(
    { data, shape },
    Float64Array.from(perOutput(scales)),
    perOutput(zeroPoints),
    0,
    'qint8',
  );
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
        const w = flippedWeight(m, g, read, what);
        let conv = null;
        try {
          conv = new (relu ? QCONV_RELU : QCONV)[d](g.inChannels, g.outChannels, g.kernel, {
            dilation: g.dilation,
            groups: g.groups,
            bias: bias !== null,
            winograd,
          });
          conv._setWeightBias(w, bias, 'fbgemm');
          setOutputQParams(conv, m, what);
          return new QuantizedConvTranspose(d, g, conv);
        } catch (e) {
          conv?.dispose();
          throw e;
        } finally {
          w.dispose();
        }
      },
      info: transposeInfo(true),
      cost: quantizedTransposeCost,
      output: quantizedOutput,
    },
  },
};
