// Depth streaming: a fully convolutional graph run in chunks of T depth
// slices, in bounded memory, with the untiled run's output bytes
// (docs/architecture.md, "Depth streaming"; docs/numerics.md, "Depth
// streaming").
//
// A graph streams when it is one chain (each node reads only the node before
// it) of nodes that are local along depth: Conv3d / ConvReLU3d (quantized or
// float) with depth stride 1 and depth padding at most the kernel's reach, and
// elementwise or over-channel nodes (Quantize, DeQuantize, Identity, ReLU,
// BatchNorm3d, dequantize, arithmetic with a number, argmax / softmax over
// the channels).
//
// The run pushes the input through the chain chunk by chunk. A conv keeps a
// line buffer: the input slices a later output still reads (its reach). Once
// its input holds what output slices [o0, o1) read, it builds the window of
// input slices [o0 - pb, o1 - pb + reach) clipped to the volume, and runs the
// layer on it with the depth padding replaced by what the window lacks at the
// volume's borders (0 inside): each output slice sums the same products as in
// the untiled run, so its bytes are the same. Every call makes one block of
// at most B output slices (blockOf: T, or whole Winograd tiles along depth),
// so every window is at most B + reach slices; a dilated quantized conv makes
// its block one depth phase at a time (runPhases), windows of B / dilation + 2.
import { nn } from '../nn/index.mjs';
import { graphCallable } from '../ops/registry.mjs';
import { isQTensorInstance } from '../tensors/qtensor.mjs';
import { DepthRing, isSlab, joinSlabs, slabOf, slabView, sliceSlab, tensorOfSlab } from './depth-slabs.mjs';
import { abstractOf, BudgetError, chargeNode, nodeCost, planGraph } from './plan.mjs';

const isQ = (v) => isQTensorInstance(v);
const product = (a) => a.reduce((x, y) => x * y, 1);

// Module classes that act on each voxel on its own (or on its channels):
// they commute with slicing along depth.
const VOXELWISE_MODULES = () => [
  nn.quantized.Quantize,
  nn.quantized.DeQuantize,
  nn.Identity,
  nn.ReLU,
  nn.ReLU6,
  nn.Hardtanh,
  nn.Dropout,
  nn.BatchNorm3d,
];
const VOXELWISE_CALLS = new Set(['relu', 'dequantize', 'contiguous']);
// Element-wise with a number (one rounding per element, wherever it sits).
// Transcendental activations (sigmoid, tanh, ...) are left out: a kernel's
// vector body and scalar tail need not round alike, and chunks move the tail.
const SCALAR_CALLS = new Set(['add', 'sub', 'mul', 'div', 'quantized.add_scalar', 'quantized.mul_scalar']);
// Over the channels of each voxel (softmax: its own max and sum per voxel, in
// the same order wherever the voxel sits; tests/js/model/depth-stream.test.mjs
// checks the bits).
const CHANNEL_CALLS = new Set(['argmax', 'softmax', 'log_softmax']);

// A call's argument: positional at `index`, else the keyword, else `fallback`.
function argOf(node, index, key, fallback) {
  if (node.args.length > index) return node.args[index];
  return Object.hasOwn(node.kwargs, key) ? node.kwargs[key] : fallback;
}

const isRef = (a) => a !== null && typeof a === 'object' && !Array.isArray(a) && typeof a.node === 'string';

// Whether `args` holds a reference anywhere but at the first position.
function refsBeyondFirst(node) {
  const deep = (a) => (Array.isArray(a) ? a.some(deep) : isRef(a));
  return node.args.slice(1).some(deep) || Object.values(node.kwargs).some(deep);
}

