// Every op qwasm knows, one descriptor each (or one per small family: conv
// 1d / 2d / 3d, quantized and float, in one), and the tables the rest of
// qwasm reads, derived from them and never kept by hand: the model loader's
// module types and graph functions and methods (model/), the eager flow's
// mapping (quantization/prepare.mjs) and the numeric suite's pairing and
// logging (quantization/ns.mjs). It is torch.ao's quantization_mappings.py
// turned around: there, one table per use, each listing every op; here, one
// descriptor per op, holding every use, and the tables derived, as PyTorch
// derives its qconfig propagation list and its numeric suite's module list
// from its mappings.
//
// A descriptor is an object with any of:
// - modules: {Type: module type} — each module type a model file may hold
//   (web/src/model/vocabulary.json, python/qwasm_export.py writes them):
//   - fields: its attributes besides `type` (a file giving another is refused);
//   - fieldVersions?: {field: format version that added it} (older files lack it);
//   - build(m, {read, what, version, winograd}): checks every field of the
//     entry m and makes the module (read: the file's tensor readers; what:
//     where the entry is, for messages; winograd: the quantized convs' option);
//   - info(m): what the planner needs of the checked entry;
//   - cost(info, x): its output shape and cost on an abstract input x of known
//     shape ({shape, work, scratchBytes}; work in quantized-conv multiply-adds
//     at the measured rates, work-rates.mjs), or null where it cannot run on x;
//   - output(info, x, shape): its output value (kind, dtype, fixed qparams).
// - functions / methods: {target: callable} — what a graph's call_function /
//   call_method nodes may call (the vocabulary's signatures):
//   - args: its most positional arguments; kwargs: the keyword arguments allowed;
//   - run(args, kwargs): its output on real values (a NodeError when they do not fit);
//   - cost(args, kwargs): its output and cost on abstract values ({value, work,
//     scratchBytes}), or null where it cannot run on them;
//   - checkConstants?(args): what is wrong with constant arguments the loader
//     can check in the file, or null;
//   - tensorInput?(args): whether its inputs hold the tensor it needs (the
//     planner refuses a node whose input is a constant; default: args[0] is a tensor).
// - fusions: [pattern] — what quantization.fuseModules fuses (PyTorch's
//   fuser_method_mappings): types, the exact classes of the modules fused in
//   order; needsEval, whether it folds a BatchNorm (eval mode only);
//   fuse(modules, ctx), the fused module.
// - eager: [row] — what PyTorch's eager flow does with each float class (one
//   row of torch.ao's DEFAULT_STATIC_QUANT_MODULE_MAPPINGS and what goes with it):
//   - float: the float (or fused) class, matched exactly, as PyTorch matches
//     types (subclasses: true matches its subclasses too);
//   - quantized?: its twin after convert(); convert?(module, {observer,
//     qconfig, path, ctx}) makes it;
//   - observe?: how many times prepare()'s observer sees each output (0 by
//     default; 2 for a fused module, which PyTorch observes inside and in its
//     hook; 'functional': its ops observe, FloatFunctional's);
//   - fused?: a fused module: observed as a whole, neither prepare() nor
//     convert() enters it;
//   - skip?: prepare() leaves it and what is under it alone;
//   - refuse?: why prepare() refuses one with a QConfig (it follows the module's path);
//   - logged?: whether the numeric suite logs the float class's output
//     (default: when prepare observes it, as PyTorch's logging is its prepare
//     with a logger for observer); the quantized twin's is always logged;
//   - ops?: the methods whose outputs are logged (default: forward);
//   - floatState?(m, at), quantizedState?(m, at): each class's state-dict
//     entries, [[key, read | null]] in PyTorch's order (at(name): the key
//     under the module's path; read() gives a float tensor or a QTensor the
//     caller disposes; null: an entry only there for the matching).
//
// Each family file exports its descriptors, and every export is one: a new
// op is a new export of the family file it belongs to (or a new family file
// imported below).

import { isTensor } from './abstract-values.mjs';
import * as activations from './activations.mjs';
import * as arithmetic from './arithmetic.mjs';
import * as batchnorm from './batchnorm.mjs';
import * as conv from './conv.mjs';
import * as linear from './linear.mjs';
import * as pooling from './pooling.mjs';
import * as quantize from './quantize.mjs';
import * as shapeOps from './shape-ops.mjs';

