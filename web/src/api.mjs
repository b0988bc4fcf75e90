// Everything qwasm exports, shared by the Node and browser entry points.
import {
  MinMaxObserver, MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver, PerChannelMinMaxObserver,
} from './observer.mjs';

export { init, isInitialized } from './runtime.mjs';
export { tensor } from './tensor.mjs';
export { QTensor } from './qtensor.mjs';
export {
  quantizePerTensor,
  quantizePerChannel,
  makePerTensorQuantizedTensor,
  makePerChannelQuantizedTensor,
  dequantize,
} from './quantize.mjs';
export { setKernelIsa, kernelIsa } from './isa.mjs';
export { heapInUse } from './diagnostics.mjs';
export { nn } from './nn/index.mjs';
export * as io from './io.mjs';

/** PyTorch's torch.ao.quantization namespace (the observers). */
export const quantization = Object.freeze({
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  PerChannelMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
});
