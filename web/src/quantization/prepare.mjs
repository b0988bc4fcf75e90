// quantization.prepare and quantization.convert: PyTorch 2.15's eager static
// quantization (torch/ao/quantization/quantize.py), in place.
//
// prepare: each module's QConfig is the nearest one set on it or an ancestor
// (model.qconfig = ..., null switches a subtree off). Observers go where
// PyTorch puts them, as each op's descriptor states it (its eager rows,
// web/src/ops/): on the output of QuantStub, Conv1d/2d/3d, Linear and the
// fused nn.intrinsic modules (whose observer PyTorch updates twice per
// forward: once inside the fused Sequential, once in the hook — qwasm does the
// same, which matters for moving-average observers), and inside
// FloatFunctional's ops. ReLU, pools, Flatten, Identity, Dropout and
// DeQuantStub get none.
//
// convert: every observed module becomes its quantized twin (a layer's
// through fromFloat: the output qparams from its observer, the weight
// quantized by a fresh weight observer from the QConfig); the others stay and
// run on QTensors.

import { Module, namedModulesOf, walkModules } from '../nn/module.mjs';
import { eagerRowOf } from '../ops/registry.mjs';
import { describe, readOptions } from '../runtime/args.mjs';
import { restate } from '../runtime/errors.mjs';
import { isObserver } from '../tensors/observer.mjs';
import { QConfig } from './qconfig.mjs';

// A module prepare() gives an observer on its output (when it has a QConfig and no children).
const observesOutput = (row) => typeof row?.observe === 'number' && row.observe > 0;

// module -> its resolved QConfig (null: not quantized), set by prepare().
const resolved = new WeakMap();
// module -> its activation observer, set by prepare().
const observers = new WeakMap();
// The models prepare() has seen.
const preparedModels = new WeakSet();

function checkInplace(options, ctx) {
  const o = readOptions(options, ['inplace'], ctx);
  if (o.has('inplace') && o.get('inplace') !== true) {
    throw new TypeError(
      `${ctx}: qwasm works in place only (a JavaScript module cannot be deep-copied); pass { inplace: true } or nothing`,
    );
  }
}

// propagate_qconfig_: the parent's QConfig, unless the module sets its own
// (null included). Returns module -> QConfig; prepare() records it only once
// everything else is checked.
function propagate(model, ctx) {
  const out = new Map();
  const own = (m, inherited, path) => {
    if (!Object.hasOwn(m, 'qconfig')) return inherited;
    const q = m.qconfig;
    if (q !== null && !(q instanceof QConfig)) {
      throw new TypeError(
        `${ctx}: ${path || 'model'}.qconfig must be a quantization.QConfig or null, got ${describe(q)}`,
      );
    }
    return q;
  };
  out.set(model, own(model, null, ''));
  walkModules(
    model,
    (child, path, parent) => {
      out.set(child, own(child, out.get(parent), path));
      return true;
    },
    ctx,
  );
  return out;
}

// Wraps m.forward so that its observer sees every output (twice for fused
// modules, as PyTorch), and so that an error during calibration names the
// module's path.
function attachObserver(m, path, observer, times) {
  const original = m.forward;
  observers.set(m, observer);
  Object.defineProperty(m, 'activationPostProcess', { value: observer, configurable: true, writable: false });
  Object.defineProperty(m, 'forward', {
    configurable: true,
    writable: true,
    value: function observedForward(x) {
      try {
        const y = original.call(this, x);
        for (let i = 0; i < times; i++) observer.observe(y);
        return y;
      } catch (e) {
        if (e instanceof Error && typeof e.message === 'string' && !e.message.startsWith(`${path}: `)) {
          e.message = `${path}: ${e.message}`;
        }
        throw e;
      }
    },
  });
}

// True when a qwasm observer has seen nothing (a user's own observer object
// without minVal is taken at its word).
function observedNothing(observer) {
  const min = observer.minVal;
  return min === Infinity || (min instanceof Float32Array && min.length === 0);
}

function makeObserver(qconfig, path, ctx) {
  const o = qconfig.activation();
  if (
    o === null ||
    typeof o !== 'object' ||
    typeof o.observe !== 'function' ||
    typeof o.calculateQParams !== 'function'
  ) {
    throw new TypeError(
      `${ctx}: the activation factory of ${path}'s QConfig did not make an observer, got ${describe(o)}`,
    );
  }
  return o;
}