// The stage of one node, or a string: why it does not stream.
function stageOf(node, mod) {
  if (node.op === 'call_module') {
    const geometry = mod?._geometry;
    if (mod && typeof mod._forwardDepthPadded === 'function' && geometry?.dims === 3) {
      const k = geometry.kernel[0];
      const dil = geometry.dilation[0];
      const reach = dil * (k - 1);
      const [pb, pe] = [geometry.padBegin[0], geometry.padEnd[0]];
      if (geometry.stride[0] !== 1) return `its depth stride is ${geometry.stride[0]}, not 1`;
      if (pb > reach || pe > reach)
        return `its depth padding (${pb}, ${pe}) is more than the kernel reaches (${reach})`;
      // A 1x1x1-deep conv without depth padding reads each slice on its own.
      if (reach === 0 && pb === 0 && pe === 0)
        return { kind: 'voxel', node, run: (x) => mod.forward(x), axisAfter: (a) => a };
      // Exact integer sums (a quantized conv of groups 1): blocks of whole
      // Winograd tiles along depth, and a dilated layer's depth phases run
      // one by one (runConv). Its middle tap always inside the volume
      // (padding at most the dilation) keeps every phase's window non-empty.
      const phases = mod._depthPhases === true && k === 3;
      const phased = phases && dil > 1 && pb <= dil && pe <= dil;
      return { kind: 'conv', node, mod, reach, pb, pe, dil, k, tiles: phases, phased };
    }
    if (!VOXELWISE_MODULES().some((C) => mod instanceof C)) {
      return `a ${mod?.constructor?.name ?? 'missing'} module is not known to be local along depth`;
    }
    return { kind: 'voxel', node, run: (x) => mod.forward(x), axisAfter: (axis) => axis };
  }
  if (node.op === 'call_function' || node.op === 'call_method') {
    if (VOXELWISE_CALLS.has(node.target) && node.args.length === 1 && Object.keys(node.kwargs).length === 0) {
      return { kind: 'voxel', node, run: callOf(node), axisAfter: (axis) => axis };
    }
    if (SCALAR_CALLS.has(node.target) && node.args.length === 2 && typeof node.args[1] === 'number') {
      return { kind: 'voxel', node, run: callOf(node), axisAfter: (axis) => axis };
    }
    if (CHANNEL_CALLS.has(node.target)) {
      const dim = argOf(node, 1, 'dim', null);
      if (dim !== 1 && dim !== -4) return `${node.target} is over dim ${dim}, not the channels of a 5-D tensor`;
      const keepdim = node.target === 'argmax' ? argOf(node, 2, 'keepdim', false) === true : true;
      return { kind: 'voxel', node, run: callOf(node), axisAfter: (axis) => (keepdim ? axis : axis - 1), dim };
    }
    return `${node.op} ${node.target} is not known to be local along depth`;
  }
  return `a ${node.op} node`;
}

function callOf(node) {
  const callable = graphCallable(node.op, node.target);
  return (x) => callable.run([x, ...node.args.slice(1)], node.kwargs);
}

/**
 * The streaming plan of a graph: {stages} when the whole graph is one chain
 * of nodes local along depth, else {reason}.
 * @param {{name: string, op: string, target: string, args: any[], kwargs: object, refs: string[]}[]} nodes
 * @param {(target: string) => any} moduleOf
 */
export function planDepthStream(nodes, moduleOf) {
  if (nodes.length < 3 || nodes[0].op !== 'placeholder') return { reason: 'the graph is not a chain' };
  const stages = [];
  for (let i = 1; i < nodes.length; i++) {
    const node = nodes[i];
    const prev = nodes[i - 1].name;
    if (node.refs.length !== 1 || node.refs[0] !== prev || !isRef(node.args[0]) || refsBeyondFirst(node)) {
      return { reason: `node '${node.name}' does not read only the node before it (the graph is not a chain)` };
    }
    if (i === nodes.length - 1) {
      if (node.op !== 'output') return { reason: 'the graph does not end in its output' };
      break;
    }
    const stage = stageOf(node, node.op === 'call_module' ? moduleOf(node.target) : null);
    if (typeof stage === 'string') return { reason: `node '${node.name}': ${stage}` };
    stages.push(stage);
  }
  return { stages };
}

/**
 * Sizes of the stages on a whole input: per stage, the full input and output
 * shapes, the depth axis of each, and (voxel stages) the scratch the planner
 * charges on the whole input. `shapes` maps node names to planned values.
 */
export function sizeStages(stages, inputShape, planned) {
  let axis = 2;
  let inShape = inputShape;
  let inBytes = 4; // the input is float32
  const sized = [];
  for (const st of stages) {
    const v = planned.get(st.node.name);
    const outAxis = st.kind === 'conv' ? axis : st.axisAfter(axis);
    const outBytes = v.value.kind === 'quantized' ? 1 : 4;
    const s = {
      ...st,
      inShape,
      outShape: v.value.shape,
      axis,
      outAxis,
      inBytes,
      outBytes,
      scratch: v.scratchBytes,
      work: v.work,
    };
    if (st.kind === 'conv') {
      s.dIn = inShape[2];
      s.dOut = v.value.shape[2];
    } else if (v.value.shape[outAxis] !== inShape[axis]) {
      return { reason: `node '${st.node.name}' changes the depth` };
    }
    sized.push(s);
    axis = outAxis;
    inShape = v.value.shape;
    inBytes = outBytes;
  }
  return { stages: sized, outAxis: axis, outShape: inShape };
}

