// The element-wise activations of the model format (python/qwasm_ops_activations.py
// writes them): each a float module type, computed as PyTorch's vectorized
// kernels do (nn/activation-floats.mjs), and QuantizedLookup, the int8 form
// of any of them in a PT2E graph: the 256 output integers PyTorch computed
// at export for each input integer (one table per channel for PReLU), looked up.

import * as act from '../nn/activation-floats.mjs';
import { Module } from '../nn/module.mjs';
import { readFloatTensor, tensorBytes } from '../runtime/args.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { numel, sameKind } from './abstract-values.mjs';
import { fail, readFloat, readInt } from './format-readers.mjs';
import { costOf, isFloatTensor, isQ, NodeError, onTensor, param } from './graph-calls.mjs';
import { floatOutput, noInfo, perElementAt, quantizedOutput } from './module-costs.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

/** A float activation of a loaded model: `map(data, shape)` on a float tensor's values. */
class FloatActivation extends Module {
  #name;
  #map;

  constructor(name, map) {
    super();
    this.#name = name;
    this.#map = map;
  }

  forward(x) {
    const ctx = `${this.#name}.forward(x)`;
    const t = readFloatTensor(x, ctx);
    const data = new Float32Array(tensorBytes(t, ctx).slice().buffer);
    return { data: this.#map(data, t.shape), shape: t.shape.slice() };
  }

  toString() {
    return `${this.#name}()`;
  }
}

const elementwise = (fn) => (data) => act.mapFloats(data, fn);

// A float activation's module type: its fields and how build makes its map.
function floatType(name, fields, makeMap) {
  return {
    fields,
    build: (m, ctx) => new FloatActivation(name, makeMap(m, ctx)),
    info: noInfo,
    cost: perElementAt(RATE.floatActivationElement),
    output: floatOutput,
  };
}

// A traced activation's cost: its input's kind and shape, at the float activations' rate.
const activationCost = onTensor((x) => costOf(sameKind(x, x.shape), numel(x.shape) * RATE.floatActivationElement));

const noFields = (fn) => () => elementwise(fn);

/** nn.LeakyReLU, nn.PReLU, nn.Hardsigmoid, nn.Hardswish, nn.Sigmoid, nn.Tanh, nn.SiLU, nn.ELU, nn.GELU, nn.Softplus, nn.Mish (float). */
export const floatActivations = {
  modules: {
    LeakyReLU: floatType('LeakyReLU', ['negative_slope'], (m, { what }) =>
      elementwise(act.leakyRelu(readFloat(m.negative_slope, `${what}.negative_slope`))),
    ),
    PReLU: floatType('PReLU', ['weight'], (m, { read, what }) => {
      const n = readPReLUSize(m, read, what);
      const weight = read.float32(m.weight, [n], `${what}.weight`);
      if (weight.some((w) => !Number.isFinite(w))) fail(`${what}.weight must hold finite slopes`);
      return (data, shape) => {
        if (n > 1 && !(shape.length >= 2 && shape[1] === n)) {
          throw new RangeError(`PReLU.forward(x): ${n} slopes need x.shape[1] to be ${n}, got [${shape.join(', ')}]`);
        }
        return act.prelu(data, shape, weight);
      };
    }),
    Hardsigmoid: floatType('Hardsigmoid', [], noFields(act.hardsigmoid)),
    Hardswish: floatType('Hardswish', [], noFields(act.hardswish)),
    Sigmoid: floatType('Sigmoid', [], noFields(act.sigmoid)),
    Tanh: floatType('Tanh', [], noFields(act.tanh)),
    SiLU: floatType('SiLU', [], noFields(act.silu)),
    ELU: floatType('ELU', ['alpha'], (m, { what }) => elementwise(act.elu(readFloat(m.alpha, `${what}.alpha`)))),
    GELU: floatType('GELU', ['approximate'], (m, { what }) => {
      if (m.approximate !== 'tanh') fail(`${what}.approximate must be 'tanh' (the float GELU qwasm computes)`);
      return elementwise(act.geluTanh);
    }),
    Softplus: floatType('Softplus', ['beta', 'threshold'], (m, { what }) =>
      elementwise(act.softplus(readFloat(m.beta, `${what}.beta`), readFloat(m.threshold, `${what}.threshold`))),
    ),
    Mish: floatType('Mish', [], noFields(act.mish)),
  },
};

// A graph function's run on its float tensor: a QTensor has no table to look up in (the
// module forms, nn.Sigmoid etc., are exported with one).
function runFloat(name, fn) {
  return (x) => {
    if (isQ(x)) {
      throw new NodeError(
        `${name} of a quantized tensor: qwasm runs it in int8 as a module (nn.Sigmoid, ...), which the exporter writes as a table`,
      );
    }
    if (!isFloatTensor(x)) throw new NodeError(`${name}: x must be a float tensor`);
    return { data: act.mapFloats(x.data, fn), shape: x.shape.slice() };
  };
}

const graphCall = (name, fn) => {
  const run = runFloat(name, fn);
  return {
    fn: { args: 1, kwargs: [], run: (args, kwargs) => run(param(args, kwargs, 0, 'input')), cost: activationCost },
    method: { args: 1, kwargs: [], run: (args) => run(args[0]), cost: activationCost },
  };
};
const SIGMOID = graphCall('sigmoid', act.sigmoid);
const TANH = graphCall('tanh', act.tanh);

/** torch.sigmoid, torch.tanh, F.silu, F.hardswish, F.hardsigmoid, F.mish, x.sigmoid(), x.tanh() in a traced float model. */
export const activationFunctions = {
  functions: {
    sigmoid: SIGMOID.fn,
    tanh: TANH.fn,
    silu: graphCall('silu', act.silu).fn,
    hardswish: graphCall('hardswish', act.hardswish).fn,
    hardsigmoid: graphCall('hardsigmoid', act.hardsigmoid).fn,
    mish: graphCall('mish', act.mish).fn,
  },
  methods: { sigmoid: SIGMOID.method, tanh: TANH.method },
};

// The slopes' count, from the file's tensor entry: PReLU has 1, or one per channel.
function readPReLUSize(m, read, what) {
  const shape = read.shapeOf(m.weight, `${what}.weight`);
  if (shape.length !== 1) fail(`${what}.weight must have one dimension, got [${shape.join(', ')}]`);
  return readInt(shape[0], `${what}.weight's length`, 1, 2 ** 24);
}

/** The integers of a quint8 QTensor through a [channels, 256] table, with the output's qparams. */
class QuantizedLookup extends Module {
  #inputScale;
  #inputZeroPoint;
  #scale;
  #zeroPoint;
  #table;
  #channels;

