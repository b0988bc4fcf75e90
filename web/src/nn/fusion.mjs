// torch.nn.utils.fusion: a BatchNorm in eval mode folded into the conv or
// linear layer before it (fuse_conv_bn_eval, fuse_linear_bn_eval) with
// PyTorch's float32 arithmetic, op by op in its order, so the folded weights
// equal PyTorch's bit for bit. quantization.fuseModules applies it where a
// fusion pattern (the op descriptors' `fusions`, web/src/ops/) asks.

import { batchNormParts } from './batchnorm.mjs';
import { floatConvParts } from './float.mjs';
import { userTriple } from './spec.mjs';
import { foldBatchNorm } from './torch-float.mjs';

// A new module of conv's class and geometry, with a bias, holding these values.
function rebuilt(conv, p, weight, bias) {
  const g = p.geometry;
  const dims = p.spec.dims;
  const Cls = conv.constructor;
  const m =
    dims === 0
      ? new Cls(g.inChannels, g.outChannels, { bias: true })
      : new Cls(g.inChannels, g.outChannels, userTriple(g.kernel, dims), {
          stride: userTriple(g.stride, dims),
          padding: g.padding,
          dilation: userTriple(g.dilation, dims),
          groups: g.groups,
          bias: true,
        });
  m.weight = { data: weight, shape: [...p.weight.shape] };
  m.bias = { data: bias, shape: [g.outChannels] };
  m.train(conv.training);
  return m;
}

/**
 * A new conv (linear: true, a Linear) of conv's class and geometry with bn
 * folded in. conv_bn_eval: W' = W * (g * r), b' = ((b - mean) * r) * g + beta,
 * r = 1 / sqrt(var + eps); linear_bn_eval: b' = (b - mean) * (g * r) + beta.
 * Every step rounded to float32, in the core (torch_float.h
 * fold_batch_norm); the checks here give the messages.
 */
export function foldBatchNormInto(conv, bn, linear, ctx) {
  const p = floatConvParts(conv);
  const s = batchNormParts(bn);
  const out = p.geometry.outChannels;
  const channels = s.numFeatures;
  if (linear && channels !== out && channels !== 1) {
    throw new RangeError(
      `${ctx}: to fold, the Linear's outFeatures (${out}) must equal the BatchNorm's numFeatures (${channels}) or 1`,
    );
  }
  if (!linear && channels !== out) {
    throw new RangeError(`${ctx}: the conv has ${out} output channels but the BatchNorm normalizes ${channels}`);
  }
  if (linear && (s.weight === null || s.bias === null)) {
    throw new TypeError(
      `${ctx}: a BatchNorm1d without affine parameters cannot be folded into a Linear (PyTorch refuses it too)`,
    );
  }
  const { weight, bias } = foldBatchNorm(
    p.weight.data,
    [...p.weight.shape],
    p.bias === null ? null : p.bias.data,
    s,
    linear,
    ctx,
  );
  return rebuilt(conv, p, weight, bias);
}
