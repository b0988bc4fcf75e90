// The documentation site (`npm run build:site`, scripts/build-site.mjs),
// built into a temporary folder and served from a subpath, as a project page
// is (https://<user>.github.io/qwasm/), with no COOP/COEP headers, as a static
// host sends none: every link and asset of every page resolves under the
// subpath; the home page, a guide and the API reference open in Chromium
// without a console error; the demo starts on one thread (and says why) and
// runs the built-in r3d_18 in its model worker. Served with COOP/COEP, the
// same folder runs the demo's threads. Chromium only: what is checked is the
// site's URLs, not the engines (the demo suites run those).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ROOT } from '../js/readme-blocks.mjs';
import { CHROMIUM_FLAGS } from './browser.mjs';

// Deeper than a project page's, so that no URL can resolve by luck at the host's root.
const PREFIX = '/qwasm/site/v1/';
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

let dir;
let browser;
let plain; // { base, notFound, close }: no headers, as a static host
let isolated; // the same folder with COOP/COEP

/** Serves `www`; every request for a file that is not there (or not under PREFIX) is recorded in notFound. */
async function serve(www, headers = {}) {
  const notFound = [];
  const intercept = (_req, _res, path) => {
    // Chromium asks the host's root for a favicon when a page names none (TypeDoc's pages): not the site's request.
    if (path === '/favicon.ico') return false;
    if (!path.startsWith(PREFIX) || !existsSync(join(www, path))) notFound.push(path);
    return false;
  };
  const server = await startServer(0, '127.0.0.1', { root: www, headers, intercept });
  return {
    base: `http://127.0.0.1:${server.address().port}${PREFIX}`,
    notFound,
    close: () => new Promise((r) => server.close(r)),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qwasm-site-'));
  const www = join(dir, 'www');
  mkdirSync(join(www, PREFIX), { recursive: true });
  const built = spawnSync(process.execPath, ['scripts/build-site.mjs', '--out', join(www, PREFIX)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`build-site failed:\n${built.stdout}${built.stderr}`);
  plain = await serve(www);
  isolated = await serve(www, ISOLATED);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await plain?.close();
  await isolated?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('every link and asset of every page resolves under the subpath, and every #anchor is on its page', async () => {
  const pages = new Map(); // url -> html
  const assets = new Map(); // url -> status
  const broken = [];
  const anchors = []; // [from, url, id]
  // Breadth first, a level of pages at a time (fetched together), each asset asked for once.
  let level = [plain.base];
  while (level.length > 0) {
    const fetched = await Promise.all(level.map(async (url) => [url, await (await fetch(url)).text()]));
    const next = new Set();
    for (const [url, html] of fetched) {
      pages.set(url, html);
      for (const [, link] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
        if (/^([a-z][a-z0-9+.-]*:|#|$)/i.test(link)) continue; // another site, data:, or this page
        const target = new URL(link.replaceAll('&amp;', '&'), url);
        const file = `${target.origin}${target.pathname}`;
        if (!file.startsWith(plain.base)) broken.push(`${url}: ${link} leaves the site's folder`);
        else {
          if (target.hash) anchors.push([url, file, decodeURIComponent(target.hash.slice(1))]);
          if (!/(\/|\.html)$/.test(file)) assets.set(file, [...(assets.get(file) ?? []), `${url}: ${link}`]);
          else if (!pages.has(file)) next.add(file);
        }
      }
    }
    level = [...next];
  }
  const statuses = await Promise.all(
    [...assets.keys()].map(async (file) => (await fetch(file, { method: 'HEAD' })).status),
  );
  [...assets.values()].forEach((from, i) => {
    if (statuses[i] !== 200) broken.push(`${from[0]} is ${statuses[i]}`);
  });
  const missingPages = [...pages.keys()].filter((url) => pages.get(url).startsWith('not found'));
  const missingAnchors = anchors
    .filter(([, file, id]) => pages.has(file) && !pages.get(file).includes(`id="${id}"`))
    .map(([from, file, id]) => `${from}: #${id} is not on ${file}`);
  // The home page reaches the demo, every guide and the API reference's pages.
  const reached = (path) => [...pages.keys()].filter((url) => url.startsWith(plain.base + path)).length;
  const guides = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).length;
  expect([reached('demo/') >= 1, reached('guides/'), reached('api/') >= 20]).toEqual([true, guides, true]);
  expect({ broken, missingPages, missingAnchors }).toEqual({ broken: [], missingPages: [], missingAnchors: [] });
  expect(plain.notFound).toEqual([]);
}, 60_000);

/** Opens `path` under the subpath; returns the page and its problems (console errors and warnings, page errors). */
async function open(server, path, { cores = null } = {}) {
  const page = await browser.newPage();
  // The thread count init() picks by default: the cores, at most 8.
  if (cores !== null)
    await page.addInitScript(`Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => ${cores} })`);
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(server.base + path);
  return { page, problems };
}

test('the home page, a guide and the API reference open without a console error', async () => {
  const seen = [];
  for (const [path, ready] of [
    ['', 'h1'],
    ['guides/numerics.html', 'h1'],
    ['api/index.html', '.tsd-page-title h1'],
    ['api/functions/init.html', '.tsd-page-title h1'],
  ]) {
    const { page, problems } = await open(plain, path);
    await page.waitForSelector(ready);
    seen.push([path, (await page.textContent(ready)).trim(), problems]);
    await page.close();
  }
  expect(seen.map(([path, , problems]) => [path, problems])).toEqual(seen.map(([path]) => [path, []]));
  expect(seen.map(([, heading]) => heading)).toEqual([
    'qwasm',
    expect.stringMatching(/numerics/i),
    'qwasm',
    expect.stringMatching(/^Function init/),
  ]);
  expect(plain.notFound).toEqual([]);
}, 60_000);

const status = (page, id) => page.textContent(`#${id}`);

test('the demo starts on one thread without COOP/COEP, says why, and runs the built-in r3d_18 in its model worker', async () => {
  const { page, problems } = await open(plain, 'demo/');
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 60_000 });
  expect(await status(page, 'status')).toMatch(/, 1 thread \(the page is not cross-origin isolated/);
  // The explorer charts its first tensor.
  expect(await page.evaluate('window.qwasmDemo.charts.scales.data.datasets[0].data.length')).toBeGreaterThan(0);
  await page.click('#tab-model');
  await page.click('#m-builtin');
  await page.waitForFunction(
    `document.getElementById('m-status').textContent === 'Loaded r3d_18 (1/8 width).' || !document.getElementById('m-error').hidden`,
    null,
    { timeout: 60_000 },
  );
  await page.click('#m-run');
  await page.waitForFunction(
    `document.getElementById('m-status').textContent === 'Ran r3d_18 (1/8 width).' || !document.getElementById('m-error').hidden`,
    null,
    { timeout: 60_000 },
  );
  expect(await page.evaluate(`document.getElementById('m-error').hidden`)).toBe(true);
  expect(await status(page, 'm-output')).toMatch(/top-1 index \d+\.$/);
  await page.close();
  // A notice that qwasm runs on one thread is what a static host gives; anything else is a problem.
  expect(problems.filter((p) => !/^warning: qwasm: running on one thread/.test(p))).toEqual([]);
  expect(plain.notFound).toEqual([]);
}, 120_000);

test('served with COOP/COEP, the demo runs its thread pool from the subpath', async () => {
  const { page, problems } = await open(isolated, 'demo/', { cores: 3 });
  await page.waitForSelector('#status[data-ready="true"]', { timeout: 60_000 });
  expect(await status(page, 'status')).toMatch(/, 3 threads\.$/);
  await page.close();
  expect(problems).toEqual([]);
  expect(isolated.notFound).toEqual([]);
}, 60_000);