/**
 * The streamed run of an input of `shape` under `budget`: the plan and the
 * chunk (0 when the graph does not stream or the budget cannot hold one
 * slice per chunk), the memory model's bytes at that chunk and at 1. The
 * whole run's work is charged against the load budget's maxWork here, as
 * the untiled run's would be.
 * @param {{stages?: object[], reason?: string}} chain planDepthStream's answer
 * @param {{nodes: any[], infos: Map<string, any>, limits: any, hint: string}} graph
 */
export function planStreamedRun(chain, graph, shape, budget, ctx) {
  const none = (reason) => ({ streamable: false, reason, depthChunk: 0, bytes: null, minBytes: null, plan: null });
  if (chain.reason !== undefined) return none(chain.reason);
  if (!Array.isArray(shape) || shape.length !== 5 || !shape.every((d) => Number.isSafeInteger(d) && d > 0)) {
    return none('the input is not a non-empty 5-D tensor [N, C, D, H, W]');
  }
  const planned = new Map();
  let value = abstractOf({ data: new Float32Array(0), shape }, isQ);
  let spent = 0;
  const workOnly = { ...graph.limits, maxActivationBytes: Infinity, maxLiveBytes: Infinity };
  for (const node of graph.nodes.slice(1, -1)) {
    const info = node.op === 'call_module' ? graph.infos.get(node.target) : null;
    if (info === undefined) return none(`the planner does not know module '${node.target}'`);
    let cost;
    try {
      cost = nodeCost(node, info, [value, ...node.args.slice(1)], node.kwargs);
    } catch (e) {
      // A shape past the core's limits (as the untiled run would say, naming the node).
      if (e instanceof Error) e.message = `${ctx}: node '${node.name}': ${e.message.replace(/^[\w.]+\([^)]*\): /, '')}`;
      throw e;
    }
    if (cost === null || cost.value.shape === null) return none(`node '${node.name}' has no planned shape`);
    try {
      spent = chargeNode(node, cost, spent, workOnly, graph.hint);
    } catch (e) {
      if (e instanceof BudgetError) throw new Error(`${ctx}: ${e.message}`);
      throw e;
    }
    planned.set(node.name, cost);
    value = cost.value;
  }
  const plan = sizeStages(chain.stages, shape, planned);
  if (plan.reason !== undefined) return none(plan.reason);
  const minBytes = streamBytes(plan.stages, 1);
  const depthChunk = chooseDepthChunk(plan.stages, shape[2], budget);
  const bytes = depthChunk === 0 ? null : streamBytes(plan.stages, depthChunk);
  return { streamable: true, reason: null, depthChunk, bytes, minBytes, plan };
}

/**
 * Whether the untiled run of an input of `shape` goes over the load budget's
 * memory limits (maxActivationBytes, maxLiveBytes) and over nothing else
 * (the planner, planGraph, on the whole graph).
 */
export function overMemoryOnly(graph, shape) {
  // true / false: within the limits or over them; null: another error (the untiled run reports it).
  const fits = (limits) => {
    try {
      planGraph(graph.nodes, graph.infos, shape, limits, graph.hint);
      return true;
    } catch (e) {
      return e instanceof BudgetError ? false : null;
    }
  };
  return (
    fits(graph.limits) === false &&
    fits({ ...graph.limits, maxActivationBytes: Infinity, maxLiveBytes: Infinity }) === true
  );
}

// Bytes of one slice along the axis.
const sliceBytes = (shape, axis, elem) => (product(shape) / shape[axis]) * elem;

// A conv's scratch bound on a window; a window too large for the core's
// limits (a RangeError) needs more than any budget: Infinity.
function scratchOf(mod, windowShape, undilated) {
  try {
    return undilated
      ? mod._scratchBoundDepthPadded(windowShape, 0, 0, true)
      : mod._scratchBoundDepthPadded(windowShape, 0, 0);
  } catch (e) {
    if (e instanceof RangeError) return Infinity;
    throw e;
  }
}

/**
 * The output slices a conv stage makes per block when the input comes in
 * chunks of T: T, or for exact integer sums (`tiles`) T rounded up to whole
 * Winograd tiles along depth, 2 x dilation slices (a tile pairs outputs o and
 * o + dilation), so that no block computes slots past its outputs.
 */
export function blockOf(s, T) {
  const span = s.tiles ? 2 * s.dil : 1;
  return Math.min(span * Math.ceil(T / span), s.dOut);
}

