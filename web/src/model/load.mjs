// io.loadModel(bytes): a model exported by python/qwasm_export.py (one
// .safetensors file: the tensors, and the graph as JSON in its metadata),
// built into qwasm modules and a GraphModule that runs the graph.
//
// The file is untrusted. Everything is checked before it is used: the format
// and version, the JSON's shape (types, sizes, names), each module's
// attributes (by the module constructors, which check geometry in 64-bit
// arithmetic), each tensor's dtype and shape against the module that uses it,
// and the graph (every argument names an earlier node, so it has no cycle).
// Allocation is bounded by the file: weights are copied from it, and modules
// without weights allocate nothing until forward().

import {
  checkNameLength,
  FormatError,
  fail,
  isName,
  isObject,
  MAX_NAME,
  onlyKeys,
  quote,
  readInt,
} from '../ops/format-readers.mjs';
import { graphCallable } from '../ops/registry.mjs';
import { clipped, describe, isArrayBuffer } from '../runtime/args.mjs';
import { SUPPORTED_ENGINES } from '../runtime/engine.mjs';
import { restate } from '../runtime/errors.mjs';
import { localFileReader, wasm } from '../runtime/runtime.mjs';
import { buildModule } from './build-module.mjs';
import { readDescription } from './description.mjs';
import { GraphModule } from './graph-module.mjs';
import { loadError, notAModelHint, sourceName, withLoadFields } from './load-error.mjs';
import { readLoadOptions } from './load-options.mjs';
import { BudgetError, planGraph } from './plan.mjs';
import { bytesOfInput, parseSafetensors } from './safetensors.mjs';
import { absoluteUrl, isModelSource, sourceError, throwIfAborted } from './source.mjs';

export const FORMAT = 'qwasm-model';
// Version 2 adds the engine the model was converted under and each quantized
// conv's backend; version 1 files are read as fbgemm (they were exported so).
export const FORMAT_VERSION = 2;
const READABLE_VERSIONS = ['1', '2'];
const MAX_NODES = 100000;

// Tensor readers: the entry must exist with this dtype and shape.
function tensorReader(file) {
  const { view, dataStart, tensors } = file;
  const used = new Set();
  const entry = (name, dtype, shape, what) => {
    checkNameLength(name, `${what}'s tensor name`);
    if (!isName(name)) fail(`${what} must name a tensor, got ${describe(name)}`);
    const t = tensors.get(name);
    if (t === undefined) fail(`${what}: the file has no tensor ${quote(name)}`);
    // Each tensor belongs to one module (as the exporter writes them): a file
    // cannot make many modules copy one tensor, so memory stays bounded by it.
    if (used.has(name)) fail(`${what}: tensor ${quote(name)} is already used by another module`);
    if (t.dtype !== dtype) fail(`${what}: tensor ${quote(name)} is ${clipped(t.dtype)}, expected ${dtype}`);
    if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
      fail(`${what}: tensor ${quote(name)} has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
    }
    used.add(name);
    return t;
  };
  return {
    used,
    /** The shape of a tensor the file holds (for an entry whose size its tensor gives); not a use. */
    shapeOf(name, what) {
      checkNameLength(name, `${what}'s tensor name`);
      if (!isName(name)) fail(`${what} must name a tensor, got ${describe(name)}`);
      const t = tensors.get(name);
      if (t === undefined) fail(`${what}: the file has no tensor ${quote(name)}`);
      return t.shape.slice();
    },
    uint8(name, shape, what) {
      const t = entry(name, 'U8', shape, what);
      return new Uint8Array(view.buffer, view.byteOffset + dataStart + t.begin, t.end - t.begin).slice();
    },
    int8(name, shape, what) {
      const t = entry(name, 'I8', shape, what);
      // A view of the file's bytes: the QTensor made from it copies them once, into wasm memory.
      return new Int8Array(view.buffer, view.byteOffset + dataStart + t.begin, t.end - t.begin);
    },
    float32(name, shape, what) {
      const t = entry(name, 'F32', shape, what);
      const out = new Float32Array((t.end - t.begin) / 4);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(dataStart + t.begin + 4 * i, true);
      return out;
    },
    float64(name, shape, what) {
      const t = entry(name, 'F64', shape, what);
      const out = new Float64Array((t.end - t.begin) / 8);
      for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(dataStart + t.begin + 8 * i, true);
      return out;
    },
    int64(name, shape, what) {
      const t = entry(name, 'I64', shape, what);
      const out = new Array((t.end - t.begin) / 8);
      for (let i = 0; i < out.length; i++) {
        const v = view.getBigInt64(dataStart + t.begin + 8 * i, true);
        if (v < -(2n ** 31n) || v >= 2n ** 31n) fail(`${what}: tensor ${quote(name)} holds ${v}, outside int32`);
        out[i] = Number(v);
      }
      return out;
    },
  };
}

