// QTensor: the JavaScript face of a quantized tensor held in wasm memory.
// Getters return JS-owned copies; dispose() frees the wasm memory (a
// FinalizationRegistry frees forgotten tensors too, but only eventually).
import { checked } from './errors.mjs';
import { copyView, streamFloatsOut } from './heap.mjs';
import { describe, wasm } from './runtime.mjs';
import { typeName } from './tensor.mjs';
import { currentIsa } from './isa.mjs';
import { adopt, release } from './owned.mjs';

const PER_TENSOR = 'per_tensor_affine';

export class QTensor {
  #handle;

  /** @internal Use quantizePerTensor / quantizePerChannel / make*QuantizedTensor. */
  constructor(handle) {
    if (handle === null || typeof handle !== 'object' || typeof handle.intReprView !== 'function') {
      throw new TypeError('QTensor cannot be constructed directly: use quantizePerTensor or quantizePerChannel');
    }
    this.#handle = handle;
    /** Dimensions, PyTorch order. */
    this.shape = handle.shape();
    /** 'quint8' | 'qint8' | 'qint32' | 'quint4x2' */
    this.dtype = handle.dtype();
    Object.freeze(this.shape);
    adopt(this, handle, null);
  }

  /** @internal The live Embind handle; throws once disposed. */
  _live(method) {
    if (this.#handle === null) throw new Error(`QTensor.${method}(): this tensor has been disposed`);
    wasm(); // the module must still be there
    return this.#handle;
  }

  #scheme(method, wantPerTensor) {
    const h = this._live(method);
    const scheme = h.qscheme();
    if ((scheme === PER_TENSOR) !== wantPerTensor) {
      throw new Error(
        `QTensor.${method}() needs a ${wantPerTensor ? 'per-tensor' : 'per-channel'} tensor, but this one is ${scheme}`,
      );
    }
    return h;
  }

  get disposed() {
    return this.#handle === null;
  }

  /** Number of elements. */
  numel() {
    return this._live('numel').numel();
  }

  qscheme() {
    return this._live('qscheme').qscheme();
  }

  qScale() {
    return this.#scheme('qScale', true).qScale();
  }

  qZeroPoint() {
    return this.#scheme('qZeroPoint', true).qZeroPoint();
  }

  qPerChannelAxis() {
    return this.#scheme('qPerChannelAxis', false).axis();
  }

  qPerChannelScales() {
    const h = this.#scheme('qPerChannelScales', false);
    const scales = copyView(h.scalesView());
    return h.qscheme().endsWith('float_qparams') ? Float32Array.from(scales) : scales;
  }

  qPerChannelZeroPoints() {
    const h = this.#scheme('qPerChannelZeroPoints', false);
    const zps = h.zeroPointsView();
    return h.qscheme().endsWith('float_qparams') ? Float32Array.from(zps) : Int32Array.from(zps);
  }

  intRepr() {
    return copyView(this._live('intRepr').intReprView());
  }

  /**
   * Back to float32. `out` (optional, like PyTorch's out=) is a Float32Array of
   * numel() elements to write into; it saves allocating a fresh array, which
   * for large tensors costs more than the dequantization itself.
   */
  dequantize(out) {
    const h = this._live('dequantize');
    const n = h.numel();
    if (out !== undefined) {
      if (typeName(out) !== 'Float32Array') {
        throw new TypeError(`QTensor.dequantize(out): out must be a Float32Array, got ${describe(out)}`);
      }
      if (out.length !== n) {
        throw new RangeError(`QTensor.dequantize(out): out must hold ${n} elements, got ${out.length}`);
      }
    }
    const isa = currentIsa();
    const data = streamFloatsOut(wasm(), n, (address, begin, end) =>
      checked(h.dequantizeInto(address, begin, end, isa), 'dequantize'),
    out);
    return { data, shape: this.shape.slice() };
  }

  dispose() {
    this.#handle = release(this, this.#handle);
  }

  toString() {
    if (this.#handle === null) return 'QTensor(disposed)';
    return `QTensor(shape=[${this.shape.join(', ')}], dtype=${this.dtype}, qscheme=${this.qscheme()})`;
  }
}

// `using q = quantizePerTensor(...)` where the runtime has explicit resource management.
if (typeof Symbol.dispose === 'symbol') {
  QTensor.prototype[Symbol.dispose] = function dispose() {
    this.dispose();
  };
}
