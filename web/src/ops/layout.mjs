// The ops that move values to new places: torch.permute / x.permute(),
// torch.transpose / x.transpose(), F.pad. On a float tensor they copy the
// float32s; on a QTensor they move its integers and keep its qparams
// (moves.mjs), which is what PyTorch's dequantize -> op -> quantize with the
// input's qparams gives, exactly.

import { describe, MAX_RANK } from '../runtime/args.mjs';
import { numel, reshapeDims, sameKind } from './abstract-values.mjs';
import { arg, costOf, elementWork, NodeError, onTensor, param, shapeOf, wantInt } from './graph-calls.mjs';
import { moveValues, PAD_MODES, padData, padPlan, permutation, permuteData, transposition } from './moves.mjs';

const moved = (x, shape) => costOf(sameKind(x, shape), elementWork(x, numel(shape)));

function permuteOf(x, dims) {
  const shape = shapeOf(x, 'permute: x');
  const perm = permutation(dims, shape.length);
  if (typeof perm === 'string') throw new NodeError(perm);
  return moveValues(x, 'permute: x', (data, s) => permuteData(data, s, perm));
}

function permuteCost(x, dims) {
  const perm = permutation(dims, x.shape.length);
  return typeof perm === 'string'
    ? null
    : moved(
        x,
        perm.map((p) => x.shape[p]),
      );
}

// The dims of a permute are constants in an exported graph: the loader checks them.
function checkPermuteDims(dims) {
  if (!Array.isArray(dims) || dims.length > MAX_RANK) {
    return `permute's dims must be a list of at most ${MAX_RANK} integers, got ${describe(dims)}`;
  }
  const bad = dims.find((d) => !Number.isSafeInteger(d));
  return bad === undefined ? null : `permute's dims must be integers, got ${describe(bad)}`;
}

/** torch.permute(input, dims) and x.permute(*dims) / x.permute(dims). */
export const permute = {
  functions: {
    permute: {
      args: 2,
      kwargs: ['dims'],
      checkConstants: (args) => (args.length > 1 ? checkPermuteDims(args[1]) : null),
      run: (args, kwargs) => permuteOf(param(args, kwargs, 0, 'input'), param(args, kwargs, 1, 'dims')),
      cost: onTensor((x, args, kwargs) => permuteCost(x, arg(args, kwargs, 1, 'dims'))),
    },
  },
  methods: {
    permute: {
      args: 1 + MAX_RANK,
      kwargs: [],
      checkConstants: (args) => checkPermuteDims(reshapeDims(args)),
      run: (args) => permuteOf(args[0], reshapeDims(args)),
      cost: onTensor((x, args) => permuteCost(x, reshapeDims(args))),
    },
  },
};

function transposeOf(x, dim0, dim1) {
  const shape = shapeOf(x, 'transpose: x');
  const perm = transposition(wantInt(dim0, 'transpose: dim0'), wantInt(dim1, 'transpose: dim1'), shape.length);
  if (typeof perm === 'string') throw new NodeError(perm);
  return moveValues(x, 'transpose: x', (data, s) => permuteData(data, s, perm));
}

const transposeCost = onTensor((x, args, kwargs) => {
  const perm = transposition(arg(args, kwargs, 1, 'dim0'), arg(args, kwargs, 2, 'dim1'), x.shape.length);
  return typeof perm === 'string'
    ? null
    : moved(
        x,
        perm.map((p) => x.shape[p]),
      );
});

const transposeCall = (self) => ({
  args: 3,
  kwargs: ['dim0', 'dim1'],
  run: (args, kwargs) =>
    transposeOf(param(args, kwargs, 0, self), param(args, kwargs, 1, 'dim0'), param(args, kwargs, 2, 'dim1')),
  cost: transposeCost,
});

/** torch.transpose(input, dim0, dim1) and x.transpose(dim0, dim1). */
export const transpose = {
  functions: { transpose: transposeCall('input') },
  methods: { transpose: transposeCall('self') },
};

// F.pad's value: a number, or None (0).
function padValue(value) {
  if (value === null || value === undefined) return 0;
  if (typeof value !== 'number') throw new NodeError(`pad: value must be a number, got ${describe(value)}`);
  return value;
}

function padOf(x, pad, mode, value) {
  const shape = shapeOf(x, 'pad: x');
  const plan = padPlan(shape, pad, mode);
  if (typeof plan === 'string') throw new NodeError(plan);
  const fill = padValue(value);
  if (mode !== 'constant' && fill !== 0) {
    throw new NodeError(`pad: a value (${fill}) is only for constant padding, not ${mode}`);
  }
  return moveValues(x, 'pad: x', (data, s, f) => padData(data, s, plan, f), fill);
}

function checkPadConstants(args) {
  const [, pad, mode, value] = args;
  if (
    pad !== undefined &&
    (!Array.isArray(pad) || pad.length > 2 * MAX_RANK || pad.some((p) => !Number.isSafeInteger(p)))
  ) {
    return `pad's pad must be a list of at most ${2 * MAX_RANK} integers, got ${describe(pad)}`;
  }
  if (mode !== undefined && !PAD_MODES.includes(mode)) {
    return `pad's mode must be one of ${PAD_MODES.join(', ')}, got ${describe(mode)}`;
  }
  if (value !== undefined && value !== null && typeof value !== 'number') {
    return `pad's value must be a number, got ${describe(value)}`;
  }
  return null;
}

/** F.pad(input, pad, mode='constant', value=None): constant, reflect, replicate and circular. */
export const pad = {
  functions: {
    pad: {
      args: 4,
      kwargs: ['pad', 'mode', 'value'],
      checkConstants: checkPadConstants,
      run: (args, kwargs) =>
        padOf(
          param(args, kwargs, 0, 'input'),
          param(args, kwargs, 1, 'pad'),
          param(args, kwargs, 2, 'mode', 'constant'),
          param(args, kwargs, 3, 'value', null),
        ),
      cost: onTensor((x, args, kwargs) => {
        const plan = padPlan(x.shape, arg(args, kwargs, 1, 'pad'), arg(args, kwargs, 2, 'mode') ?? 'constant');
        return typeof plan === 'string' ? null : moved(x, plan.shape);
      }),
    },
  },
};