// A graph argument: a reference to an earlier node, or a constant (number,
// boolean, null, string, or a list of those).
function checkArg(a, known, what, depth = 0) {
  if (depth > 8) fail(`${what}: arguments nest too deeply`);
  if (a === null || typeof a === 'number' || typeof a === 'boolean' || typeof a === 'string') return;
  if (Array.isArray(a)) {
    if (a.length > 4096) fail(`${what}: a list of ${a.length} arguments`);
    for (const x of a) checkArg(x, known, what, depth + 1);
    return;
  }
  if (isObject(a) && Object.keys(a).length === 1) checkNameLength(a.node, `${what}: the argument's node name`);
  if (isObject(a) && Object.keys(a).length === 1 && isName(a.node)) {
    if (!known.has(a.node)) fail(`${what}: argument ${quote(a.node)} is not an earlier node`);
    return;
  }
  fail(`${what}: argument ${describe(a)} is not a node reference or a constant`);
}

// What a node of each op may carry: its most positional arguments, its keyword arguments.
/** @returns {import('../ops/tables.mjs').GraphCallable | {args: number, kwargs: string[], checkConstants?: undefined}} */
function signatureOf(n) {
  switch (n.op) {
    case 'placeholder':
      return { args: 0, kwargs: [] };
    case 'output':
    case 'call_module':
      return { args: 1, kwargs: [] };
    default:
      return graphCallable(n.op, n.target);
  }
}

function checkGraph(graph, modules) {
  if (!Array.isArray(graph.nodes)) fail('graph.nodes must be a list');
  if (graph.nodes.length < 2 || graph.nodes.length > MAX_NODES) {
    fail(`graph.nodes must hold 2..${MAX_NODES} nodes, got ${graph.nodes.length}`);
  }
  // A module path over the limit is refused as such here, before a node calling it reads as calling nothing.
  for (const path of Object.keys(modules)) checkNameLength(path, 'module path');
  const known = new Set();
  graph.nodes.forEach((n, i) => {
    let what = `graph.nodes[${i}]`;
    if (isObject(n)) checkNameLength(n.name, `${what}'s name`);
    if (!isObject(n) || !isName(n.name)) fail(`${what} must be an object with a name`);
    if (known.has(n.name)) fail(`${what}: two nodes are named ${quote(n.name)}`);
    what = `${what} (${quote(n.name)})`;
    onlyKeys(
      n,
      n.op === 'placeholder' || n.op === 'output' ? ['name', 'op', 'args', 'kwargs', 'target'] : NODE_KEYS,
      what,
    );
    if (!Array.isArray(n.args) || !isObject(n.kwargs)) fail(`${what} must have args (a list) and kwargs`);
    const first = i === 0;
    const last = i === graph.nodes.length - 1;
    if (first !== (n.op === 'placeholder')) fail(`${what}: the first node, and only it, is the input`);
    if (last !== (n.op === 'output')) fail(`${what}: the last node, and only it, is the output`);
    checkNameLength(n.target, `${what}'s target`);
    switch (n.op) {
      case 'placeholder':
      case 'output':
        break;
      case 'call_module':
        if (!isName(n.target) || !Object.hasOwn(modules, n.target)) {
          fail(`${what} calls module ${quote(n.target)}, which the file does not define`);
        }
        break;
      case 'call_function':
        if (graphCallable(n.op, n.target) === undefined) fail(`${what}: unknown function ${quote(n.target)}`);
        break;
      case 'call_method':
        if (graphCallable(n.op, n.target) === undefined) fail(`${what}: unknown method ${quote(n.target)}`);
        break;
      default:
        fail(`${what}: unknown op ${quote(n.op)}`);
    }
    const signature = signatureOf(n);
    const extra = Object.keys(n.kwargs).filter((k) => !signature.kwargs.includes(k));
    if (extra.length > 0) fail(`${what}: keyword argument ${quote(extra[0])} is not supported here`);
    // An argument past the signature would be ignored, and the node would compute something else.
    if (n.args.length > signature.args) {
      fail(`${what}: ${n.args.length} positional arguments, ${n.op} ${n.target ?? ''} takes at most ${signature.args}`);
    }
    checkArg(n.args, known, what);
    checkArg(Object.values(n.kwargs), known, what);
    // Constants a function can check now, not at the first forward (a reshape's sizes).
    const refused = signature.checkConstants?.(n.args);
    if (refused) fail(`${what}: ${refused}`);
    if (n.op === 'output' && !(n.args.length === 1 && isObject(n.args[0]))) {
      fail(`${what}: the output must be one node`);
    }
    known.add(n.name);
  });
}

