// The package as users get it: `npm pack`, the tarball installed (offline)
// into small apps beside tests/consumer/apps, each importing qwasm by name and
// running the same checks (checks.mjs) whose results must equal PyTorch's:
// Node ESM and CJS, a server bundle that moved the code, TypeScript under
// three resolutions (with the negative type tests), Jest's default mode, and
// a Vite production build and an esbuild bundle in Chromium, page and module
// worker, under a strict Content-Security-Policy. publint and
// are-the-types-wrong lint the same tarball.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as esbuild } from 'esbuild';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { CHROMIUM_FLAGS } from '../browser/browser.mjs';
import { runChecks } from './checks.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = (name) => join(root, 'node_modules', '.bin', name);
const STRICT_CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; " +
  "style-src 'self'; object-src 'none'; base-uri 'none'";
const NO_WASM_CSP = "default-src 'self'; script-src 'self'; worker-src 'self'; connect-src 'self'";

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

let work; // the temporary directory
let apps; // its copy of tests/consumer/apps, with qwasm installed
let tarball;
let packedFiles;
let browser;

function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 120_000, ...options });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', output: `${r.stdout}${r.stderr}` };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'qwasm-consumer-'));
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' }),
  );
  packedFiles = packed[0].files.map((f) => f.path).sort();
  tarball = join(work, packed[0].filename);

  apps = join(work, 'apps');
  cpSync(join(root, 'tests/consumer/apps'), apps, { recursive: true });
  writeFileSync(join(apps, 'package.json'), '{ "name": "consumer-apps", "version": "1.0.0", "private": true }\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: apps, stdio: 'pipe' });

  // The checks, as an ES module and as CommonJS, from one source text.
  const source = runChecks.toString();
  writeFileSync(join(apps, 'check.mjs'), `export ${source}\n`);
  writeFileSync(join(apps, 'check.cjs'), `${source}\nmodule.exports = { runChecks };\n`);
  writeFileSync(join(apps, 'case.json'), JSON.stringify(CASE));
  writeFileSync(join(apps, 'expected.json'), JSON.stringify(EXPECTED));
  for (const f of ['usage.mts', 'negative.mts', 'usage-cjs.cts']) {
    cpSync(join(root, 'tests/types', f), join(apps, 'types', f));
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
  console.log(`consumer apps in ${apps}`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (work && !process.env.QWASM_KEEP_CONSUMER) rmSync(work, { recursive: true, force: true });
});

test('the tarball: the wasm of each variant, their glues, the bundles, ESM and CJS declarations, the exporter, LICENSE, README; no sources', () => {
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
    'dist/qwasm.mt.worker.js',
    'dist/qwasm.d.mts',
    'dist/qwasm.d.cts',
    'web/src/index.browser.mjs',
    'web/src/index.node.mjs',
    'web/src/api.mjs',
    'web/src/model/load.mjs',
    'python/qwasm_export.py',
    'python/qwasm_video.py',
  ]) {
    expect([f, packedFiles.includes(f)]).toEqual([f, true]);
  }
  const stray = packedFiles.filter((f) => /^(src|bindings|tests|demo|bench|scripts|build)\//.test(f));
  expect(stray).toEqual([]);
  expect(packedFiles).not.toContain('web/src/node-entry.mjs'); // bundled into dist/qwasm.cjs
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

test('a Node.js ES module app gets PyTorch integers', () => {
  const r = run(process.execPath, ['index.mjs', join(apps, 'case.json')], { cwd: join(apps, 'node-esm') });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual(EXPECTED);
});

test('a Node.js CommonJS app destructures require("qwasm") before init() and gets PyTorch integers', () => {
  const r = run(process.execPath, ['index.cjs', join(apps, 'case.json')], { cwd: join(apps, 'node-cjs') });
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout)).toEqual(EXPECTED);
});

