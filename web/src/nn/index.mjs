// PyTorch's module namespaces: nn, nn.intrinsic, nn.quantized, nn.intrinsic.quantized.

import * as act from './activation.mjs';
import * as bn from './batchnorm.mjs';
import * as f from './float.mjs';
import * as fn from './functional.mjs';
import * as m from './module.mjs';
import * as pool from './pooling.mjs';
import * as qm from './quantize-modules.mjs';
import * as q from './quantized.mjs';

export const nn = Object.freeze({
  Module: m.Module,
  Sequential: m.Sequential,
  Identity: m.Identity,
  Flatten: m.Flatten,
  Dropout: m.Dropout,
  MaxPool1d: pool.MaxPool1d,
  MaxPool2d: pool.MaxPool2d,
  MaxPool3d: pool.MaxPool3d,
  AvgPool1d: pool.AvgPool1d,
  AvgPool2d: pool.AvgPool2d,
  AvgPool3d: pool.AvgPool3d,
  AdaptiveAvgPool1d: pool.AdaptiveAvgPool1d,
  AdaptiveAvgPool2d: pool.AdaptiveAvgPool2d,
  AdaptiveAvgPool3d: pool.AdaptiveAvgPool3d,
  AdaptiveMaxPool1d: pool.AdaptiveMaxPool1d,
  AdaptiveMaxPool2d: pool.AdaptiveMaxPool2d,
  AdaptiveMaxPool3d: pool.AdaptiveMaxPool3d,
  BatchNorm1d: bn.BatchNorm1d,
  BatchNorm2d: bn.BatchNorm2d,
  BatchNorm3d: bn.BatchNorm3d,
  Conv1d: f.Conv1d,
  Conv2d: f.Conv2d,
  Conv3d: f.Conv3d,
  Linear: f.Linear,
  ReLU: f.ReLU,
  ReLU6: act.ReLU6,
  Hardtanh: act.Hardtanh,
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
    FloatFunctional: fn.FloatFunctional,
    QFunctional: fn.QFunctional,
    functional: Object.freeze({
      add: fn.add,
      addRelu: fn.addRelu,
      mul: fn.mul,
      mulRelu: fn.mulRelu,
      addScalar: fn.addScalar,
      mulScalar: fn.mulScalar,
      cat: fn.cat,
      relu: fn.relu,
      relu6: fn.relu6,
      hardtanh: fn.hardtanh,
      clamp: fn.clamp,
    }),
    Quantize: qm.Quantize,
    DeQuantize: qm.DeQuantize,
    Conv1d: q.Conv1d,
    Conv2d: q.Conv2d,
    Conv3d: q.Conv3d,
    Linear: q.Linear,
  }),
});
