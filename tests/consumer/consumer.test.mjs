// The package as users get it: `npm pack`, the tarball installed (offline)
// into small apps copied from tests/consumer/apps, each importing qwasm by
// name (as a namespace and by name: apps/named.mjs) and running the same
// checks (checks.mjs) whose results must equal
// PyTorch's: Node ESM and CJS, a server bundle that moved the code,
// TypeScript under three resolutions (with the negative type tests), Jest's
// default mode, and, in Chromium, an app built by every bundler in
// bundlers.mjs (Vite build and dev server, webpack, Parcel, Rollup, Next.js
// with Turbopack and with webpack, esbuild): the page and a module worker,
// first as an ordinary page (one thread), then cross-origin isolated
// (COOP/COEP: the threaded variant). publint and are-the-types-wrong lint the
// same tarball.
//
// The apps live under build/consumer-apps/ (git-ignored), inside the
// repository, so that the bundlers and frameworks (next, react, webpack...)
// resolve from the repository's node_modules while qwasm resolves from the
// apps' own node_modules, where the tarball is installed. Nothing is
// downloaded. Set QWASM_KEEP_CONSUMER=1 to keep the apps, their builds and
// their logs; QWASM_CONSUMER_PACKAGE_DIR packs another checkout (default:
// this one).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { CHROMIUM_FLAGS } from '../browser/browser.mjs';
import { freePort } from '../browser/engines.mjs';
import { BUNDLERS } from './bundlers.mjs';
import { runChecks } from './checks.mjs';
import { childProcesses, limit } from './child-processes.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const pkg = (path) => join(root, 'node_modules', path);
const version = (name) => BUNDLERS.find((b) => b.name === name).version;
const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; " +
  "style-src 'self'; object-src 'none'; base-uri 'none'";
const NO_WASM_CSP = "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self'";
// What makes a page cross-origin isolated, the condition for threads in a browser.
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
// For the tools run as child processes: plain logs, no telemetry.
const CHILD_ENV = { ...process.env, NO_COLOR: '1', NEXT_TELEMETRY_DISABLED: '1' };

// The model the web app loads in qwasm's model worker, and what it must give
// (the checkout's Node.js build, in process: the same wasm, so the same bits).
const MODEL_FILE = join(root, 'tests/golden/exported/r3d_18.qwasm.safetensors');
async function modelOutput() {
  const q = await import('../../web/src/index.node.mjs');
  await q.init();
  const model = q.io.loadModel(readFileSync(MODEL_FILE));
  const shape = model.inputShape;
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(i * 0.37);
  const y = model.forward({ data, shape });
  model.dispose();
  return {
    shape: y.shape,
    output: Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength).toString('base64'),
  };
}

const golden = JSON.parse(readFileSync(join(root, 'tests/golden/conv3d.json'), 'utf8'));
const CASE = golden.cases.find((c) => c.name === 'k333 pad1 Cin3 Cout5 per-channel relu');
const decodeInts = (a) => Array.from(new Uint8Array(Buffer.from(a.b64, 'base64')));
// What PyTorch gives (the golden's integers) and what qwasm promises before init().
const EXPECTED = {
  initializedBefore: false,
  tensorBefore: [1, 2],
  errorBefore:
    'quantizePerTensor(x, scale, zeroPoint, dtype): qwasm is not initialized: call `await init()` before using the API',
  initializedAfter: true,
  quantizePerTensor: [138, 108, 158], // round(x / 0.01) + 128
  convReLU3d: { shape: CASE.y_int.shape, intRepr: decodeInts(CASE.y_int) },
  heapReturned: true,
};
// runtimeInfo() after init(): the threaded variant, or one thread and why.
const THREADS = { variant: 'threads', threadsUnavailable: null };
const NOT_ISOLATED = {
  variant: 'single-thread',
  threadsUnavailable: expect.stringContaining('the page is not cross-origin isolated'),
};

/**
 * A result of the checks with its ConvReLU3d integers (1,575 of them) reduced
 * to a verdict against PyTorch's, so that a failure's diff stays readable.
 */
