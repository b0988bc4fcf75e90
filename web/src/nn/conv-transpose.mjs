// A float transposed convolution (PyTorch's nn.ConvTranspose1d / 2d / 3d in
// eval), as the model loader builds it from a ConvTranspose entry. PyTorch
// sums its float32 products in an order of its own (oneDNN, or the slow
// col2im path), which qwasm cannot follow; here every product of two float32
// values is exact in float64, the sum runs in float64 in one fixed order (the
// bias, then input channel, then kernel tap (kd, kh, kw) ascending) and is
// rounded to float32 once: within 1 ulp of the exact sum (docs/numerics.md,
// "Transposed convolution").
import { readFloatTensor } from '../runtime/args.mjs';
import { Module } from './module.mjs';

/** Output size of a transposed conv along one dimension (ConvUtils.h, conv_input_size). */
export const transposedOut = (size, kernel, stride, pad, outputPad, dilation) =>
  (size - 1) * stride - 2 * pad + dilation * (kernel - 1) + outputPad + 1;

// The most elements one output may hold (a Float32Array's bound, well above the planner's budgets).
const MAX_OUTPUT_ELEMENTS = 2 ** 31 - 1;

// A dims-d geometry lifted to 3 dims: the missing leading dims have kernel, stride and dilation 1 and no padding.
const lift = (values, dims, fill) => [...Array(3 - dims).fill(fill), ...values];

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
    this.#g = {
      inChannels: g.inChannels,
      outChannels: g.outChannels,
      groups: g.groups,
      kernel: lift(g.kernel, dims, 1),
      stride: lift(g.stride, dims, 1),
      padding: lift(g.padding, dims, 0),
      outputPadding: lift(g.outputPadding, dims, 0),
      dilation: lift(g.dilation, dims, 1),
    };
    this.#weight = weight;
    this.#bias = bias;
  }

  /** The output shape for an input shape, or a string saying why PyTorch refuses it. */
  outputShape(shape) {
    const d = this.#dims;
    const g = this.#g;
    if (shape.length !== d + 2 && shape.length !== d + 1) {
      return `expected a ${d + 1}-d (unbatched) or ${d + 2}-d input, got shape [${shape.join(', ')}]`;
    }
    const c = shape[shape.length - d - 1];
    if (c !== g.inChannels) return `expected ${g.inChannels} input channels, got ${c} (shape [${shape.join(', ')}])`;
    const spatial = shape.slice(shape.length - d);
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
