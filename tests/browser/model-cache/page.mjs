// Loads with cache: true (io.loadModelAsync on this page, io.loadModel in the
// model worker) of /model (the test's route: an ETag, 304 when it matches;
// /__bump changes the file), and reports after each step what the server
// was asked (GET /__log) and what loaded. Last, a cache whose put() fails (its
// quota full) leaves the load on the network with a console warning.
import * as Q from '../../../web/src/index.browser.mjs';

async function report(value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key: 'model-cache', value }) });
}
const log = async () => (await fetch('/__log')).json(); // [status] of each /model request since the last call

const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(' '));
  warn.apply(console, args);
};

const steps = {};
try {
  await Q.init();
  steps.cleared = await Q.io.clearCache();
  const load = async (options = {}) => {
    const model = await Q.io.loadModelAsync('/model', { cache: true, ...options });
    const nodes = model.nodes.length;
    model.dispose();
    return { nodes, requests: await log() };
  };
  steps.first = await load();
  steps.second = await load();
  const inWorker = await Q.io.loadModel('/model', { worker: true, cache: true });
  steps.worker = { nodes: inWorker.nodes.length, requests: await log() };
  inWorker.dispose();
  await fetch('/__bump');
  steps.changed = await load();
  steps.afterChange = await load();
  steps.clearedAgain = await Q.io.clearCache();
  steps.afterClear = await load();
  // A full quota: the cache refuses to keep the file.
  await Q.io.clearCache();
  Cache.prototype.put = () => Promise.reject(new DOMException('the quota is full', 'QuotaExceededError'));
  steps.full = await load();
  steps.fullAgain = await load();
  await report({ steps, warnings });
} catch (e) {
  await report({ error: `${e?.name}: ${e?.message ?? e}`, steps, warnings });
}
