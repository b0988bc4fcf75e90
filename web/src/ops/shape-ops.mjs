// The ops that move no value, or copy them unchanged: Identity (and Dropout,
// which an exported graph holds as one), Flatten and torch.flatten / x.flatten(),
// x.view() / x.reshape() and x.contiguous().

import { nn } from '../nn/index.mjs';
import { describe, MAX_RANK } from '../runtime/args.mjs';
import { flattenShape, numel, reshapeDims, reshapeShape, sameKind } from './abstract-values.mjs';
import { readInt } from './format-readers.mjs';
import {
  arg,
  costOf,
  elementwise,
  isFloatTensor,
  isQ,
  NodeError,
  onTensor,
  param,
  shapeOf,
  wantInt,
  withShape,
} from './graph-calls.mjs';
import { noInfo, perElementAt, sameKindOutput } from './module-costs.mjs';

// A reshape's rank: at most qwasm's tensors' (MAX_RANK, 64), float or quantized.
const MAX_RESHAPE_RANK = MAX_RANK;

/** nn.Identity; nn.Dropout in the eager flow. */
export const identity = {
  modules: {
    Identity: {
      fields: [],
      build: () => new nn.Identity(),
      info: noInfo,
      cost: perElementAt(0),
      output: sameKindOutput,
    },
  },
  // PyTorch's prepare leaves a Dropout (and what is under it) alone, and its
  // numeric suite logs none; the exporter writes one as an Identity.
  eager: [{ float: nn.Dropout, skip: true }],
};

// torch.flatten(x, start_dim, end_dim)
function flattenOf(x, start, end) {
  const shape = shapeOf(x, 'flatten: x');
  const s = wantInt(start, 'flatten: start_dim');
  const e = wantInt(end, 'flatten: end_dim');
  const out = flattenShape(shape, s, e);
  if (out === null) throw new NodeError(`flatten: dims ${s}..${e} are out of range for rank ${shape.length}`);
  return withShape(x, out);
}

const flattenCost = onTensor((x, args, kwargs) => {
  const shape = flattenShape(x.shape, arg(args, kwargs, 1, 'start_dim') ?? 0, arg(args, kwargs, 2, 'end_dim') ?? -1);
  return shape === null ? null : costOf(sameKind(x, shape), 0);
});

// flatten as a function (torch.flatten(input, ...)) and as a method (x.flatten(...)).
const flattenCall = (self) => ({
  args: 3,
  kwargs: ['start_dim', 'end_dim'],
  run: (args, kwargs) =>
    flattenOf(
      param(args, kwargs, 0, self),
      param(args, kwargs, 1, 'start_dim', 0),
      param(args, kwargs, 2, 'end_dim', -1),
    ),
  cost: flattenCost,
});

/** nn.Flatten, torch.flatten(input, start_dim, end_dim) and x.flatten(start_dim, end_dim). */
export const flatten = {
  modules: {
    Flatten: {
      fields: ['start_dim', 'end_dim'],
      build: (m, { what }) =>
        new nn.Flatten(
          readInt(m.start_dim, `${what}.start_dim`, -64, 63),
          readInt(m.end_dim, `${what}.end_dim`, -64, 63),
        ),
      info: (m) => ({ startDim: m.start_dim, endDim: m.end_dim }),
      cost(info, x) {
        const shape = flattenShape(x.shape, info.startDim, info.endDim);
        return shape === null ? null : { shape, work: 0, scratchBytes: 0 };
      },
      output: sameKindOutput,
    },
  },
  functions: { flatten: flattenCall('input') },
  methods: { flatten: flattenCall('self') },
};

function reshapeOf(args) {
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

/** x.view(...) and x.reshape(...) (the exporter writes both as reshape). */
export const reshape = {
  methods: {
    reshape: {
      args: 1 + MAX_RESHAPE_RANK,
      kwargs: [],
      checkConstants: checkReshapeSizes,
      run: reshapeOf,
      cost: onTensor((x, args) => {
        const shape = reshapeShape(x.shape, reshapeDims(args));
        return shape === null ? null : costOf(sameKind(x, shape), 0);
      }),
    },
  },
};

/** x.contiguous(): a QTensor's contiguous copy; a float tensor of a graph is contiguous already. */
export const contiguous = {
  methods: {
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
  },
};
