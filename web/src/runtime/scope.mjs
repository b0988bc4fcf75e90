// tidy(fn): every QTensor made while fn runs is disposed when it returns,
// except those it returns (a QTensor, or QTensors in the array or plain object
// it returns). Models make one QTensor per layer per forward(); tidy frees
// the intermediate ones without a dispose() for each.
import { describe } from './args.mjs';

const scopes = []; // a stack of Sets of the QTensors made in each open tidy()

/** @internal Called by every new QTensor. */
export function trackNew(q) {
  if (scopes.length) scopes[scopes.length - 1].add(q);
}

function kept(result, isQTensor) {
  const out = new Set();
  const seen = new Set();
  const walk = (v) => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (isQTensor(v)) out.add(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach(walk);
  };
  walk(result);
  return out;
}

/** @internal tidy, given how to recognise a QTensor (qtensor.mjs supplies it). */
export function tidyWith(fn, isQTensor) {
  if (typeof fn !== 'function') throw new TypeError(`tidy(fn): fn must be a function, got ${describe(fn)}`);
  const scope = new Set();
  scopes.push(scope);
  let result;
  try {
    result = fn();
  } catch (e) {
    scopes.pop();
    for (const q of scope) q.dispose();
    throw e;
  }
  scopes.pop();
  if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
    for (const q of scope) q.dispose();
    throw new TypeError('tidy(fn): fn must return its result, not a Promise (tidy cannot wait for it)');
  }
  const keep = kept(result, isQTensor);
  for (const q of scope) if (!keep.has(q)) q.dispose();
  // What fn returns belongs to the enclosing tidy(), if any.
  if (scopes.length) for (const q of keep) if (scope.has(q)) scopes[scopes.length - 1].add(q);
  return result;
}
