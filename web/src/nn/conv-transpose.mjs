// A float transposed convolution (PyTorch's nn.ConvTranspose1d / 2d / 3d in
// eval), as the model loader builds it from a ConvTranspose entry. PyTorch
// sums its float32 products in an order of its own (oneDNN, or the slow
// col2im path), which qwasm cannot follow; here every product of two float32
// values is exact in float64, the sum runs in float64 in one fixed order (the
// bias, then input channel, then kernel tap (kd, kh, kw) ascending) and is
// rounded to float32 once: within 1 ulp of the exact sum (docs/numerics.md,
// "Transposed convolution").
import { describe, readFloatTensor } from '../runtime/args.mjs';
import { isQTensorInstance, qtensorHandle } from '../tensors/qtensor.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { axisBox } from './conv-transpose-phases.mjs';
import { Module } from './module.mjs';

/** Output size of a transposed conv along one dimension (ConvUtils.h, conv_input_size). */
export const transposedOut = (size, kernel, stride, pad, outputPad, dilation) =>
  (size - 1) * stride - 2 * pad + dilation * (kernel - 1) + outputPad + 1;

// The most elements one output may hold (a Float32Array's bound, well above the planner's budgets).
const MAX_OUTPUT_ELEMENTS = 2 ** 31 - 1;

// A QTensor's integers as a view into wasm memory (no copy): valid until wasm memory next grows.
const integersInPlace = (q) => qtensorHandle(q, 'QuantizedConvTranspose').intReprView();

// A dims-d geometry lifted to 3 dims: the missing leading dims have kernel, stride and dilation 1 and no padding.
const lift = (values, dims, fill) => [...Array(3 - dims).fill(fill), ...values];

/**
 * The output shape of a transposed conv (geometry lifted to 3 dims) for an input shape (batched, or
 * unbatched when allowed), or a string saying why PyTorch refuses it.
 */
function outputShapeOf(d, g, shape, unbatched) {
  if (shape.length !== d + 2 && !(unbatched && shape.length === d + 1)) {
    const ranks = unbatched ? `a ${d + 1}-d (unbatched) or ${d + 2}-d` : `a ${d + 2}-d`;
    return `expected ${ranks} input, got shape [${shape.join(', ')}]`;
  }
  const c = shape[shape.length - d - 1];
  if (c !== g.inChannels) return `expected ${g.inChannels} input channels, got ${c} (shape [${shape.join(', ')}])`;
  const spatial = shape.slice(shape.length - d);
  // PyTorch's ConvUtils.h check_input_shape_forward: only the batch may be empty.
  if (spatial.includes(0)) return `only zero batch inputs are supported, got shape [${shape.join(', ')}]`;
  const out = spatial.map((s, i) => {
    const j = 3 - d + i;
    return transposedOut(s, g.kernel[j], g.stride[j], g.padding[j], g.outputPadding[j], g.dilation[j]);
  });
  if (out.some((o) => o < 1)) {
    return `the output size [${out.join(', ')}] for input [${shape.join(', ')}] is too small (PyTorch refuses it)`;
  }
  const result = [...shape.slice(0, shape.length - d - 1), g.outChannels, ...out];
  const n = result.reduce((a, b) => a * b, 1);
  if (!(n <= MAX_OUTPUT_ELEMENTS))
    return `the output [${result.join(', ')}] has more than ${MAX_OUTPUT_ELEMENTS} elements`;
  return result;
}

// A geometry of dims entries, lifted to 3 dims.
function liftGeometry(dims, g) {
  return {
    inChannels: g.inChannels,
    outChannels: g.outChannels,
    groups: g.groups,
    kernel: lift(g.kernel, dims, 1),
    stride: lift(g.stride, dims, 1),
    padding: lift(g.padding, dims, 0),
    outputPadding: lift(g.outputPadding, dims, 0),
    dilation: lift(g.dilation, dims, 1),
  };
}

export class ConvTransposeFloat extends Module {
  #dims;
  #g; // {inChannels, outChannels, groups, kernel, stride, padding, outputPadding, dilation}: each list of 3
  #weight; // Float32Array [in, out / groups, kd, kh, kw]
  #bias; // Float32Array [out] or null

