// BatchNorm1d / 2d / 3d in eval mode, on float tensors: the module type
// BatchNorm of a float model's file. qwasm has no quantized BatchNorm: the
// eager flow folds one into the conv before it (quantization.fuseModules).

import { nn } from '../nn/index.mjs';
import { batchNormState } from './eager.mjs';
import { fail, readDims, readFloat, readInt } from './format-readers.mjs';
import { floatOutput, noInfo, perElement } from './module-costs.mjs';

const BATCH_NORM = [null, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d];

const NOT_FUSED =
  "is a BatchNorm that is not fused: qwasm has no quantized BatchNorm; fold it into the conv before it with quantization.fuseModules(model, [['conv', 'bn']]) (or set its qconfig to null)";

/** nn.BatchNorm1d / 2d / 3d. */
export const batchNorm = {
  modules: {
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
        const bn = new BATCH_NORM[d](n, { eps: readFloat(m.eps, `${what}.eps`), affine });
        if (affine) {
          bn.weight.data = weight;
          bn.bias.data = bias;
        }
        bn.runningMean.data = mean;
        bn.runningVar.data = variance;
        return bn.eval();
      },
      info: noInfo,
      cost: perElement,
      output: floatOutput,
    },
  },
  // PyTorch's mapping has quantized BatchNorm2d and 3d (not 1d): its numeric suite logs those.
  eager: [1, 2, 3].map((d) => ({ float: BATCH_NORM[d], refuse: NOT_FUSED, logged: d > 1, floatState: batchNormState })),
};
