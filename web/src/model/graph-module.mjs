// A loaded model: the exported graph (torch.fx's nodes, in order) over qwasm
// modules. forward(x) runs the nodes one by one; every intermediate QTensor is
// disposed right after its last use, so one forward holds only the live
// activations, and an error part-way disposes what the run made.

import { nn } from '../nn/index.mjs';
import { Module } from '../nn/module.mjs';
import { isFloatTensor, NodeError } from '../ops/graph-calls.mjs';
import { graphCallable } from '../ops/registry.mjs';
import { describe, readOptions } from '../runtime/args.mjs';
import { heapInUse } from '../runtime/diagnostics.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { tensor } from '../tensors/tensor.mjs';
import { overMemoryOnly, planDepthStream, planStreamedRun, runDepthStream } from './depth-stream.mjs';
import { transformsOf } from './description.mjs';
import {
  abstractOf,
  BudgetError,
  chargeNode,
  DEFAULT_LIMITS,
  nodeCost,
  plannedWork,
  referencedNames,
} from './plan.mjs';

const isQ = (v) => isQTensorInstance(v);
// A node output's size: a QTensor's integers, a float tensor's float32s.
function bytesOf(v) {
  if (isQ(v)) return v.numel() * (v.dtype === 'qint32' ? 4 : 1);
  return isFloatTensor(v) ? v.data.byteLength : 0;
}

// A deep, frozen copy of JSON data (a node's args and kwargs).
function frozenCopy(v) {
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy));
  if (v !== null && typeof v === 'object') {
    return Object.freeze(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, frozenCopy(x)])));
  }
  return v;
}

// A planned value as users read it.
function publicOutput(value) {
  if (value === null || typeof value !== 'object') return null;
  return Object.freeze({
    dtype: value.dtype,
    shape: value.shape === null ? null : Object.freeze(value.shape.slice()),
    scale: value.scale ?? null,
    zeroPoint: value.zeroPoint ?? null,
  });
}

function publicNode(n, planned) {
  return Object.freeze({
    name: n.name,
    op: n.op,
    target: n.target,
    args: frozenCopy(n.args),
    kwargs: frozenCopy(n.kwargs),
    output: publicOutput(planned),
  });
}

// A run-time value as profile() reports it.
function describeOutput(v) {
  if (isQ(v)) {
    const perTensor = v.qscheme() === 'per_tensor_affine';
    return {
      dtype: v.dtype,
      shape: [...v.shape],
      scale: perTensor ? v.qScale() : null,
      zeroPoint: perTensor ? v.qZeroPoint() : null,
    };
  }
  if (isFloatTensor(v)) return { dtype: 'float32', shape: v.shape.slice(), scale: null, zeroPoint: null };
  return null;
}

/** Documented at io.GraphModule (web/declarations/io.d.ts). */
export class GraphModule extends Module {
  #nodes;
  #modules;
  #uses; // per node: how many later references it has
  #inputShape;
  #public; // the nodes as users read them (frozen)
  #infos; // module path -> what the planner knows of it
  #limits;
  #hint;
  #engine;
  #description;
  #streamPlan = null; // planDepthStream's answer, made at the first call that needs it

