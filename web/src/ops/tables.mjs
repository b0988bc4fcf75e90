// How the tables qwasm reads are derived from the op descriptors (listed by
// registry.mjs), and the checks every descriptor passes: a key no table
// reads (a misspelt `feilds`), a key an entry needs that is missing, or a
// name, float class or fusion two descriptors both define is an Error when
// the library loads, naming the descriptor.
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

import { isTensor } from './abstract-values.mjs';

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
  const missing = required.filter((k) => entry[k] === undefined);
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(
      `op descriptor ${where}: unknown ${unknown.join(', ') || '-'}; missing ${missing.join(', ') || '-'}`,
    );
  }
}

/**
 * The tables of a set of descriptor families ({family: {name: descriptor}}):
 * {descriptors, moduleTypes, graphFunctions, graphMethods, fusions,
 * eagerRowOf, nsLogged, nsStateDicts, nsQuantizedLayers} (registry.mjs
 * documents each).
 */
export function opTables(families) {
  const descriptors = Object.freeze(
    Object.entries(families).flatMap(([family, exports]) =>
      Object.entries(exports).map(([name, d]) => /** @type {[string, any]} */ ([`${family}.${name}`, d])),
    ),
  );
  for (const [name, d] of descriptors) checkKeys(d, 'descriptor', name);

  // One table entry per name across all descriptors.
  const merged = (kind, key) => {
    const table = {};
    for (const [name, d] of descriptors) {
      for (const [target, entry] of Object.entries(d[key] ?? {})) {
        checkKeys(entry, kind, `${name}.${key}.${target}`);
        if (Object.hasOwn(table, target)) throw new Error(`op descriptor ${name}: ${key} '${target}' is defined twice`);
        table[target] = Object.freeze(entry);
      }
    }
    return Object.freeze(table);
  };
  // Every row of one kind across all descriptors, checked.
  const rows = (kind, key) =>
    descriptors.flatMap(([name, d]) =>
      (d[key] ?? []).map((row, i) => {
        checkKeys(row, kind, `${name}.${key}[${i}]`);
        return Object.freeze(row);
      }),
    );

  /** @type {{types: Function[], needsEval: boolean, fuse: (modules: any[], ctx: string) => any}[]} */
  const fusions = rows('fusion', 'fusions');
  fusions.forEach((p, i) => {
    const first = fusions.findIndex(
      (q) => q.types.length === p.types.length && q.types.every((T, j) => T === p.types[j]),
    );
    if (first !== i) throw new Error(`op descriptors: two fusions of (${p.types.map((T) => T.name).join(', ')})`);
  });

  /** @type {EagerRow[]} */
  const eager = rows('eager', 'eager');
  // The rows by float class (PyTorch maps exact types), and those that also take subclasses.
  const byClass = new Map();
  for (const row of eager) {
    if (byClass.has(row.float)) throw new Error(`op descriptors: two eager rows for ${row.float.name}`);
    byClass.set(row.float, row);
  }
  const subclassed = eager.filter((row) => row.subclasses);
  const observed = (row) => row.observe !== undefined && row.observe !== 0;

  return {
    descriptors,
    moduleTypes: /** @type {Readonly<Record<string, ModuleType>>} */ (merged('module', 'modules')),
    graphFunctions: /** @type {Readonly<Record<string, GraphCallable>>} */ (merged('callable', 'functions')),
    graphMethods: /** @type {Readonly<Record<string, GraphCallable>>} */ (merged('callable', 'methods')),
    fusions: Object.freeze(fusions),
    /** @returns {EagerRow | undefined} */
    eagerRowOf: (m) => byClass.get(m.constructor) ?? subclassed.find((row) => m instanceof row.float),
    nsLogged: Object.freeze(
      eager.flatMap((row) => {
        const methods = Object.freeze(row.ops ?? ['forward']);
        const out = [];
        if (row.logged ?? observed(row)) out.push(Object.freeze([row.float, methods]));
        if (row.quantized !== undefined) out.push(Object.freeze([row.quantized, methods]));
        return out;
      }),
    ),
    nsStateDicts: Object.freeze(
      eager.flatMap((row) => [
        ...(row.floatState ? [Object.freeze([row.float, row.floatState])] : []),
        ...(row.quantized && row.quantizedState ? [Object.freeze([row.quantized, row.quantizedState])] : []),
      ]),
    ),
    nsQuantizedLayers: Object.freeze(
      eager.filter((row) => row.floatState && row.quantized).map((row) => row.quantized),
    ),
  };
}

/** Whether a node's inputs hold the tensor its callable needs (default: its first argument is a tensor). */
export const hasTensorInput = (callable, args) => (callable?.tensorInput ?? ((a) => isTensor(a[0])))(args);
