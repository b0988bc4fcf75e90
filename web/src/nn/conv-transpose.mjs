// A float transposed convolution (PyTorch's nn.ConvTranspose1d / 2d / 3d in
// eval), as the model loader builds it from a ConvTranspose entry. PyTorch
// sums its float32 products in an order of its own (oneDNN, or the slow
// col2im path), which qwasm cannot follow; here every product of two float32
// values is exact in float64, the sum runs in float64 in one fixed order (the
// bias, then input channel, then kernel tap (kd, kh, kw) ascending) and is
// rounded to float32 once: within 1 ulp of the exact sum (docs/numerics.md,
// "Transposed convolution").
import { describe, readFloatTensor } from '../runtime/args.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { makePerTensorQuantizedTensor } from '../tensors/quantize.mjs';
import { Module } from './module.mjs';

/** Output size of a transposed conv along one dimension (ConvUtils.h, conv_input_size). */
export const transposedOut = (size, kernel, stride, pad, outputPad, dilation) =>
  (size - 1) * stride - 2 * pad + dilation * (kernel - 1) + outputPad + 1;

// The most elements one output may hold (a Float32Array's bound, well above the planner's budgets).
const MAX_OUTPUT_ELEMENTS = 2 ** 31 - 1;

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
 * FBGEMM), exactly: PyTorch's integers equal those of a stride-1 quantized
 * conv (dilation and groups kept, the kernel flipped and its in / out axes
 * swapped) over the input with stride - 1 zero points inserted between its
 * values and dilation * (kernel - 1) - padding zero points around it (plus
 * output_padding after), the same int32 sums and FBGEMM's requantization
 * (docs/numerics.md, "Transposed convolution, int8"). `conv` is that quantized
 * conv (nn.quantized.ConvNd, packed for fbgemm), owned by this module.
 */
export class QuantizedConvTranspose extends Module {
  #dims;
  #g;
  #conv;

  constructor(dims, g, conv) {
    super();
    this.#dims = dims;
    this.#g = liftGeometry(dims, g);
    this.#conv = conv;
  }

  /** The output's qparams (the inner conv's). */
  get scale() {
    return this.#conv.scale;
  }
  get zeroPoint() {
    return this.#conv.zeroPoint;
  }

  forward(x) {
    const ctx = `nn.quantized.ConvTranspose${this.#dims}d.forward(x)`;
    if (!isQTensorInstance(x)) throw new TypeError(`${ctx}: x must be a quint8 QTensor, got ${describe(x)}`);
    if (x.dtype !== 'quint8' || x.qscheme() !== 'per_tensor_affine') {
      throw new TypeError(`${ctx}: x must be a per-tensor quint8 QTensor, got ${x.dtype} ${x.qscheme()}`);
    }
    const outShape = outputShapeOf(this.#dims, this.#g, x.shape, false);
    if (typeof outShape === 'string') throw new RangeError(`${ctx}: ${outShape}`);
    const padded = this.#zeroInserted(x, outShape);
    try {
      return this.#conv.forward(padded);
    } finally {
      padded.dispose();
    }
  }

  // x's integers placed at stride steps in a tensor of x's zero point, sized for the stride-1 conv.
  #zeroInserted(x, outShape) {
    const d = this.#dims;
    const g = this.#g;
    const [N, C] = x.shape;
    const inSp = lift(x.shape.slice(2), d, 1);
    const outSp = lift(outShape.slice(2), d, 1);
    const reach = g.kernel.map((k, j) => g.dilation[j] * (k - 1));
    const total = outSp.map((o, j) => o + reach[j]); // the stride-1 conv's input extent
    const lo = reach.map((r, j) => r - g.padding[j]); // where input index 0 lands (< 0: cropped)
    const zp = x.qZeroPoint();
    const contiguous = x.isContiguous() ? null : x.contiguous();
    let src;
    try {
      src = /** @type {Uint8Array} */ ((contiguous ?? x).intRepr());
    } finally {
      contiguous?.dispose();
    }
    const [T0, T1, T2] = total;
    const [I0, I1, I2] = inSp;
    const [s0, s1, s2] = g.stride;
    const data = new Uint8Array(N * C * T0 * T1 * T2).fill(zp);
    // The input columns whose place lo + i * stride lies inside [0, total).
    const w0 = Math.max(0, Math.ceil(-lo[2] / s2));
    const w1 = Math.min(I2 - 1, Math.floor((T2 - 1 - lo[2]) / s2));
    for (let nc = 0; nc < N * C; nc++) {
      for (let i0 = 0; i0 < I0; i0++) {
        const p0 = lo[0] + i0 * s0;
        if (p0 < 0 || p0 >= T0) continue;
        for (let i1 = 0; i1 < I1; i1++) {
          const p1 = lo[1] + i1 * s1;
          if (p1 < 0 || p1 >= T1) continue;
          const from = ((nc * I0 + i0) * I1 + i1) * I2;
          const to = ((nc * T0 + p0) * T1 + p1) * T2 + lo[2];
          for (let i2 = w0; i2 <= w1; i2++) data[to + i2 * s2] = src[from + i2];
        }
      }
    }
    const shape = [N, C, ...total.slice(3 - d)];
    return makePerTensorQuantizedTensor({ data, shape }, x.qScale(), zp, 'quint8');
  }

  /** @internal The inner conv's scratch for this input shape, plus the zero-inserted input. */
  _scratchBound(shape) {
    const outShape = outputShapeOf(this.#dims, this.#g, shape, false);
    if (typeof outShape === 'string') return 0;
    const total = outShape.slice(2).map((o, i) => {
      const j = 3 - this.#dims + i;
      return o + this.#g.dilation[j] * (this.#g.kernel[j] - 1);
    });
    const inner = [shape[0], shape[1], ...total];
    return inner.reduce((a, b) => a * b, 1) + this.#conv._scratchBound(inner);
  }

  dispose() {
    this.#conv.dispose();
  }

  toString() {
    const g = this.#g;
    const own = (v) => JSON.stringify(v.slice(3 - this.#dims));
    return `QuantizedConvTranspose${this.#dims}d(${g.inChannels}, ${g.outChannels}, kernel_size=${own(g.kernel)}, stride=${own(g.stride)}, padding=${own(g.padding)}, output_padding=${own(g.outputPadding)}, groups=${g.groups}, dilation=${own(g.dilation)}, scale=${this.scale}, zero_point=${this.zeroPoint})`;
  }
}
