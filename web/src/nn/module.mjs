// nn.Module, the base class users subclass as in PyTorch, and the small
// containers and layers around it: nn.Sequential, nn.Identity, nn.Flatten,
// nn.Dropout.
//
// A module's children are its own enumerable properties that hold modules,
// in the order they were assigned (PyTorch registers them in __setattr__;
// JavaScript has no such hook, so they are found when needed). Built-in
// layers keep their state in private fields: they have no children.
import { describe, readBoolean, readFloatTensor, readInteger, readNumber, readOptions } from '../runtime/args.mjs';
import { isQTensorInstance as isQTensor, qtensorShape } from '../tensors/qtensor.mjs';
import { flattenRange, flattenShape } from './shapes.mjs';

export class Module {
  #training = true;

  /** True in training mode (the default), false after eval(). */
  get training() {
    return this.#training;
  }

  /** Sets training mode on this module and every descendant; returns this. */
  train(mode = true) {
    const ctx = `${this.constructor.name}.train(mode)`;
    readBoolean(mode, 'mode', ctx);
    for (const [, m] of namedModulesOf(this, '', ctx)) m.#training = mode;
    return this;
  }

  /** train(false). */
  eval() {
    return this.train(false);
  }

  /**
   * [name, module] for each direct child, in assignment order.
   * @returns {[string, Module][]}
   */
  namedChildren() {
    /** @type {[string, Module][]} */
    const out = [];
    for (const key of Object.keys(this)) {
      const v = this[key];
      if (v instanceof Module) out.push([key, v]);
    }
    return out;
  }

  children() {
    return this.namedChildren().map(([, m]) => m);
  }

  /** Documented at nn.Module.namedModules (web/declarations/nn.d.ts). */
  namedModules(prefix = '') {
    if (typeof prefix !== 'string') {
      throw new TypeError(`${this.constructor.name}.namedModules(prefix): prefix must be a string`);
    }
    return namedModulesOf(this, prefix, `${this.constructor.name}.namedModules()`);
  }

  modules() {
    return this.namedModules().map(([, m]) => m);
  }

  /** The descendant at a dotted path ('layer1.0.conv'); Error naming the missing part. */
  getSubmodule(target) {
    if (typeof target !== 'string') {
      throw new TypeError(
        `${this.constructor.name}.getSubmodule(target): target must be a string, got ${describe(target)}`,
      );
    }
    /** @type {Module} */
    let m = this;
    if (target === '') return m;
    for (const part of target.split('.')) {
      const next = Object.hasOwn(m, part) ? m[part] : undefined;
      if (!(next instanceof Module)) {
        throw new Error(
          `${this.constructor.name}.getSubmodule('${target}'): ${m.constructor.name} has no submodule '${part}'`,
        );
      }
      m = next;
    }
    return m;
  }

  /** Calls fn on every descendant and then this module (PyTorch's apply); returns this. */
  apply(fn) {
    if (typeof fn !== 'function') throw new TypeError(`${this.constructor.name}.apply(fn): fn must be a function`);
    for (const [, m] of namedModulesOf(this, '', `${this.constructor.name}.apply(fn)`).reverse()) fn(m);
    return this;
  }

  /** Subclasses define the computation. */
  forward(_x) {
    throw new Error(`${this.constructor.name}.forward(x) is not implemented: a subclass of nn.Module defines forward`);
  }

  /** Documented at nn.Module.dispose (web/declarations/nn.d.ts). */
  // Each module reachable from this one is disposed once, cycles included:
  // dispose never fails on the tree's shape (the walks that refuse a cycle do).
  dispose() {
    /** @type {Set<Module>} */
    const seen = new Set([this]);
    const stack = this.children().reverse();
    while (stack.length > 0) {
      const m = stack.pop();
      if (seen.has(m)) continue;
      seen.add(m);
      // A container's own dispose would walk its children again: they are on the stack already.
      if (m.dispose === Module.prototype.dispose) stack.push(...m.children().reverse());
      else m.dispose();
    }
  }

  toString() {
    return describeTree(this, new Set());
  }
}

// toString's tree; a child that is one of its ancestors prints as a back-reference, not forever.
function describeTree(m, ancestors) {
  const kids = m.namedChildren();
  const name = m.constructor.name;
  if (kids.length === 0) return `${name}()`;
  ancestors.add(m);
  const lines = kids.map(([k, c]) => {
    const text = ancestors.has(c)
      ? `<cycle: a module above this one (${c.constructor.name})>`
      : c.toString === Module.prototype.toString
        ? describeTree(c, ancestors)
        : String(c);
    return `  (${k}): ${text.split('\n').join('\n  ')}`;
  });
  ancestors.delete(m);
  return `${name}(\n${lines.join('\n')}\n)`;
}

/**
 * @internal namedModules() for a caller that names itself in the message.
 * @returns {[string, Module][]}
 */
export function namedModulesOf(root, prefix, ctx) {
  /** @type {[string, Module][]} */
  const out = [[prefix, root]];
  const seen = new Set([root]);
  walkModules(
    root,
    (child, path) => {
      if (seen.has(child)) return false;
      seen.add(child);
      out.push([prefix ? `${prefix}.${path}` : path, child]);
      return true;
    },
    ctx,
  );
  return out;
}

const MAX_PATH = 200;

