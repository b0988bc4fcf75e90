// Resampling: F.interpolate as a graph function and nn.Upsample as a module
// type, modes nearest, nearest-exact, linear, bilinear and trilinear, on
// float tensors (PyTorch's CPU float32 kernels, bit for bit) and, for nearest,
// nearest-exact and bilinear, on QTensors (PyTorch's quantized kernels, which
// keep the input's qparams). nn/interpolate.mjs holds the arithmetic.

import { nn } from '../nn/index.mjs';
import {
  INTERPOLATE_MODES,
  interpolateScratchBytes,
  interpolateSizes,
  linearValues,
  nearestValues,
  quantizedBilinearValues,
} from '../nn/interpolate.mjs';
import { describe, MAX_NUMEL } from '../runtime/args.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { numel, sameKind } from './abstract-values.mjs';
import { fail, readBool } from './format-readers.mjs';
import { isFloatTensor, isQ, NodeError, onTensor, param } from './graph-calls.mjs';
import { WORK_PER_ELEMENT as RATE } from './work-rates.mjs';

const KWARGS = ['size', 'scale_factor', 'mode', 'align_corners', 'recompute_scale_factor'];

/**
 * F.interpolate's options checked against an input of rank `rank`: an error
 * message, or {mode, alignCorners} as the kernels take them. What PyTorch
 * refuses is refused, with its reason; bicubic and area are not run by qwasm.
 */
function checkOptions(rank, mode, alignCorners) {
  if (typeof mode !== 'string' || !Object.hasOwn(INTERPOLATE_MODES, mode)) {
    const shown = typeof mode === 'string' ? `'${mode}'` : describe(mode);
    return `mode ${shown} is not supported (nearest, nearest-exact, linear, bilinear, trilinear)`;
  }
  const dims = rank - 2;
  if (dims < 1 || dims > 3) return `the input must have 3, 4 or 5 dimensions (N, C and 1 to 3 spatial), got ${rank}`;
  const modeDims = INTERPOLATE_MODES[mode];
  if (modeDims !== null && modeDims !== dims) {
    return `mode '${mode}' takes a ${modeDims + 2}-D input, got ${rank}-D`;
  }
  const nearest = modeDims === null;
  if (nearest && alignCorners !== null) return `align_corners is only for the interpolating modes, not '${mode}'`;
  if (!nearest && alignCorners !== null && typeof alignCorners !== 'boolean') {
    return `align_corners must be true, false or null, got ${describe(alignCorners)}`;
  }
  return { nearest, exact: mode === 'nearest-exact', alignCorners: alignCorners === true };
}

function checkRecompute(v) {
  if (v !== null && typeof v !== 'boolean')
    return `recompute_scale_factor must be true, false or null, got ${describe(v)}`;
  return null;
}

/** The output shape and how to compute it, or an error message. */
function plan(shape, size, scaleFactor, mode, alignCorners, recompute) {
  const options = checkOptions(shape.length, mode, alignCorners);
  if (typeof options === 'string') return options;
  const bad = checkRecompute(recompute);
  if (bad !== null) return bad;
  // An empty batch gives an empty output (PyTorch's upsample kernels check only the other dimensions).
  if (shape.slice(1).some((s) => s < 1)) {
    return `the input ${JSON.stringify(shape)} must not be empty (but for its batch)`;
  }
  const sizes = interpolateSizes(shape.slice(2), size, scaleFactor, recompute);
  if (typeof sizes === 'string') return sizes;
  const out = [shape[0], shape[1], ...sizes.outSize];
  if (numel(out) > MAX_NUMEL) return `the output ${JSON.stringify(out)} would hold more than ${MAX_NUMEL} elements`;
  return { ...options, ...sizes, out };
}

