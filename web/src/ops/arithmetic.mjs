// The arithmetic of a graph: the quantized add, mul and cat that a
// FloatFunctional becomes (quantized.add, add_relu, mul, mul_relu,
// add_scalar, mul_scalar, cat), and the float add, mul, sub, div and cat a
// graph with float ops between quantized ones keeps (a PT2E graph's, a float
// model's residual add, a squeeze-excitation's scale).

import { nn } from '../nn/index.mjs';
import { describe } from '../runtime/args.mjs';
import { broadcast, floatValue, isTensor, numel, qValue } from './abstract-values.mjs';
import { qparamsState } from './eager.mjs';
import {
  arg,
  costOf,
  elementWork,
  isFloatTensor,
  isQ,
  NodeError,
  param,
  wantInt,
  wantNumber,
  wantQ,
} from './graph-calls.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const F = nn.quantized.functional;

// quantized.add / mul (and their relu forms): the output qparams are the node's.
function quantizedBinaryCost(args, kwargs) {
  const x = args[0];
  if (!isTensor(x)) return null;
  const y = arg(args, kwargs, 1, 'qb');
  if (!isTensor(y)) return null;
  const scale = arg(args, kwargs, 2, 'scale');
  const zeroPoint = arg(args, kwargs, 3, 'zero_point');
  if (x.shape === null || y.shape === null) return costOf(qValue(null, scale, zeroPoint), 0);
  const shape = broadcast(x.shape, y.shape);
  return shape === null ? null : costOf(qValue(shape, scale, zeroPoint), numel(shape) * RATE.quantizedElement);
}

// The output qparams of add_scalar / mul_scalar follow from the input's and the scalar (known after a run).
function quantizedScalarCost(args) {
  const x = args[0];
  if (!isTensor(x)) return null;
  return costOf(qValue(x.shape, null, null), x.shape === null ? 0 : numel(x.shape) * RATE.quantizedElement);
}

const quantizedBinary = (op) => ({
  args: 4,
  kwargs: ['scale', 'zero_point'],
  run: (args, kwargs) =>
    op(
      wantQ(param(args, kwargs, 0, 'qa'), 'qa'),
      wantQ(param(args, kwargs, 1, 'qb'), 'qb'),
      wantNumber(param(args, kwargs, 2, 'scale'), 'scale'),
      wantInt(param(args, kwargs, 3, 'zero_point'), 'zero_point'),
    ),
  cost: quantizedBinaryCost,
});

const quantizedScalar = (op) => ({
  args: 2,
  kwargs: [],
  run: (args, kwargs) => op(wantQ(param(args, kwargs, 0, 'qa'), 'qa'), wantNumber(param(args, kwargs, 1, 'b'), 'b')),
  cost: quantizedScalarCost,
});

// The element strides of a contiguous tensor of `shape` read as `out`'s shape:
// 0 along the dimensions it is broadcast over (missing, or of size 1).
function broadcastStrides(shape, out) {
  const strides = new Array(out.length).fill(0);
  let step = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const d = out.length - shape.length + i;
    strides[d] = shape[i] === 1 && out[d] !== 1 ? 0 : step;
    step *= shape[i];
  }
  return strides;
}