/**
 * A module type of a model file.
 * @typedef {{fields: string[], fieldVersions?: Record<string, number>,
 *   build: (m: any, file: {read: any, what: string, version: string, winograd: any}) => any,
 *   info: (m: any) => any, cost: (info: any, x: any) => ({shape: number[], work: number, scratchBytes: number} | null),
 *   output: (info: any, x: any, shape: number[] | null) => any}} ModuleType
 */

/**
 * A function or method a graph may call.
 * @typedef {{args: number, kwargs: string[], run: (args: any[], kwargs: Record<string, any>) => any,
 *   cost: (args: any[], kwargs: Record<string, any>) => ({value: any, work: number, scratchBytes: number} | null),
 *   checkConstants?: (args: any[]) => (string | null), tensorInput?: (args: any[]) => boolean}} GraphCallable
 */

/**
 * What the eager flow does with one float class.
 * @typedef {{float: Function, subclasses?: boolean, quantized?: Function,
 *   convert?: (module: any, how: {observer: any, qconfig: any, path: string, ctx: string}) => any,
 *   observe?: number | 'functional', fused?: boolean, skip?: boolean, refuse?: string, logged?: boolean,
 *   ops?: string[], floatState?: StateDict, quantizedState?: StateDict}} EagerRow
 * @typedef {(m: any, at: (name: string) => string) => [string, (() => any) | null][]} StateDict
 */

const FAMILIES = { activations, arithmetic, batchnorm, conv, linear, pooling, quantize, shapeOps };

const KEYS = {
  descriptor: { required: [], optional: ['modules', 'functions', 'methods', 'fusions', 'eager'] },
  module: { required: ['fields', 'build', 'info', 'cost', 'output'], optional: ['fieldVersions'] },
  callable: { required: ['args', 'kwargs', 'run', 'cost'], optional: ['checkConstants', 'tensorInput'] },
  fusion: { required: ['types', 'needsEval', 'fuse'], optional: [] },
  eager: {
    required: ['float'],
    optional: [
      'subclasses',
      'quantized',
      'convert',
      'observe',
      'fused',
      'skip',
      'refuse',
      'logged',
      'ops',
      'floatState',
      'quantizedState',
    ],
  },
};

// A descriptor with a key no table reads (a misspelt `feilds`), or without one every entry needs, is a bug.
function checkKeys(entry, kind, where) {
  const { required, optional } = KEYS[kind];
  const unknown = Object.keys(entry).filter((k) => !required.includes(k) && !optional.includes(k));
  const missing = required.filter((k) => !Object.hasOwn(entry, k));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(
      `op descriptor ${where}: unknown ${unknown.join(', ') || '-'}; missing ${missing.join(', ') || '-'}`,
    );
  }
}

/** Every descriptor: [name ('conv.conv'), descriptor]. */
export const DESCRIPTORS = Object.freeze(
  Object.entries(FAMILIES).flatMap(([family, exports]) =>
    Object.entries(exports).map(([name, d]) => /** @type {[string, any]} */ ([`${family}.${name}`, d])),
  ),
);

// One table entry per name across all descriptors.
function merged(kind, key) {
  const table = {};
  for (const [name, d] of DESCRIPTORS) {
    for (const [target, entry] of Object.entries(d[key] ?? {})) {
      checkKeys(entry, kind, `${name}.${key}.${target}`);
      if (Object.hasOwn(table, target)) throw new Error(`op descriptor ${name}: ${key} '${target}' is defined twice`);
      table[target] = Object.freeze(entry);
    }
  }
  return Object.freeze(table);
}

for (const [name, d] of DESCRIPTORS) checkKeys(d, 'descriptor', name);

/** Each module type a model file may hold: {fields, fieldVersions?, build, info, cost, output}. */
export const MODULE_TYPES = /** @type {Readonly<Record<string, ModuleType>>} */ (merged('module', 'modules'));

/** The functions an exported graph may call (python/qwasm_export.py's names). */
export const GRAPH_FUNCTIONS = /** @type {Readonly<Record<string, GraphCallable>>} */ (merged('callable', 'functions'));

