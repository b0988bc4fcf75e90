// The browser platform (pages and workers): how init() loads the wasm. The
// entries import it for its effect (index.browser.mjs, and the model worker,
// which must not import the entry: the entry names the model worker, and a
// worker that names itself would send bundlers round in a circle).
//
// Every file it loads is named by a pattern bundlers understand, each naming
// one file, so that Vite, webpack, Parcel and Next.js copy or bundle it into
// the app with no configuration:
//   the wasm            new URL('../../../dist/qwasm.wasm', import.meta.url)
//   its glue            import('../../../dist/qwasm.web.mjs')
//   the threaded wasm   new URL('../../../dist/qwasm.mt.wasm', import.meta.url)
//   its glue            import('../../../dist/qwasm.mt.mjs')
//   its pool workers    new Worker(new URL('../../../dist/qwasm.mt.worker.mjs', import.meta.url), { type: 'module' })
// Bundlers without those (esbuild, Rollup without plugins) leave the URLs
// pointing next to their bundle: init() then names the URL that failed and
// the remedy (locateFile), and falls back to one thread when only the
// threaded files are missing.
import { setPlatform } from './runtime.mjs';
import { compileWasm, instantiateGlue, isThreadedWasm, requireWasmSimd, threadsUnavailable } from './wasm-loader.mjs';

const WASM = 'qwasm.wasm';

// locateFile is asked for every file (the threaded variant's too): a function that
// answers qwasm.wasm for all of them would cost a cross-origin isolated page its threads.
const REMEDY =
  `Serve node_modules/qwasm/dist/${WASM} at that URL (as application/wasm), or copy node_modules/qwasm/dist/ ` +
  `and tell init() where it is: init({ locateFile: (file) => '/qwasm/' + file }), or pass the bytes: init({ wasmBinary })`;

const MT_REMEDY =
  'Serve dist/qwasm.mt.wasm, qwasm.mt.mjs and qwasm.mt.worker.mjs together (e.g. copy node_modules/qwasm/dist/ to /qwasm/) ' +
  "and point init() at them: init({ locateFile: (file) => '/qwasm/' + file })";

// How long the pool's workers may take to start before init() gives up on
// threads: they only fetch and parse the glue and instantiate an already
// compiled module (well under a second on a busy 2-core machine); a worker
// blocked in its start-up would otherwise leave init() waiting for ever.
const POOL_START_TIMEOUT_MS = 15_000;

function defaultWasmUrl() {
  return new URL('../../../dist/qwasm.wasm', import.meta.url).href;
}

function defaultThreadedWasmUrl() {
  return new URL('../../../dist/qwasm.mt.wasm', import.meta.url).href;
}

/** Where locateFile says `name` is; its second argument is where qwasm would look (the wasm's folder). */
function locate(locateFile, name) {
  const prefix = defaultWasmUrl().replace(/[^/]*$/, '');
  const located = locateFile(name, prefix);
  if (typeof located !== 'string' && !(located instanceof URL)) {
    throw new TypeError(
      `init({ locateFile }): locateFile('${name}') must return a URL or a string, got ${typeof located}`,
    );
  }
  return String(located);
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

/** The threaded variant's glue and a function that starts one pool worker. */
async function threadedFiles(locateFile) {
  if (!locateFile) {
    return {
      createModule: (await import('../../../dist/qwasm.mt.mjs')).default,
      newWorker: () => new Worker(new URL('../../../dist/qwasm.mt.worker.mjs', import.meta.url), { type: 'module' }),
    };
  }
  const glueUrl = locate(locateFile, 'qwasm.mt.mjs');
  const workerUrl = locate(locateFile, 'qwasm.mt.worker.mjs');
  return {
    // Absolute: import() resolves a relative specifier against this module, not the page as fetch() and Worker do.
    createModule: (
      await import(/* webpackIgnore: true */ /* @vite-ignore */ new URL(glueUrl, globalThis.location?.href).href)
    ).default,
    newWorker: () => new Worker(workerUrl, { type: 'module' }),
  };
}

/**
 * The threaded variant: its glue starts numThreads - 1 pool workers, each of
 * which imports the glue again. Resolves to the module once every worker has
 * loaded it, or rejects (a worker that failed or did not start in time).
 */
async function instantiateThreaded(options, factory, threads, compiled) {
  const files = await threadedFiles(options.locateFile);
  try {
    return await instantiateGlue(
      factory ?? files.createModule,
      compiled,
      { qwasmWorkers: Math.max(1, threads - 1), qwasmNewWorker: files.newWorker },
      options.poolTimeoutMs ?? POOL_START_TIMEOUT_MS,
    );
  } catch (err) {
    // Most often a bundler that did not emit the pool worker (esbuild, Rollup).
    throw new Error(`${err?.message ?? err}. ${MT_REMEDY}`, { cause: err });
  }
}

// init()'s default numThreads: the logical cores, at most 8. Where threads
// cannot run (a page that is not cross-origin isolated) qwasm falls back to
// one thread and runtimeInfo() says why.
function defaultThreads() {
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return Math.max(1, Math.min(8, cores));
}

async function instantiateSingle(options, factory, compiled) {
  const createModule = factory ?? (await import('../../../dist/qwasm.web.mjs')).default;
  return instantiateGlue(createModule, compiled);
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
    return { module: await instantiateSingle(options, factory, compiled), threaded: false, reason };
  }
  if (threads > 1 && !reason) {
    try {
      const url = options.locateFile ? locate(options.locateFile, 'qwasm.mt.wasm') : defaultThreadedWasmUrl();
      const compiled = await compileWasm(await fetchWasm(url, MT_REMEDY), url, MT_REMEDY);
      if (!isThreadedWasm(compiled)) {
        throw new Error(
          `${url} (for qwasm.mt.wasm) is the single-thread build, not the threaded variant. ${MT_REMEDY}`,
        );
      }
      return { module: await instantiateThreaded(options, factory, threads, compiled), threaded: true, reason };
    } catch (err) {
      reason = `loading the threaded variant failed: ${err?.message ?? err}`;
      // The page could have had threads: say why it runs on one (runtimeInfo().threadsUnavailable says it too).
      console.warn(`qwasm: running on one thread: ${reason}`);
    }
  }
  const source = options.locateFile ? locate(options.locateFile, WASM) : defaultWasmUrl();
  const compiled = await compileWasm(await fetchWasm(source), source, REMEDY);
  return { module: await instantiateSingle(options, factory, compiled), threaded: false, reason };
}, defaultThreads);
