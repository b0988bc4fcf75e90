// Everything qwasm exports, shared by the Node and browser entry points.

export { heapInUse } from './diagnostics.mjs';
export * as io from './io.mjs';
export { kernelIsa, setKernelIsa } from './isa.mjs';
export { nn } from './nn/index.mjs';
export {
  HistogramObserver,
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  PerChannelMinMaxObserver,
} from './observer.mjs';
export { QTensor, tidy } from './qtensor.mjs';
export { quantization } from './quantization/index.mjs';
export {
  dequantize,
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  quantizePerChannel,
  quantizePerTensor,
} from './quantize.mjs';
export { getNumThreads, init, isInitialized, runtimeInfo, setNumThreads } from './runtime.mjs';
export { tensor } from './tensor.mjs';
export * as transforms from './transforms/index.mjs';
