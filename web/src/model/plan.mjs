// What each node of a loaded graph produces and costs, known before it runs.
//
// A model file is small; the work it asks for need not be (a 1 KB file can
// hold a pool with a 100,000-wide window, or an adaptive pool to 40000 x
// 40000). From the shapes of a node's inputs this module infers its output
// (kind, dtype, shape, qparams where they are fixed) and its cost: the bytes
// of its output and scratch, and its work in multiply-adds. io.loadModel runs
// it over the whole graph on the input shape the file declares, refusing a
// model over budget at load; GraphModule checks each node again on the real
// input before running it. Each op's formulas (PyTorch's) are its
// descriptor's (web/src/ops/): a module type's cost and output, a graph
// callable's cost; this module walks the graph with them and keeps the budget.

import { floatValue, isTensor, numel, qValue } from '../ops/abstract-values.mjs';
import { graphCallable, hasTensorInput, MODULE_TYPES } from '../ops/registry.mjs';
import { describe } from '../runtime/args.mjs';

/** The budget of one forward unless io.loadModel's options raise it. */
export const DEFAULT_LIMITS = Object.freeze({
  maxActivationBytes: 2 ** 28, // one node's output or scratch (256 MiB)
  maxLiveBytes: 2 ** 30, // what one forward holds at once: live values + a node's output and scratch (1 GiB)
  maxWork: 5e11, // conv multiply-adds over one forward (about 25 s on one thread; work-rates.mjs)
});

export class BudgetError extends Error {}

// A planned value's bytes: a QTensor's integers, a float tensor's float32s (0 when unknown).
const bytesOf = (v) => (v.shape === null ? 0 : numel(v.shape) * (v.kind === 'quantized' ? 1 : 4));

/**
 * One node's output value and cost from its input values (abstract values,
 * or constants). Returns null where the node cannot run on these inputs (the
 * op itself then says why) and a value with a null shape where the inputs'
 * shapes are unknown.
 */
export function nodeCost(node, info, args, kwargs) {
  if (node.op === 'call_module') {
    const x = args[0];
    if (!isTensor(x)) return null;
    const type = MODULE_TYPES[info.type];
    if (x.shape === null) return { value: type.output(info, x, null), work: 0, scratchBytes: 0 };
    const c = type.cost(info, x);
    return c === null ? null : { value: type.output(info, x, c.shape), work: c.work, scratchBytes: c.scratchBytes };
  }
  return graphCallable(node.op, node.target)?.cost(args, kwargs) ?? null;
}

/**
 * Checks one node's cost against the budget; `spent` is the work of the
 * nodes before it in this forward, `heldBytes` what the forward holds while
 * it runs (the values later nodes still read). Returns the new total work.
 */
export function chargeNode(node, cost, spent, limits, hint, heldBytes = 0) {
  const bytes = Math.max(bytesOf(cost.value), cost.scratchBytes);
  if (bytes > limits.maxActivationBytes) {
    throw new BudgetError(
      `node '${node.name}' would need ${bytes} bytes (output [${cost.value.shape.join(', ')}]), over maxActivationBytes ${limits.maxActivationBytes}${hint}`,
    );
  }
  const live = heldBytes + bytesOf(cost.value) + cost.scratchBytes;
  if (live > limits.maxLiveBytes) {
    throw new BudgetError(
      `node '${node.name}' would bring what one forward holds at once to ${live} bytes (${heldBytes} held for later nodes, its output and scratch ${live - heldBytes}), over maxLiveBytes ${limits.maxLiveBytes}${hint}`,
    );
  }
  const total = spent + cost.work;
  if (total > limits.maxWork) {
    throw new BudgetError(
      `node '${node.name}' would bring one forward's work to ${total.toExponential(2)} multiply-adds, over maxWork ${limits.maxWork}${hint}`,
    );
  }
  return total;
}

/** The abstract value of a run-time value (a QTensor or a float tensor), or the constant itself. */
export function abstractOf(v, isQ) {
  if (isQ(v)) return qValue([...v.shape], null, null);
  if (v !== null && typeof v === 'object' && v.data instanceof Float32Array && Array.isArray(v.shape)) {
    return floatValue(v.shape.slice());
  }
  return v;
}