  /** @internal Built by io.loadModel. */
  constructor(modules, nodes, inputShape = null, plan = {}) {
    super();
    this.#inputShape = inputShape === null ? null : Object.freeze([...inputShape]);
    this.#modules = modules;
    this.#infos = plan.infos ?? new Map();
    this.#limits = plan.limits ?? DEFAULT_LIMITS;
    this.#hint = plan.hint ?? '';
    this.#engine = plan.engine ?? 'fbgemm';
    this.#description = plan.description ?? { preprocessing: null, classes: null };
    this.#nodes = nodes.map((n) => ({ ...n, refs: referencedNames([n.args, Object.values(n.kwargs)]) }));
    this.#public = Object.freeze(nodes.map((n) => publicNode(n, plan.planned?.get(n.name) ?? null)));
    const uses = new Map();
    for (const n of this.#nodes) for (const r of n.refs) uses.set(r, (uses.get(r) ?? 0) + 1);
    this.#uses = uses;
    /** @type {Set<Module>} */
    const containers = new Set([this]);
    for (const [path, mod] of modules) {
      const parts = path.split('.');
      /** @type {Module} */
      let at = this;
      parts.forEach((part, i) => {
        const leaf = i === parts.length - 1;
        if (RESERVED_NAMES.includes(part)) {
          throw new Error(`module path '${path}' uses the reserved name '${part}'`);
        }
        const existing = Object.hasOwn(at, part) ? at[part] : undefined;
        if (leaf) {
          if (existing !== undefined) throw new Error(`module path '${path}' is defined twice, or is also a parent`);
          Object.defineProperty(at, part, { value: mod, enumerable: true, writable: false, configurable: false });
          return;
        }
        if (existing === undefined) {
          const c = new Module();
          containers.add(c);
          Object.defineProperty(at, part, { value: c, enumerable: true, writable: false, configurable: false });
          at = c;
        } else if (containers.has(existing)) {
          at = existing;
        } else {
          throw new Error(`module path '${path}' runs through the module '${parts.slice(0, i + 1).join('.')}'`);
        }
      });
    }
    this.eval();
  }

  /** Documented at io.GraphModule.engine (web/declarations/io.d.ts). */
  get engine() {
    return this.#engine;
  }

  /** Documented at io.GraphModule.weightBytes (web/declarations/io.d.ts). */
  weightBytes() {
    let packed = 0;
    let winograd = 0;
    for (const mod of this.#modules.values()) {
      if (typeof mod.packedWeightBytes === 'function') packed += mod.packedWeightBytes();
      if (typeof mod.winogradWeightBytes === 'function') winograd += mod.winogradWeightBytes();
    }
    return { packed, winograd };
  }

  /** Documented at io.GraphModule.preprocessing (web/declarations/io.d.ts). */
  get preprocessing() {
    return this.#description.preprocessing;
  }

  /** The output's class names the exporter recorded (e.g. Kinetics-400's 400), or null. */
  get classes() {
    return this.#description.classes;
  }

  /** A transforms.VideoClassification from the recorded preprocessing (as torchvision's weights.transforms()). */
  transforms() {
    return transformsOf(this.#description.preprocessing, 'GraphModule.transforms()');
  }

  /** The shape of the example input the model was exported with, or null. */
  get inputShape() {
    return this.#inputShape === null ? null : [...this.#inputShape];
  }

  /** Documented at io.GraphModule.nodes (web/declarations/io.d.ts). */
  get nodes() {
    return this.#public.slice();
  }

  /** Documented at io.GraphModule.forward (web/declarations/io.d.ts). */
  forward(x, options) {
    const ctx = 'GraphModule.forward(x)';
    const { budget, onProgress } = readForwardOptions(options, ctx);
    if (budget === null) {
      const auto = this.#autoStream(x, ctx);
      return auto === null
        ? this.#run(x, false, ctx, null, this.#limits, this.#hint, onProgress)
        : this.#streamRun(auto.stream, auto.input, ctx, onProgress);
    }
    // The streamed run reads x's data by offsets: only a float tensor whose
    // data matches its shape streams (the untiled run names what is wrong with any other).
    let input = null;
    if (isFloatTensor(x)) {
      try {
        input = tensor(x.data, x.shape);
      } catch {
        input = null;
      }
    }
    const stream = this.#depthStream(input === null ? null : input.shape, budget, ctx);
    if (stream.depthChunk === 0) {
      if (stream.streamable) {
        throw new RangeError(
          `${ctx}: maxMemoryBytes ${budget} cannot hold the streamed run: one depth slice per chunk needs ${stream.minBytes} bytes`,
        );
      }
      // Not streamable: the untiled run, with the budget as its limit on what it holds at once.
      const limits = {
        ...this.#limits,
        maxActivationBytes: Math.min(this.#limits.maxActivationBytes, budget),
        maxLiveBytes: Math.min(this.#limits.maxLiveBytes, budget),
      };
      const hint = ` (maxMemoryBytes ${budget}; the graph cannot stream along depth: ${stream.reason})`;
      return this.#run(x, false, ctx, null, limits, hint, onProgress);
    }
    return this.#streamRun(stream, input, ctx, onProgress);
  }

  #streamRun(stream, input, ctx, onProgress = null) {
    try {
      return runDepthStream(stream.plan, input, stream.depthChunk, callerProgress(onProgress));
    } catch (e) {
      if (e instanceof ProgressThrew) throw e.error;
      if (e instanceof Error && !e.message.startsWith(ctx)) e.message = `${ctx}: depth streaming: ${e.message}`;
      throw e;
    }
  }

  // Streaming under the load budget (depth-stream.mjs, overMemoryOnly): a
  // graph that streams, on an input whose untiled run would go over the
  // budget's memory limits but not its work, streams within maxLiveBytes
  // instead of being refused. null: run untiled (which refuses what is over).
  #autoStream(x, ctx) {
    if (!isFloatTensor(x) || x.shape.length !== 5 || this.#chain().reason !== undefined) return null;
    let input;
    try {
      input = tensor(x.data, x.shape);
    } catch {
      return null;
    }
    if (!overMemoryOnly(this.#graph(), input.shape)) return null;
    const stream = this.#depthStream(input.shape, this.#limits.maxLiveBytes, ctx);
    return stream.depthChunk === 0 ? null : { stream, input };
  }

  /** Documented at io.GraphModule.depthStreamPlan (web/declarations/io.d.ts). */
  depthStreamPlan(inputShape, options) {
    const ctx = 'GraphModule.depthStreamPlan(inputShape, options)';
    const budget = readMemoryOption(options, ctx).budget ?? Number.MAX_SAFE_INTEGER;
    const { streamable, reason, depthChunk, bytes, minBytes } = this.#depthStream(inputShape, budget, ctx);
    return { streamable, reason, depthChunk, bytes, minBytes };
  }

  // The graph's chain of depth-local stages, planned at the first call that needs it.
  #chain() {
    this.#streamPlan ??= planDepthStream(this.#nodes, (target) => this.#modules.get(target));
    return this.#streamPlan;
  }

  #graph() {
    return { nodes: this.#nodes, infos: this.#infos, limits: this.#limits, hint: this.#hint };
  }

  #depthStream(shape, budget, ctx) {
    return planStreamedRun(this.#chain(), this.#graph(), shape, budget, ctx);
  }

  /** Documented at io.GraphModule.forwardQuantized (web/declarations/io.d.ts). */
  forwardQuantized(q) {
    return this.#run(q, true, 'GraphModule.forwardQuantized(q)');
  }

  /** Documented at io.GraphModule.profile (web/declarations/io.d.ts). */
  profile(x) {
    const layers = [];
    let peak = heapInUse();
    const output = this.#run(x, false, 'GraphModule.profile(x)', (node, ms, value, work) => {
      const mod = node.op === 'call_module' ? this.#modules.get(node.target) : null;
      const scratch = mod !== null && typeof mod.lastScratchBytes === 'function' ? mod.lastScratchBytes() : 0;
      const heapBytes = heapInUse() + scratch;
      peak = Math.max(peak, heapBytes);
      layers.push({
        name: node.name,
        op: node.op,
        target: node.target,
        path: mod !== null && typeof mod.lastPath === 'function' ? mod.lastPath() : null,
        ms,
        work,
        heapBytes,
        outputBytes: bytesOf(value),
        output: describeOutput(value),
      });
    });
    return { output, layers, peakHeapBytes: peak };
  }

  #run(x, quantized, ctx, onNode = null, limits = this.#limits, hint = this.#hint, onProgress = null) {
    const nodes = this.#nodes;
    const progress = onProgress === null ? null : this.#nodeProgress(x, callerProgress(onProgress));
    const env = new Map();
    const live = new Map(); // QTensor -> references still to come
    let skipFirst = null;
    let stopAt = nodes[nodes.length - 1];
    if (quantized) {
      if (!isQ(x)) throw new TypeError(`${ctx}: q must be a QTensor, got ${describe(x)}`);
      const users = nodes.filter((n) => n.refs.includes(nodes[0].name));
      const quant = users.length === 1 ? users[0] : null;
      if (
        quant === null ||
        quant.op !== 'call_module' ||
        !(this.#modules.get(quant.target) instanceof nn.quantized.Quantize)
      ) {
        throw new Error(`${ctx}: the model's input does not go through one QuantStub`);
      }
      skipFirst = quant;
    }
    // Per name, the references still to come; the bytes of the values they
    // hold (what this forward holds at once, charged against maxLiveBytes).
    const remaining = new Map();
    let heldBytes = 0;
    const store = (node, value) => {
      env.set(node.name, value);
      const uses = this.#uses.get(node.name) ?? 0;
      if (uses > 0) {
        remaining.set(node.name, uses);
        heldBytes += bytesOf(value);
      }
      if (isQ(value) && value !== x) live.set(value, (live.get(value) ?? 0) + uses);
    };
    const release = (name) => {
      const v = env.get(name);
      const uses = remaining.get(name) - 1;
      if (uses > 0) remaining.set(name, uses);
      else {
        // The last reference: the name's value is no longer held (a float
        // tensor becomes garbage unless another name holds it too).
        remaining.delete(name);
        env.delete(name);
        heldBytes -= bytesOf(v);
      }
      if (!isQ(v) || v === x) return;
      const left = live.get(v) - 1;
      if (left > 0) live.set(v, left);
      else {
        live.delete(v);
        v.dispose();
      }
    };
    const resolve = (a) =>
      Array.isArray(a) ? a.map(resolve) : a !== null && typeof a === 'object' ? env.get(a.node) : a;
    let current = nodes[0];
    let spent = 0; // this forward's work so far, in multiply-adds
    try {
      // (forwardQuantized: the placeholder is read only by the skipped QuantStub.)
      if (quantized) env.set(nodes[0].name, x);
      else store(nodes[0], x);
      if (quantized) {
        // The QTensor stands for the QuantStub's output; a final DeQuantStub is skipped.
        store(skipFirst, x);
        const last = nodes[nodes.length - 1];
        const producer = nodes.find((n) => n.name === last.args[0].node);
        if (producer?.op === 'call_module' && this.#modules.get(producer.target) instanceof nn.quantized.DeQuantize) {
          stopAt = producer;
        }
      }
      for (let i = 1; i < nodes.length; i++) {
        const node = nodes[i];
        current = node;
        if (node === skipFirst) continue;
        if (node === stopAt) {
          const v = resolve(node.args[0]); // the output's value, or the final DeQuantStub's input
          // The result leaves the run: no longer counted, never disposed here.
          // Anything else still live was for nodes after the stop (a graph
          // that goes on past its final DeQuantStub): freed.
          live.delete(v);
          for (const other of live.keys()) if (other !== v) other.dispose();
          progress?.finish();
          // The caller's own QTensor coming back (a graph that only passes it
          // through) is returned as a new view, so that disposing the result
          // leaves the input alone.
          return v === x && isQ(v) ? v.view([...v.shape]) : v;
        }
        const args = resolve(node.args);
        const kwargs = Object.fromEntries(Object.entries(node.kwargs).map(([k, v]) => [k, resolve(v)]));
        const before = spent;
        spent = this.#charge(node, args, kwargs, spent, heldBytes, limits, hint);
        let value;
        const start = onNode === null ? 0 : performance.now();
        if (node.op === 'call_module') value = this.#modules.get(node.target).forward(args[0]);
        else value = graphCallable(node.op, node.target).run(args, kwargs);
        store(node, value);
        if (onNode !== null) onNode(node, performance.now() - start, value, spent - before);
        progress?.advance(spent);
        for (const r of node.refs) release(r);
        // An output no later node reads is freed now, unless it is the
        // caller's input or another node's value still to be read (a node
        // like Identity returns its input).
        if (isQ(value) && value !== x && (live.get(value) ?? 0) === 0 && live.has(value)) {
          live.delete(value);
          value.dispose();
        }
      }
      throw new Error(`${ctx}: the graph has no output`);
    } catch (e) {
      for (const v of live.keys()) v.dispose();
      if (e instanceof ProgressThrew) throw e.error; // the caller's own error, unchanged
      const where = `node '${current.name}' (${current.op} ${current.target ?? ''})`.replace(' )', ')');
      if (e instanceof BudgetError) throw new Error(`${ctx}: ${e.message}`);
      if (e instanceof NodeError) throw new Error(`${ctx}: ${where}: ${e.message}`);
      if (e instanceof Error) e.message = `${ctx}: ${where}: ${e.message}`;
      throw e;
    }
  }

  // An untiled run's progress: the work charged so far over the planner's
  // total on x's shape (nodes run over nodes when the planner prices none).
  #nodeProgress(x, report) {
    let total = 0;
    try {
      if (isFloatTensor(x)) total = plannedWork(this.#nodes, this.#infos, [...x.shape]);
    } catch {
      total = 0; // the run reports what is wrong with x
    }
    const nodes = this.#nodes.length - 2;
    let ran = 0;
    let last = -1;
    const send = (done, all) => {
      last = done;
      report({ done, total: all });
    };
    return {
      advance(spent) {
        ran += 1;
        if (total > 0) send(Math.min(spent, total), total);
        else send(Math.min(ran, nodes), nodes);
      },
      finish() {
        const all = total > 0 ? total : nodes;
        if (last !== all) send(all, all);
      },
    };
  }

  // The node's cost on the values it is about to get, charged to this
  // forward's budget before anything runs (io.loadModel's options).
  #charge(node, args, kwargs, spent, heldBytes, limits, hint) {
    const abstract = (a) => (Array.isArray(a) ? a.map(abstract) : abstractOf(a, isQ));
    const info = node.op === 'call_module' ? this.#infos.get(node.target) : null;
    if (node.op === 'call_module' && info === undefined) return spent; // a module the planner does not know
    const cost = nodeCost(
      node,
      info,
      abstract(args),
      Object.fromEntries(Object.entries(kwargs).map(([k, v]) => [k, abstract(v)])),
    );
    if (cost === null || cost.value.shape === null) return spent; // the op reports what is wrong
    return chargeNode(node, cost, spent, limits, hint, heldBytes);
  }

  /** Frees every module's wasm memory; idempotent. */
  dispose() {
    for (const m of this.#modules.values()) m.dispose();
  }

  toString() {
    return `GraphModule(${this.#modules.size} modules, ${this.#nodes.length} nodes)`;
  }
}

// forward's maxMemoryBytes: a positive safe integer, or null when not given.
function readMemoryOption(options, ctx, names = ['maxMemoryBytes']) {
  const o = readOptions(options, names, ctx);
  if (!o.has('maxMemoryBytes')) return { budget: null, read: o };
  const v = o.get('maxMemoryBytes');
  if (!Number.isSafeInteger(v) || v <= 0) {
    throw new RangeError(`${ctx}: maxMemoryBytes must be a positive integer (bytes), got ${describe(v)}`);
  }
  return { budget: v, read: o };
}

// forward's options: the budget (or null) and onProgress (a function, or null).
function readForwardOptions(options, ctx) {
  const { budget, read } = readMemoryOption(options, ctx, ['maxMemoryBytes', 'onProgress']);
  const onProgress = read.get('onProgress') ?? null;
  if (onProgress !== null && typeof onProgress !== 'function') {
    throw new TypeError(`${ctx}: onProgress must be a function, got ${describe(onProgress)}`);
  }
  return { budget, onProgress };
}

// An error thrown by the caller's onProgress, carried out of the run unchanged.
class ProgressThrew {
  constructor(error) {
    this.error = error;
  }
}

// The caller's onProgress, called as a function (not a method), its throw marked as its own.
function callerProgress(onProgress) {
  if (onProgress === null) return null;
  return (p) => {
    try {
      onProgress(p);
    } catch (error) {
      throw new ProgressThrew(error);
    }
  };
}

/**
 * The names no part of a module path may be (python/qwasm_export.py refuses
 * them too; tests/js/model/vocabulary.test.mjs checks that the lists agree): a
 * module is a property of its parent, so a part cannot be a name the
 * GraphModule, its modules or any object already has (forward, dispose,
 * constructor, toString, __proto__...).
 */
export const RESERVED_NAMES = Object.freeze(
  [
    ...new Set(
      [GraphModule.prototype, Module.prototype, Object.prototype].flatMap((p) => Object.getOwnPropertyNames(p)),
    ),
  ].sort(),
);
