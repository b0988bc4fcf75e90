// Browser / worker entry (ESM). The wasm file sits beside the glue in dist/;
// bundlers see the new URL(..., import.meta.url) and copy it.
import { setPlatform } from './runtime.mjs';

setPlatform(async (options, factory) => {
  const createModule = factory ?? (await import('../../dist/qwasm.web.mjs')).default;
  const wasmUrl = new URL('../../dist/qwasm.web.wasm', import.meta.url).href;
  return createModule({
    locateFile: (path) => (path.endsWith('.wasm') ? wasmUrl : path),
    ...options,
  });
});

export * from './api.mjs';
