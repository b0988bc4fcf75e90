// Rollup 4 with the usual node-resolve plugin (browser export conditions):
// the page and its worker as two entries (Rollup does not follow
// new Worker(new URL(...))), ES modules, one shared chunk.
// Usage: rollup --config rollup.config.mjs --dir <folder>
import { nodeResolve } from '@rollup/plugin-node-resolve';

export default {
  input: {
    main: new URL('./main.mjs', import.meta.url).pathname,
    worker: new URL('./worker.mjs', import.meta.url).pathname,
  },
  output: { format: 'es', entryFileNames: '[name].js' },
  plugins: [nodeResolve({ browser: true, exportConditions: ['browser'] })],
};
