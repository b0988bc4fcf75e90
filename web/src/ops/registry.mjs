// Every op qwasm knows, one descriptor each (or one per small family: conv
// 1d / 2d / 3d, quantized and float, in one), and the tables the rest of
// qwasm reads, derived from them (tables.mjs) and never kept by hand: the
// model loader's module types and graph functions and methods (model/), the
// eager flow's fusions and mapping (quantization/fuse.mjs, prepare.mjs) and
// the numeric suite's pairing and logging (quantization/ns.mjs). It is
// torch.ao's quantization_mappings.py turned around: there, one table per
// use, each listing every op; here, one descriptor per op, holding every
// use, and the tables derived, as PyTorch derives its qconfig propagation
// list and its numeric suite's module list from its mappings. tables.mjs
// says what a descriptor holds.
//
// Each family file exports its descriptors, and every export is one: a new
// op is a new export of the family file it belongs to (or a new family file
// imported below).

import * as activations from './activations.mjs';
import * as arithmetic from './arithmetic.mjs';
import * as batchnorm from './batchnorm.mjs';
import * as conv from './conv.mjs';
import * as convTranspose from './conv-transpose.mjs';
import * as elementwise from './elementwise.mjs';
import * as layout from './layout.mjs';
import * as linear from './linear.mjs';
import * as normalization from './normalization.mjs';
import * as pooling from './pooling.mjs';
import * as quantize from './quantize.mjs';
import * as reductions from './reductions.mjs';
import * as resample from './resample.mjs';
import * as shapeOps from './shape-ops.mjs';
import { opTables } from './tables.mjs';

export { hasTensorInput } from './tables.mjs';

const TABLES = opTables({
  activations,
  arithmetic,
  batchnorm,
  conv,
  convTranspose,
  elementwise,
  layout,
  linear,
  normalization,
  pooling,
  quantize,
  reductions,
  resample,
  shapeOps,
});

/** Every descriptor: [name ('conv.conv'), descriptor]. */
export const DESCRIPTORS = TABLES.descriptors;

/** Each module type a model file may hold: {fields, fieldVersions?, build, info, cost, output}. */
export const MODULE_TYPES = TABLES.moduleTypes;

/** The functions an exported graph may call (python/qwasm_export.py's names). */
export const GRAPH_FUNCTIONS = TABLES.graphFunctions;

/** The tensor methods an exported graph may call (x is args[0]). */
export const GRAPH_METHODS = TABLES.graphMethods;

/**
 * The entry of a call_function / call_method node's target, or undefined when the graph may not call it.
 * @returns {import('./tables.mjs').GraphCallable | undefined}
 */
export function graphCallable(op, target) {
  const table = op === 'call_function' ? GRAPH_FUNCTIONS : op === 'call_method' ? GRAPH_METHODS : null;
  return table !== null && typeof target === 'string' && Object.hasOwn(table, target) ? table[target] : undefined;
}

/** The module sequences quantization.fuseModules fuses: {types (exact classes, in order), needsEval, fuse(modules, ctx)}. */
export const FUSIONS = TABLES.fusions;

/**
 * The eager row of a module (prepare and convert): its exact class's, or the
 * row of a class it extends that takes subclasses; undefined for a module the
 * eager flow passes through.
 */
export const eagerRowOf = TABLES.eagerRowOf;

/**
 * The classes whose outputs the numeric suite logs, with the methods it logs
 * ([Class, methods], matched with instanceof): PyTorch's
 * get_default_compare_output_module_list (its mappings' float and quantized
 * classes), less the float classes its prepare leaves unobserved.
 */
export const NS_LOGGED = TABLES.nsLogged;

/** Each class's state-dict entries ([Class, StateDict], matched with instanceof). */
export const NS_STATE_DICTS = TABLES.nsStateDicts;

/** The quantized layers with weights: the twins of float classes with weights in their state dict. */
export const NS_QUANTIZED_LAYERS = TABLES.nsQuantizedLayers;
