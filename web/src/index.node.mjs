// Node.js entry (ESM): the CommonJS build, re-exported, so that `import` and
// `require` of qwasm share one module instance (one init()).
import qwasm from '../../dist/qwasm.cjs';

export const {
  init,
  isInitialized,
  runtimeInfo,
  getNumThreads,
  setNumThreads,
  tensor,
  QTensor,
  tidy,
  quantizePerTensor,
  quantizePerChannel,
  makePerTensorQuantizedTensor,
  makePerChannelQuantizedTensor,
  dequantize,
  setKernelIsa,
  kernelIsa,
  heapInUse,
  heapHighWater,
  HistogramObserver,
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  PerChannelMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  nn,
  io,
  quantization,
  transforms,
  classifyVideo,
} = qwasm;
