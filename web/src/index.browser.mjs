// Browser / worker entry (ESM). The wasm sits beside the glue in dist/; the
// `new URL('../../dist/qwasm.wasm', import.meta.url)` below is what lets
// Vite, webpack and Parcel find it and copy it into the app. Bundlers without
// that (esbuild, Rollup without a plugin) leave the URL pointing next to their
// bundle: then init() says which URL failed and how to point it elsewhere.
import { setPlatform } from './runtime.mjs';
import { compileWasm, instantiateGlue, requireWasmSimd } from './wasm-loader.mjs';

const WASM = 'qwasm.wasm';

const REMEDY =
  `Serve node_modules/qwasm/dist/${WASM} at that URL (as application/wasm), or tell init() where it is: ` +
  `init({ locateFile: () => '/assets/${WASM}' }), or pass the bytes: init({ wasmBinary })`;

function wasmUrl(locateFile) {
  if (!locateFile) return new URL(`../../dist/${WASM}`, import.meta.url).href;
  const located = locateFile(WASM, new URL('../../dist/', import.meta.url).href);
  if (typeof located !== 'string' && !(located instanceof URL)) {
    throw new TypeError(
      `init({ locateFile }): locateFile('${WASM}') must return a URL or a string, got ${typeof located}`,
    );
  }
  return String(located);
}

async function fetchWasm(url) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch (err) {
    // Offline, a CORS refusal, a CSP connect-src refusal, a file:// page...
    throw new Error(`fetching ${url} failed (${err?.message ?? err}). ${REMEDY}`, { cause: err });
  }
  if (!response.ok) {
    const status = [response.status, response.statusText].filter(Boolean).join(' ');
    throw new Error(`fetching ${url} failed: HTTP ${status}. ${REMEDY}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

setPlatform(async (options, factory) => {
  requireWasmSimd();
  let bytes = options.wasmBinary;
  let source = 'the wasmBinary passed to init()';
  let remedy = '';
  if (!bytes) {
    source = wasmUrl(options.locateFile);
    bytes = await fetchWasm(source);
    remedy = REMEDY;
  }
  const createModule = factory ?? (await import('../../dist/qwasm.web.mjs')).default;
  const compiled = await compileWasm(bytes, source, remedy);
  return instantiateGlue(createModule, compiled);
});

export * from './api.mjs';