/** F.interpolate(x, size, scale_factor, mode, align_corners, recompute_scale_factor) on a float tensor or a QTensor. */
function interpolateValue(x, size, scaleFactor, mode, alignCorners, recompute) {
  const q = isQ(x);
  if (!q && !isFloatTensor(x)) throw new NodeError(`interpolate: input must be a tensor, got ${describe(x)}`);
  const shape = q ? [...x.shape] : x.shape;
  const p = plan(shape, size, scaleFactor, mode, alignCorners, recompute);
  if (typeof p === 'string') throw new NodeError(`interpolate: ${p}`);
  if (!q) {
    const out = new Float32Array(numel(p.out));
    if (p.nearest) nearestValues(x.data, out, shape, p.outSize, p.scales, p.exact, false);
    else linearValues(x.data, out, shape, p.outSize, p.scales, p.alignCorners, mode, 'interpolate');
    return { data: out, shape: p.out };
  }
  // PyTorch has quantized nearest for 4-D and 5-D inputs and quantized bilinear.
  const why = quantizedRefusal(shape, p, mode);
  if (why !== null) throw new NodeError(`interpolate: ${why}`);
  const ints = x.isContiguous() ? x.intRepr() : null;
  let data = ints;
  if (data === null) {
    const c = x.contiguous();
    try {
      data = c.intRepr();
    } finally {
      c.dispose();
    }
  }
  const out = new Uint8Array(numel(p.out));
  if (p.nearest) nearestValues(data, out, shape, p.outSize, p.scales, p.exact, true);
  else {
    // PyTorch takes its NHWC kernel for an input it sees as channels-last contiguous: a channels-last
    // tensor (a quantized conv's output), one channel or one pixel.
    const channelsLast = shape[1] === 1 || numel(shape.slice(2)) === 1 || !x.isContiguous();
    const kernel = channelsLast ? 'nhwc' : 'nchw';
    quantizedBilinearValues(data, out, shape, p.outSize, p.scales, p.alignCorners, x.qZeroPoint(), kernel);
  }
  if (quantizedWritesChannelsLast(x, shape)) toChannelsLastOrder(out, p.out);
  const y = makePerTensorQuantizedTensor({ data: out, shape: p.out }, x.qScale(), x.qZeroPoint(), x.dtype);
  if (x.isContiguous()) return y;
  // PyTorch allocates the output in the input's suggested memory format: a channels-last input
  // (a quantized conv's output) gives a channels-last output, which decides the kernel of a
  // quantized bilinear after it.
  try {
    return y.contiguous({ memoryFormat: shape.length === 4 ? 'channels_last' : 'channels_last_3d' });
  } finally {
    y.dispose();
  }
}

// Why qwasm does not run this interpolate on a QTensor, or null: PyTorch has no quantized linear,
// nearest 1-D or trilinear.
function quantizedRefusal(shape, p, mode) {
  if (p.nearest ? shape.length > 3 : mode === 'bilinear') return null;
  return `mode '${mode}' on a ${shape.length}-D quantized tensor is not supported (PyTorch has quantized nearest and nearest-exact for 4-D and 5-D tensors, and bilinear; dequantize first)`;
}

// PyTorch's quantized nearest and bilinear kernels take their channels-last loop when the input is
// channels-last contiguous, which a contiguous input with one spatial element also is; its
// output is then allocated contiguous (the input's suggested format) but written in
// channels-last order (measured: [1, 4, 1, 1] to [1, 4, 2, 1] gives c0 c1 c2 c3 c0 c1 c2 c3).
const quantizedWritesChannelsLast = (x, shape) =>
  shape[1] > 1 &&
  numel(shape.slice(2)) === 1 &&
  x
    .stride()
    .slice(2)
    .every((s) => s === 1);

// The values of a contiguous [N, C, ...] output, laid out as PyTorch writes them in that case.
function toChannelsLastOrder(out, shape) {
  const [N, C] = shape;
  const plane = numel(shape.slice(2));
  const logical = out.slice();
  for (let n = 0; n < N; n++) {
    for (let c = 0; c < C; c++) {
      for (let k = 0; k < plane; k++) out[(n * plane + k) * C + c] = logical[(n * C + c) * plane + k];
    }
  }
}

// Work per output element: nearest moves one value (at its kind's element rate); the linear modes
// read 2^dims corners with float32 arithmetic, on floats and on a QTensor's integers alike
// (measured in Node.js 20, one thread: about 60-80 ns per quantized bilinear output, 22 per float
// bilinear and 65 per trilinear one; charged 128 and 256 ns at the rates' 25 s per maxWork).
function work(value, p) {
  if (p.nearest) return numel(p.out) * (value.kind === 'quantized' ? RATE.quantizedElement : RATE.floatElement);
  return numel(p.out) * 2 ** p.outSize.length * RATE.floatElement;
}

/** The planner's cost of interpolate on an abstract input, or null where it cannot run. */
function interpolateCost(x, size, scaleFactor, mode, alignCorners, recompute) {
  const p = plan(x.shape, size, scaleFactor, mode, alignCorners, recompute);
  if (typeof p === 'string') return null;
  if (x.kind === 'quantized' && !(p.nearest ? x.shape.length > 3 : mode === 'bilinear')) return null;
  const scratchBytes = x.kind === 'quantized' ? 0 : interpolateScratchBytes(x.shape, p.outSize, mode);
  return { shape: p.out, work: work(x, p), scratchBytes };
}