function compact(result) {
  const got = result?.convReLU3d?.intRepr;
  if (!Array.isArray(got)) return result;
  const want = EXPECTED.convReLU3d.intRepr;
  const differs = got.findIndex((v, k) => v !== want[k]);
  const i = differs < 0 ? Math.min(got.length, want.length) : differs;
  const verdict =
    got.length === want.length && differs < 0
      ? `PyTorch's ${want.length} integers`
      : `${got.length} integers, PyTorch has ${want.length}; first difference at ${i}: ${got[i]}, PyTorch ${want[i]}`;
  return { ...result, convReLU3d: { ...result.convReLU3d, intRepr: verdict } };
}
/** What an app must report: PyTorch's results, and this runtimeInfo(). */
const withRuntime = (runtime) => compact({ ...EXPECTED, runtime });

let work; // the temporary directory, under build/consumer-apps/
let apps; // its copy of tests/consumer/apps, with qwasm installed
let tarball;
let packedFiles;
let browser;
let builds; // app name -> Promise of its build's {status, output, seconds}
let expectedModel; // modelOutput()
const observed = {}; // what each app reported, written to build/consumer-apps/summary.json

const { run, runBuild: runBuildIn, startServerProcess, stopAll } = childProcesses(CHILD_ENV, () => work);
/** A build, run from the apps' folder unless options.cwd says otherwise. */
const runBuild = (name, command, args, options = {}) => runBuildIn(name, command, args, { cwd: apps, ...options });

/** The production builds, each run once (at most two at a time) and shared by the tests of its app. */
function startBuilds() {
  const out = (name) => join(work, `${name}-dist`);
  const web = join(apps, 'web');
  // What a user's build script adds to the bundler's output: the page's data
  // and, where the bundler makes no HTML, the page.
  const copy = (name, files) => (r) => {
    if (r.status === 0) for (const [from, to] of files) cpSync(from, join(out(name), to), { recursive: true });
    return r;
  };
  const caseJson = [join(apps, 'case.json'), 'case.json'];
  const modelFile = [MODEL_FILE, 'model.qwasm.safetensors'];
  const nextBin = pkg('next/dist/bin/next');
  const jobs = {
    // The slowest first: the two Next.js builds.
    'next-webpack': () =>
      runBuild('next-webpack', process.execPath, [nextBin, 'build', '--webpack', join(apps, 'next-webpack')]),
    'next-external': () => runBuild('next-external', process.execPath, [nextBin, 'build', join(apps, 'next-external')]),
    'next-turbopack': () => runBuild('next-turbopack', process.execPath, [nextBin, 'build', join(apps, 'next')]),
    parcel: () =>
      runBuild('parcel', process.execPath, [
        pkg('parcel/lib/bin.js'),
        'build',
        join(web, 'index.html'),
        '--dist-dir',
        out('parcel'),
        '--cache-dir',
        join(work, 'parcel-cache'),
        '--no-source-maps',
        '--no-autoinstall', // Parcel would otherwise install missing polyfills from the network
      ]).then(copy('parcel', [caseJson, modelFile])),
    webpack: () =>
      runBuild('webpack', process.execPath, [
        pkg('webpack-cli/bin/cli.js'),
        '--config',
        join(apps, 'webpack/webpack.config.mjs'),
        '--env',
        `out=${out('webpack')}`,
      ]).then(copy('webpack', [caseJson, modelFile, [join(apps, 'webpack/index.html'), 'index.html']])),
    vite: () =>
      runBuild('vite', process.execPath, [
        pkg('vite/bin/vite.js'),
        'build',
        web,
        '--outDir',
        out('vite'),
        '--emptyOutDir',
        '--logLevel',
        'warn',
      ]),
    rollup: () =>
      runBuild('rollup', process.execPath, [
        pkg('rollup/dist/bin/rollup'),
        '--config',
        join(apps, 'dist-copied/rollup.config.mjs'),
        '--dir',
        out('rollup'),
      ]).then(
        copy('rollup', [
          caseJson,
          modelFile,
          [join(apps, 'dist-copied/index.html'), 'index.html'],
          // The app's one step for qwasm (README): the package's dist/ where locateFile says.
          [join(apps, 'node_modules/qwasm/dist'), 'qwasm'],
        ]),
      ),
  };
  const queue = limit(2);
  return Object.fromEntries(Object.entries(jobs).map(([name, job]) => [name, queue(job)]));
}