// A binary op of float32 values (torch.add, mul, sub, div): tensors of shapes
// that broadcast (PyTorch's rules: aligned from the last dimension, a size 1
// or a missing dimension stretches), or a tensor and a number, which PyTorch
// first converts to float32 (a wrapped number takes the tensor's dtype), on
// either side. Each output is one IEEE float32 operation, as PyTorch's: `op`
// gives the exact double result of two float32s (sum, difference, product)
// or the double quotient, and storing it in a Float32Array rounds it once to
// float32, which equals the float32 operation (a double carries more than
// twice float32's precision, so the second rounding never differs). So the
// result is PyTorch's to the bit.
function floatBinary(name, a, b, op) {
  const aTensor = isFloatTensor(a);
  const bTensor = isFloatTensor(b);
  if (isQ(a) || isQ(b))
    throw new NodeError(`${name}: the operands must be float tensors, got a quantized one (dequantize it first)`);
  if (!aTensor && !bTensor) {
    throw new NodeError(`${name}: one operand must be a float tensor, got ${describe(a)} and ${describe(b)}`);
  }
  const scalar = (s) => ({ data: new Float32Array([wantNumber(s, `${name}: the scalar operand`)]), shape: [] });
  const x = aTensor ? a : scalar(a);
  const y = bTensor ? b : scalar(b);
  const shape = broadcast(x.shape, y.shape);
  if (shape === null) {
    throw new NodeError(`${name}: shapes [${x.shape.join(', ')}] and [${y.shape.join(', ')}] do not broadcast`);
  }
  const data = new Float32Array(numel(shape));
  if (data.length === 0) return { data, shape };
  const sa = broadcastStrides(x.shape, shape);
  const sb = broadcastStrides(y.shape, shape);
  const rank = shape.length;
  if (rank === 0) {
    data[0] = op(x.data[0], y.data[0]);
    return { data, shape };
  }
  // Row by row along the last dimension; an odometer over the others.
  const inner = shape[rank - 1];
  const ia = sa[rank - 1];
  const ib = sb[rank - 1];
  const index = new Array(rank - 1).fill(0);
  let pa = 0;
  let pb = 0;
  for (let out = 0; out < data.length; out += inner) {
    for (let j = 0, ja = pa, jb = pb; j < inner; j++, ja += ia, jb += ib) data[out + j] = op(x.data[ja], y.data[jb]);
    for (let d = rank - 2; d >= 0; d--) {
      index[d] += 1;
      pa += sa[d];
      pb += sb[d];
      if (index[d] < shape[d]) break;
      pa -= sa[d] * shape[d];
      pb -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
  return { data, shape };
}

const floatAdd = (a, b) => floatBinary('add', a, b, (x, y) => x + y);

// A float binary op: two float tensors (broadcast), or a float tensor and a number.
function floatBinaryCost(args, kwargs) {
  const a = arg(args, kwargs, 0, 'input');
  const b = arg(args, kwargs, 1, 'other');
  const operands = [a, b].filter(isTensor);
  if (operands.length === 0 || operands.some((v) => v.kind !== 'float')) return null;
  if (operands.length === 1 && typeof (operands[0] === a ? b : a) !== 'number') return null;
  if (operands.some((v) => v.shape === null)) return costOf(floatValue(null), 0);
  const shape = operands.length === 1 ? operands[0].shape : broadcast(a.shape, b.shape);
  return shape === null ? null : costOf(floatValue(shape), numel(shape) * RATE.floatElement);
}

/** torch.ops.quantized.add / add_relu / add_scalar (FloatFunctional's add, add_relu, add_scalar), and the float torch.add. */
export const add = {
  functions: {
    'quantized.add': quantizedBinary(F.add),
    'quantized.add_relu': quantizedBinary(F.addRelu),
    'quantized.add_scalar': quantizedScalar(F.addScalar),
    add: {
      args: 2,
      kwargs: [],
      run: (args, kwargs) => floatAdd(param(args, kwargs, 0, 'input'), param(args, kwargs, 1, 'other')),
      cost: floatBinaryCost,
      // Its tensor may be either operand, as in 1.0 + x.
      tensorInput: (args) => isTensor(args[0]) || isTensor(args[1]),
    },
  },
};

// torch.mul / sub / div of float tensors (or a tensor and a number, on either side).
const floatBinaryCall = (name, op) => ({
  args: 2,
  kwargs: [],
  run: (args, kwargs) => floatBinary(name, param(args, kwargs, 0, 'input'), param(args, kwargs, 1, 'other'), op),
  cost: floatBinaryCost,
  tensorInput: (args) => isTensor(args[0]) || isTensor(args[1]),
});

/** torch.ops.quantized.mul / mul_relu / mul_scalar (FloatFunctional's mul, mul_scalar), and the float torch.mul. */
export const mul = {
  functions: {
    'quantized.mul': quantizedBinary(F.mul),
    'quantized.mul_relu': quantizedBinary(F.mulRelu),
    'quantized.mul_scalar': quantizedScalar(F.mulScalar),
    mul: floatBinaryCall('mul', (x, y) => x * y),
  },
};

/** The float torch.sub (alpha 1): one float32 subtraction per element. */
export const sub = { functions: { sub: floatBinaryCall('sub', (x, y) => x - y) } };

/** The float torch.div (true division, no rounding mode): one float32 division per element. */
export const div = { functions: { div: floatBinaryCall('div', (x, y) => x / y) } };

// torch.cat(tensors, dim) of float tensors (a graph with float ops between
// quantized ones, e.g. torchao's XNNPACKQuantizer's): equal shapes but at dim.
function floatCat(xs, dim) {
  if (!Array.isArray(xs) || xs.length === 0)
    throw new NodeError(`cat: tensors must be a non-empty list, got ${describe(xs)}`);
  xs.forEach((x, i) => {
    if (!isFloatTensor(x)) throw new NodeError(`cat: tensors[${i}] must be a float tensor, got ${describe(x)}`);
  });
  const rank = xs[0].shape.length;
  const d0 = wantInt(dim, 'cat: dim');
  const d = d0 < 0 ? d0 + rank : d0;
  if (d < 0 || d >= rank) throw new NodeError(`cat: dim ${d0} is out of range for rank ${rank}`);
  const shape = xs[0].shape.slice();
  shape[d] = 0;
  for (const [i, x] of xs.entries()) {
    if (x.shape.length !== rank || x.shape.some((n, j) => j !== d && n !== xs[0].shape[j])) {
      throw new NodeError(
        `cat: tensors[${i}] has shape [${x.shape.join(', ')}], which differs from [${xs[0].shape.join(', ')}] outside dim ${d}`,
      );
    }
    shape[d] += x.shape[d];
  }
  // Blocks of (size of dim d) x (inner) values, one per outer index, from each input in turn.
  const outer = numel(shape.slice(0, d));
  const inner = numel(shape.slice(d + 1));
  const data = new Float32Array(numel(shape));
  let at = 0;
  for (let o = 0; o < outer; o++) {
    for (const x of xs) {
      const block = x.shape[d] * inner;
      data.set(x.data.subarray(o * block, (o + 1) * block), at);
      at += block;
    }
  }
  return { data, shape };
}

function catCost(args, kwargs, names = ['qx', 'dim']) {
  const xs = arg(args, kwargs, 0, names[0]);
  const dim = arg(args, kwargs, 1, names[1]);
  if (!Array.isArray(xs) || xs.length === 0 || !xs.every(isTensor) || !Number.isSafeInteger(dim)) return null;
  if (xs.some((v) => v.shape === null)) return costOf(qValue(null, null, null), 0);
  const rank = xs[0].shape.length;
  const d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank || xs.some((v) => v.shape.length !== rank)) return null;
  const shape = xs[0].shape.slice();
  shape[d] = xs.reduce((s, v) => s + v.shape[d], 0);
  const out =
    names[0] === 'qx'
      ? qValue(shape, arg(args, kwargs, 2, 'scale'), arg(args, kwargs, 3, 'zero_point'))
      : floatValue(shape);
  return costOf(out, elementWork(out, numel(shape)));
}

// A cat takes a list of tensors: the op reports what in it does not fit.
const takesList = () => true;

/** torch.ops.quantized.cat (FloatFunctional's cat) and the float torch.cat. */
export const cat = {
  functions: {
    'quantized.cat': {
      args: 4,
      kwargs: ['scale', 'zero_point', 'dim'],
      run: (args, kwargs) => {
        const xs = param(args, kwargs, 0, 'qx');
        if (!Array.isArray(xs)) throw new NodeError(`cat: qx must be a list of tensors, got ${describe(xs)}`);
        return F.cat(
          xs.map((x, i) => wantQ(x, `qx[${i}]`)),
          wantInt(param(args, kwargs, 1, 'dim'), 'dim'),
          wantNumber(param(args, kwargs, 2, 'scale'), 'scale'),
          wantInt(param(args, kwargs, 3, 'zero_point'), 'zero_point'),
        );
      },
      cost: catCost,
      tensorInput: takesList,
    },
    cat: {
      args: 2,
      kwargs: ['dim'],
      run: (args, kwargs) => floatCat(param(args, kwargs, 0, 'tensors'), param(args, kwargs, 1, 'dim', 0)),
      cost: (args, kwargs) => catCost(args, kwargs, ['tensors', 'dim']),
      tensorInput: takesList,
    },
  },
};

/**
 * nn.quantized.FloatFunctional, which convert() makes a QFunctional: its ops
 * (observed, and logged by the numeric suite, op by op) become the quantized
 * functions above in an exported graph.
 */
export const floatFunctional = {
  eager: [
    {
      float: nn.quantized.FloatFunctional,
      subclasses: true,
      quantized: nn.quantized.QFunctional,
      observe: 'functional',
      convert: (child) => nn.quantized.QFunctional.fromFloat(child),
      ops: ['add', 'addRelu', 'mul', 'cat', 'addScalar', 'mulScalar'],
      quantizedState: qparamsState,
    },
  ],
};
