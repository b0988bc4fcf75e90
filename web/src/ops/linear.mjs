// Linear layers, quantized and float, with their fused ReLU forms: the module
// types QuantizedLinear and Linear of a model file, and the eager flow's
// nn.Linear and nn.intrinsic.LinearReLU.

import { foldBatchNormInto } from '../nn/fusion.mjs';
import { nn } from '../nn/index.mjs';
import { numel } from './abstract-values.mjs';
import { floatLayerState, fusedLayerState, weightedTwin } from './eager.mjs';
import { CONV_GEOMETRY, fail, isName, readBool, readInt } from './format-readers.mjs';
import { floatOutput, quantizedOutput, scratchOf } from './module-costs.mjs';
import { quantizedModule, withFloatWeights } from './weights.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

function linearArgs(m, what) {
  const inF = readInt(m.in_features, `${what}.in_features`, 1, CONV_GEOMETRY);
  const outF = readInt(m.out_features, `${what}.out_features`, 1, CONV_GEOMETRY);
  if (m.bias !== null && !isName(m.bias)) fail(`${what}.bias must name a tensor or be null`);
  return { inF, outF };
}

const linearInfo = (quantized) => (m) => ({
  inFeatures: m.in_features,
  outFeatures: m.out_features,
  scale: quantized ? m.scale : null,
  zeroPoint: quantized ? m.zero_point : null,
});

// [..., in] -> [..., out]; work in multiply-adds at the input kind's rate.
function linearCost(info, x) {
  if (x.shape.length < 1 || x.shape[x.shape.length - 1] !== info.inFeatures) return null;
  const shape = [...x.shape.slice(0, -1), info.outFeatures];
  const rate = x.kind === 'quantized' ? RATE.quantizedLinearMac : RATE.floatLinearMac;
  return { shape, work: numel(shape) * info.inFeatures * rate, scratchBytes: scratchOf(info, x.shape) };
}

// nnq.Linear saves its qparams, then its packed (weight, bias) under _packed_params.
const quantizedLinearState = (m, at) => [
  [at('scale'), null],
  [at('zero_point'), null],
  [at('_packed_params.dtype'), null],
  [at('_packed_params._packed_params'), () => m.weight()],
];

/** nn.quantized.Linear and nn.intrinsic.quantized.LinearReLU, nn.Linear and nn.intrinsic.LinearReLU. */
export const linear = {
  modules: {
    QuantizedLinear: {
      fields: ['relu', 'in_features', 'out_features', 'scale', 'zero_point', 'weight', 'bias'],
      build(m, { read, what }) {
        const relu = readBool(m.relu, `${what}.relu`);
        const { inF, outF } = linearArgs(m, what);
        const Cls = relu ? nn.intrinsic.quantized.LinearReLU : nn.quantized.Linear;
        return quantizedModule(m, read, what, [outF, inF], () => new Cls(inF, outF, { bias: m.bias !== null }));
      },
      info: linearInfo(true),
      cost: linearCost,
      output: quantizedOutput,
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
      info: linearInfo(false),
      cost: linearCost,
      output: floatOutput,
    },
  },
  // fuseModules: linear + bn (folded; eval mode), linear + relu.
  fusions: [
    {
      types: [nn.Linear, nn.BatchNorm1d],
      needsEval: true,
      fuse: (m, ctx) => foldBatchNormInto(m[0], m[1], true, ctx),
    },
    { types: [nn.Linear, nn.ReLU], needsEval: false, fuse: (m) => new nn.intrinsic.LinearReLU(m[0], m[1]) },
  ],
  eager: [
    {
      float: nn.Linear,
      quantized: nn.quantized.Linear,
      observe: 1,
      convert: weightedTwin(nn.quantized.Linear),
      floatState: floatLayerState,
      quantizedState: quantizedLinearState,
    },
    {
      float: nn.intrinsic.LinearReLU,
      quantized: nn.intrinsic.quantized.LinearReLU,
      fused: true,
      observe: 2,
      convert: weightedTwin(nn.intrinsic.quantized.LinearReLU),
      floatState: fusedLayerState,
      quantizedState: quantizedLinearState,
    },
  ],
};
