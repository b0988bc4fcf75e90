// Shared by the browser apps: qwasm imported by name, as users write
// `import { io } from 'qwasm'` (a Parcel production build once crashed on it
// while `import * as qwasm` built). The module workers run the checks with
// `byName`; the pages import the namespace for theirs, load their model
// through this `io`, and report namedImports().
import {
  heapInUse,
  init,
  io,
  isInitialized,
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  nn,
  quantization,
  quantizePerTensor,
  runtimeInfo,
  tensor,
  transforms,
} from 'qwasm';

/** What runChecks uses, each imported by name. */
export const byName = {
  heapInUse,
  init,
  io,
  isInitialized,
  makePerChannelQuantizedTensor,
  makePerTensorQuantizedTensor,
  nn,
  quantizePerTensor,
  runtimeInfo,
  tensor,
};

/** What each named namespace holds: the driver expects qwasm's functions and classes there. */
export function namedImports() {
  return {
    init: typeof init,
    loadModel: typeof io.loadModel,
    VideoClassification: typeof transforms.VideoClassification,
    compareModelOutputs: typeof quantization.ns?.compareModelOutputs,
    Conv3d: typeof nn.quantized.Conv3d,
  };
}
