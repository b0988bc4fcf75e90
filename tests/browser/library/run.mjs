// Runs the library checks where it is imported (a page or a module worker)
// and POSTs the results to the test server (/__report): no script injection
// is needed to read them, so the page can run under a strict CSP.
// Query: ?load=default|locateFile|wasmBinary (how init() gets the wasm), &growth=1,
// &threads=n (init({ numThreads: n }); the page is then served with COOP/COEP).
import * as Q from '../../../web/src/index.browser.mjs';
import { FIXTURES, runGrowthCheck, runLibraryChecks } from './checks.mjs';

const params = new URLSearchParams(location.search);

export async function report(key, value) {
  await fetch('/__report', { method: 'POST', body: JSON.stringify({ key, value }) });
}

async function initOptions(load) {
  const threads = params.get('threads') ? { numThreads: Number(params.get('threads')) } : {};
  if (load === 'locateFile') return { ...threads, locateFile: (path) => new URL(`/dist/${path}`, location.href).href };
  if (load === 'wasmBinary') {
    return { ...threads, wasmBinary: new Uint8Array(await (await fetch('/dist/qwasm.wasm')).arrayBuffer()) };
  }
  return params.get('threads') ? threads : undefined;
}

async function fixtures() {
  const read = async (f) => [f, new Uint8Array(await (await fetch(`/tests/golden/fixtures/${f}`)).arrayBuffer())];
  return Object.fromEntries(await Promise.all(FIXTURES.map(read)));
}

/** Runs the checks and reports them under `where` ('page' or 'worker'). */
export async function run(where) {
  try {
    await Q.init(await initOptions(params.get('load') ?? 'default'));
    const models = await (await fetch('/tests/golden/models.json')).json();
    const results = runLibraryChecks(Q, await fixtures(), models);
    if (params.get('growth') && where === 'page') results.growth = runGrowthCheck(Q);
    await report(where, { results, runtime: Q.runtimeInfo() });
  } catch (e) {
    await report(where, { error: String(e?.stack ?? e) });
  }
}