/**
 * The one walk over a module tree that prepare, convert, fuseModules and
 * namedModules share: visit(child, path, parent, name) for every child, depth
 * first in registration order; the walk goes into the child when visit
 * returns true. A module reached again below itself (this.block.owner = this)
 * is an Error naming the path, never an endless recursion.
 * @param {Module} root
 * @param {(child: Module, path: string, parent: Module, name: string) => boolean | undefined} visit
 * @param {string} ctx the public call, for the message
 */
export function walkModules(root, visit, ctx) {
  const ancestors = new Set([root]);
  const go = (m, path) => {
    for (const [name, child] of m.namedChildren()) {
      const childPath = path ? `${path}.${name}` : name;
      if (ancestors.has(child)) {
        const shown = childPath.length > MAX_PATH ? `${childPath.slice(0, MAX_PATH)}...` : childPath;
        throw new Error(
          `${ctx}: module cycle at path '${shown}': it holds a module above it (${child === root ? 'the root' : child.constructor.name}); a module tree must not loop`,
        );
      }
      if (visit(child, childPath, m, name) !== true) continue;
      ancestors.add(child);
      go(child, childPath);
      ancestors.delete(child);
    }
  };
  go(root, '');
}

/** Documented at nn.Sequential (web/declarations/nn.d.ts). */
export class Sequential extends Module {
  constructor(...modules) {
    super();
    const ctx = 'new nn.Sequential(...modules)';
    const first = modules[0];
    const named = modules.length === 1 && first !== null && typeof first === 'object' && !(first instanceof Module);
    const entries = named
      ? first instanceof Map
        ? [...first.entries()]
        : Object.entries(first)
      : modules.map((m, i) => [String(i), m]);
    for (const [name, m] of entries) {
      if (typeof name !== 'string' || name === '' || name.includes('.')) {
        throw new TypeError(`${ctx}: module names are non-empty strings without '.', got ${describe(name)}`);
      }
      if (name in this) throw new TypeError(`${ctx}: the name '${name}' would hide nn.Sequential's own ${name}`);
      if (!(m instanceof Module)) throw new TypeError(`${ctx}: '${name}' must be an nn.Module, got ${describe(m)}`);
      this[name] = m;
    }
  }

  get length() {
    return this.namedChildren().length;
  }

  forward(x) {
    let y = x;
    for (const m of this.children()) y = m.forward(y);
    return y;
  }
}

/** nn.Identity: returns its input (the same object). */
export class Identity extends Module {
  forward(x) {
    return x;
  }
}

function flattened(shape, startDim, endDim, ctx) {
  const out = flattenShape(shape, startDim, endDim);
  if (out !== null) return out;
  if (flattenRange(shape.length, startDim, endDim) === null) {
    throw new RangeError(`${ctx}: startDim ${startDim} / endDim ${endDim} out of range for rank ${shape.length}`);
  }
  throw new RangeError(`${ctx}: startDim ${startDim} must not come after endDim ${endDim}`);
}

/** nn.Flatten(startDim = 1, endDim = -1): a float tensor shares its data; a QTensor gives a view (dispose it). */
export class Flatten extends Module {
  #startDim;
  #endDim;

  constructor(startDim = 1, endDim = -1) {
    super();
    const ctx = 'new nn.Flatten(startDim, endDim)';
    this.#startDim = readInteger(startDim, 'startDim', ctx);
    this.#endDim = readInteger(endDim, 'endDim', ctx);
  }

  get startDim() {
    return this.#startDim;
  }

  get endDim() {
    return this.#endDim;
  }

  forward(x) {
    const ctx = 'nn.Flatten.forward(x)';
    if (isQTensor(x)) return x.view(flattened(qtensorShape(x, ctx), this.#startDim, this.#endDim, ctx));
    const t = readFloatTensor(x, ctx);
    return { data: t.data, shape: flattened(t.shape, this.#startDim, this.#endDim, ctx) };
  }

  toString() {
    return `Flatten(start_dim=${this.#startDim}, end_dim=${this.#endDim})`;
  }
}

/** nn.Dropout(p = 0.5): the identity in eval mode; in training mode zeroes elements with probability p and scales the rest by 1 / (1 - p). */
export class Dropout extends Module {
  #p;

  constructor(p = 0.5, options = undefined) {
    super();
    const ctx = 'new nn.Dropout(p, options)';
    readOptions(options, ['inplace'], ctx);
    this.#p = readNumber(p, 'p', ctx);
    if (!(this.#p >= 0 && this.#p <= 1)) throw new RangeError(`${ctx}: p must be in 0..1, got ${this.#p}`);
  }

  get p() {
    return this.#p;
  }

  forward(x) {
    if (!this.training) return x;
    const ctx = 'nn.Dropout.forward(x)';
    if (isQTensor(x)) throw new Error(`${ctx}: dropout on a QTensor runs in eval mode only: call model.eval()`);
    const t = readFloatTensor(x, ctx);
    const keep = 1 - this.#p;
    const data = new Float32Array(t.data.length);
    for (let i = 0; i < data.length; i++) data[i] = keep > 0 && Math.random() < keep ? t.data[i] / keep : 0;
    return { data, shape: t.shape };
  }

  toString() {
    return `Dropout(p=${this.#p})`;
  }
}
