// Everything qwasm exports, shared by the Node and browser entry points;
// declared and documented in web/index.d.ts (web/declarations/).

export * as io from './io.mjs';
// (Its code is imported on the first call: a bundler puts it in a chunk of its own, out of an app's first load.)
/** Documented at classifyVideo (web/declarations/video.d.ts). @type {typeof import('./model/classify-video.mjs').classifyVideo} */
export const classifyVideo = async (model, source, options) =>
  (await import('./model/classify-video.mjs')).classifyVideo(model, source, options);
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
