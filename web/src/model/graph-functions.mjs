// The functions and tensor methods an exported graph may call, each stated
// once: the most positional arguments it takes, the keyword arguments it may
// carry (the exporter refuses others, such as add's alpha: ignoring one would
// change the result), how it runs on real values, and its output and cost on
// abstract values (the planner's, abstract-values.mjs). The names and
// signatures are the model format's vocabulary (vocabulary.json, which
// python/qwasm_export.py states too; tests/js/model/vocabulary.test.mjs checks both).

import { nn } from '../nn/index.mjs';
import { reluFloats } from '../nn/torch-float.mjs';
import { describe, MAX_RANK } from '../runtime/args.mjs';
import { ownBytes } from '../runtime/heap.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import {
  broadcast,
  flattenShape,
  floatValue,
  isTensor,
  numel,
  qValue,
  reshapeDims,
  reshapeShape,
  sameKind,
} from './abstract-values.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const F = nn.quantized.functional;
// A reshape's rank: at most qwasm's tensors' (MAX_RANK, 64), float or quantized.
const MAX_RESHAPE_RANK = MAX_RANK;

/**
 * A function or method a graph may call.
 * @typedef {{args: number, kwargs: string[], run: (args: any[], kwargs: Record<string, any>) => any,
 *   cost: (args: any[], kwargs: Record<string, any>) => ({value: any, work: number, scratchBytes: number} | null),
 *   checkConstants?: (args: any[]) => (string | null)}} GraphCallable
 */

/** A node's arguments do not fit its function (the graph names the node). */
export class NodeError extends Error {}

const isQ = (v) => isQTensorInstance(v);
/** A float tensor {data: Float32Array, shape} as graph values are. */
export const isFloatTensor = (v) =>
  v !== null && typeof v === 'object' && !isQ(v) && v.data instanceof Float32Array && Array.isArray(v.shape);

// Positional argument i or keyword `name` (PyTorch's call conventions), else the default.
function param(args, kwargs, i, name, fallback) {
  if (i < args.length) return args[i];
  if (Object.hasOwn(kwargs, name)) return kwargs[name];
  if (fallback === undefined) throw new NodeError(`missing argument '${name}'`);
  return fallback;
}

// The same for abstract values: undefined when absent (the planner does not throw).
const arg = (args, kwargs, i, name) => (i < args.length ? args[i] : kwargs[name]);

function wantQ(v, what) {
  if (!isQ(v)) throw new NodeError(`${what} must be a quantized tensor, got ${describe(v)}`);
  return v;
}

function wantInt(v, what) {
  if (!Number.isSafeInteger(v)) throw new NodeError(`${what} must be an integer, got ${describe(v)}`);
  return v;
}

function wantNumber(v, what) {
  if (typeof v !== 'number') throw new NodeError(`${what} must be a number, got ${describe(v)}`);
  return v;
}

function shapeOf(v, what) {
  if (isQ(v)) return [...v.shape];
  if (isFloatTensor(v)) return v.shape;
  throw new NodeError(`${what} must be a tensor, got ${describe(v)}`);
}

function withShape(v, shape) {
  return isQ(v) ? v.view(shape) : { data: v.data, shape };
}

// torch.flatten(x, start_dim, end_dim)
function flatten(x, start, end) {
  const shape = shapeOf(x, 'flatten: x');
  const s = wantInt(start, 'flatten: start_dim');
  const e = wantInt(end, 'flatten: end_dim');
  const out = flattenShape(shape, s, e);
  if (out === null) throw new NodeError(`flatten: dims ${s}..${e} are out of range for rank ${shape.length}`);
  return withShape(x, out);
}

function relu(x) {
  if (isQ(x)) return F.relu(x);
  if (!isFloatTensor(x)) throw new NodeError(`relu: x must be a tensor, got ${describe(x)}`);
  // nn.ReLU's formula (torch-float.mjs): -0 and NaN come through.
  return { data: reluFloats(ownBytes(x.data), 'relu'), shape: x.shape.slice() };
}

