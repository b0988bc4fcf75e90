// Everything qwasm exports, shared by the Node and browser entry points;
// declared and documented in web/index.d.ts (web/declarations/).

export * as io from './io.mjs';
export { classifyVideo } from './model/classify-video.mjs';
export { nn } from './nn/index.mjs';
export { quantization } from './quantization/index.mjs';
export { heapHighWater, heapInUse } from './runtime/diagnostics.mjs';
export { kernelIsa, setKernelIsa } from './runtime/isa.mjs';
export { getNumThreads, init, isInitialized, runtimeInfo, setNumThreads } from './runtime/runtime.mjs';
export {
  HistogramObserver,
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  PerChannelMinMaxObserver,
} from './tensors/observer.mjs';
export { QTensor, tidy } from './tensors/qtensor.mjs';
export {
  dequantize,
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  quantizePerChannel,
  quantizePerTensor,
} from './tensors/quantize.mjs';
export { tensor } from './tensors/tensor.mjs';
export * as transforms from './transforms/index.mjs';
