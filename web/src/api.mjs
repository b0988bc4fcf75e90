// Everything qwasm exports, shared by the Node and browser entry points.
import {
  HistogramObserver,
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  PerChannelMinMaxObserver,
} from './observer.mjs';

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
export { QTensor } from './qtensor.mjs';
export {
  dequantize,
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  quantizePerChannel,
  quantizePerTensor,
} from './quantize.mjs';
export { init, isInitialized } from './runtime.mjs';
export { tensor } from './tensor.mjs';

/** PyTorch's torch.ao.quantization namespace (the observers). */
export const quantization = Object.freeze({
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  PerChannelMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  HistogramObserver,
});