const NODE_KEYS = ['name', 'op', 'target', 'args', 'kwargs'];
const MAX_INPUT_SIZE = 2 ** 31 - 1;
const GRAPH_KEYS = ['format', 'version', 'torch', 'engine', 'input_shape', 'modules', 'nodes'];

/**
 * Documented at io.loadModelAsync (web/declarations/io.d.ts).
 * @returns {Promise<GraphModule>}
 */
export async function loadModelAsync(source, options) {
  const ctx = 'io.loadModelAsync(source)';
  const { model, worker, onProgress, signal } = readLoadOptions(options, ctx);
  if (worker) throw new TypeError(`${ctx}: worker: true is io.loadModel's option; loadModelAsync runs on this thread`);
  if (!isModelSource(source)) throw sourceError(source, ctx);
  wasm(ctx);
  // The reader comes with the model client (dist/qwasm.model-client.mjs), loaded on first use.
  const { readModelSource } = await import('../../../dist/qwasm.model-client.mjs');
  const bytes = await readModelSource(source, onProgress, ctx, localFileReader(), signal, model.cache);
  throwIfAborted(signal); // aborted as the last bytes came: nothing is built
  return buildModel(bytes, model, ctx, sourceName(source, absoluteUrl(source)));
}

/**
 * io.loadModel(bytes, options) without worker: true (io.mjs): the file's
 * bytes, built on this thread.
 * @param {ArrayBuffer | ArrayBufferView} input
 * @returns {GraphModule}
 */
export function loadModelFromBytes(input, options) {
  const ctx = 'io.loadModel(bytes)';
  const { model, onProgress, signal } = readLoadOptions(options, ctx);
  if (model.cache) {
    throw new TypeError(
      `${ctx}: cache keeps a downloaded file: use io.loadModelAsync(url) or io.loadModel(url, { worker: true })`,
    );
  }
  if (onProgress !== undefined) {
    throw new TypeError(
      `${ctx}: onProgress follows a download: use io.loadModelAsync(source) or io.loadModel(source, { worker: true })`,
    );
  }
  if (signal !== null) {
    throw new TypeError(
      `${ctx}: signal cancels a download, and loading bytes cannot be stopped: use io.loadModelAsync(source) or io.loadModel(source, { worker: true })`,
    );
  }
  if (isModelSource(input) && !isArrayBuffer(input) && !ArrayBuffer.isView(input)) {
    throw new TypeError(
      `${ctx}: expected the file's bytes (ArrayBuffer or typed array), got ${describe(input)}; for a URL, Response, stream or Blob use await io.loadModelAsync(source) or io.loadModel(source, { worker: true })`,
    );
  }
  return buildModel(input, model, ctx);
}

/**
 * @internal The file's bytes, checked and built into a GraphModule with
 * `options` as the public call read them (on this thread, or on the thread
 * that sent them to this model worker); errors name `ctx`, and are load
 * errors (load-error.mjs) whose url is `name` (where the bytes came from).
 * @param {ArrayBuffer | ArrayBufferView} input
 * @param {import('./load-options.mjs').ModelOptions} options
 * @param {string} ctx
 * @param {string} [name]
 */