// F.interpolate's arguments after the input, by position or keyword, with its defaults.
const options = (args, kwargs, read) => [
  read(args, kwargs, 1, 'size', null),
  read(args, kwargs, 2, 'scale_factor', null),
  read(args, kwargs, 3, 'mode', 'nearest'),
  read(args, kwargs, 4, 'align_corners', null),
  read(args, kwargs, 5, 'recompute_scale_factor', null),
];
const abstractArg = (args, kwargs, i, name, fallback) =>
  i < args.length ? args[i] : Object.hasOwn(kwargs, name) ? kwargs[name] : fallback;

/** nn.Upsample (a module entry with F.interpolate's options as its fields). */
class Upsample extends nn.Module {
  constructor(o) {
    super();
    this.o = o;
  }

  forward(x) {
    const { size, scaleFactor, mode, alignCorners, recompute } = this.o;
    try {
      return interpolateValue(x, size, scaleFactor, mode, alignCorners, recompute);
    } catch (e) {
      if (e instanceof NodeError) throw new Error(`Upsample.forward(x): ${e.message}`);
      throw e;
    }
  }
}

// A module entry's size / scale_factor: null, a number, or one per spatial dimension (checked
// against the input when it runs, as nn.Upsample does).
function readSizeField(v, what, integer) {
  if (v === null) return null;
  const one = (x, w) => {
    const ok = integer ? Number.isSafeInteger(x) && x >= 1 : typeof x === 'number' && Number.isFinite(x) && x > 0;
    if (!ok) fail(`${w} must be ${integer ? 'an integer >= 1' : 'a finite number > 0'}, got ${describe(x)}`);
    return x;
  };
  if (Array.isArray(v)) {
    if (v.length < 1 || v.length > 3) fail(`${what} must hold 1 to 3 values, got ${v.length}`);
    return v.map((x, i) => one(x, `${what}[${i}]`));
  }
  return one(v, what);
}

/** F.interpolate / nn.Upsample. */
export const interpolate = {
  modules: {
    Upsample: {
      fields: KWARGS,
      build(m, { what }) {
        const size = readSizeField(m.size, `${what}.size`, true);
        const scaleFactor = readSizeField(m.scale_factor, `${what}.scale_factor`, false);
        if ((size === null) === (scaleFactor === null))
          fail(`${what}: exactly one of size and scale_factor must be given`);
        const alignCorners = m.align_corners === null ? null : readBool(m.align_corners, `${what}.align_corners`);
        const recompute =
          m.recompute_scale_factor === null
            ? null
            : readBool(m.recompute_scale_factor, `${what}.recompute_scale_factor`);
        const mode = m.mode;
        if (typeof mode !== 'string' || !Object.hasOwn(INTERPOLATE_MODES, mode)) {
          fail(`${what}.mode must be one of ${Object.keys(INTERPOLATE_MODES).join(', ')}, got ${describe(mode)}`);
        }
        if (INTERPOLATE_MODES[mode] === null && alignCorners !== null) {
          fail(`${what}: align_corners is only for the interpolating modes, not '${mode}'`);
        }
        if (recompute === true && size !== null) fail(`${what}: recompute_scale_factor is not meaningful with a size`);
        return new Upsample({ size, scaleFactor, mode, alignCorners, recompute });
      },
      info: (m) => ({
        size: m.size,
        scaleFactor: m.scale_factor,
        mode: m.mode,
        alignCorners: m.align_corners,
        recompute: m.recompute_scale_factor,
      }),
      cost(info, x) {
        return interpolateCost(x, info.size, info.scaleFactor, info.mode, info.alignCorners, info.recompute);
      },
      output: (info, x, shape) => sameKind(x, shape),
    },
  },
  functions: {
    interpolate: {
      args: 6,
      kwargs: KWARGS,
      run: (args, kwargs) => interpolateValue(param(args, kwargs, 0, 'input'), ...options(args, kwargs, param)),
      cost: onTensor((x, args, kwargs) => {
        const c = interpolateCost(x, ...options(args, kwargs, abstractArg));
        return c === null ? null : { value: sameKind(x, c.shape), work: c.work, scratchBytes: c.scratchBytes };
      }),
    },
  },
};
