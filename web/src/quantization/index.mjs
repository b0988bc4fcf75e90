// PyTorch's torch.ao.quantization namespace: the observers, QConfig, the stubs
// and the eager flow.

import { DeQuantStub, QuantStub } from '../nn/stubs.mjs';
import { getEngine, SUPPORTED_ENGINES, setEngine } from '../runtime/engine.mjs';
import { getWinograd, setWinograd } from '../runtime/winograd.mjs';
import {
  HistogramObserver,
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  PerChannelMinMaxObserver,
} from '../tensors/observer.mjs';
import { fuseModules } from './fuse.mjs';
import { compareModelOutputs, compareWeights, computeSqnr } from './ns.mjs';
import { convert, prepare } from './prepare.mjs';
import { getDefaultQConfig, QConfig } from './qconfig.mjs';

export const quantization = Object.freeze({
  MinMaxObserver,
  MovingAverageMinMaxObserver,
  PerChannelMinMaxObserver,
  MovingAveragePerChannelMinMaxObserver,
  HistogramObserver,
  QConfig,
  getDefaultQConfig,
  setEngine,
  getEngine,
  supportedEngines: SUPPORTED_ENGINES,
  setWinograd,
  getWinograd,
  QuantStub,
  DeQuantStub,
  fuseModules,
  prepare,
  convert,
  // torch.ao.ns._numeric_suite: where int8 loses accuracy, layer by layer.
  ns: Object.freeze({ computeSqnr, compareWeights, compareModelOutputs }),
});
