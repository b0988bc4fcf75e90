// nn.ReLU6 and nn.Hardtanh, on float tensors and on quint8 QTensors (PyTorch's
// quantized clamp: the bounds quantized with the input's qparams, which stay).
import { readFloatTensor, readNumber, readOptions, tensorBytes } from '../runtime/args.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { hardtanh as qhardtanh } from './functional.mjs';
import { Module } from './module.mjs';
import { clampFloats } from './torch-float.mjs';

function clampFloat(x, lo, hi, ctx) {
  const t = readFloatTensor(x, ctx);
  // PyTorch's clamp, in the core: the bounds rounded to float32, -0 and NaN come through.
  return { data: clampFloats(tensorBytes(t, ctx), lo, hi, ctx), shape: t.shape };
}

/** torch.nn.Hardtanh(minVal = -1, maxVal = 1): clamp to [minVal, maxVal]. */
export class Hardtanh extends Module {
  #lo;
  #hi;

  constructor(minVal = -1, maxVal = 1, options = undefined) {
    super();
    const ctx = 'new nn.Hardtanh(minVal, maxVal, options)';
    readOptions(options, ['inplace'], ctx);
    this.#lo = readNumber(minVal, 'minVal', ctx);
    this.#hi = readNumber(maxVal, 'maxVal', ctx);
    if (!(this.#lo < this.#hi)) throw new RangeError(`${ctx}: maxVal must be greater than minVal`);
  }

  get minVal() {
    return this.#lo;
  }
  get maxVal() {
    return this.#hi;
  }

  forward(x) {
    if (isQTensorInstance(x)) return qhardtanh(x, this.#lo, this.#hi);
    return clampFloat(x, this.#lo, this.#hi, `nn.${this.constructor.name}.forward(x)`);
  }

  toString() {
    return `${this.constructor.name}(min_val=${this.#lo}, max_val=${this.#hi})`;
  }
}

/** torch.nn.ReLU6: Hardtanh(0, 6). */
export class ReLU6 extends Hardtanh {
  constructor(options = undefined) {
    super(0, 6, options);
  }
}