/**
 * The memory model of a streamed run with chunks of T slices (docs/architecture.md,
 * "Depth streaming"): the input chunk, every conv's line buffer (what its
 * next block reads, its reach + its block, and up to one incoming chunk
 * more), and the most one stage holds while it runs (a conv: a call's window
 * in JS and in wasm, its scratch, its output and, phased, the block it
 * assembles and that block's copy; a voxel stage: its input, its input's
 * copy, its output and that output's copy, and its scratch). The caller's
 * input and the returned output are not counted.
 */
export function streamBytes(sized, T) {
  const first = sized[0];
  let total = T * sliceBytes(first.inShape, 2, 4);
  let most = 0;
  let chunk = T; // the most slices one push brings to the stage
  for (const s of sized) {
    const rowIn = sliceBytes(s.inShape, s.axis, s.inBytes);
    const rowOut = sliceBytes(s.outShape, s.outAxis, s.outBytes);
    if (s.kind === 'conv') {
      const block = blockOf(s, T);
      total += Math.min(s.dIn, s.reach + block + chunk - 1) * rowIn;
      // A call: the whole block, or (phased) one depth phase of it.
      const outs = s.phased ? Math.ceil(block / s.dil) : block;
      const window = s.phased ? outs + s.k - 1 : block + s.reach;
      const windowShape = s.inShape.slice();
      windowShape[2] = window;
      const scratch = scratchOf(s.mod, windowShape, s.phased);
      most = Math.max(most, 2 * window * rowIn + scratch + outs * rowOut + (s.phased ? 2 * block * rowOut : 0));
      chunk = block;
    } else {
      const depth = s.inShape[s.axis];
      const n = Math.min(chunk, depth);
      const scratch = depth === 0 ? 0 : Math.ceil((s.scratch * n) / depth);
      most = Math.max(most, n * (2 * rowIn + 2 * rowOut) + scratch);
    }
  }
  return total + most;
}

