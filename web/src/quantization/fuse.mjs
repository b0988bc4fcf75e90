// quantization.fuseModules: PyTorch's eager fusion for 1d/2d/3d, by the
// fusion patterns of the op descriptors (web/src/ops/: a conv's or linear's
// `fusions`, PyTorch's fuser_method_mappings). A BatchNorm after a conv (or
// linear) is folded into its weight and bias (nn/fusion.mjs, PyTorch's
// fuse_conv_bn_eval arithmetic, bit for bit); a ReLU after it makes the
// nn.intrinsic fused module. The other slots become nn.Identity.

import { Identity, Module } from '../nn/module.mjs';
import { FUSIONS } from '../ops/registry.mjs';
import { describe, readOptions } from '../runtime/args.mjs';

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
    const entry = FUSIONS.find(
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
