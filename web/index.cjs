'use strict';
// CommonJS entry. The API lives in the ES modules; this file loads them on
// init() (dynamic import works from CommonJS) and exposes the same names, so
// `require('qwasm')` and `import 'qwasm'` share one module instance. Every
// name but init() throws a clear error until init() has resolved.
const NAMES = [
  'isInitialized', 'tensor', 'QTensor', 'quantizePerTensor', 'quantizePerChannel',
  'makePerTensorQuantizedTensor', 'makePerChannelQuantizedTensor', 'dequantize',
  'setKernelIsa', 'kernelIsa', 'MinMaxObserver', 'MovingAverageMinMaxObserver',
  'PerChannelMinMaxObserver', 'MovingAveragePerChannelMinMaxObserver', 'heapInUse', 'quantization', 'nn', 'io',
];

let esm = null;
let loading = null;

exports.init = function init(options) {
  if (!loading) {
    loading = import('./src/index.node.mjs').then((m) => {
      esm = m;
      return m;
    });
  }
  return loading.then((m) => m.init(options));
};

for (const name of NAMES) {
  Object.defineProperty(exports, name, {
    enumerable: true,
    get() {
      if (esm === null) throw new Error(`qwasm: call \`await init()\` before using ${name} (CommonJS build)`);
      return esm[name];
    },
  });
}
