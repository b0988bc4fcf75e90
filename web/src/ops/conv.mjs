// Convolutions, 1d / 2d / 3d, quantized and float, with their fused ReLU
// forms: the module types QuantizedConv and Conv of a model file, and the
// eager flow's Conv1d / 2d / 3d and nn.intrinsic.ConvReLU1d / 2d / 3d.

import { foldBatchNormInto } from '../nn/fusion.mjs';
import { nn } from '../nn/index.mjs';
import { describe } from '../runtime/args.mjs';
import { numel } from './abstract-values.mjs';
import { QCONV, QCONV_RELU, readConvChannels } from './conv-parts.mjs';
import { floatLayerState, fusedLayerState, weightedTwin } from './eager.mjs';
import { CONV_GEOMETRY, fail, isName, readBool, readDims, readInts } from './format-readers.mjs';
import { floatOutput, quantizedOutput, scratchOf, split, windowOut } from './module-costs.mjs';
import { quantizedModule, withFloatWeights } from './weights.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const FCONV = [null, nn.Conv1d, nn.Conv2d, nn.Conv3d];
const FCONV_RELU = [null, nn.intrinsic.ConvReLU1d, nn.intrinsic.ConvReLU2d, nn.intrinsic.ConvReLU3d];
const BATCH_NORM = [null, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d];

const GEOMETRY_FIELDS = ['in_channels', 'out_channels', 'kernel_size', 'stride', 'padding', 'dilation', 'groups'];

function convArgs(m, dims, what) {
  const { inChannels, outChannels, groups } = readConvChannels(m, what);
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

// The planner's view of a conv entry (checked by build).
const convInfo = (quantized) => (m) => {
  const d = m.dims;
  return {
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

// PyTorch's conv output size; work in multiply-adds at the input kind's rate; scratch as the core allocates it.
function convCost(info, x) {
  const parts = split(x.shape, info.dims, false);
  if (parts === null || parts.lead[1] !== info.inChannels) return null;
  const out = parts.spatial.map((s, i) =>
    windowOut(s, info.kernel[i], info.stride[i], info.padding[i], info.dilation[i], false),
  );
  if (out.some((o) => o < 1)) return null;
  const shape = [parts.lead[0], info.outChannels, ...out];
  const rate = x.kind === 'quantized' ? RATE.quantizedMac : RATE.floatMac;
  return {
    shape,
    work: numel(shape) * (info.inChannels / info.groups) * numel(info.kernel) * rate,
    scratchBytes: scratchOf(info, x.shape),
  };
}

// A quantized conv's state dict (nnq.Conv3d: its packed weight, then bias, scale and zero_point).
const quantizedConvState = (m, at) => [
  [at('weight'), () => m.weight()],
  [at('bias'), null],
  [at('scale'), null],
  [at('zero_point'), null],
];

/** nn.quantized.Conv1d / 2d / 3d and their fused ReLU forms, nn.Conv1d / 2d / 3d and nn.intrinsic.ConvReLU1d / 2d / 3d. */
export const conv = {
  modules: {
    QuantizedConv: {
      fields: ['dims', 'relu', ...GEOMETRY_FIELDS, 'scale', 'zero_point', 'weight', 'bias', 'backend'],
      // Version 1 files predate each quantized conv's backend.
      fieldVersions: { backend: 2 },
      build(m, { read, what, version, winograd }) {
        const d = readDims(m, what);
        const relu = readBool(m.relu, `${what}.relu`);
        const a = convArgs(m, d, what);
        // The backend PyTorch packed the weights for (version 1: fbgemm). The
        // weights are packed for the engine that gives it; qwasm's routing rule
        // must then agree, or the file asks for numbers qwasm would not give.
        // 'fbgemm_exact': a PT2E graph's conv with FBGEMM's requantization,
        // whose reference sums exactly (no int16 pair saturation).
        const written = version === '1' ? 'fbgemm' : m.backend;
        if (written !== 'onednn' && written !== 'fbgemm' && written !== 'fbgemm_exact') {
          fail(`${what}.backend must be 'onednn', 'fbgemm' or 'fbgemm_exact', got ${describe(m.backend)}`);
        }
        const exactSums = written === 'fbgemm_exact';
        const backend = exactSums ? 'fbgemm' : written;
        const Cls = relu ? QCONV_RELU[d] : QCONV[d];
        const mod = quantizedModule(
          m,
          read,
          what,
          a.weightShape,
          () => new Cls(a.inChannels, a.outChannels, a.kernel, { ...a.options, winograd }),
          backend === 'onednn' ? 'x86' : 'fbgemm',
          exactSums,
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
      info: convInfo(true),
      cost: convCost,
      output: quantizedOutput,
    },
    Conv: {
      fields: ['dims', 'relu', ...GEOMETRY_FIELDS, 'weight', 'bias'],
      build(m, { read, what }) {
        const d = readDims(m, what);
        const relu = readBool(m.relu, `${what}.relu`);
        const a = convArgs(m, d, what);
        const weight = read.float32(m.weight, a.weightShape, `${what}.weight`);
        const bias = m.bias === null ? null : read.float32(m.bias, [a.outChannels], `${what}.bias`);
        const c = new FCONV[d](a.inChannels, a.outChannels, a.kernel, a.options);
        return withFloatWeights(c, weight, bias, (inner) => (relu ? new FCONV_RELU[d](inner) : inner));
      },
      info: convInfo(false),
      cost: convCost,
      output: floatOutput,
    },
  },
  // fuseModules: conv + bn (folded), conv + bn + relu, conv + relu (folding needs eval mode).
  fusions: [1, 2, 3].flatMap((d) => [
    {
      types: [FCONV[d], BATCH_NORM[d]],
      needsEval: true,
      fuse: (m, ctx) => foldBatchNormInto(m[0], m[1], false, ctx),
    },
    {
      types: [FCONV[d], BATCH_NORM[d], nn.ReLU],
      needsEval: true,
      fuse: (m, ctx) => new FCONV_RELU[d](foldBatchNormInto(m[0], m[1], false, ctx), m[2]),
    },
    { types: [FCONV[d], nn.ReLU], needsEval: false, fuse: (m) => new FCONV_RELU[d](m[0], m[1]) },
  ]),
  eager: [1, 2, 3].flatMap((d) => [
    {
      float: FCONV[d],
      quantized: QCONV[d],
      observe: 1,
      convert: weightedTwin(QCONV[d]),
      floatState: floatLayerState,
      quantizedState: quantizedConvState,
    },
    {
      float: FCONV_RELU[d],
      quantized: QCONV_RELU[d],
      fused: true,
      observe: 2,
      convert: weightedTwin(QCONV_RELU[d]),
      floatState: fusedLayerState,
      quantizedState: quantizedConvState,
    },
  ]),
};
