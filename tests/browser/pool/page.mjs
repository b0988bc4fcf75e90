// init({ numThreads: 2 }) on a cross-origin isolated page whose pool worker
// script the test server breaks (?timeout=ms shortens the wait for a worker
// that never starts). Reports how init() settled, how long it took, what
// runtimeInfo() says, what qwasm warned in the console, and one quantize
// on whatever variant loaded.
import * as Q from '../../../web/src/index.browser.mjs';

const params = new URLSearchParams(location.search);

async function report(value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'pool', value }) });
}

// What qwasm says in the console (a note when threads fall back).
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(' '));
  warn.apply(console, args);
};

const started = performance.now();
try {
  await Q.init({ numThreads: 2, _poolTimeoutMs: Number(params.get('timeout') ?? 15000) });
  const q = Q.quantizePerTensor(Q.tensor([0.1, -0.2, 0.3]), 0.01, 128, 'quint8');
  await report({
    settled: 'resolved',
    ms: performance.now() - started,
    runtime: Q.runtimeInfo(),
    intRepr: Array.from(q.intRepr()),
    warnings,
  });
  q.dispose();
} catch (e) {
  await report({ settled: 'rejected', ms: performance.now() - started, error: String(e?.message ?? e) });
}
