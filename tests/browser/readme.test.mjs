// The README's browser examples run as written in Chromium and print (in the
// console, page and worker) what their `// → ` comments say: the import-map
// page, the Vite app (page + module worker, built with `vite build`) and the
// esbuild bundle, the last two served under the strict Content-Security-Policy
// the README promises is enough.
import { spawnSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { appWithQwasm, ROOT, readmeBlocks, removeApps } from '../js/readme-blocks.mjs';
import { CHROMIUM_FLAGS } from './browser.mjs';

const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'";
const blocks = readmeBlocks();
afterAll(removeApps);
const PAGE =
  '<!doctype html><meta charset="utf-8"><title>README example</title><script type="module" src="./main.js"></script>\n';

let browser;
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
});
afterAll(() => browser?.close());

/** Serves dir, opens index.html, and returns the console lines once `count` have come (page and workers). */
async function consoleLines(dir, count, headers = {}) {
  writeFileSync(join(dir, 'favicon.ico'), ''); // Chromium asks for one; a 404 would log an error
  const server = await startServer(0, '127.0.0.1', { root: dir, headers });
  const page = await browser.newPage();
  const lines = [];
  const problems = [];
  page.on('console', (m) => (m.type() === 'log' ? lines.push(m.text()) : problems.push(`${m.type()}: ${m.text()}`)));
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  try {
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    const deadline = Date.now() + 30_000;
    while (lines.length < count && problems.length === 0 && Date.now() < deadline) await page.waitForTimeout(50);
    return { lines, problems };
  } finally {
    await page.close();
    await new Promise((r) => server.close(r));
  }
}

const expectedOf = (bs) => bs.flatMap((b) => b.expected);

test('the import-map page prints what the README says', async () => {
  const [b] = blocks.filter((x) => x.runner === 'browser');
  const dir = appWithQwasm('qwasm-readme-html-');
  writeFileSync(join(dir, 'index.html'), b.code);
  const r = await consoleLines(dir, b.expected.length);
  expect(r).toEqual({ lines: b.expected, problems: [] });
}, 60_000);

test('the Vite app (page and module worker) prints what the README says, under a strict CSP', async () => {
  const files = blocks.filter((x) => x.runner === 'vite');
  expect(files.map((f) => f.file)).toEqual(['main.js', 'worker.js']);
  const dir = appWithQwasm('qwasm-readme-vite-');
  for (const f of files) writeFileSync(join(dir, f.file), f.code);
  writeFileSync(join(dir, 'index.html'), PAGE);
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  const out = join(dir, 'dist');
  const built = spawnSync(process.execPath, [vite, 'build', dir, '--outDir', out, '--logLevel', 'error'], {
    encoding: 'utf8',
  });
  expect({ status: built.status, output: `${built.stdout}${built.stderr}` }).toEqual({ status: 0, output: '' });
  const expected = expectedOf(files);
  const r = await consoleLines(out, expected.length, { 'Content-Security-Policy': STRICT_CSP });
  expect({ lines: [...r.lines].sort(), problems: r.problems }).toEqual({ lines: [...expected].sort(), problems: [] });
}, 120_000);

test('the esbuild bundle, built with the command in its comment, prints what the README says, under a strict CSP', async () => {
  const [b] = blocks.filter((x) => x.runner === 'esbuild');
  expect(b.code.split('\n')[0]).toBe(
    '// esbuild main.js --bundle --format=esm --outdir=out && cp -r node_modules/qwasm/dist out/qwasm',
  );
  const dir = appWithQwasm('qwasm-readme-esbuild-');
  writeFileSync(join(dir, b.file), b.code);
  const out = join(dir, 'out');
  await esbuild({ entryPoints: [join(dir, b.file)], bundle: true, format: 'esm', outdir: out, logLevel: 'error' });
  cpSync(join(dir, 'node_modules/qwasm/dist'), join(out, 'qwasm'), { recursive: true });
  writeFileSync(join(out, 'index.html'), PAGE);
  const r = await consoleLines(out, b.expected.length, { 'Content-Security-Policy': STRICT_CSP });
  expect(r).toEqual({ lines: b.expected, problems: [] });
}, 60_000);
