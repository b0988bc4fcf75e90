// PyTorch's eager numeric suite (torch/ao/ns/_numeric_suite.py) in JS: where
// did int8 lose accuracy? compareWeights pairs each quantized weight with its
// float original, compareModelOutputs each logged module's output in the two
// models on one input, and both report PyTorch's SQNR (torch/ao/ns/fx/utils.py
// compute_sqnr) with the largest error. Layers are paired as PyTorch pairs them
// (_find_match over the state-dict keys, and the same modules logged), so the
// keys are PyTorch's: 'layer1.0.conv1.0.weight', 'fc._packed_params._packed_params',
// 'layer1.0.conv1.0.stats'. The models may be qwasm modules (the JS eager
// flow) or io.loadModel graphs (a float model and its quantized twin exported
// from PyTorch: their modules keep PyTorch's paths). Which modules are logged,
// and each one's state-dict entries, are their ops' descriptors' (web/src/ops/).

import { Identity, Module } from '../nn/module.mjs';
import { NS_LOGGED, NS_QUANTIZED_LAYERS, NS_STATE_DICTS } from '../ops/registry.mjs';
import { describe } from '../runtime/args.mjs';
import { isQTensorInstance, tidy } from '../tensors/qtensor.mjs';

const isOne = (m, classes) => classes.some((C) => m instanceof C);
// The first [Class, value] of a table whose class the module is an instance of.
const lookup = (table, m) => table.find(([C]) => m instanceof C)?.[1];

function dequantized(q) {
  const out = { data: q.dequantize().data, shape: [...q.shape] };
  q.dispose();
  return out;
}

/**
 * A module tree's state-dict entries in PyTorch's order (a module's own
 * parameters and buffers, then its children's): [[key, read]], where read()
 * gives a float tensor {data, shape} or, for a quantized weight, a QTensor the
 * caller disposes; null for entries that are not tensors qwasm can read
 * (scale, zero_point, dtype: they only have to be there for the matching).
 */
function stateDictEntries(model, ctx) {
  /** @type {[string, (() => any) | null][]} */
  const out = [];
  if (!(model instanceof Module)) {
    throw new TypeError(`${ctx}: expected an nn.Module or an io.GraphModule, got ${describe(model)}`);
  }
  for (const [path, m] of model.namedModules()) {
    const entries = lookup(NS_STATE_DICTS, m);
    if (entries !== undefined) out.push(...entries(m, (name) => (path === '' ? name : `${path}.${name}`)));
  }
  return out;
}

/**
 * torch/ao/ns/_numeric_suite.py _find_match: the first of `keys` whose module
 * part equals key's (dots dropped, as PyTorch compares them), at one or two
 * levels up; null if none.
 */
export function findMatch(keys, key, postfix) {
  const split = key.split('.');
  if (split.at(-1) !== postfix) return null;
  const joined = (parts) => parts.join('');
  const search = (match) => {
    for (const s2 of keys) {
      const parts = s2.split('.');
      if (match === joined(parts.slice(0, -1)) || match === joined(parts.slice(0, -2))) return s2;
    }
    return null;
  };
  const found = search(joined(split.slice(0, -1)));
  if (found !== null) return found;
  // For matching "fc.weight" and "fc._packed_params._packed_params".
  if (postfix === '_packed_params') {
    const match = joined(split.slice(0, -2));
    return match.length === 0 ? null : search(match);
  }
  return null;
}

function asFloat(t, ctx) {
  if (isQTensorInstance(t)) return { data: t.dequantize().data, shape: [...t.shape] };
  if (t !== null && typeof t === 'object' && t.data instanceof Float32Array && Array.isArray(t.shape)) return t;
  throw new TypeError(`${ctx}: expected a float tensor {data: Float32Array, shape} or a QTensor, got ${describe(t)}`);
}

// ||x|| and ||x - y|| over data[from, to) (x - y rounded to float32, as PyTorch subtracts float32 tensors).
function norms(x, y, from, to) {
  let ps = 0;
  let pn = 0;
  let maxAbs = 0;
  for (let i = from; i < to; i++) {
    const d = Math.fround(x[i] - y[i]);
    ps += x[i] * x[i];
    pn += d * d;
    maxAbs = Math.max(maxAbs, Math.abs(d));
  }
  return { ps: Math.sqrt(ps), pn: Math.sqrt(pn), maxAbs };
}