  constructor(inputScale, inputZeroPoint, scale, zeroPoint, table, channels) {
    super();
    this.#inputScale = inputScale;
    this.#inputZeroPoint = inputZeroPoint;
    this.#scale = scale;
    this.#zeroPoint = zeroPoint;
    this.#table = table;
    this.#channels = channels;
  }

  forward(x) {
    const ctx = 'QuantizedLookup.forward(x)';
    if (!isQTensorInstance(x) || x.dtype !== 'quint8' || x.qscheme() !== 'per_tensor_affine') {
      throw new TypeError(`${ctx}: x must be a per-tensor quint8 QTensor`);
    }
    // The table holds f of the 256 values these qparams give, and of no others.
    if (x.qScale() !== this.#inputScale || x.qZeroPoint() !== this.#inputZeroPoint) {
      throw new RangeError(
        `${ctx}: the table was made for input qparams (${this.#inputScale}, ${this.#inputZeroPoint}), x has (${x.qScale()}, ${x.qZeroPoint()})`,
      );
    }
    const shape = [...x.shape];
    const channels = this.#channels;
    if (channels > 1 && !(shape.length >= 2 && shape[1] === channels)) {
      throw new RangeError(`${ctx}: ${channels} tables need x.shape[1] to be ${channels}, got [${shape.join(', ')}]`);
    }
    const c = x.isContiguous() ? null : x.contiguous();
    let ints;
    try {
      ints = (c ?? x).intRepr();
    } finally {
      c?.dispose();
    }
    const table = this.#table;
    const out = new Uint8Array(ints.length);
    if (channels === 1) {
      for (let i = 0; i < ints.length; i++) out[i] = table[ints[i]];
    } else {
      let inner = 1;
      for (let d = 2; d < shape.length; d++) inner *= shape[d];
      // Contiguous [N, C, inner]: one channel's table per run of `inner` elements.
      for (let begin = 0, c = 0; begin < ints.length; begin += inner, c = c + 1 === channels ? 0 : c + 1) {
        const row = c * 256;
        for (let i = begin; i < begin + inner; i++) out[i] = table[row + ints[i]];
      }
    }
    return makePerTensorQuantizedTensor({ data: out, shape }, this.#scale, this.#zeroPoint, 'quint8');
  }

  toString() {
    return `QuantizedLookup(channels=${this.#channels}, scale=${this.#scale}, zero_point=${this.#zeroPoint})`;
  }
}

const readScale = (v, what) => {
  const s = readFloat(v, what);
  const f = Math.fround(s);
  if (!(f > 0) || !Number.isFinite(f)) fail(`${what} ${s} is not a positive finite number in float32`);
  return s;
};

/** The int8 form of every activation above in a PT2E graph: a table PyTorch filled at export. */
export const quantizedLookup = {
  modules: {
    QuantizedLookup: {
      fields: ['input_scale', 'input_zero_point', 'scale', 'zero_point', 'table'],
      build(m, { read, what }) {
        const inputScale = readScale(m.input_scale, `${what}.input_scale`);
        const inputZeroPoint = readInt(m.input_zero_point, `${what}.input_zero_point`, 0, 255);
        const scale = readScale(m.scale, `${what}.scale`);
        const zeroPoint = readInt(m.zero_point, `${what}.zero_point`, 0, 255);
        const shape = read.shapeOf(m.table, `${what}.table`);
        if (shape.length !== 2 || shape[1] !== 256) {
          fail(`${what}.table must have shape [channels, 256], got [${shape.join(', ')}]`);
        }
        const channels = readInt(shape[0], `${what}.table's channel count`, 1, 2 ** 24);
        const table = read.uint8(m.table, [channels, 256], `${what}.table`);
        return new QuantizedLookup(inputScale, inputZeroPoint, scale, zeroPoint, table, channels);
      },
      info: (m) => ({ scale: m.scale, zeroPoint: m.zero_point }),
      cost: perElementAt(RATE.dequantizeElement),
      output: quantizedOutput,
    },
  },
};
