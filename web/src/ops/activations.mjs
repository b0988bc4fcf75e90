// The clamping activations, on float tensors and on QTensors (the quantized
// forms keep their input's qparams): ReLU as a module, torch.relu and
// x.relu(), ReLU6 and Hardtanh.

import { nn } from '../nn/index.mjs';
import { reluFloats } from '../nn/torch-float.mjs';
import { describe } from '../runtime/args.mjs';
import { ownBytes } from '../runtime/heap.mjs';
import { fail, readFloat } from './format-readers.mjs';
import { elementwise, isFloatTensor, isQ, NodeError, param } from './graph-calls.mjs';
import { noInfo, perElement, sameKindOutput } from './module-costs.mjs';

function reluOf(x) {
  if (isQ(x)) return nn.quantized.functional.relu(x);
  if (!isFloatTensor(x)) throw new NodeError(`relu: x must be a tensor, got ${describe(x)}`);
  // nn.ReLU's formula (torch-float.mjs): -0 and NaN come through.
  return { data: reluFloats(ownBytes(x.data), 'relu'), shape: x.shape.slice() };
}

/** nn.ReLU, torch.relu(input) and x.relu(). */
export const relu = {
  modules: {
    ReLU: { fields: [], build: () => new nn.ReLU(), info: noInfo, cost: perElement, output: sameKindOutput },
  },
  functions: {
    relu: { args: 1, kwargs: [], run: (args, kwargs) => reluOf(param(args, kwargs, 0, 'input')), cost: elementwise },
  },
  methods: {
    relu: { args: 1, kwargs: [], run: (args) => reluOf(args[0]), cost: elementwise },
  },
};

/** nn.ReLU6. */
export const relu6 = {
  modules: {
    ReLU6: { fields: [], build: () => new nn.ReLU6(), info: noInfo, cost: perElement, output: sameKindOutput },
  },
  // PyTorch's mapping has a quantized ReLU6, so its numeric suite logs a
  // ReLU6's output; qwasm's ReLU6 runs on QTensors as it is (convert leaves it).
  eager: [{ float: nn.ReLU6, logged: true }],
};

/** nn.Hardtanh: float, or on a QTensor with the bounds quantized by its qparams (quantized::hardtanh). */
export const hardtanh = {
  modules: {
    Hardtanh: {
      fields: ['min_val', 'max_val'],
      build: (m, { what }) => {
        const lo = readFloat(m.min_val, `${what}.min_val`);
        const hi = readFloat(m.max_val, `${what}.max_val`);
        if (!(lo < hi)) fail(`${what}: max_val ${hi} must be greater than min_val ${lo}`);
        return new nn.Hardtanh(lo, hi);
      },
      info: noInfo,
      cost: perElement,
      output: sameKindOutput,
    },
  },
};
