// quantization.fuseModules: PyTorch's eager fusion table for 1d/2d/3d. A
// BatchNorm after a conv (or linear) is folded into its weight and bias with
// fuse_conv_bn_eval's float32 arithmetic, op by op in PyTorch's order
// (torch/nn/utils/fusion.py), so the folded weights equal PyTorch's bit for
// bit; a ReLU after it makes the nn.intrinsic fused module. The other slots
// become nn.Identity.

import { BatchNorm1d, BatchNorm2d, BatchNorm3d, batchNormParts } from '../nn/batchnorm.mjs';
import {
  Conv1d,
  Conv2d,
  Conv3d,
  ConvReLU1d,
  ConvReLU2d,
  ConvReLU3d,
  floatConvParts,
  Linear,
  LinearReLU,
  ReLU,
} from '../nn/float.mjs';
import { Identity, Module } from '../nn/module.mjs';
import { userTriple } from '../nn/spec.mjs';
import { foldBatchNorm } from '../nn/torch-float.mjs';
import { describe, readOptions } from '../runtime/args.mjs';

// conv_bn_eval: W' = W * (g * r), b' = ((b - mean) * r) * g + beta, r = 1 / sqrt(var + eps);
// linear_bn_eval: b' = (b - mean) * (g * r) + beta. Every step rounded to float32, in
// the core (torch_float.h fold_batch_norm); the checks here give the messages.
function fold(conv, bn, linear, ctx) {
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

// Exact classes (PyTorch matches exact types) -> the fuser; needsEval: a BatchNorm is folded.
const TABLE = [
  { types: [Conv1d, BatchNorm1d], needsEval: true, fuse: (m, ctx) => fold(m[0], m[1], false, ctx) },
  { types: [Conv2d, BatchNorm2d], needsEval: true, fuse: (m, ctx) => fold(m[0], m[1], false, ctx) },
  { types: [Conv3d, BatchNorm3d], needsEval: true, fuse: (m, ctx) => fold(m[0], m[1], false, ctx) },
  {
    types: [Conv1d, BatchNorm1d, ReLU],
    needsEval: true,
    fuse: (m, ctx) => new ConvReLU1d(fold(m[0], m[1], false, ctx), m[2]),
  },
  {
    types: [Conv2d, BatchNorm2d, ReLU],
    needsEval: true,
    fuse: (m, ctx) => new ConvReLU2d(fold(m[0], m[1], false, ctx), m[2]),
  },
  {
    types: [Conv3d, BatchNorm3d, ReLU],
    needsEval: true,
    fuse: (m, ctx) => new ConvReLU3d(fold(m[0], m[1], false, ctx), m[2]),
  },
  { types: [Conv1d, ReLU], needsEval: false, fuse: (m) => new ConvReLU1d(m[0], m[1]) },
  { types: [Conv2d, ReLU], needsEval: false, fuse: (m) => new ConvReLU2d(m[0], m[1]) },
  { types: [Conv3d, ReLU], needsEval: false, fuse: (m) => new ConvReLU3d(m[0], m[1]) },
  { types: [Linear, BatchNorm1d], needsEval: true, fuse: (m, ctx) => fold(m[0], m[1], true, ctx) },
  { types: [Linear, ReLU], needsEval: false, fuse: (m) => new LinearReLU(m[0], m[1]) },
];

const typeName = (m) => (m instanceof Module ? m.constructor.name : describe(m));

function resolve(model, path, ctx) {
  if (typeof path !== 'string' || path === '') {
    throw new TypeError(`${ctx}: module names are dotted paths like 'layer1.0.conv', got ${describe(path)}`);
  }
  const parts = path.split('.');
  let parent = model;
  for (const part of parts.slice(0, -1)) {
    parent = Object.hasOwn(parent, part) ? parent[part] : undefined;
    if (!(parent instanceof Module)) throw new Error(`${ctx}: '${path}': no submodule '${part}'`);
  }
  const last = parts[parts.length - 1];
  const m = Object.hasOwn(parent, last) ? parent[last] : undefined;
  if (!(m instanceof Module)) throw new Error(`${ctx}: '${path}': no submodule '${last}' in ${typeName(parent)}`);
  return { parent, name: last, module: m };
}

/** Documented at quantization.fuseModules (web/declarations/quantization.d.ts). */
export function fuseModules(model, modulesToFuse, options) {
  const ctx = 'quantization.fuseModules(model, modulesToFuse)';
  if (!(model instanceof Module)) throw new TypeError(`${ctx}: model must be an nn.Module, got ${describe(model)}`);
  // PyTorch copies the model unless inplace; qwasm cannot copy a JavaScript
  // module (its constructor's arguments are unknown), so it always fuses in
  // place: { inplace: true } or nothing.
  const o = readOptions(options, ['inplace'], ctx);
  if (o.has('inplace') && o.get('inplace') !== true) {
    throw new TypeError(
      `${ctx}: qwasm fuses in place only (a JavaScript module cannot be deep-copied); pass { inplace: true } or nothing`,
    );
  }
  if (!Array.isArray(modulesToFuse) || modulesToFuse.length === 0) {
    throw new TypeError(`${ctx}: modulesToFuse must be a list of module paths, or a list of such lists`);
  }
  const groups = modulesToFuse.every((g) => typeof g === 'string') ? [modulesToFuse] : modulesToFuse;
  for (const group of groups) {
    if (!Array.isArray(group))
      throw new TypeError(`${ctx}: each group must be a list of module paths, got ${describe(group)}`);
    const slots = group.map((path) => resolve(model, path, ctx));
    const mods = slots.map((s) => s.module);
    const entry = TABLE.find(
      (e) => e.types.length === mods.length && e.types.every((T, i) => mods[i].constructor === T),
    );
    if (!entry) throw new Error(`${ctx}: did not find fuser method for: (${mods.map(typeName).join(', ')})`);
    if (entry.needsEval) {
      if (mods.some((m) => m.training !== mods[0].training)) {
        throw new Error(`${ctx}: ${mods.map(typeName).join(' and ')} must all be in the same mode (train or eval)`);
      }
      if (mods[0].training) throw new Error(`${ctx}: folding a BatchNorm needs eval mode: call model.eval() first`);
    }
    const fused = entry.fuse(mods, `${ctx} [${group.join(', ')}]`);
    slots[0].parent[slots[0].name] = fused;
    for (const s of slots.slice(1)) s.parent[s.name] = new Identity().train(mods[0].training);
  }
  return model;
}