beforeAll(async () => {
  mkdirSync(join(root, 'build/consumer-apps'), { recursive: true });
  work = mkdtempSync(join(root, 'build/consumer-apps/run-'));
  const packageDir = process.env.QWASM_CONSUMER_PACKAGE_DIR || root;
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: packageDir, encoding: 'utf8' }),
  );
  packedFiles = packed[0].files.map((f) => f.path).sort();
  tarball = join(work, packed[0].filename);

  apps = join(work, 'apps');
  cpSync(join(root, 'tests/consumer/apps'), apps, { recursive: true });
  // No name: Jest's module map (which also crawls build/) would report apps
  // kept by QWASM_KEEP_CONSUMER as colliding packages.
  writeFileSync(join(apps, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: apps, stdio: 'pipe' });

  // The checks, as an ES module and as CommonJS, from one source text.
  const source = runChecks.toString();
  writeFileSync(join(apps, 'check.mjs'), `export ${source}\n`);
  writeFileSync(join(apps, 'check.cjs'), `${source}\nmodule.exports = { runChecks };\n`);
  writeFileSync(join(apps, 'case.json'), JSON.stringify(CASE));
  writeFileSync(join(apps, 'expected.json'), JSON.stringify({ ...EXPECTED, runtime: THREADS })); // for the Jest app
  for (const f of ['usage.mts', 'negative.mts', 'usage-cjs.cts']) {
    cpSync(join(packageDir, 'tests/types', f), join(apps, 'types', f)); // the checkout's own type tests
  }
  mkdirSync(join(apps, 'web/public'), { recursive: true }); // Vite serves and copies public/
  cpSync(join(apps, 'case.json'), join(apps, 'web/public/case.json'));
  cpSync(MODEL_FILE, join(apps, 'web/public/model.qwasm.safetensors'));
  mkdirSync(join(apps, 'next/public'), { recursive: true }); // Next.js serves public/
  cpSync(MODEL_FILE, join(apps, 'next/public/model.qwasm.safetensors'));
  cpSync(join(apps, 'next'), join(apps, 'next-webpack'), { recursive: true }); // one app, two builds
  for (const f of ['app', 'package.json'])
    cpSync(join(apps, 'next', f), join(apps, 'next-external', f), { recursive: true });
  builds = startBuilds(); // in the background, while the tests below run
  expectedModel = await modelOutput();

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopAll(); // the servers, and any build no test waited for (-t)
  if (builds) {
    const done = await Promise.all(Object.entries(builds).map(async ([name, p]) => [name, await p]));
    observed.builds = Object.fromEntries(done.map(([name, r]) => [name, { status: r.status, seconds: r.seconds }]));
  }
  if (work) writeFileSync(join(root, 'build/consumer-apps/summary.json'), `${JSON.stringify(observed, null, 2)}\n`);
  if (work && !process.env.QWASM_KEEP_CONSUMER) rmSync(work, { recursive: true, force: true });
}, 600_000);