/** The largest chunk (1..depth) whose streamBytes fits `budget`, or 0 if none does. */
export function chooseDepthChunk(sized, depth, budget) {
  if (streamBytes(sized, 1) > budget) return 0;
  let lo = 1;
  let hi = depth;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (streamBytes(sized, mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The input's slices [begin, end) as a float tensor (a copy). */
function inputChunk(x, begin, end) {
  const slab = sliceSlab({ data: x.data, shape: x.shape, axis: 2, q: null }, begin, end);
  return { data: slab.data, shape: slab.shape };
}

/**
 * Runs the sized stages on x (a float tensor [N, C, D, H, W]) in chunks of T
 * slices; returns the output (a new QTensor the caller owns, or a float tensor).
 * Between stages a value is a QTensor, a float tensor or a slab; each push
 * hands it over in a box that the callee empties, so that no caller's frame
 * keeps it while the stages below run.
 */
export function runDepthStream(plan, x, T, onProgress = null) {
  const { stages, outAxis, outShape } = plan;
  const progress = onProgress === null ? null : streamProgress(stages, onProgress);
  let chunk = T; // the most slices one push brings to a stage (streamBytes)
  const lines = stages.map((st) => {
    if (st.kind !== 'conv') return null;
    const block = blockOf(st, T);
    const line = { ring: new DepthRing(Math.min(st.dIn, st.reach + block + chunk - 1)), outDone: 0, block };
    chunk = block;
    return line;
  });
  const pieces = [];
  const ctx = 'depth streaming';
  const push = (i, box, final) => {
    let value = box.value;
    box.value = null;
    if (i === stages.length) {
      try {
        pieces.push(isSlab(value) ? value : slabOf(value, outAxis, ctx));
      } finally {
        if (isQ(value)) value.dispose();
      }
      return;
    }
    const st = stages[i];
    if (st.kind === 'voxel') {
      if (isSlab(value)) value = tensorOfSlab(value);
      let out;
      const slices = value.shape[st.axis];
      try {
        out = st.run(value);
      } finally {
        if (isQ(value) && out !== value) value.dispose();
      }
      value = null;
      push(i + 1, { value: out }, final);
      progress?.advance(i, slices); // (after the push: a throwing callback leaves no value behind)
      return;
    }
    const line = lines[i];
    try {
      line.ring.append(slabView(value, 2, ctx));
    } finally {
      if (isQ(value)) value.dispose();
    }
    value = null;
    const inEnd = line.ring.start + line.ring.count;
    const producible = final ? st.dOut : Math.min(st.dOut, inEnd + st.pb - st.reach);
    // Whole blocks while the input comes; the rest once it has all come.
    while (line.outDone < producible && (final || producible - line.outDone >= line.block)) {
      const oEnd = Math.min(producible, line.outDone + line.block);
      const out = st.phased
        ? runPhases(st, line.ring, line.outDone, oEnd)
        : runWindow(st, line.ring, line.outDone, oEnd);
      // The first input slice a later output reads: older ones leave the line buffer.
      line.ring.dropBelow(Math.max(0, oEnd - st.pb));
      const made = oEnd - line.outDone;
      line.outDone = oEnd;
      push(i + 1, { value: out }, final && oEnd === st.dOut);
      progress?.advance(i, made);
    }
  };
  const depth = x.shape[2];
  for (let d = 0; d < depth; d += T) push(0, { value: inputChunk(x, d, Math.min(depth, d + T)) }, d + T >= depth);
  const out = tensorOfSlab(joinSlabs(pieces, outShape[outAxis]));
  progress?.finish();
  return out;
}

/**
 * A streamed run's progress, in the planner's multiply-adds (each stage's
 * planned work, shared out over its output slices; slices when the planner
 * prices none of the stages): onProgress({done, total}) after each call.
 */
function streamProgress(stages, onProgress) {
  const priced = stages.some((s) => s.work > 0);
  const weight = stages.map((s) => (priced ? s.work : 1));
  const full = stages.map((s) => (s.kind === 'conv' ? s.dOut : s.inShape[s.axis]));
  const made = stages.map(() => 0);
  const sum = (f) => stages.reduce((acc, _, i) => acc + (full[i] === 0 ? 0 : (weight[i] * f(i)) / full[i]), 0);
  const total = sum((i) => full[i]);
  let last = -1;
  const report = (done) => {
    last = done;
    onProgress({ done, total });
  };
  return {
    advance(i, slices) {
      made[i] += slices;
      report(
        Math.min(
          total,
          sum((i) => made[i]),
        ),
      );
    },
    finish() {
      if (last !== total) report(total);
    },
  };
}

// Outputs [o0, o1) of a conv stage in one call: the window of input slices
// [o0 - pb, o1 - pb + reach) clipped to the volume, the depth padding
// replaced by what the clipping took away.
function runWindow(st, ring, o0, o1) {
  const w0 = o0 - st.pb;
  const w1 = o1 - st.pb + st.reach;
  const input = ring.gather(Math.max(0, w0), Math.min(st.dIn, w1), 1);
  try {
    return st.mod._forwardDepthPadded(input, Math.max(0, -w0), Math.max(0, w1 - st.dIn));
  } finally {
    if (isQ(input)) input.dispose();
  }
}

// Outputs [o0, o1) of a dilated conv stage one depth phase at a time: the
// outputs o0 + phi, o0 + phi + dil, ... read only the input slices o0 + phi
// - pb + dil * j, so each phase is an undilated conv along depth over those
// slices (the layer's own taps and sums). With blocks of 2 x dil outputs a
// phase is one Winograd tile deep: none of its slots falls past the block,
// whatever the dilation. Returns the block as a slab.
function runPhases(st, ring, o0, o1) {
  let block = null;
  let blockInner = 0;
  const n = o1 - o0;
  for (let phi = 0; phi < st.dil && o0 + phi < o1; phi++) {
    const count = Math.ceil((n - phi) / st.dil);
    const base = o0 + phi - st.pb; // the input slice of tap j is base + dil * j
    const taps = count + st.k - 1;
    const lead = base < 0 ? Math.min(taps, Math.ceil(-base / st.dil)) : 0;
    const last = base + st.dil * (taps - 1);
    const trail = last >= st.dIn ? Math.min(taps - lead, Math.floor((last - st.dIn) / st.dil) + 1) : 0;
    const first = base + st.dil * lead;
    const input = ring.gather(first, first + st.dil * (taps - lead - trail - 1) + 1, st.dil);
    let out;
    try {
      out = st.mod._forwardDepthPadded(input, lead, trail, true);
    } finally {
      input.dispose();
    }
    try {
      const view = slabView(out, 2, 'depth streaming');
      if (block === null) {
        const shape = view.shape.slice();
        shape[2] = n;
        ({ inner: blockInner } = split(shape, 2));
        block = { data: new Uint8Array(product(shape)), shape, axis: 2, q: view.q };
      }
      // Output i of the phase is slice phi + dil * i of the block.
      const outer = product(view.shape.slice(0, 2));
      for (let o = 0; o < outer; o++) {
        for (let i = 0; i < count; i++) {
          const from = (o * count + i) * blockInner;
          block.data.set(view.data.subarray(from, from + blockInner), (o * n + phi + st.dil * i) * blockInner);
        }
      }
    } finally {
      out.dispose();
    }
  }
  return block;
}

const split = (shape, axis) => ({ inner: product(shape.slice(axis + 1)) });