/** Documented at quantization.prepare (web/declarations/quantization.d.ts). */
export function prepare(model, options) {
  const ctx = 'quantization.prepare(model)';
  if (!(model instanceof Module)) throw new TypeError(`${ctx}: model must be an nn.Module, got ${describe(model)}`);
  checkInplace(options, ctx);
  const qconfigs = propagate(model, ctx);
  // Where the observers go: [module, path, QConfig, how], 'functional' or
  // the number of observe() calls per forward.
  const plan = [];
  walkModules(
    model,
    (child, childPath) => {
      const q = qconfigs.get(child);
      const row = eagerRowOf(child);
      const functional = row?.observe === 'functional';
      // (A FloatFunctional holds its observer itself.)
      if (observers.has(child) || (functional && /** @type {any} */ (child).activationPostProcess)) {
        throw new Error(`${ctx}: ${childPath} is already prepared`);
      }
      if (q && row?.refuse) throw new Error(`${ctx}: ${childPath} ${row.refuse}`);
      if (row?.skip) return false;
      if (functional || row?.fused) {
        if (q) plan.push([child, childPath, q, row.observe]);
        return false;
      }
      if (q && child.namedChildren().length === 0 && observesOutput(row)) {
        plan.push([child, childPath, q, row.observe]);
      }
      return true;
    },
    ctx,
  );
  if (plan.length === 0) {
    throw new Error(
      `${ctx}: no module got a QConfig and an observer: set model.qconfig = quantization.getDefaultQConfig('x86') (or on the submodules to quantize) before prepare()`,
    );
  }
  // Every observer is made before any is attached, and the QConfigs recorded
  // last: an error leaves the model (and what convert() will see) as it was.
  const made = plan.map(([, path, q]) => makeObserver(q, path, ctx));
  for (const [m, q] of qconfigs) resolved.set(m, q);
  plan.forEach(([child, , , how], i) => {
    if (how === 'functional') child.activationPostProcess = made[i];
    else attachObserver(child, plan[i][1], made[i], how);
  });
  preparedModels.add(model);
  return model;
}

// The twin of an observed module (its eager row's convert), or null for one that stays.
function swap(child, path, ctx) {
  const qconfig = resolved.get(child);
  if (!qconfig) return null;
  const row = eagerRowOf(child);
  if (row?.convert === undefined) return null;
  return row.convert(child, { observer: observers.get(child), qconfig, path, ctx });
}

/** Documented at quantization.convert (web/declarations/quantization.d.ts). */
export function convert(model, options) {
  const ctx = 'quantization.convert(model)';
  if (!(model instanceof Module)) throw new TypeError(`${ctx}: model must be an nn.Module, got ${describe(model)}`);
  checkInplace(options, ctx);
  if (!preparedModels.has(model)) {
    throw new Error(
      `${ctx}: the model was not prepared: call quantization.prepare(model), run calibration data through it, then convert`,
    );
  }
  // Checked before anything is swapped: an error leaves the model as it was.
  // (A FloatFunctional's observer is not checked: one used only for
  // addScalar / mulScalar, which are not observed, sees nothing by design, and
  // PyTorch converts it too.)
  for (const [path, m] of namedModulesOf(model, '', ctx)) {
    const observer = observers.get(m);
    if (observer && resolved.get(m) && isObserver(observer) && observer._perChannel) {
      // PyTorch fails here on `.item()` of the scales: "a Tensor with 2 elements cannot be converted to Scalar".
      throw new TypeError(
        `${ctx}: ${path}'s activation observer is a per-channel observer (${observer.constructor.name}): a quantized activation has one scale and zero point, so the QConfig's activation must be a per-tensor observer (e.g. HistogramObserver or MinMaxObserver); per-channel observers are for weights`,
      );
    }
    if (observer && resolved.get(m) && observedNothing(observer)) {
      throw new Error(
        `${ctx}: ${path}'s observer has seen no data: run calibration batches through model.forward(x) between prepare() and convert() (or set ${path}.qconfig = null before prepare() if it never runs)`,
      );
    }
  }
  // Every twin is made before any is swapped in: an error disposes the twins
  // made so far and leaves the model as it was.
  const swaps = [];
  try {
    walkModules(
      model,
      (child, childPath, parent, name) => {
        let twin;
        try {
          twin = swap(child, childPath, ctx);
        } catch (e) {
          // swap() calls fromFloat and constructors: the message names the module, not those calls.
          throw e instanceof Error && typeof e.message === 'string' && !e.message.startsWith(ctx)
            ? restate(e, `${ctx}: ${childPath}`)
            : e;
        }
        if (twin !== null) swaps.push([parent, name, child, twin]);
        return !eagerRowOf(child)?.fused;
      },
      ctx,
    );
  } catch (e) {
    for (const [, , , twin] of swaps) twin.dispose();
    throw e;
  }
  for (const [m, name, child, twin] of swaps) {
    m[name] = twin;
    child.dispose();
  }
  return model;
}
