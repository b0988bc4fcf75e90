// QConfig and observer factories (PyTorch's Observer.with_args), and
// getDefaultQConfig with PyTorch 2.15's definitions.
import { describe, readChoice, readOptions } from '../runtime/args.mjs';
import {
  factoryInfo,
  HistogramObserver,
  MinMaxObserver,
  observerFactory,
  PerChannelMinMaxObserver,
} from '../tensors/observer.mjs';

/** QConfig({activation, weight}): the observer factories prepare() and convert() use. */
export class QConfig {
  #activation;
  #weight;

  constructor(options) {
    const ctx = 'new quantization.QConfig({activation, weight})';
    const o = readOptions(options, ['activation', 'weight'], ctx);
    for (const key of ['activation', 'weight']) {
      const f = o.get(key);
      if (typeof f !== 'function') {
        throw new TypeError(
          `${ctx}: ${key} must be an observer factory (e.g. MinMaxObserver.withArgs({...}) or an observer class), got ${describe(f)}`,
        );
      }
    }
    // An observer class works as its own factory (PyTorch accepts the class too).
    const asFactory = (f) => (factoryInfo(f) || !isClass(f) ? f : observerFactory(f, {}, ctx));
    this.#activation = asFactory(o.get('activation'));
    this.#weight = asFactory(o.get('weight'));
    Object.freeze(this);
  }

  get activation() {
    return this.#activation;
  }

  get weight() {
    return this.#weight;
  }

  toString() {
    const show = (f) => {
      const info = factoryInfo(f);
      return info ? `${info.observer.name}.withArgs(${JSON.stringify(info.options)})` : 'a custom factory';
    };
    return `QConfig(activation=${show(this.#activation)}, weight=${show(this.#weight)})`;
  }
}

function isClass(f) {
  return typeof f === 'function' && /^class\b/.test(Function.prototype.toString.call(f));
}

const BACKENDS = new Map([
  ['x86', 'x86'],
  ['fbgemm', 'fbgemm'],
  ['qnnpack', 'qnnpack'],
  ['onednn', 'onednn'],
]);

/** Documented at quantization.getDefaultQConfig (web/declarations/quantization.d.ts). */
export function getDefaultQConfig(backend = 'x86') {
  const ctx = 'quantization.getDefaultQConfig(backend)';
  const b = readChoice(backend, BACKENDS, 'backend', ctx);
  // PyTorch 2.15's definitions: x86 and fbgemm halve the activations' range,
  // since their kernels can overflow 16-bit intermediates otherwise.
  const reduceRange = b === 'x86' || b === 'fbgemm';
  const weight =
    b === 'qnnpack'
      ? observerFactory(MinMaxObserver, { dtype: 'qint8', qscheme: 'per_tensor_symmetric' }, ctx)
      : observerFactory(PerChannelMinMaxObserver, { dtype: 'qint8', qscheme: 'per_channel_symmetric' }, ctx);
  return new QConfig({ activation: observerFactory(HistogramObserver, { reduceRange }, ctx), weight });
}