const sqnrOf = ({ ps, pn }) => 20 * Math.log10(ps / pn);

/** Documented at quantization.ns.computeSqnr (web/declarations/quantization.d.ts). */
export function computeSqnr(x, y) {
  const ctx = 'quantization.ns.computeSqnr(x, y)';
  const a = asFloat(x, `${ctx}: x`);
  const b = asFloat(y, `${ctx}: y`);
  if (a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) {
    throw new RangeError(`${ctx}: shapes [${a.shape.join(', ')}] and [${b.shape.join(', ')}] differ`);
  }
  return sqnrOf(norms(a.data, b.data, 0, a.data.length));
}

// The comparison of one float tensor with its quantized (dequantized) twin.
function compare(f, q, { perChannel = false, step = null } = {}) {
  const n = f.data.length;
  const whole = norms(f.data, q.data, 0, n);
  const out = { sqnr: sqnrOf(whole), maxAbsError: whole.maxAbs };
  if (perChannel) {
    // Along axis 0, the output channels of a conv or linear weight.
    const channels = f.shape[0] ?? 1;
    const size = channels === 0 ? 0 : n / channels;
    out.perChannel = { sqnr: [], maxAbsError: [] };
    for (let c = 0; c < channels; c++) {
      const part = norms(f.data, q.data, c * size, (c + 1) * size);
      out.perChannel.sqnr.push(sqnrOf(part));
      out.perChannel.maxAbsError.push(part.maxAbs);
    }
  }
  if (step !== null) {
    let off = 0;
    for (let i = 0; i < n; i++) if (Math.abs(f.data[i] - q.data[i]) > step) off++;
    out.offByMoreThanOneStep = n === 0 ? 0 : off / n;
  }
  return out;
}

/** Documented at quantization.ns.compareWeights (web/declarations/quantization.d.ts). */
export function compareWeights(floatModel, quantizedModel) {
  const ctx = 'quantization.ns.compareWeights(floatModel, quantizedModel)';
  const floats = stateDictEntries(floatModel, `${ctx}: floatModel`);
  // A quantized model first (the arguments swapped, or the same model twice) has no float weights to compare with.
  const quantizedLayer = floatModel.namedModules().find(([, m]) => isOne(m, NS_QUANTIZED_LAYERS));
  if (quantizedLayer !== undefined) {
    const [path, m] = quantizedLayer;
    throw new TypeError(
      `${ctx}: floatModel holds a quantized layer (${path === '' ? 'the model itself' : `'${path}'`} is ${m.constructor.name}): pass the float model first and the quantized model second`,
    );
  }
  const floatKeys = floats.map(([k]) => k);
  const readFloat = new Map(floats);
  const result = {};
  let unmatched = null; // the first quantized weight with no float match
  for (const [key, read] of stateDictEntries(quantizedModel, `${ctx}: quantizedModel`)) {
    const match = findMatch(floatKeys, key, 'weight') ?? findMatch(floatKeys, key, '_packed_params');
    if (match === null && read !== null) unmatched ??= key;
    if (match === null || read === null) continue;
    const readMatch = readFloat.get(match);
    if (readMatch === null) continue;
    const f = readMatch();
    const w = read();
    const q = isQTensorInstance(w) ? dequantized(w) : w;
    if (q.data.length !== f.data.length) {
      throw new RangeError(
        `${ctx}: the models do not match: '${key}' [${q.shape.join(', ')}] and its float match '${match}' [${f.shape.join(', ')}] differ in size; pass a float model and its own quantized twin`,
      );
    }
    result[key] = { floatKey: match, float: f, quantized: q, ...compare(f, q, { perChannel: true }) };
  }
  if (unmatched !== null && Object.keys(result).length === 0) {
    throw new RangeError(
      `${ctx}: the models do not match: no weight of quantizedModel (the first: '${unmatched}') has a float match in floatModel; pass a float model and its own quantized twin`,
    );
  }
  return result;
}

