// One module entry of a model file, built: its type's descriptor
// (web/src/ops/) checks every field and makes the module; the entry may hold
// no field its type does not list (or one newer than the file's format
// version), since an ignored attribute would run something other than what
// was written.

import { fail, isObject, onlyKeys, quote } from '../ops/format-readers.mjs';
import { MODULE_TYPES } from '../ops/registry.mjs';

/**
 * One module of the file, built and loaded (its weights checked against its
 * geometry), and what the planner needs of it: {module, info}.
 */
export function buildModule(m, read, what, version, winograd) {
  if (!isObject(m)) fail(`${what} must be an object`);
  if (!Object.hasOwn(MODULE_TYPES, m.type)) fail(`${what}.type ${quote(m.type)} is not a module type this qwasm knows`);
  const type = MODULE_TYPES[m.type];
  const since = type.fieldVersions ?? {};
  onlyKeys(m, ['type', ...type.fields.filter((k) => !(since[k] > Number(version)))], what);
  const module = type.build(m, { read, what, version, winograd });
  const info = { type: m.type, ...type.info(m) };
  // A conv or linear layer's scratch for an input shape, as the core allocates it (the planner's charge).
  if (typeof module._scratchBound === 'function') info.scratchBound = (shape) => module._scratchBound(shape);
  return { module, info };
}