// torch.add(input, other) of float32 values (a float model's residual add,
// `x + 1.0`): tensors of shapes that broadcast (PyTorch's rules: aligned from
// the last dimension, a size 1 or a missing dimension stretches), or a tensor
// and a number, which PyTorch first converts to float32 (a wrapped number
// takes the tensor's dtype). Each output is one IEEE float32 addition, as
// PyTorch's (a double sum of two float32 values rounds to float32 exactly as
// a float32 sum does), so the result is PyTorch's to the bit.
function floatAdd(a, b) {
  const aTensor = isFloatTensor(a);
  const bTensor = isFloatTensor(b);
  if (isQ(a) || isQ(b))
    throw new NodeError('add: the operands must be float tensors (quantized adds are quantized.add)');
  if (!aTensor && !bTensor) {
    throw new NodeError(`add: one operand must be a float tensor, got ${describe(a)} and ${describe(b)}`);
  }
  if (!aTensor || !bTensor) {
    const [t, s] = aTensor ? [a, b] : [b, a];
    const c = Math.fround(wantNumber(s, 'add: the scalar operand'));
    const data = new Float32Array(t.data.length);
    for (let i = 0; i < data.length; i++) data[i] = t.data[i] + c;
    return { data, shape: t.shape.slice() };
  }
  const shape = broadcast(a.shape, b.shape);
  if (shape === null) {
    throw new NodeError(`add: shapes [${a.shape.join(', ')}] and [${b.shape.join(', ')}] do not broadcast`);
  }
  const data = new Float32Array(numel(shape));
  if (data.length === 0) return { data, shape };
  const sa = broadcastStrides(a.shape, shape);
  const sb = broadcastStrides(b.shape, shape);
  const rank = shape.length;
  if (rank === 0) {
    data[0] = a.data[0] + b.data[0];
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
    for (let j = 0, ja = pa, jb = pb; j < inner; j++, ja += ia, jb += ib) data[out + j] = a.data[ja] + b.data[jb];
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

function reshape(args) {
  const x = args[0];
  const dims = reshapeDims(args);
  const shape = shapeOf(x, 'reshape: x');
  if (dims.length > MAX_RESHAPE_RANK)
    throw new NodeError(`reshape: ${dims.length} dimensions, at most ${MAX_RESHAPE_RANK}`);
  const dimsChecked = dims.map((d, i) => wantInt(d, `reshape: shape[${i}]`));
  if (isQ(x)) return x.view(dimsChecked);
  const inferred = reshapeShape(shape, dimsChecked);
  if (inferred === null) {
    throw new NodeError(
      `reshape: shape [${dimsChecked.join(', ')}] is invalid for ${numel(shape)} elements (at most one -1)`,
    );
  }
  return { data: x.data, shape: inferred };
}

// A reshape's sizes are constants in an exported graph: the loader checks them (a message, or null when they fit).
function checkReshapeSizes(args) {
  const dims = reshapeDims(args);
  if (dims.length > MAX_RESHAPE_RANK) return `reshape to ${dims.length} dimensions, at most ${MAX_RESHAPE_RANK}`;
  const bad = dims.find((d) => !Number.isSafeInteger(d) || d < -1);
  if (bad !== undefined) return `reshape's sizes must be integers >= -1, got ${describe(bad)}`;
  if (dims.filter((d) => d === -1).length > 1)
    return `reshape to [${dims.join(', ')}]: at most one dimension can be -1`;
  return null;
}

// Costs. A node whose tensor input has an unknown shape has an output of
// unknown shape (of `kindOfUnknown`'s kind).
const costOf = (value, work) => ({ value, work, scratchBytes: 0 });

const onTensor =
  (cost, kindOfUnknown = (x) => sameKind(x, null)) =>
  (args, kwargs) => {
    const x = args[0];
    if (!isTensor(x)) return null;
    if (x.shape === null) return costOf(kindOfUnknown(x), 0);
    return cost(x, args, kwargs);
  };

// Per output element, at the rate of the value's kind (work-rates.mjs).
const elementWork = (value, n) => n * (value.kind === 'quantized' ? RATE.quantizedElement : RATE.floatElement);

const elementwise = onTensor((x) => costOf(sameKind(x, x.shape), elementWork(x, numel(x.shape))));

const flattenCost = onTensor((x, args, kwargs) => {
  const shape = flattenShape(x.shape, arg(args, kwargs, 1, 'start_dim') ?? 0, arg(args, kwargs, 2, 'end_dim') ?? -1);
  return shape === null ? null : costOf(sameKind(x, shape), 0);
});

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

// The float add: two float tensors (broadcast), or a float tensor and a number.
function floatAddCost(args, kwargs) {
  const a = arg(args, kwargs, 0, 'input');
  const b = arg(args, kwargs, 1, 'other');
  const operands = [a, b].filter(isTensor);
  if (operands.length === 0 || operands.some((v) => v.kind !== 'float')) return null;
  if (operands.length === 1 && typeof (operands[0] === a ? b : a) !== 'number') return null;
  if (operands.some((v) => v.shape === null)) return costOf(floatValue(null), 0);
  const shape = operands.length === 1 ? operands[0].shape : broadcast(a.shape, b.shape);
  return shape === null ? null : costOf(floatValue(shape), numel(shape) * RATE.floatElement);
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

// flatten as a function (torch.flatten(input, ...)) and as a method (x.flatten(...)).
const flattenEntry = (self) => ({
  args: 3,
  kwargs: ['start_dim', 'end_dim'],
  run: (args, kwargs) =>
    flatten(
      param(args, kwargs, 0, self),
      param(args, kwargs, 1, 'start_dim', 0),
      param(args, kwargs, 2, 'end_dim', -1),
    ),
  cost: flattenCost,
});

/**
 * The functions an exported graph may call (python/qwasm_export.py's names):
 * {args: most positional arguments, kwargs: the keyword arguments allowed,
 * run(args, kwargs): its output, cost(args, kwargs): its output and cost on
 * abstract values, or null where it cannot run on them, and optionally
 * checkConstants(args): what is wrong with constant arguments the loader can
 * check in the file, or null}.
 */
export const GRAPH_FUNCTIONS = /** @type {Readonly<Record<string, GraphCallable>>} */ (
  Object.freeze({
    'quantized.add': quantizedBinary(F.add),
    'quantized.add_relu': quantizedBinary(F.addRelu),
    'quantized.mul': quantizedBinary(F.mul),
    'quantized.mul_relu': quantizedBinary(F.mulRelu),
    'quantized.add_scalar': quantizedScalar(F.addScalar),
    'quantized.mul_scalar': quantizedScalar(F.mulScalar),
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
    },
    cat: {
      args: 2,
      kwargs: ['dim'],
      run: (args, kwargs) => floatCat(param(args, kwargs, 0, 'tensors'), param(args, kwargs, 1, 'dim', 0)),
      cost: (args, kwargs) => catCost(args, kwargs, ['tensors', 'dim']),
    },
    flatten: flattenEntry('input'),
    relu: { args: 1, kwargs: [], run: (args, kwargs) => relu(param(args, kwargs, 0, 'input')), cost: elementwise },
    add: {
      args: 2,
      kwargs: [],
      run: (args, kwargs) => floatAdd(param(args, kwargs, 0, 'input'), param(args, kwargs, 1, 'other')),
      cost: floatAddCost,
    },
  })
);

/** The tensor methods an exported graph may call (x is args[0]); entries as GRAPH_FUNCTIONS'. */
export const GRAPH_METHODS = /** @type {Readonly<Record<string, GraphCallable>>} */ (
  Object.freeze({
    flatten: flattenEntry('self'),
    reshape: {
      args: 1 + MAX_RESHAPE_RANK,
      kwargs: [],
      checkConstants: checkReshapeSizes,
      run: reshape,
      cost: onTensor((x, args) => {
        const shape = reshapeShape(x.shape, reshapeDims(args));
        return shape === null ? null : costOf(sameKind(x, shape), 0);
      }),
    },
    relu: { args: 1, kwargs: [], run: (args) => relu(args[0]), cost: elementwise },
    dequantize: {
      args: 1,
      kwargs: [],
      run: (args) => wantQ(args[0], 'dequantize: x').dequantize(),
      cost: onTensor(
        (x) => costOf(floatValue(x.shape), numel(x.shape) * RATE.dequantizeElement),
        () => floatValue(null),
      ),
    },
    contiguous: {
      args: 1,
      kwargs: [],
      run: (args) => {
        const x = args[0];
        if (isQ(x)) return x.contiguous();
        if (!isFloatTensor(x)) throw new NodeError(`contiguous: x must be a tensor, got ${describe(x)}`);
        return x;
      },
      cost: elementwise,
    },
  })
);

/**
 * The entry of a call_function / call_method node's target, or undefined when the graph may not call it.
 * @returns {GraphCallable | undefined}
 */
export function graphCallable(op, target) {
  const table = op === 'call_function' ? GRAPH_FUNCTIONS : op === 'call_method' ? GRAPH_METHODS : null;
  return table !== null && typeof target === 'string' && Object.hasOwn(table, target) ? table[target] : undefined;
}