/** The modules of `model` whose output PyTorch's numeric suite logs: [[statsKey, module, methods]]. */
function loggedModules(model) {
  const out = [];
  for (const [path, m] of model.namedModules()) {
    const methods = lookup(NS_LOGGED, m);
    if (methods !== undefined) {
      out.push([path === '' ? 'stats' : `${path}.stats`, m, methods]);
    } else if (m instanceof Identity && path.split('.').at(-1) === 'activation_post_process') {
      // A FloatFunctional / QFunctional of an exported graph: its ops became graph
      // functions, and its activation_post_process (an Identity) follows each.
      out.push([`${path.split('.').slice(0, -1).join('.')}.stats`, m, ['forward']]);
    }
  }
  return out;
}

function snapshot(v) {
  if (isQTensorInstance(v)) return { data: v.dequantize().data, shape: [...v.shape], scale: v.qScale() };
  if (v !== null && typeof v === 'object' && v.data instanceof Float32Array) {
    return { data: Float32Array.from(v.data), shape: [...v.shape], scale: null };
  }
  return null;
}

// Runs model(x), recording the first output of each logged module (its
// forward, or a FloatFunctional's ops), then puts every module back as it was.
function runLogged(model, x, ctx) {
  const seen = new Map();
  const patched = [];
  const record = (key, v) => {
    if (!seen.has(key)) seen.set(key, snapshot(v));
    return v;
  };
  try {
    for (const [key, m, methods] of loggedModules(model)) {
      for (const name of methods) {
        const original = m[name];
        Object.defineProperty(m, name, {
          value: (...args) => record(key, original.apply(m, args)),
          configurable: true,
          writable: true,
        });
        patched.push([m, name]);
      }
    }
    // tidy: a module tree's intermediate QTensors are the caller's to dispose (a graph disposes its own).
    tidy(() => {
      model.forward(x);
    });
  } catch (e) {
    if (e instanceof Error) e.message = `${ctx}: ${e.message}`;
    throw e;
  } finally {
    for (const [m, name] of patched) delete m[name];
  }
  return seen;
}

/** Documented at quantization.ns.compareModelOutputs (web/declarations/quantization.d.ts). */
export function compareModelOutputs(floatModel, quantizedModel, x) {
  const ctx = 'quantization.ns.compareModelOutputs(floatModel, quantizedModel, x)';
  for (const [name, m] of [
    ['floatModel', floatModel],
    ['quantizedModel', quantizedModel],
  ]) {
    if (!(m instanceof Module))
      throw new TypeError(`${ctx}: ${name} must be an nn.Module or an io.GraphModule, got ${describe(m)}`);
  }
  const floats = runLogged(floatModel, x, `${ctx}: floatModel`);
  const quants = runLogged(quantizedModel, x, `${ctx}: quantizedModel`);
  // PyTorch searches the float keys in reverse sorted order.
  const floatKeys = [...floats.keys()]
    .filter((k) => floats.get(k) !== null)
    .sort()
    .reverse();
  const result = {};
  for (const [key, q] of quants) {
    if (q === null) continue;
    const match = findMatch(floatKeys, key, 'stats');
    if (match === null) continue;
    const f = floats.get(match);
    // Outputs of another shape: the models are not a float model and its quantized twin (say, another width).
    if (f.shape.length !== q.shape.length || f.shape.some((d, i) => d !== q.shape[i])) {
      throw new RangeError(
        `${ctx}: the models do not match: '${key}' gives [${q.shape.join(', ')}] and its float match '${match}' gives [${f.shape.join(', ')}]; pass a float model and its own quantized twin`,
      );
    }
    const { scale, ...quantizedOut } = q;
    const stats = compare(f, q, { step: scale });
    if (scale === null) stats.offByMoreThanOneStep = null;
    result[key] = { floatKey: match, float: { data: f.data, shape: f.shape }, quantized: quantizedOut, ...stats };
  }
  const logged = [...quants.keys()].filter((k) => quants.get(k) !== null);
  if (logged.length > 0 && Object.keys(result).length === 0) {
    throw new RangeError(
      `${ctx}: the models do not match: no layer of quantizedModel (the first: '${logged[0]}') has a float match in floatModel; pass a float model and its own quantized twin`,
    );
  }
  return result;
}