/**
 * The whole graph on an input of `inputShape` (or unknown shapes when null):
 * each node's output value, checked against the budget node by node.
 * @returns {Map<string, import('../ops/abstract-values.mjs').Value>}
 */
export function planGraph(nodes, infos, inputShape, limits, hint) {
  return walkGraph(nodes, infos, inputShape, limits, hint).values;
}

/** The planned multiply-adds of a whole forward on `inputShape` (unlimited): forward's onProgress total. */
export function plannedWork(nodes, infos, inputShape) {
  const unlimited = { maxWork: Infinity, maxActivationBytes: Infinity, maxLiveBytes: Infinity };
  return walkGraph(nodes, infos, inputShape, unlimited, '').spent;
}

// planGraph's walk: the planned values, and the work charged.
function walkGraph(nodes, infos, inputShape, limits, hint) {
  const values = new Map();
  const resolve = (a) =>
    Array.isArray(a) ? a.map(resolve) : a !== null && typeof a === 'object' ? values.get(a.node) : a;
  values.set(nodes[0].name, floatValue(inputShape === null ? null : inputShape.slice()));
  // The index of each value's last reader: a value is held from its node to there.
  const lastUse = new Map();
  nodes.forEach((n, i) => {
    for (const name of referencedNames([n.args, Object.values(n.kwargs)])) lastUse.set(name, i);
  });
  const heldUntil = new Map([[nodes[0].name, lastUse.get(nodes[0].name) ?? 0]]);
  let spent = 0;
  for (const [i, node] of nodes.entries()) {
    if (i === 0) continue;
    let held = 0;
    for (const [name, until] of heldUntil) {
      if (until < i) heldUntil.delete(name);
      else held += bytesOf(values.get(name));
    }
    const args = resolve(node.args);
    if (node.op === 'output') {
      if (!isTensor(args[0])) throw new BudgetError(`the output '${node.args[0].node}' is not a tensor`);
      values.set(node.name, args[0]);
      continue;
    }
    const kwargs = Object.fromEntries(Object.entries(node.kwargs).map(([k, v]) => [k, resolve(v)]));
    const cost = nodeCost(node, node.op === 'call_module' ? infos.get(node.target) : null, args, kwargs);
    if (cost === null) {
      // Kinds that can never work are refused now; shapes that do not fit are the op's to report.
      const callable = node.op === 'call_module' ? undefined : graphCallable(node.op, node.target);
      if (!hasTensorInput(callable, args)) {
        throw new BudgetError(`node '${node.name}' takes a tensor, and its input is a constant`);
      }
      values.set(node.name, { ...(isTensor(args[0]) ? args[0] : floatValue(null)), shape: null });
      continue;
    }
    if (cost.value.shape !== null) spent = chargeNode(node, cost, spent, limits, hint, held);
    values.set(node.name, cost.value);
    if ((lastUse.get(node.name) ?? 0) > i) heldUntil.set(node.name, lastUse.get(node.name));
  }
  return { values, spent };
}

/** @internal The node names an argument structure refers to ({node: name} anywhere inside), once per reference. */
export function referencedNames(value, out = []) {
  if (Array.isArray(value)) for (const v of value) referencedNames(v, out);
  else if (value !== null && typeof value === 'object') out.push(value.node);
  return out;
}

/**
 * The budget options present in `o` (a readOptions map): {maxActivationBytes?, maxLiveBytes?, maxWork?}.
 * @returns {{maxActivationBytes?: number, maxLiveBytes?: number, maxWork?: number}}
 */
export function readBudget(o, ctx) {
  /** @type {{maxActivationBytes?: number, maxLiveBytes?: number, maxWork?: number}} */
  const budget = {};
  for (const key of /** @type {const} */ (['maxActivationBytes', 'maxLiveBytes', 'maxWork'])) {
    if (!o.has(key)) continue;
    const v = o.get(key);
    if (typeof v !== 'number') throw new TypeError(`${ctx}: ${key} must be a number, got ${describe(v)}`);
    if (!(v > 0)) throw new RangeError(`${ctx}: ${key} must be > 0 (Infinity for no limit), got ${v}`);
    budget[key] = v;
  }
  return budget;
}
