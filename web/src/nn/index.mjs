// PyTorch's module namespaces: nn, nn.intrinsic, nn.quantized, nn.intrinsic.quantized.
import * as f from './float.mjs';
import * as q from './quantized.mjs';

export const nn = Object.freeze({
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
    Conv1d: q.Conv1d,
    Conv2d: q.Conv2d,
    Conv3d: q.Conv3d,
    Linear: q.Linear,
  }),
});
