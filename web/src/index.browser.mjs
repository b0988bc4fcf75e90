// Browser / worker entry (ESM). The wasm sits beside the glue in dist/; the
// `new URL('../../dist/qwasm.wasm', import.meta.url)` below is what lets
// Vite, webpack and Parcel find it and copy it into the app. Bundlers without
// that (esbuild, Rollup without a plugin) leave the URL pointing next to their
// bundle: then init() says which URL failed and how to point it elsewhere.
import { setPlatform } from './runtime.mjs';
import { compileWasm, instantiateGlue, isThreadedWasm, requireWasmSimd, threadsUnavailable } from './wasm-loader.mjs';

const WASM = 'qwasm.wasm';

const REMEDY =
  `Serve node_modules/qwasm/dist/${WASM} at that URL (as application/wasm), or tell init() where it is: ` +
  `init({ locateFile: () => '/assets/${WASM}' }), or pass the bytes: init({ wasmBinary })`;

// dist/, as a URL. (No `new URL('<file>', import.meta.url)` for the threaded
// variant's files: bundlers would copy them, and its glue names its worker
// script relative to itself, which a bundler's renaming breaks. They are
// fetched from dist/ as shipped, or from where locateFile says.)
const DIST = () => new URL('../../dist/', import.meta.url).href;

function locate(locateFile, name) {
  if (!locateFile) return DIST() + name;
  const located = locateFile(name, DIST());
  if (typeof located !== 'string' && !(located instanceof URL)) {
    throw new TypeError(
      `init({ locateFile }): locateFile('${name}') must return a URL or a string, got ${typeof located}`,
    );
  }
  return String(located);
}

function wasmUrl(locateFile) {
  // A literal file name: with a template, Vite would copy every file of dist/ it matches.
  if (!locateFile) return new URL('../../dist/qwasm.wasm', import.meta.url).href;
  return locate(locateFile, WASM);
}

async function fetchWasm(url, remedy = REMEDY) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (err) {
    // Offline, a CORS refusal, a CSP connect-src refusal, a file:// page...
    throw new Error(`fetching ${url} failed (${err?.message ?? err}). ${remedy}`, { cause: err });
  }
  if (!response.ok) {
    const status = [response.status, response.statusText].filter(Boolean).join(' ');
    throw new Error(`fetching ${url} failed: HTTP ${status}. ${remedy}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

const MT_REMEDY = 'Serve dist/qwasm.mt.wasm, qwasm.mt.mjs and qwasm.mt.worker.js together, or point locateFile at them';

/**
 * The threaded variant: its glue (an ES module) is imported from its URL and
 * starts numThreads - 1 workers from qwasm.mt.worker.js, each of which
 * imports the same glue. Resolves to the module, or rejects.
 */
async function instantiateThreaded(options, factory, threads, compiled) {
  const glueUrl = locate(options.locateFile, 'qwasm.mt.mjs');
  const workerUrl = locate(options.locateFile, 'qwasm.mt.worker.js');
  // A worker script that is missing would leave the glue waiting for ever:
  // check that it is there first.
  await fetchWasmScript(workerUrl);
  const createModule = factory ?? (await import(/* @vite-ignore */ glueUrl)).default;
  return instantiateGlue(createModule, compiled, {
    qwasmWorkers: Math.max(1, threads - 1),
    mainScriptUrlOrBlob: glueUrl,
    locateFile: (path) => locate(options.locateFile, path),
  });
}

async function fetchWasmScript(url) {
  const response = await fetch(url, { credentials: 'same-origin' });
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || /html/i.test(type)) {
    throw new Error(
      `fetching ${url} failed: HTTP ${response.status}${/html/i.test(type) ? ' (an HTML page)' : ''}. ${MT_REMEDY}`,
    );
  }
}

// init()'s default numThreads: the logical cores, at most 8. Where threads
// cannot run (a page that is not cross-origin isolated) qwasm falls back to
// one thread and runtimeInfo() says why.
function defaultThreads() {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.min(8, cores));
}

setPlatform(async (options, factory, threads) => {
  requireWasmSimd();
  let reason = threads > 1 ? threadsUnavailable() : '';
  if (options.wasmBinary) {
    const compiled = await compileWasm(options.wasmBinary, 'the wasmBinary passed to init()', '');
    if (isThreadedWasm(compiled)) {
      if (reason) throw new Error(`the wasmBinary passed to init() is the threaded variant, but ${reason}`);
      return { module: await instantiateThreaded(options, factory, threads, compiled), threaded: true, reason };
    }
    if (threads > 1 && !reason) reason = 'the wasmBinary passed to init() is the single-thread build (qwasm.wasm)';
    const createModule = factory ?? (await import('../../dist/qwasm.web.mjs')).default;
    return { module: await instantiateGlue(createModule, compiled), threaded: false, reason };
  }
  if (threads > 1 && !reason) {
    try {
      const url = locate(options.locateFile, 'qwasm.mt.wasm');
      const compiled = await compileWasm(await fetchWasm(url, MT_REMEDY), url, MT_REMEDY);
      if (!isThreadedWasm(compiled)) throw new Error(`${url} is not the threaded variant`);
      return { module: await instantiateThreaded(options, factory, threads, compiled), threaded: true, reason };
    } catch (err) {
      reason = `loading the threaded variant failed: ${err?.message ?? err}`;
    }
  }
  const source = wasmUrl(options.locateFile);
  const bytes = await fetchWasm(source);
  const createModule = factory ?? (await import('../../dist/qwasm.web.mjs')).default;
  const compiled = await compileWasm(bytes, source, REMEDY);
  return { module: await instantiateGlue(createModule, compiled), threaded: false, reason };
}, defaultThreads);

export * from './api.mjs';