/** The tensor methods an exported graph may call (x is args[0]). */
export const GRAPH_METHODS = /** @type {Readonly<Record<string, GraphCallable>>} */ (merged('callable', 'methods'));

/**
 * The entry of a call_function / call_method node's target, or undefined when the graph may not call it.
 * @returns {GraphCallable | undefined}
 */
export function graphCallable(op, target) {
  const table = op === 'call_function' ? GRAPH_FUNCTIONS : op === 'call_method' ? GRAPH_METHODS : null;
  return table !== null && typeof target === 'string' && Object.hasOwn(table, target) ? table[target] : undefined;
}

/** Whether a node's inputs hold the tensor its callable needs (the planner's check before cost). */
export const hasTensorInput = (callable, args) => (callable?.tensorInput ?? ((a) => isTensor(a[0])))(args);

/**
 * The module sequences quantization.fuseModules fuses: {types (exact classes,
 * in order), needsEval, fuse(modules, ctx)}.
 * @type {readonly {types: Function[], needsEval: boolean, fuse: (modules: any[], ctx: string) => any}[]}
 */
export const FUSIONS = Object.freeze(
  DESCRIPTORS.flatMap(([name, d]) =>
    (d.fusions ?? []).map((pattern, i) => {
      checkKeys(pattern, 'fusion', `${name}.fusions[${i}]`);
      return Object.freeze(pattern);
    }),
  ),
);
FUSIONS.forEach((p, i) => {
  const same = FUSIONS.findIndex((q) => q.types.length === p.types.length && q.types.every((T, j) => T === p.types[j]));
  if (same !== i) throw new Error(`op descriptors: two fusions of (${p.types.map((T) => T.name).join(', ')})`);
});

/** @type {EagerRow[]} */
const EAGER = DESCRIPTORS.flatMap(([name, d]) =>
  (d.eager ?? []).map((row, i) => {
    checkKeys(row, 'eager', `${name}.eager[${i}]`);
    return Object.freeze(row);
  }),
);

// The rows by float class (PyTorch maps exact types), and those that also take subclasses.
const EAGER_BY_CLASS = new Map();
for (const row of EAGER) {
  if (EAGER_BY_CLASS.has(row.float)) throw new Error(`op descriptors: two eager rows for ${row.float.name}`);
  EAGER_BY_CLASS.set(row.float, row);
}
const EAGER_SUBCLASSED = EAGER.filter((row) => row.subclasses);

/**
 * The eager row of a module (prepare and convert): its exact class's, or the
 * row of a class it extends that takes subclasses; undefined for a module the
 * eager flow passes through.
 * @returns {EagerRow | undefined}
 */
export function eagerRowOf(m) {
  return EAGER_BY_CLASS.get(m.constructor) ?? EAGER_SUBCLASSED.find((row) => m instanceof row.float);
}

const observed = (row) => row.observe !== undefined && row.observe !== 0;

/**
 * The classes whose outputs the numeric suite logs, with the methods it logs
 * ([Class, methods], matched with instanceof): PyTorch's
 * get_default_compare_output_module_list (its mappings' float and quantized
 * classes), less the float classes its prepare leaves unobserved.
 */
export const NS_LOGGED = Object.freeze(
  EAGER.flatMap((row) => {
    const methods = Object.freeze(row.ops ?? ['forward']);
    const out = [];
    if (row.logged ?? observed(row)) out.push(Object.freeze([row.float, methods]));
    if (row.quantized !== undefined) out.push(Object.freeze([row.quantized, methods]));
    return out;
  }),
);

/** Each class's state-dict entries ([Class, StateDict], matched with instanceof). */
export const NS_STATE_DICTS = Object.freeze(
  EAGER.flatMap((row) => [
    ...(row.floatState ? [Object.freeze([row.float, row.floatState])] : []),
    ...(row.quantized && row.quantizedState ? [Object.freeze([row.quantized, row.quantizedState])] : []),
  ]),
);

/** The quantized layers with weights: the twins of float classes with weights in their state dict. */
export const NS_QUANTIZED_LAYERS = Object.freeze(
  EAGER.filter((row) => row.floatState && row.quantized).map((row) => row.quantized),
);
