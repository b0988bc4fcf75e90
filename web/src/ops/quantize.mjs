// Where a model's quantized region starts and ends: QuantStub, which convert()
// makes a Quantize (float in, quint8 out, the qparams its observer chose), and
// DeQuantStub, which becomes a DeQuantize; a float model's file keeps the
// stubs themselves (the identity), so that it lines up with its quantized twin
// in the numeric suite. The graph's `x.dequantize()` is the DeQuantize's method form.

import { nn } from '../nn/index.mjs';
import { DeQuantStub, QuantStub } from '../nn/stubs.mjs';
import { describe } from '../runtime/args.mjs';
import { floatValue, numel } from './abstract-values.mjs';
import { qparamsState } from './eager.mjs';
import { fail, readFloat, readInt } from './format-readers.mjs';
import { costOf, onTensor, wantQ } from './graph-calls.mjs';
import { floatOutput, noInfo, perElement, perElementAt, quantizedOutput, sameKindOutput } from './module-costs.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

/** nn.quantized.Quantize, and the QuantStub it replaces. */
export const quantize = {
  modules: {
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
      info: (m) => ({ scale: m.scale, zeroPoint: m.zero_point }),
      cost: perElementAt(RATE.quantizeElement),
      output: quantizedOutput,
    },
    // A float model's stub: the identity (quantization.QuantStub).
    QuantStub: { fields: [], build: () => new QuantStub(), info: noInfo, cost: perElement, output: sameKindOutput },
  },
  eager: [
    {
      float: QuantStub,
      quantized: nn.quantized.Quantize,
      observe: 1,
      convert(child, { observer }) {
        const { scale, zeroPoint } = observer.calculateQParams();
        return new nn.quantized.Quantize(scale, zeroPoint, observer.dtype);
      },
      quantizedState: qparamsState,
    },
  ],
};

/** nn.quantized.DeQuantize, the DeQuantStub it replaces, and the graph's x.dequantize(). */
export const dequantize = {
  modules: {
    DeQuantize: {
      fields: [],
      build: () => new nn.quantized.DeQuantize(),
      info: noInfo,
      cost: perElementAt(RATE.dequantizeElement),
      output: floatOutput,
    },
    // A float model's stub: the identity (quantization.DeQuantStub).
    DeQuantStub: {
      fields: [],
      build: () => new DeQuantStub(),
      info: noInfo,
      cost: perElement,
      output: sameKindOutput,
    },
  },
  methods: {
    dequantize: {
      args: 1,
      kwargs: [],
      run: (args) => wantQ(args[0], 'dequantize: x').dequantize(),
      cost: onTensor(
        (x) => costOf(floatValue(x.shape), numel(x.shape) * RATE.dequantizeElement),
        () => floatValue(null),
      ),
    },
  },
  // PyTorch's prepare gives a DeQuantStub no observer (measured on torch 2.15): the numeric suite logs the DeQuantize only.
  eager: [
    {
      float: DeQuantStub,
      quantized: nn.quantized.DeQuantize,
      observe: 0,
      convert: () => new nn.quantized.DeQuantize(),
    },
  ],
};
