// Transposed convolutions, 1d / 2d / 3d, in float: the module type
// ConvTranspose of a model file (nn.ConvTranspose1d / 2d / 3d, and
// aten.conv_transpose{1,2,3}d in PT2E graphs: the decoders of U-Nets).

import { ConvTransposeFloat, transposedOut } from '../nn/conv-transpose.mjs';
import { describe } from '../runtime/args.mjs';
import { numel } from './abstract-values.mjs';
import { CONV_GEOMETRY, fail, isName, readDims, readInt, readInts } from './format-readers.mjs';
import { floatOutput } from './module-costs.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

// A multiply-add here runs in JavaScript (float64 sums, one output channel at
// a time): measured at about 65 times the float conv's WASM SIMD kernel per
// multiply-add (ConvTranspose3d 32 -> 16, kernel 3, stride 2, on 16^3, Node 20),
// so charged as 64 of its multiply-adds.
const FLOAT_TRANSPOSED_MAC = 64 * RATE.floatMac;

function convTransposeArgs(m, d, what) {
  const inChannels = readInt(m.in_channels, `${what}.in_channels`, 1, CONV_GEOMETRY);
  const outChannels = readInt(m.out_channels, `${what}.out_channels`, 1, CONV_GEOMETRY);
  const groups = readInt(m.groups, `${what}.groups`, 1, CONV_GEOMETRY);
  if (inChannels % groups !== 0 || outChannels % groups !== 0) {
    fail(`${what}: in_channels ${inChannels} and out_channels ${outChannels} must be multiples of groups ${groups}`);
  }
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
  const d = info.dims;
  if (x.kind !== 'float' || (x.shape.length !== d + 2 && x.shape.length !== d + 1)) return null;
  const c = x.shape.length - d - 1;
  if (x.shape[c] !== info.inChannels) return null;
  const out = x.shape
    .slice(c + 1)
    .map((s, i) =>
      transposedOut(s, info.kernel[i], info.stride[i], info.padding[i], info.outputPadding[i], info.dilation[i]),
    );
  if (out.some((o) => o < 1)) return null;
  const shape = [...x.shape.slice(0, c), info.outChannels, ...out];
  const macs = numel(x.shape) * (info.outChannels / info.groups) * numel(info.kernel);
  return { shape, work: macs * FLOAT_TRANSPOSED_MAC, scratchBytes: 8 * numel(out) };
}

/** nn.ConvTranspose1d / 2d / 3d in float. */
export const convTranspose = {
  modules: {
    ConvTranspose: {
      fields: [
        'dims',
        'in_channels',
        'out_channels',
        'kernel_size',
        'stride',
        'padding',
        'output_padding',
        'groups',
        'dilation',
        'weight',
        'bias',
      ],
      build(m, { read, what }) {
        const d = readDims(m, what);
        const g = convTransposeArgs(m, d, what);
        const weightShape = [g.inChannels, g.outChannels / g.groups, ...g.kernel];
        const weight = read.float32(m.weight, weightShape, `${what}.weight`);
        const bias = m.bias === null ? null : read.float32(m.bias, [g.outChannels], `${what}.bias`);
        return new ConvTransposeFloat(d, g, weight, bias);
      },
      // The planner's view (the entry is checked by build).
      info: (m) => ({
        dims: m.dims,
        inChannels: m.in_channels,
        outChannels: m.out_channels,
        groups: m.groups,
        kernel: m.kernel_size,
        stride: m.stride,
        padding: m.padding,
        outputPadding: m.output_padding,
        dilation: m.dilation,
      }),
      cost: convTransposeCost,
      output: floatOutput,
    },
  },
};
