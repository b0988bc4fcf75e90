// PyTorch's module namespaces: nn, nn.intrinsic, nn.quantized, nn.intrinsic.quantized.

import * as stubs from '../quantization/stubs.mjs';
import * as bn from './batchnorm.mjs';
import * as f from './float.mjs';
import * as m from './module.mjs';
import * as q from './quantized.mjs';

export const nn = Object.freeze({
  Module: m.Module,
  Sequential: m.Sequential,
  Identity: m.Identity,
  Flatten: m.Flatten,
  Dropout: m.Dropout,
  BatchNorm1d: bn.BatchNorm1d,
  BatchNorm2d: bn.BatchNorm2d,
  BatchNorm3d: bn.BatchNorm3d,
  Conv1d: f.Conv1d,
  Conv2d: f.Conv2d,
  Conv3d: f.Conv3d,
  Linear: f.Linear,
  ReLU: f.ReLU,
  intrinsic: Object.freeze({
    ConvReLU1d: f.ConvReLU1d,
    ConvReLU2d: f.ConvReLU2d,
    ConvReLU3d: f.ConvReLU3d,
    LinearReLU: f.LinearReLU,
    quantized: Object.freeze({
      ConvReLU1d: q.ConvReLU1d,
      ConvReLU2d: q.ConvReLU2d,
      ConvReLU3d: q.ConvReLU3d,
      LinearReLU: q.LinearReLU,
    }),
  }),
  quantized: Object.freeze({
    Quantize: stubs.Quantize,
    DeQuantize: stubs.DeQuantize,
    Conv1d: q.Conv1d,
    Conv2d: q.Conv2d,
    Conv3d: q.Conv3d,
    Linear: q.Linear,
  }),
});
