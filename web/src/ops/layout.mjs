// The ops that move values to new places: torch.permute / x.permute(),
// torch.transpose / x.transpose(), F.pad, squeeze / unsqueeze, slice /
// select / narrow (and split / chunk, which the exporter writes as slices),
// expand, repeat, flip and stack. On a float tensor they copy the
// float32s; on a QTensor they move its integers and keep its qparams
// (moves.mjs), which is what PyTorch's dequantize -> op -> quantize with the
// input's qparams gives, exactly.

import { nn } from '../nn/index.mjs';
import { Module } from '../nn/module.mjs';
import { describe, MAX_RANK } from '../runtime/args.mjs';
import { isTensor, numel, reshapeDims, sameKind } from './abstract-values.mjs';
import { fail, readFloat, readInt } from './format-readers.mjs';
import {
  arg,
  costOf,
  elementWork,
  isFloatTensor,
  isQ,
  NodeError,
  onTensor,
  param,
  shapeOf,
  wantInt,
  withShape,
} from './graph-calls.mjs';
import { sameKindOutput } from './module-costs.mjs';
import {
  expandView,
  fits,
  flipView,
  moveValues,
  narrowView,
  PAD_MODES,
  padData,
  padPlan,
  permutation,
  permuteData,
  qtensorOf,
  repeatView,
  selectView,
  sliceView,
  squeezeShape,
  stackShape,
  stackValues,
  transposition,
  unsqueezeShape,
  viewData,
} from './moves.mjs';

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
  const plan = checked(fits('pad', padPlan(shape, pad, mode)));
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

// A loaded model's nn.ConstantPad / ZeroPad / ReflectionPad / ReplicationPad / CircularPad (1d, 2d, 3d): F.pad
// with the module's padding, mode and value (PyTorch's modules call F.pad so).
class Pad extends Module {
  #padding;
  #mode;
  #value;

  constructor(padding, mode, value) {
    super();
    this.#padding = padding;
    this.#mode = mode;
    this.#value = value;
  }