  /**
   * @param {number} dims 1, 2 or 3
   * @param {{inChannels: number, outChannels: number, groups: number, kernel: number[], stride: number[],
   *   padding: number[], outputPadding: number[], dilation: number[]}} g checked by the caller (dims long each)
   */
  constructor(dims, g, weight, bias) {
    super();
    this.#dims = dims;
    this.#g = liftGeometry(dims, g);
    this.#weight = weight;
    this.#bias = bias;
  }

  /** The output shape for an input shape, or a string saying why PyTorch refuses it. */
  outputShape(shape) {
    return outputShapeOf(this.#dims, this.#g, shape, true);
  }

  forward(x) {
    const ctx = `nn.ConvTranspose${this.#dims}d.forward(x)`;
    const t = readFloatTensor(x, ctx);
    if (t.data.length !== t.numel) {
      throw new RangeError(
        `${ctx}: x.shape [${t.shape.join(', ')}] holds ${t.numel} elements but x.data has ${t.data.length}`,
      );
    }
    const outShape = this.outputShape(t.shape);
    if (typeof outShape === 'string') throw new RangeError(`${ctx}: ${outShape}`);
    const d = this.#dims;
    const lead = t.shape.length === d + 2 ? t.shape[0] : 1;
    const inSpatial = lift(t.shape.slice(t.shape.length - d), d, 1);
    const outSpatial = lift(outShape.slice(outShape.length - d), d, 1);
    const data = new Float32Array(outShape.reduce((a, b) => a * b, 1));
    if (data.length > 0) this.#run(t.data, lead, inSpatial, outSpatial, data);
    return { data, shape: outShape };
  }

  // One output channel at a time: its sums in float64 (scratch of one channel's outputs), rounded once.
  #run(x, batch, inSpatial, outSpatial, out) {
    const [ID, IH, IW] = inSpatial;
    const [OD, OH, OW] = outSpatial;
    const g = this.#g;
    const [KD, KH, KW] = g.kernel;
    const [sd, sh, sw] = g.stride;
    const [pd, ph, pw] = g.padding;
    const [dd, dh, dw] = g.dilation;
    const icg = g.inChannels / g.groups;
    const ocg = g.outChannels / g.groups;
    const inPlane = ID * IH * IW;
    const outPlane = OD * OH * OW;
    const taps = KD * KH * KW;
    const w = this.#weight;
    const acc = new Float64Array(outPlane);
    for (let n = 0; n < batch; n++) {
      for (let oc = 0; oc < g.outChannels; oc++) {
        const group = Math.floor(oc / ocg);
        const ocl = oc - group * ocg;
        acc.fill(this.#bias === null ? 0 : this.#bias[oc]);
        for (let icl = 0; icl < icg; icl++) {
          const ic = group * icg + icl;
          const xBase = (n * g.inChannels + ic) * inPlane;
          const wBase = (ic * ocg + ocl) * taps;
          for (let kd = 0; kd < KD; kd++) {
            for (let kh = 0; kh < KH; kh++) {
              for (let kw = 0; kw < KW; kw++) {
                const wv = w[wBase + (kd * KH + kh) * KW + kw];
                // The input columns whose output column iw * sw - pw + kw * dw lies in [0, OW).
                const shiftW = kw * dw - pw;
                const iwLo = Math.max(0, Math.ceil(-shiftW / sw));
                const iwHi = Math.min(IW - 1, Math.floor((OW - 1 - shiftW) / sw));
                if (iwLo > iwHi) continue;
                for (let id = 0; id < ID; id++) {
                  const od = id * sd - pd + kd * dd;
                  if (od < 0 || od >= OD) continue;
                  for (let ih = 0; ih < IH; ih++) {
                    const oh = ih * sh - ph + kh * dh;
                    if (oh < 0 || oh >= OH) continue;
                    const xRow = xBase + (id * IH + ih) * IW;
                    const aRow = (od * OH + oh) * OW + shiftW;
                    for (let iw = iwLo; iw <= iwHi; iw++) acc[aRow + iw * sw] += x[xRow + iw] * wv;
                  }
                }
              }
            }
          }
        }
        out.set(acc, (n * g.outChannels + oc) * outPlane); // each float64 sum rounded to float32 once
      }
    }
  }

  /** Frees nothing: the weights are JavaScript arrays. */
  dispose() {}

  toString() {
    const g = this.#g;
    const own = (v) => JSON.stringify(v.slice(3 - this.#dims));
    return `ConvTranspose${this.#dims}d(${g.inChannels}, ${g.outChannels}, kernel_size=${own(g.kernel)}, stride=${own(g.stride)}, padding=${own(g.padding)}, output_padding=${own(g.outputPadding)}, groups=${g.groups}, dilation=${own(g.dilation)})`;
  }
}

/**
 * A quantized transposed conv (nnq.ConvTranspose1d / 2d / 3d packed by
 * FBGEMM), exactly, by phases: the outputs o = stride * q + phi of one phase
 * phi (per axis) take only the taps that land on them, which form a stride-1
 * quantized conv (dilation / gcd(stride, dilation), the sub-kernel flipped,
 * in / out axes swapped) over the input padded or cropped. Every output's
 * exact int32 sum is the same set of products as in PyTorch's transposed
 * conv (and in one stride-1 conv over the zero-inserted input), requantized
 * by FBGEMM's steps, so the bytes are PyTorch's (docs/numerics.md,
 * "Transposed convolution, int8"). `stacks`: each {ats, conv}, the phases
 * whose sub-kernels have one shape (ats: each one's index on every axis of
 * `axes`, the per-axis phases of conv-transpose-phases.mjs axisPhases) and
 * their conv, an nn.quantized.ConvNd packed for fbgemm whose output
 * channels hold, group by group, each phase's channels of the group in turn;
 * `biasOnly`: a one-tap conv whose weight is the weight zero point (every
 * sum 0) for the outputs of phases without taps, or null when there are
 * none. Owns the convs.
 */
export class QuantizedConvTranspose extends Module {
  #dims;
  #g;
  #axes;
  #stacks;
  #biasOnly;

  constructor(dims, g, axes, stacks, biasOnly) {
    super();
    this.#dims = dims;
    this.#g = liftGeometry(dims, g);
    this.#axes = lift(axes, dims, [{ phi: 0, taps: [0], dilation: 1, offset: 0 }]);
    this.#stacks = stacks.map(({ ats, conv }) => ({ ats: ats.map((at) => lift(at, dims, 0)), conv }));
    this.#biasOnly = biasOnly;
  }

  /** The output's qparams (every inner conv's). */
  get scale() {
    return this.#stacks[0].conv.scale;
  }
  get zeroPoint() {
    return this.#stacks[0].conv.zeroPoint;
  }

  /** Bytes of the inner convs' packed weights in wasm memory (the phases partition the kernel). */
  packedWeightBytes() {
    return this.#convs().reduce((n, c) => n + c.packedWeightBytes(), 0);
  }

  /** Bytes of Winograd-transformed weights among packedWeightBytes(). */
  winogradWeightBytes() {
    return this.#convs().reduce((n, c) => n + c.winogradWeightBytes(), 0);
  }

  #convs() {
    const convs = this.#stacks.map((s) => s.conv);
    return this.#biasOnly === null ? convs : [...convs, this.#biasOnly];
  }

  forward(x) {
    const ctx = `nn.quantized.ConvTranspose${this.#dims}d.forward(x)`;
    if (!isQTensorInstance(x)) throw new TypeError(`${ctx}: x must be a quint8 QTensor, got ${describe(x)}`);
    if (x.dtype !== 'quint8' || x.qscheme() !== 'per_tensor_affine') {
      throw new TypeError(`${ctx}: x must be a per-tensor quint8 QTensor, got ${x.dtype} ${x.qscheme()}`);
    }
    const outShape = outputShapeOf(this.#dims, this.#g, x.shape, false);
    if (typeof outShape === 'string') throw new RangeError(`${ctx}: ${outShape}`);
    const outSp = lift(outShape.slice(2), this.#dims, 1);
    const out = new Uint8Array(outShape.reduce((a, b) => a * b, 1));
    if (out.length > 0) this.#run(x, outSp, out);
    return this.#channelsLast(out, outShape, outSp);
  }

  // The padded input's box and the stacks to run (those with a phase that has outputs), each phase with outputs
  // with its slot in the stack and its place in the conv's outputs.
  #plan(outSp) {
    const g = this.#g;
    const boxes = this.#axes.map((list, j) => axisBox(list, g.stride[j], outSp[j]));
    const stacks = [];
    for (const stack of this.#stacks) {
      const phases = [];
      stack.ats.forEach((at, slot) => {
        const places = at.map((a, j) => boxes[j].phases[a]);
        if (places.some((p) => p.q === 0)) return;
        phases.push({ slot, places, phis: at.map((a, j) => this.#axes[j][a].phi) });
      });
      // A stack with such a phase fits the box: that phase's window (of the stack's sub-kernel) lies inside it.
      if (phases.length > 0) stacks.push({ conv: stack.conv, count: stack.ats.length, phases });
    }
    // An output no tap reaches: on some axis, fewer phases with outputs than output positions mod the stride.
    const uncovered = boxes.some(
      (box, j) => box.phases.filter((p) => p.q > 0).length < Math.min(g.stride[j], outSp[j]),
    );
    return { boxes, stacks, uncovered };
  }

  #run(x, outSp, out) {
    const { boxes, stacks, uncovered } = this.#plan(outSp);
    if (uncovered) this.#fillBiasOnly(x, out);
    if (stacks.length === 0) return;
    // The input itself when the box is the input (no padding, no crop).
    const inSp = lift(x.shape.slice(2), this.#dims, 1);
    const same = boxes.every((b, j) => b.before === 0 && b.extent === inSp[j]);
    const padded = same ? x : this.#padded(x, boxes);
    try {
      for (const stack of stacks) {
        const y = stack.conv.forward(padded);
        try {
          // y's integers in place in wasm memory (index order, whatever its strides), read before anything
          // allocates there again (the scatter writes only JavaScript memory).
          const data = /** @type {Uint8Array} */ (integersInPlace(y));
          for (const phase of stack.phases) this.#scatter(data, stack.count, phase, outSp, out);
        } finally {
          y.dispose();
        }
      }
    } finally {
      if (!same) padded.dispose();
    }
  }

  // Every output of every plane set to its channel's requantized bias (the sum 0), before the phases write theirs.
  #fillBiasOnly(x, out) {
    const conv = /** @type {any} */ (this.#biasOnly);
    const C = this.#g.inChannels;
    const one = makePerTensorQuantizedTensor(
      { data: new Uint8Array(C).fill(x.qZeroPoint()), shape: [1, C, ...Array(this.#dims).fill(1)] },
      x.qScale(),
      x.qZeroPoint(),
      'quint8',
    );
    let values;
    try {
      const y = conv.forward(one);
      try {
        values = /** @type {Uint8Array} */ (y.intRepr()); // [1, out, 1...]: one byte per channel in any layout
      } finally {
        y.dispose();
      }
    } finally {
      one.dispose();
    }
    const OC = this.#g.outChannels;
    const plane = out.length / (x.shape[0] * OC);
    for (let p = 0; p < out.length / plane; p++) out.fill(values[p % OC], p * plane, (p + 1) * plane);
  }

  // x's integers at `before` in a tensor of x's zero point of the box's extent (before < 0: cropped).
  #padded(x, boxes) {
    const [N, C] = x.shape;
    const src = /** @type {Uint8Array} */ (integersInPlace(x)); // read whole before the padded input is made
    const [I0, I1, I2] = lift(x.shape.slice(2), this.#dims, 1);
    const [T0, T1, T2] = boxes.map((b) => b.extent);
    const [b0, b1, b2] = boxes.map((b) => b.before);
    const zp = x.qZeroPoint();
    const data = new Uint8Array(N * C * T0 * T1 * T2).fill(zp);
    // The input indices whose place before + i lies inside [0, extent), per axis.
    const [lo0, lo1, lo2] = [Math.max(0, -b0), Math.max(0, -b1), Math.max(0, -b2)];
    const [hi0, hi1, hi2] = [Math.min(I0, T0 - b0), Math.min(I1, T1 - b1), Math.min(I2, T2 - b2)];
    for (let nc = 0; nc < N * C; nc++) {
      for (let i0 = lo0; i0 < hi0; i0++) {
        for (let i1 = lo1; i1 < hi1; i1++) {
          const from = ((nc * I0 + i0) * I1 + i1) * I2;
          const to = ((nc * T0 + b0 + i0) * T1 + b1 + i1) * T2 + b2;
          for (let i2 = lo2; i2 < hi2; i2++) data[to + i2] = src[from + i2];
        }
      }
    }
    const shape = [N, C, ...[T0, T1, T2].slice(3 - this.#dims)];
    return makePerTensorQuantizedTensor({ data, shape }, x.qScale(), zp, 'quint8');
  }

  // A phase's outputs (channels slot * out / groups .. of each group of its stack's conv of `count` phases;
  // there, outputs shift .. shift + q - 1 per axis) into their places stride * q + phi.
  #scatter(data, count, phase, outSp, out) {
    const g = this.#g;
    const N = out.length / (g.outChannels * outSp[0] * outSp[1] * outSp[2]);
    const ocg = g.outChannels / g.groups;
    const [Q0, Q1, Q2] = phase.places.map((p) => p.q);
    const [h0, h1, h2] = phase.places.map((p) => p.shift);
    const [U0, U1, U2] = phase.places.map((p) => p.outputs);
    const [O0, O1, O2] = outSp;
    const [s0, s1, s2] = g.stride;
    const [p0, p1, p2] = phase.phis;
    for (let n = 0; n < N; n++) {
      for (let oc = 0; oc < g.outChannels; oc++) {
        const group = Math.floor(oc / ocg);
        const ch = (n * g.groups + group) * count * ocg + phase.slot * ocg + (oc - group * ocg);
        const nc = n * g.outChannels + oc;
        for (let q0 = 0; q0 < Q0; q0++) {
          for (let q1 = 0; q1 < Q1; q1++) {
            const row = (nc * O0 + p0 + q0 * s0) * O1 * O2 + (p1 + q1 * s1) * O2 + p2;
            const from = ((ch * U0 + h0 + q0) * U1 + h1 + q1) * U2 + h2;
            for (let q2 = 0; q2 < Q2; q2++) out[row + q2 * s2] = data[from + q2];
          }
        }
      }
    }
  }

  // The output with the strides of the conv's (channels last, as PyTorch's quantized convs return theirs; the
  // core keeps its integers in index order whatever the strides, so this sets strides and copies nothing).
  #channelsLast(out, outShape, outSp) {
    const [N, OC] = outShape;
    // A Conv1d's output is its Conv2d's (height 1) viewed at rank 3.
    const shape = this.#dims === 3 ? [N, OC, ...outSp] : [N, OC, ...outSp.slice(1)];
    const full = makePerTensorQuantizedTensor({ data: out, shape }, this.scale, this.zeroPoint, 'quint8');
    let cl;
    try {
      cl = full.contiguous({ memoryFormat: this.#dims === 3 ? 'channels_last_3d' : 'channels_last' });
    } finally {
      full.dispose();
    }
    if (this.#dims !== 1) return cl;
    try {
      return cl.view(outShape);
    } finally {
      cl.dispose();
    }
  }

  /**
   * @internal The most scratch this input shape needs: the output assembled in JavaScript, the padded input
   * (in JavaScript and wasm; none when the box is the input), and the largest stack's conv output and conv
   * scratch, or the bias-only conv's few bytes.
   */
  _scratchBound(shape) {
    const outShape = outputShapeOf(this.#dims, this.#g, shape, false);
    if (typeof outShape === 'string') return 0;
    const count = (s) => s.reduce((a, b) => a * b, 1);
    const [N, C] = shape;
    const outSp = lift(outShape.slice(2), this.#dims, 1);
    const { boxes, stacks } = this.#plan(outSp);
    const inner = [N, C, ...boxes.map((b) => b.extent).slice(3 - this.#dims)];
    let phase = 0;
    for (const s of stacks) {
      const y = N * s.count * this.#g.outChannels * count(s.phases[0].places.map((place) => place.outputs));
      phase = Math.max(phase, y + s.conv._scratchBound(inner));
    }
    const biasOnly =
      this.#biasOnly === null
        ? 0
        : 2 * (C + this.#g.outChannels) + this.#biasOnly._scratchBound([1, C, ...Array(this.#dims).fill(1)]);
    const inSp = lift(shape.slice(2), this.#dims, 1);
    const same = boxes.every((b, j) => b.before === 0 && b.extent === inSp[j]);
    const padded = stacks.length > 0 && !same ? 2 * count(inner) : 0;
    return count(outShape) + padded + Math.max(phase, biasOnly);
  }

  dispose() {
    for (const conv of this.#convs()) conv.dispose();
  }

  toString() {
    const g = this.#g;
    const own = (v) => JSON.stringify(v.slice(3 - this.#dims));
    return `QuantizedConvTranspose${this.#dims}d(${g.inChannels}, ${g.outChannels}, kernel_size=${own(g.kernel)}, stride=${own(g.stride)}, padding=${own(g.padding)}, output_padding=${own(g.outputPadding)}, groups=${g.groups}, dilation=${own(g.dilation)}, scale=${this.scale}, zero_point=${this.zeroPoint})`;
  }
}
