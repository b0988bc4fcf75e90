// Every bundler and framework the consumer suite (consumer.test.mjs) builds
// an app with and runs in Chromium, with the version installed in the
// repository's node_modules, so that a test can check the README's bundler
// table against what is really tested. `setup` is what the app does for
// qwasm beyond importing it by name (null: nothing). With it, every app runs
// the threaded variant on a cross-origin isolated page, in the page, a module
// worker and qwasm's model worker (io.loadModel(url, { worker: true })).
import { readFileSync } from 'node:fs';

const version = (pkg) =>
  JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

export const BUNDLERS = [
  {
    name: 'Vite',
    package: 'vite',
    version: version('vite'),
    tested: 'production build (vite build) and dev server (vite)',
    setup: null,
  },
  {
    name: 'webpack',
    package: 'webpack',
    version: version('webpack'),
    tested: 'production build (webpack)',
    setup: null,
  },
  {
    name: 'Parcel',
    package: 'parcel',
    version: version('parcel'),
    tested: 'production build (parcel build)',
    setup: null,
  },
  {
    name: 'Next.js',
    package: 'next',
    version: version('next'),
    tested:
      'next build (Turbopack) and next build --webpack, served by next start: a client component, and a route handler (Node.js; one thread: the server bundle moves the code)',
    setup: null,
  },
  {
    name: 'Rollup',
    package: 'rollup',
    version: version('rollup'),
    tested: `with @rollup/plugin-node-resolve ${version('@rollup/plugin-node-resolve')} (browser export conditions)`,
    setup:
      "copy node_modules/qwasm/dist/ to /qwasm/; pass locateFile: (file) => '/qwasm/' + file to init() and io.loadModel",
  },
  {
    name: 'esbuild',
    package: 'esbuild',
    version: version('esbuild'),
    tested: 'bundle (esbuild --bundle --format=esm)',
    setup:
      "copy node_modules/qwasm/dist/ to /qwasm/; pass locateFile: (file) => '/qwasm/' + file to init() and io.loadModel",
  },
];

/** The README's bundler table (between its bundlers:start and bundlers:end markers), from BUNDLERS. */
export function bundlerTable() {
  return [
    '| bundler | version tested | what is built | what the app does for qwasm |',
    '|---|---|---|---|',
    ...BUNDLERS.map((b) => `| ${b.name} | ${b.version} | ${b.tested} | ${b.setup ?? 'nothing'} |`),
  ].join('\n');
}