test('a server bundle that moved qwasm away from its wasm (as Next.js does) still finds it; elsewhere it says what to do', async () => {
  const outfile = join(work, 'server-bundle', 'index.cjs');
  await esbuild({
    entryPoints: [join(apps, 'node-cjs/index.cjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
  // From the app's directory: Node's resolution finds node_modules/qwasm/dist/qwasm.wasm.
  const ok = run(process.execPath, [outfile, join(apps, 'case.json')], { cwd: apps });
  expect(ok.stderr).toBe('');
  expect(JSON.parse(ok.stdout)).toEqual(EXPECTED);
  // From a directory without qwasm: a clear error naming where it looked and the remedies.
  const lost = run(process.execPath, [outfile, join(apps, 'case.json')], { cwd: work });
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

/** Serves `dir` with `csp`, opens `page`, and returns window.__qwasm once `keys` are there. */
async function openApp(dir, page, keys, { csp = STRICT_CSP, fallback = null } = {}) {
  const server = await startServer(0, '127.0.0.1', {
    root: dir,
    headers: { 'Content-Security-Policy': csp },
    fallback,
  });
  const tab = await browser.newPage();
  const problems = [];
  tab.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await tab.goto(`http://127.0.0.1:${server.address().port}/${page}`);
    await tab.waitForFunction((ks) => ks.every((k) => window.__qwasm?.[k] !== undefined), keys, { timeout: 60_000 });
    const result = await tab.evaluate(() => window.__qwasm);
    return { ...result, problems };
  } finally {
    await tab.close();
    await new Promise((r) => server.close(r));
  }
}

/** Page and worker both gave PyTorch's results, with no CSP violation and no page error. */
function expectPyTorchInPageAndWorker(r) {
  expect({ page: r.page, worker: r.worker, violations: r.violations, problems: r.problems }).toEqual({
    page: EXPECTED,
    worker: EXPECTED,
    violations: [],
    problems: [],
  });
}

test('a Vite production build runs qwasm in the page and a module worker under a strict CSP', async () => {
  const appDir = join(apps, 'vite');
  const outDir = join(work, 'vite-dist');
  mkdirSync(join(appDir, 'public'), { recursive: true });
  cpSync(join(apps, 'case.json'), join(appDir, 'public', 'case.json'));
  // `vite build` as a user runs it (a child process: Vite's native bundler does not run inside Jest's VM).
  const vite = join(root, 'node_modules/vite/bin/vite.js');
  const built = run(process.execPath, [
    vite,
    'build',
    appDir,
    '--outDir',
    outDir,
    '--emptyOutDir',
    '--logLevel',
    'error',
  ]);
  expect({ status: built.status, output: built.output }).toEqual({ status: 0, output: '' });
  const emitted = readdirSync(join(outDir, 'assets'));
  expect(emitted.filter((f) => f.endsWith('.wasm')).length).toBe(1); // Vite copied the one wasm
  expectPyTorchInPageAndWorker(await openApp(outDir, 'index.html', ['page', 'worker'], { fallback: 'index.html' }));
}, 120_000);

async function buildEsbuildApp() {
  const appDir = join(apps, 'esbuild');
  const outdir = join(work, 'esbuild-dist');
  await esbuild({
    entryPoints: ['main', 'worker', 'missing', 'missing-worker'].map((n) => join(appDir, `${n}.mjs`)),
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    loader: { '.wasm': 'file' },
    logLevel: 'error',
  });
  for (const f of ['index.html', 'missing.html']) cpSync(join(appDir, f), join(outdir, f));
  cpSync(join(apps, 'case.json'), join(outdir, 'case.json'));
  return outdir;
}

test('an esbuild bundle runs qwasm in the page and a module worker under a strict CSP (wasm via qwasm/qwasm.wasm)', async () => {
  const outdir = await buildEsbuildApp();
  expectPyTorchInPageAndWorker(await openApp(outdir, 'index.html', ['page', 'worker']));
}, 120_000);

test('without its wasm, init() names the URL, the HTTP status (or the HTML page) and the remedy, in page and worker', async () => {
  const outdir = await buildEsbuildApp();
  const remedy = "init({ locateFile: () => '/assets/qwasm.wasm' }), or pass the bytes: init({ wasmBinary })";
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