export function buildModel(input, { budget, winograd }, ctx, name = 'bytes') {
  wasm(ctx); // before init() this is the Error to give, not one of an internal call
  const bytes = bytesOfInput(input, ctx);
  let file;
  try {
    file = parseSafetensors(bytes, ctx);
  } catch (e) {
    // Not a .safetensors file at all: most often what came instead of it (an HTML page, a text file).
    throw loadError(e.message, { kind: 'not-a-model', url: name, hint: notAModelHint(bytes) });
  }
  const meta = file.metadata;
  if (meta.format !== FORMAT) {
    throw loadError(
      `${ctx}: not a qwasm model: its metadata has format ${describe(meta.format)}, expected '${FORMAT}'`,
      { kind: 'not-a-model', url: name, hint: 'Write it with qwasm-export (python/qwasm_export.py)' },
    );
  }
  const built = [];
  try {
    const version = meta.format_version;
    if (!READABLE_VERSIONS.includes(version)) {
      fail(`format version ${describe(version)}: this qwasm reads versions ${READABLE_VERSIONS.join(' and ')}`);
    }
    let graph;
    try {
      graph = JSON.parse(meta.graph);
    } catch (e) {
      fail(`the graph is not JSON: ${e.message}`);
    }
    if (!isObject(graph) || !isObject(graph.modules)) fail('the graph must be an object with modules');
    onlyKeys(graph, version === '1' ? GRAPH_KEYS.filter((k) => k !== 'engine') : GRAPH_KEYS, 'the graph');
    const engine = version === '1' ? 'fbgemm' : graph.engine;
    if (!SUPPORTED_ENGINES.includes(engine))
      fail(`the graph's engine must be 'x86' or 'fbgemm', got ${describe(graph.engine)}`);
    checkGraph(graph, graph.modules);
    // The example input's shape the exporter traced with: the budget is checked on it now, and on each real input in forward().
    const inputShape =
      graph.input_shape === undefined || graph.input_shape === null
        ? null
        : Array.isArray(graph.input_shape) && graph.input_shape.length <= 16
          ? graph.input_shape.map((d, i) => readInt(d, `input_shape[${i}]`, 0, MAX_INPUT_SIZE))
          : fail(`input_shape must be a list of at most 16 integers, got ${describe(graph.input_shape)}`);
    const description = readDescription(meta, inputShape);
    const read = tensorReader(file);
    /** @type {Map<string, import('../nn/module.mjs').Module>} */
    const modules = new Map();
    const infos = new Map();
    // Every module is called by a node (nothing is built that does not run).
    const called = new Set(graph.nodes.filter((n) => n.op === 'call_module').map((n) => n.target));
    const uncalled = Object.keys(graph.modules).filter((p) => !called.has(p));
    if (uncalled.length > 0)
      fail(`module ${quote(uncalled[0])} is not called by any node (${uncalled.length} uncalled)`);
    for (const [path, m] of Object.entries(graph.modules)) {
      if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(path) || path.length > MAX_NAME) {
        fail(`module path ${quote(path)} is not a dotted name`);
      }
      const where = `module ${quote(path)}`;
      let entry;
      try {
        entry = buildModule(m, read, where, version, winograd);
      } catch (e) {
        throw e instanceof FormatError ? e : restate(e, where);
      }
      built.push(entry.module);
      modules.set(path, entry.module);
      infos.set(path, entry.info);
    }
    const unused = [...file.tensors.keys()].filter((k) => !read.used.has(k));
    if (unused.length > 0) fail(`tensor ${quote(unused[0])} is not used by any module (${unused.length} unused)`);
    const hint =
      ': raise it with io.loadModel(bytes, { maxActivationBytes, maxLiveBytes, maxWork }) if the model is trusted';
    let planned;
    try {
      planned = planGraph(graph.nodes, infos, inputShape, budget, hint);
    } catch (e) {
      if (e instanceof BudgetError) {
        const on = inputShape === null ? '' : ` (on the declared input [${inputShape.join(', ')}])`;
        // The message ends with what to do (planGraph's `hint`): the error's hint says it again, on its own.
        const error = loadError(`${ctx}: ${e.message}${on}`, { kind: 'budget', url: name });
        throw Object.assign(error, { hint: `R${hint.slice(': r'.length)}` });
      }
      throw e;
    }
    return new GraphModule(modules, graph.nodes, inputShape, {
      infos,
      limits: budget,
      planned,
      hint,
      engine,
      description,
    });
  } catch (e) {
    for (const m of built) m.dispose();
    if (e instanceof FormatError) throw loadError(`${ctx}: ${e.message}`, { kind: 'format', url: name });
    throw withLoadFields(e?.kind === 'budget' ? e : restate(e, ctx), 'format', name);
  }
}
