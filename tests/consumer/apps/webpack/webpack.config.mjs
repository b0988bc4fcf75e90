// webpack 5 building the shared web app (../web) as a user would: an entry,
// an output folder, production mode; nothing about qwasm (webpack sees the
// package's new URL(..., import.meta.url) and new Worker(new URL(...))).
// Usage: webpack --config webpack.config.mjs --env out=<folder>
import { fileURLToPath } from 'node:url';

export default (env) => ({
  mode: 'production',
  context: fileURLToPath(new URL('../web/', import.meta.url)),
  entry: './main.mjs',
  output: { path: env.out, filename: 'main.js', clean: true },
  stats: 'errors-warnings',
});
