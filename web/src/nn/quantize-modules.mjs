// nn.quantized.Quantize and nn.quantized.DeQuantize: the modules at the
// edges of a quantized region (what convert() puts where QuantStub and
// DeQuantStub were; torch.ao.nn.quantized.modules.Quantize / DeQuantize).
import { readChoice, readNumber } from '../runtime/args.mjs';
import { DTYPE } from '../runtime/codes.mjs';
import { dequantize, quantizePerTensor } from '../tensors/quantize.mjs';
import { Module } from './module.mjs';

/** nn.quantized.Quantize(scale, zeroPoint, dtype): forward(x) = quantizePerTensor(x, scale, zeroPoint, dtype). */
export class Quantize extends Module {
  #scale;
  #zeroPoint;
  #dtype;

  constructor(scale, zeroPoint, dtype = 'quint8') {
    super();
    const ctx = 'new nn.quantized.Quantize(scale, zeroPoint, dtype)';
    this.#scale = readNumber(scale, 'scale', ctx);
    this.#zeroPoint = readNumber(zeroPoint, 'zeroPoint', ctx);
    readChoice(dtype, DTYPE, 'dtype', ctx);
    this.#dtype = dtype;
  }

  get scale() {
    return this.#scale;
  }
  get zeroPoint() {
    return this.#zeroPoint;
  }
  get dtype() {
    return this.#dtype;
  }

  forward(x) {
    return quantizePerTensor(x, this.#scale, this.#zeroPoint, this.#dtype);
  }

  toString() {
    return `Quantize(scale=${this.#scale}, zero_point=${this.#zeroPoint}, dtype=${this.#dtype})`;
  }
}

/** nn.quantized.DeQuantize: forward(q) = q.dequantize(). */
export class DeQuantize extends Module {
  forward(q) {
    return dequantize(q);
  }

  toString() {
    return 'DeQuantize()';
  }
}