  forward(x) {
    return padOf(x, this.#padding, this.#mode, this.#value);
  }

  toString() {
    return `Pad(padding=[${this.#padding.join(', ')}], mode='${this.#mode}', value=${this.#value})`;
  }
}

function readPad(m, what) {
  if (!Array.isArray(m.padding) || ![2, 4, 6].includes(m.padding.length)) {
    fail(`${what}.padding must be a list of 2, 4 or 6 integers, got ${describe(m.padding)}`);
  }
  const padding = m.padding.map((v, i) => readInt(v, `${what}.padding[${i}]`, -(2 ** 31), 2 ** 31 - 1));
  if (!PAD_MODES.includes(m.mode)) fail(`${what}.mode must be one of ${PAD_MODES.join(', ')}, got ${describe(m.mode)}`);
  const value = readFloat(m.value, `${what}.value`);
  if (m.mode !== 'constant' && value !== 0) fail(`${what}.value ${value} is only for constant padding`);
  return { padding, mode: m.mode, value };
}

/** F.pad(input, pad, mode='constant', value=None): constant, reflect, replicate and circular; and the pad modules. */
export const pad = {
  modules: {
    Pad: {
      fields: ['padding', 'mode', 'value'],
      build: (m, { what }) => {
        const { padding, mode, value } = readPad(m, what);
        return new Pad(padding, mode, value);
      },
      info: (m) => ({ padding: m.padding, mode: m.mode }),
      cost(info, x) {
        const plan = padPlan(x.shape, info.padding, info.mode);
        return typeof plan === 'string'
          ? null
          : { shape: plan.shape, work: elementWork(x, numel(plan.shape)), scratchBytes: 0 };
      },
      output: sameKindOutput,
    },
  },
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

// A planned result: a message (the op cannot run on these inputs: the run reports it) or an output shape.
const planned = (x, result, work = true) => {
  if (typeof result === 'string') return null;
  const shape = Array.isArray(result) ? result : result.shape;
  return work ? moved(x, shape) : costOf(sameKind(x, shape), 0);
};

function checked(result) {
  if (typeof result === 'string') throw new NodeError(result);
  return result;
}

// dim of squeeze: an int, a list of ints, or absent / null (every dim of size 1).
const squeezeDim = (v) => (v === undefined ? null : v);

const squeezeCall = (self) => ({
  args: 2,
  kwargs: ['dim'],
  run: (args, kwargs) => {
    const x = param(args, kwargs, 0, self);
    return withShape(x, checked(squeezeShape(shapeOf(x, 'squeeze: x'), squeezeDim(arg(args, kwargs, 1, 'dim')))));
  },
  cost: onTensor((x, args, kwargs) =>
    planned(x, squeezeShape(x.shape, squeezeDim(arg(args, kwargs, 1, 'dim'))), false),
  ),
});

/** torch.squeeze(input, dim=None) and x.squeeze(dim=None): dim an int or a list of ints. */
export const squeeze = {
  functions: { squeeze: squeezeCall('input') },
  methods: { squeeze: squeezeCall('self') },
};

const unsqueezeCall = (self) => ({
  args: 2,
  kwargs: ['dim'],
  run: (args, kwargs) => {
    const x = param(args, kwargs, 0, self);
    return withShape(x, checked(unsqueezeShape(shapeOf(x, 'unsqueeze: x'), param(args, kwargs, 1, 'dim'))));
  },
  cost: onTensor((x, args, kwargs) => planned(x, unsqueezeShape(x.shape, arg(args, kwargs, 1, 'dim')), false)),
});

/** torch.unsqueeze(input, dim) and x.unsqueeze(dim). */
export const unsqueeze = {
  functions: { unsqueeze: unsqueezeCall('input') },
  methods: { unsqueeze: unsqueezeCall('self') },
};

// A selection of x's values (a view of its contiguous layout), copied: float32s, or a QTensor's integers.
const viewed = (x, what, view) => moveValues(x, what, (data) => viewData(data, view));

/** x[..., start:end:step, ...] on one dim (aten.slice.Tensor; split and chunk are written as slices). */
export const slice = {
  functions: {
    slice: {
      args: 5,
      kwargs: [],
      run: (args) => {
        const [x, dim, start = null, end = null, step = 1] = args;
        return viewed(x, 'slice: x', checked(sliceView(shapeOf(x, 'slice: x'), dim, start, end, step)));
      },
      cost: onTensor((x, args) =>
        planned(x, sliceView(x.shape, args[1], args[2] ?? null, args[3] ?? null, args[4] ?? 1)),
      ),
    },
  },
};

/** x.select(dim, index), x[..., index, ...]. */
export const select = {
  functions: {
    select: {
      args: 3,
      kwargs: [],
      run: ([x, dim, index]) => viewed(x, 'select: x', checked(selectView(shapeOf(x, 'select: x'), dim, index))),
      cost: onTensor((x, args) => planned(x, selectView(x.shape, args[1], args[2]))),
    },
  },
};

/** x.narrow(dim, start, length) (the PT2E exporter writes it as a slice). */
export const narrow = {
  methods: {
    narrow: {
      args: 4,
      kwargs: [],
      run: ([x, dim, start, length]) =>
        viewed(x, 'narrow: x', checked(narrowView(shapeOf(x, 'narrow: x'), dim, start, length))),
      cost: onTensor((x, args) => planned(x, narrowView(x.shape, args[1], args[2], args[3]))),
    },
  },
};

// A list-of-ints constant of x.expand / x.repeat / x.flip: given as a list or one by one.
function checkIntList(name) {
  return (args) => {
    const values = reshapeDims(args);
    if (values.length > MAX_RANK) return `${name}: at most ${MAX_RANK} values, got ${values.length}`;
    const bad = values.find((v) => !Number.isSafeInteger(v));
    return bad === undefined ? null : `${name}'s values must be integers, got ${describe(bad)}`;
  };
}

/** x.expand(*sizes): a dim of size 1 repeated (-1 keeps a dim). */
export const expand = {
  methods: {
    expand: {
      args: 1 + MAX_RANK,
      kwargs: [],
      checkConstants: checkIntList('expand'),
      run: (args) =>
        viewed(
          args[0],
          'expand: x',
          checked(fits('expand', expandView(shapeOf(args[0], 'expand: x'), reshapeDims(args)))),
        ),
      cost: onTensor((x, args) => planned(x, expandView(x.shape, reshapeDims(args)))),
    },
  },
};

/** x.repeat(*repeats): the tensor tiled. */
export const repeat = {
  methods: {
    repeat: {
      args: 1 + MAX_RANK,
      kwargs: [],
      checkConstants: checkIntList('repeat'),
      run: (args) => {
        const plan = checked(fits('repeat', repeatView(shapeOf(args[0], 'repeat: x'), reshapeDims(args))));
        return moveValues(args[0], 'repeat: x', (data) => ({
          data: viewData(data, plan.gather).data,
          shape: plan.shape,
        }));
      },
      cost: onTensor((x, args) => planned(x, repeatView(x.shape, reshapeDims(args)))),
    },
  },
};

const flipRun = (x, dims) => viewed(x, 'flip: x', checked(flipView(shapeOf(x, 'flip: x'), dims)));

/** torch.flip(input, dims) and x.flip(*dims). */
export const flip = {
  functions: {
    flip: {
      args: 2,
      kwargs: ['dims'],
      run: (args, kwargs) => flipRun(param(args, kwargs, 0, 'input'), param(args, kwargs, 1, 'dims')),
      cost: onTensor((x, args, kwargs) => planned(x, flipView(x.shape, arg(args, kwargs, 1, 'dims')))),
    },
  },
  methods: {
    flip: {
      args: 1 + MAX_RANK,
      kwargs: [],
      checkConstants: checkIntList('flip'),
      run: (args) => flipRun(args[0], reshapeDims(args)),
      cost: onTensor((x, args) => planned(x, flipView(x.shape, reshapeDims(args)))),
    },
  },
};

function stackOf(tensors, dim) {
  if (!Array.isArray(tensors) || tensors.length === 0 || !tensors.every((t) => isQ(t) || isFloatTensor(t))) {
    throw new NodeError(`stack: tensors must be a non-empty list of tensors, got ${describe(tensors)}`);
  }
  const shapes = tensors.map((t, i) => shapeOf(t, `stack: tensors[${i}]`));
  const shape = checked(fits('stack', stackShape(shapes, dim)));
  const d = dim < 0 ? dim + shapes[0].length + 1 : dim;
  const out = stackValues(tensors, shapes[0], d);
  if (out === null) {
    // PyTorch's stack of QTensors is a quantized cat of them unsqueezed, in the first one's qparams.
    const [first] = tensors;
    const views = tensors.map((q) => q.view(unsqueezeShape(shapes[0], d)));
    try {
      return nn.quantized.functional.cat(views, d, first.qScale(), first.qZeroPoint());
    } finally {
      for (const v of views) v.dispose();
    }
  }
  return out.ints ? qtensorOf(out.ints, shape, out.scale, out.zeroPoint, out.dtype) : { data: out.data, shape };
}

/** torch.stack(tensors, dim=0): float tensors, or quantized ones (in the first one's qparams, as PyTorch). */
export const stack = {
  functions: {
    stack: {
      args: 2,
      kwargs: ['dim'],
      tensorInput: (args) => Array.isArray(args[0]) && args[0].length > 0 && args[0].every(isTensor),
      run: (args, kwargs) =>
        stackOf(param(args, kwargs, 0, 'tensors'), wantInt(param(args, kwargs, 1, 'dim', 0), 'stack: dim')),
      cost: (args, kwargs) => {
        const xs = args[0];
        if (!Array.isArray(xs) || xs.length === 0 || !xs.every(isTensor)) return null;
        const x = xs[0];
        if (xs.some((t) => t.shape === null)) return costOf(sameKind(x, null), 0);
        const kinds = new Set(xs.map((t) => t.kind));
        if (kinds.size !== 1) return null;
        return planned(
          x,
          stackShape(
            xs.map((t) => t.shape),
            arg(args, kwargs, 1, 'dim') ?? 0,
          ),
        );
      },
    },
  },
};