test('the tarball: the wasm of each variant, their glues and worker scripts, the bundles, ESM and CJS declarations, the exporter, LICENSE, README; no sources', () => {
  expect(packedFiles.filter((f) => f.endsWith('.wasm')).sort()).toEqual(['dist/qwasm.mt.wasm', 'dist/qwasm.wasm']);
  for (const f of [
    'LICENSE',
    'README.md',
    'package.json',
    'dist/qwasm.cjs',
    'dist/qwasm.node.cjs',
    'dist/qwasm.web.mjs',
    'dist/qwasm.mt.node.cjs',
    'dist/qwasm.mt.node.worker.js',
    'dist/qwasm.mt.mjs',
    'dist/qwasm.mt.worker.mjs',
    'dist/qwasm.model-worker.cjs',
    'dist/qwasm.model-worker.mjs',
    'dist/qwasm.nifti.mjs',
    'dist/qwasm.model-client.mjs',
    'web/types/qwasm.d.mts',
    'web/types/qwasm.d.cts',
    'web/src/index.browser.mjs',
    'web/src/runtime/platform.browser.mjs',
    'web/src/index.node.mjs',
    'web/src/api.mjs',
    'web/src/model/load.mjs',
    'python/pyproject.toml',
    'python/qwasm_export.py',
    'python/qwasm_format.py',
    'python/qwasm_ops.py',
    'python/qwasm_ops_layout.py',
    'python/qwasm_video.py',
    'python/qwasm_pt2e.py',
    'python/qwasm_quantizer.py',
  ]) {
    expect([f, packedFiles.includes(f)]).toEqual([f, true]);
  }
  const stray = packedFiles.filter((f) => /^(src|bindings|tests|demo|bench|scripts|build)\//.test(f));
  expect(stray).toEqual([]);
  // Bundled into dist/ (qwasm.cjs, qwasm.mt.worker.mjs, qwasm.model-worker.*): not shipped as sources.
  for (const f of ['node-entry.mjs', 'pool-worker.mjs', 'model/model-worker.mjs', 'model/model-worker.node.mjs']) {
    expect(packedFiles).not.toContain(`web/src/${f}`);
  }
});

test('publint finds nothing to report (errors, warnings or suggestions)', () => {
  const r = run(process.execPath, [bin('publint'), join(apps, 'node_modules/qwasm'), '--pack', 'false', '--strict']);
  expect({ status: r.status, output: r.output.replace(/\s+$/, '') }).toEqual({
    status: 0,
    output: expect.not.stringMatching(/Errors|Warnings|Suggestions/),
  });
});

test('are-the-types-wrong: no problem under node10, node16 (CJS and ESM) and bundler', () => {
  const r = run(process.execPath, [
    bin('attw'),
    tarball,
    '--exclude-entrypoints',
    './qwasm.wasm',
    './qwasm.mt.wasm',
    '--format',
    'json',
  ]);
  const report = JSON.parse(r.stdout);
  expect({ problems: report.analysis.problems, byEntrypoint: report.problems, status: r.status }).toEqual({
    problems: [],
    byEntrypoint: {},
    status: 0,
  });
});

test('a Node.js ES module app gets PyTorch integers on the threaded variant', () => {
  const r = run(process.execPath, ['index.mjs', join(apps, 'case.json')], { cwd: join(apps, 'node-esm') });
  expect(r.stderr).toBe('');
  expect(compact(JSON.parse(r.stdout))).toEqual(withRuntime(THREADS));
});

test('a Node.js CommonJS app destructures require("qwasm") before init() and gets PyTorch integers on the threaded variant', () => {
  const r = run(process.execPath, ['index.cjs', join(apps, 'case.json')], { cwd: join(apps, 'node-cjs') });
  expect(r.stderr).toBe('');
  expect(compact(JSON.parse(r.stdout))).toEqual(withRuntime(THREADS));
});

test('a server bundle that moved qwasm away from its wasm (as Next.js does) still finds it, on one thread saying why; elsewhere it says what to do', async () => {
  const outfile = join(work, 'server-bundle', 'index.cjs');
  await esbuild({
    entryPoints: [join(apps, 'node-cjs/index.cjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
  // From the app's directory: Node's resolution finds node_modules/qwasm/dist/qwasm.wasm;
  // the threaded variant's worker scripts are not beside the bundle.
  const ok = run(process.execPath, [outfile, join(apps, 'case.json')], { cwd: apps });
  expect(ok.stderr).toBe('');
  expect(compact(JSON.parse(ok.stdout))).toEqual(
    withRuntime({ variant: 'single-thread', threadsUnavailable: expect.stringContaining("threaded variant's files") }),
  );
  // From a directory without qwasm (outside this repository, which is itself
  // the package qwasm): a clear error naming where it looked and the remedies.
  const lost = run(process.execPath, [outfile, join(apps, 'case.json')], { cwd: tmpdir() });
  expect(lost.status).toBe(1);
  expect(lost.stderr).toContain('cannot read qwasm.wasm; tried ');
  expect(lost.stderr).toContain(join(work, 'server-bundle', 'qwasm.wasm'));
  expect(lost.stderr).toContain("init({ wasmBinary: fs.readFileSync(require.resolve('qwasm/qwasm.wasm')) })");
  expect(lost.stderr).toContain("serverExternalPackages: ['qwasm']");
}, 60_000);

test.each(['node16', 'nodenext', 'bundler'])(
  'TypeScript (tsc --strict, %s resolution) accepts the usage files and rejects every negative case',
  (resolution) => {
    const r = run(process.execPath, [bin('tsc'), '-p', join(apps, 'types', `tsconfig.${resolution}.json`)]);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  },
  60_000,
);

test("Jest's default (CommonJS) mode loads qwasm with no configuration", () => {
  const jest = join(root, 'node_modules/jest/bin/jest.js');
  const r = run(process.execPath, [jest, '--rootDir', join(apps, 'jest'), '--ci', '--colors=false'], {
    cwd: join(apps, 'jest'),
  });
  expect({ status: r.status, output: r.output }).toEqual({
    status: 0,
    output: expect.stringContaining('Tests:       1 passed, 1 total'),
  });
}, 120_000);

// ---- Browsers: an app per bundler, in Chromium ----

/**
 * Opens `url` in a fresh browser context (its own cache and cookies) and
 * returns window.__qwasm once `keys` are there, with crossOriginIsolated and
 * any uncaught page error; after 60 s, what is there and what is missing.
 */
async function openPage(url, keys, { cookies = {} } = {}) {
  const context = await browser.newContext();
  await context.addCookies(Object.entries(cookies).map(([name, value]) => ({ name, value, url })));
  const tab = await context.newPage();
  const problems = [];
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await tab.goto(url);
    let missing = null;
    await tab
      .waitForFunction((ks) => ks.every((k) => window.__qwasm?.[k] !== undefined), keys, { timeout: 60_000 })
      .catch(() => {
        missing = keys;
      });
    const result = await tab.evaluate(() => ({ ...window.__qwasm, crossOriginIsolated: window.crossOriginIsolated }));
    if (missing) problems.push(`after 60 s, not all of ${missing.join(', ')} were reported`);
    return { ...result, problems };
  } finally {
    await context.close();
  }
}

/**
 * `csp` with the hashes of the inline scripts in `htmlFile` added to its
 * script-src, as the CSP of that page would list them: Parcel puts an import
 * map (its bundles' URLs) inline. qwasm itself needs no inline script.
 */
function allowingInlineScripts(csp, htmlFile) {
  const html = readFileSync(htmlFile, 'utf8');
  const hashes = [...html.matchAll(/<script\b[^>]*>([^<]+)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]).digest('base64')}'`,
  );
  return csp.replace("script-src 'self'", ["script-src 'self'", ...hashes].join(' '));
}

/** Serves `dir` (as a static host would: `csp`, COOP/COEP when `isolated`) and opens `page`. */
async function openApp(dir, page, keys, { csp = STRICT_CSP, isolated = false, fallback = null } = {}) {
  const server = await startServer(0, '127.0.0.1', {
    root: dir,
    headers: { 'Content-Security-Policy': csp, ...(isolated ? ISOLATION : {}) },
    fallback,
  });
  try {
    return await openPage(`http://127.0.0.1:${server.address().port}/${page}`, keys);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

// What the browser apps' pages report (apps/*/main.mjs): the checks in the
// page (qwasm imported as a namespace) and in a module worker (by name), under
// `model` the model loaded and run in qwasm's model worker (model-check.mjs,
// through the `io` imported by name), and under `named` what the named
// imports hold (named.mjs).
const APP_KEYS = ['page', 'worker', 'model', 'named'];
// What { init, io, transforms, quantization, nn } imported by name hold.
const NAMED = {
  init: 'function',
  loadModel: 'function',
  VideoClassification: 'function',
  compareModelOutputs: 'function',
  Conv3d: 'function',
};

/**
 * An app's report (recorded in the summary under `label`): page and worker
 * gave PyTorch's results on the variant the page allows (threads when
 * cross-origin isolated), the model worker gave Node's bits on it too,
 * crossOriginIsolated was `isolated`, and nothing failed on the way.
 */
function expectApp(label, r, isolated) {
  observed[label] = { page: r.page?.runtime ?? r.page, worker: r.worker?.runtime ?? r.worker };
  const runtime = isolated ? THREADS : NOT_ISOLATED;
  expect({
    crossOriginIsolated: r.crossOriginIsolated,
    page: compact(r.page),
    worker: compact(r.worker),
    named: r.named,
    violations: r.violations,
    problems: r.problems,
  }).toEqual({
    crossOriginIsolated: isolated,
    page: withRuntime(runtime),
    worker: withRuntime(runtime),
    named: NAMED,
    violations: [],
    problems: [],
  });
  expect(r.model).toEqual({ ...expectedModel, variant: isolated ? 'threads' : 'single-thread' });
}

/** A finished build's output folder; the test fails if the build did (its own test shows why). */
async function built(name) {
  const r = await builds[name];
  expect({ build: name, status: r.status }).toEqual({ build: name, status: 0 });
  return join(work, `${name}-dist`);
}

// The built apps served as static files. Each must run the threaded variant
// on a cross-origin isolated page: with no setup (Vite, webpack, Parcel), or
// with the one step bundlers.mjs names (Rollup).
const STATIC_APPS = [
  { name: `Vite ${version('Vite')} (vite build)`, build: 'vite', fallback: 'index.html' },
  { name: `webpack ${version('webpack')}`, build: 'webpack' },
  { name: `Parcel ${version('Parcel')}`, build: 'parcel' },
  { name: `Rollup ${version('Rollup')} (node-resolve; dist/ copied, locateFile)`, build: 'rollup' },
];
const NEXT_APPS = [
  { name: `Next.js ${version('Next.js')} (next build, Turbopack)`, build: 'next-turbopack', dir: 'next' },
  { name: `Next.js ${version('Next.js')} (next build --webpack)`, build: 'next-webpack', dir: 'next-webpack' },
];

// The paragraphs of a build's output that point into qwasm's files: a
// warning (or an error) about the package's own code, which its users would
// see. (Asset listings name output files, never node_modules/qwasm/.)
// webpack's size hints ('asset size limit', 'entrypoint size limit') are about the app's size, not a problem
// with qwasm: an app that imports all of qwasm's API has a main.js just over webpack's default 244 KiB hint
// (README, "Browsers", says so and what to do). They are shown, and every other warning naming qwasm fails.
const SIZE_HINT = /^WARNING in (asset|entrypoint) size limit:/;
const aboutQwasm = (output) =>
  output.split(/\n\s*\n/).filter((block) => {
    if (!block.includes('node_modules/qwasm/')) return false;
    if (!SIZE_HINT.test(block.trim())) return true;
    console.log(`webpack's size hint (README, "Browsers"): ${block.trim().split('\n').slice(0, 5).join(' ')}`);
    return false;
  });

test.each([...STATIC_APPS, ...NEXT_APPS])(
  '$name builds the app importing qwasm by name, with no error and no warning about qwasm',
  async ({ build }) => {
    const r = await builds[build];
    expect({ status: r.status, output: r.status === 0 ? aboutQwasm(r.output) : r.output }).toEqual({
      status: 0,
      output: [],
    });
  },
  400_000,
);

test(`Vite ${version('Vite')} (vite build) copies the two wasm files the package names (one per variant), not all of dist/`, async () => {
  const dir = await built('vite');
  const wasm = readdirSync(join(dir, 'assets')).filter((f) => f.endsWith('.wasm'));
  expect(wasm.map((f) => f.replace(/-[\w-]+\.wasm$/, '.wasm')).sort()).toEqual(['qwasm.mt.wasm', 'qwasm.wasm']);
}, 400_000);

test.each(STATIC_APPS)(
  '$name: page and module worker give PyTorch integers under a strict CSP, on one thread as the page is not cross-origin isolated',
  async ({ name, build, fallback }) => {
    const dir = await built(build);
    const csp = allowingInlineScripts(STRICT_CSP, join(dir, 'index.html'));
    const r = await openApp(dir, 'index.html', APP_KEYS, { csp, fallback });
    expectApp(`${name}, not isolated`, r, false);
  },
  400_000,
);

test.each(STATIC_APPS)(
  '$name: cross-origin isolated (COOP/COEP) and under a strict CSP, page, module worker and model worker run the threaded variant and give PyTorch integers',
  async ({ name, build, fallback }) => {
    const dir = await built(build);
    const csp = allowingInlineScripts(STRICT_CSP, join(dir, 'index.html'));
    const r = await openApp(dir, 'index.html', APP_KEYS, { csp, isolated: true, fallback });
    expectApp(`${name}, isolated`, r, true);
  },
  400_000,
);

test(`the Vite ${version('Vite')} dev server (vite, COOP/COEP from server.headers): page, module worker and model worker run the threaded variant and give PyTorch integers`, async () => {
  const port = await freePort();
  const vite = pkg('vite/bin/vite.js');
  const url = await startServerProcess(
    'vite-dev',
    process.execPath,
    [vite, join(apps, 'web'), '--port', String(port), '--strictPort', '--host', '127.0.0.1'],
    apps,
    port,
  );
  const r = await openPage(`${url}/`, APP_KEYS);
  expectApp('Vite dev server, isolated', r, true);
}, 120_000);

const nextServers = {};
/** `next start` on the app's build (once per build), from the app's folder as users run it. */
function nextServer({ build, dir }) {
  nextServers[build] ??= (async () => {
    await built(build);
    const port = await freePort();
    const next = pkg('next/dist/bin/next');
    return startServerProcess(
      `${build}-start`,
      process.execPath,
      [next, 'start', '--port', String(port), '--hostname', '127.0.0.1'],
      join(apps, dir),
      port,
    );
  })();
  return nextServers[build];
}

test.each(NEXT_APPS)(
  '$name: a route handler (Node.js runtime) gives PyTorch integers, on one thread saying why and what fixes it (the server bundle moved the code)',
  async ({ name, ...app }) => {
    const url = await nextServer(app);
    const response = await fetch(`${url}/api/checks`);
    const r = { status: response.status, body: await response.json() };
    observed[`${name}, route handler`] = r.body.runtime ?? r.body;
    const runtime = {
      variant: 'single-thread',
      threadsUnavailable: expect.stringMatching(
        /^the threaded variant's files \(qwasm\.mt\.node\.worker\.js, qwasm\.mt\.node\.cjs\) are not beside the qwasm code in .* \(a bundler moved it\): with Next\.js, serverExternalPackages: \['qwasm'\]/,
      ),
    };
    expect({ ...r, body: compact(r.body) }).toEqual({ status: 200, body: withRuntime(runtime) });
  },
  400_000,
);

test(`Next.js ${version('Next.js')} (next build, Turbopack) with serverExternalPackages: ['qwasm']: a route handler runs the threaded variant and gives PyTorch integers`, async () => {
  const url = await nextServer({ build: 'next-external', dir: 'next-external' });
  const response = await fetch(`${url}/api/checks`);
  const r = { status: response.status, body: await response.json() };
  observed['Next.js with serverExternalPackages, route handler'] = r.body.runtime ?? r.body;
  expect({ ...r, body: compact(r.body) }).toEqual({ status: 200, body: withRuntime(THREADS) });
}, 400_000);

test.each(NEXT_APPS)(
  '$name: a client component gives PyTorch integers in the page, a module worker and the model worker, on one thread as the page is not cross-origin isolated',
  async ({ name, ...app }) => {
    const url = await nextServer(app);
    const r = await openPage(`${url}/`, APP_KEYS);
    expectApp(`${name}, not isolated`, r, false);
  },
  400_000,
);

test.each(NEXT_APPS)(
  '$name: cross-origin isolated (COOP/COEP from next.config headers), the client component runs the threaded variant in page, module worker and model worker and gives PyTorch integers',
  async ({ name, ...app }) => {
    const url = await nextServer(app);
    const r = await openPage(`${url}/`, APP_KEYS, { cookies: { isolated: '1' } });
    expectApp(`${name}, isolated`, r, true);
  },
  400_000,
);

let esbuildApp;
/** The esbuild app, built once (in-process: esbuild is fast) for the tests below. */
function buildEsbuildApp() {
  esbuildApp ??= (async () => {
    // The app Rollup builds too (dist-copied), and one that tells init() nothing (no-wasm).
    const app = join(apps, 'dist-copied');
    const noWasm = join(apps, 'no-wasm');
    const outdir = join(work, 'esbuild-dist');
    await esbuild({
      entryPoints: [
        join(app, 'main.mjs'),
        join(app, 'worker.mjs'),
        ...['missing', 'missing-worker'].map((n) => join(noWasm, `${n}.mjs`)),
      ],
      outdir,
      entryNames: '[name]', // one folder, as the pages name them (the entries come from two)
      bundle: true,
      format: 'esm',
      platform: 'browser',
      minify: true, // a production build
      logLevel: 'error',
    });
    cpSync(join(app, 'index.html'), join(outdir, 'index.html'));
    cpSync(join(noWasm, 'missing.html'), join(outdir, 'missing.html'));
    cpSync(join(apps, 'case.json'), join(outdir, 'case.json'));
    cpSync(MODEL_FILE, join(outdir, 'model.qwasm.safetensors'));
    // The app's one step for qwasm (README): the package's dist/ where locateFile says.
    cpSync(join(apps, 'node_modules/qwasm/dist'), join(outdir, 'qwasm'), { recursive: true });
    return outdir;
  })();
  return esbuildApp;
}

test(`esbuild ${version('esbuild')} (dist/ copied, locateFile): page, module worker and model worker give PyTorch integers under a strict CSP, on one thread as the page is not cross-origin isolated`, async () => {
  const outdir = await buildEsbuildApp();
  const r = await openApp(outdir, 'index.html', APP_KEYS);
  expectApp(`esbuild ${version('esbuild')}, not isolated`, r, false);
}, 120_000);

test(`esbuild ${version('esbuild')} (dist/ copied, locateFile): cross-origin isolated, page, module worker and model worker run the threaded variant and give PyTorch integers`, async () => {
  const outdir = await buildEsbuildApp();
  const r = await openApp(outdir, 'index.html', APP_KEYS, { isolated: true });
  expectApp(`esbuild ${version('esbuild')}, isolated`, r, true);
}, 120_000);

test('without its wasm, init() names the URL, the HTTP status (or the HTML page) and the remedy, in page and worker', async () => {
  const outdir = await buildEsbuildApp();
  const remedy = "init({ locateFile: (file) => '/qwasm/' + file }), or pass the bytes: init({ wasmBinary })";
  const notFound = await openApp(outdir, 'missing.html', ['page', 'worker']);
  for (const where of ['page', 'worker']) {
    const message = notFound[where].message;
    expect([where, message]).toEqual([
      where,
      expect.stringMatching(/fetching http:\/\/127\.0\.0\.1:\d+\/dist\/qwasm\.wasm failed: HTTP 404\b/),
    ]);
    expect([where, message]).toEqual([where, expect.stringContaining(remedy)]);
  }
  const spa = await openApp(outdir, 'missing.html', ['page', 'worker'], { fallback: 'missing.html' });
  for (const where of ['page', 'worker']) {
    const message = spa[where].message;
    expect([where, message]).toEqual([
      where,
      expect.stringMatching(/\/dist\/qwasm\.wasm is not a WebAssembly file \(\d+ bytes; it starts with 3c 21 64 6f/),
    ]);
    expect([where, message]).toEqual([where, expect.stringContaining('an HTML page')]);
  }
}, 120_000);

test("a CSP without 'wasm-unsafe-eval' makes init() say to add it (the CSP tests above can fail)", async () => {
  const outdir = await buildEsbuildApp();
  const r = await openApp(outdir, 'index.html', ['page', 'worker'], { csp: NO_WASM_CSP });
  for (const where of ['page', 'worker']) {
    expect([where, r[where].error]).toEqual([
      where,
      expect.stringContaining("add 'wasm-unsafe-eval' to its script-src"),
    ]);
  }
}, 120_000);
