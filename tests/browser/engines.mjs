// The three browser engines behind one small interface, so that a suite is
// written once and runs in each: Chromium (Debian's, through playwright-core),
// Firefox ESR (through puppeteer-core, WebDriver BiDi) and WebKitGTK's
// MiniBrowser (through selenium-webdriver and WebKitWebDriver, under Xvfb:
// it has no headless mode).
//
//   const engine = await launchEngine('firefox');
//   const tab = await engine.open(url);
//   await tab.evaluate(expression);          // any JS expression; promises are awaited
//   await tab.waitFor(expression, timeoutMs); // until it is truthy
//   await tab.screenshot(path); await tab.close(); await engine.close();
//
// Which engines run: all three, or those named in QWASM_ENGINES (comma-separated).
// An engine whose program is not installed is skipped with the reason
// (engineSkipReason); one that is installed but fails to start is a failure.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { CHROMIUM_FLAGS } from './browser.mjs';

const PROGRAMS = {
  chromium: { binary: process.env.CHROMIUM_PATH || '/usr/bin/chromium', package: 'chromium' },
  firefox: { binary: process.env.FIREFOX_PATH || '/usr/bin/firefox-esr', package: 'firefox-esr' },
  webkit: {
    binary: '/usr/bin/WebKitWebDriver',
    browser: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    xvfb: '/usr/bin/xvfb-run',
    package: 'webkit2gtk-driver and xvfb',
  },
};

export const ALL_ENGINES = ['chromium', 'firefox', 'webkit'];

// How long one browser may take to start. A cold Firefox profile on a shared
// two-core CI machine busy with other suites once took over 30 s (puppeteer's
// default), so the bound is generous, and launchEngine tries a second time.
const LAUNCH_TIMEOUT_MS = 60_000;
/** Time a suite's beforeAll should allow for launchEngine: two attempts plus margin. */
export const ENGINE_LAUNCH_HOOK_MS = 2 * LAUNCH_TIMEOUT_MS + 30_000;

/** The engines this run covers. */
export function selectedEngines() {
  const wanted = process.env.QWASM_ENGINES?.split(',').map((s) => s.trim());
  return wanted ? ALL_ENGINES.filter((e) => wanted.includes(e)) : ALL_ENGINES;
}

/** Why `name` cannot run here, or null when its programs are installed. */
export function engineSkipReason(name) {
  const p = PROGRAMS[name];
  const missing = [p.binary, p.browser, p.xvfb].filter((f) => f && !existsSync(f));
  return missing.length
    ? `${name} is not installed (missing ${missing.join(', ')}; apt-get install ${p.package})`
    : null;
}

/** Jest helper: `test` for an engine that can run, `test.skip` (named with the reason) otherwise. */
export function engineTest(name, test) {
  const reason = engineSkipReason(name);
  if (reason === null) return test;
  console.warn(`SKIPPED: ${reason}`);
  return (title, ...rest) => test.skip(`${title} [skipped: ${reason}]`, ...rest);
}

/**
 * Jest hooks that launch engine `name` for the enclosing describe block (when
 * it can run here) and close it after; returns a getter for the engine.
 */
export function useEngine(name) {
  let engine;
  beforeAll(async () => {
    if (engineSkipReason(name)) return;
    engine = await launchEngine(name);
  }, ENGINE_LAUNCH_HOOK_MS);
  afterAll(async () => {
    await engine?.close();
  });
  return () => engine;
}

const asyncResult = (expression) =>
  `Promise.resolve().then(() => (${expression})).then((v) => ({ ok: true, v }), (e) => ({ ok: false, v: String(e && e.stack || e) }))`;

function unwrap(r, expression) {
  if (r?.ok !== true) throw new Error(`in the page: ${r?.v ?? 'no result'}\n  evaluating: ${expression.slice(0, 200)}`);
  return r.v;
}

function makeTab({ evaluate, screenshot, close }) {
  const tab = {
    evaluate: async (expression) => unwrap(await evaluate(asyncResult(expression)), expression),
    async waitFor(expression, timeout = 30_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const v = await tab.evaluate(expression);
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for: ${expression}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async screenshot(path) {
      // Two frames first: WebKit can otherwise capture a paint older than the DOM.
      await tab.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await screenshot(path);
    },
    close,
  };
  return tab;
}

async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: PROGRAMS.chromium.binary,
    args: CHROMIUM_FLAGS,
    timeout: LAUNCH_TIMEOUT_MS,
  });
  return {
    name: 'chromium',
    version: browser.version(),
    async open(url, { width = 1280, height = 900 } = {}) {
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(url);
      return makeTab({
        evaluate: (e) => page.evaluate(e),
        screenshot: (path) => page.screenshot({ path, fullPage: true }),
        close: () => page.close(),
      });
    },
    close: () => browser.close(),
  };
}

async function launchFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: PROGRAMS.firefox.binary,
    headless: true,
    timeout: LAUNCH_TIMEOUT_MS,
  });
  return {
    name: 'firefox',
    version: (await browser.version()).replace('firefox/', ''),
    async open(url, { width = 1280, height = 900 } = {}) {
      const page = await browser.newPage();
      await page.setViewport({ width, height });
      await page.goto(url);
      return makeTab({
        evaluate: (e) => page.evaluate(e),
        screenshot: (path) => page.screenshot({ path, fullPage: true }),
        close: () => page.close(),
      });
    },
    close: () => browser.close(),
  };
}

/** A TCP port free on 127.0.0.1 now (for a server or driver about to start). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function launchWebKit() {
  const { Builder } = await import('selenium-webdriver');
  const port = await freePort();
  // Its own process group, so that close() ends Xvfb, the driver and the browser together.
  // `-a` takes the first free display from `-n` on; two Jest workers starting WebKit at once would race
  // for the same one, so each process starts its search at a display of its own.
  const firstDisplay = String(100 + (process.pid % 5000));
  const driverProcess = spawn(
    PROGRAMS.webkit.xvfb,
    ['-a', '-n', firstDisplay, PROGRAMS.webkit.binary, `--port=${port}`],
    {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  driverProcess.stderr.on('data', (d) => {
    stderr += d;
  });
  const stop = () => {
    try {
      process.kill(-driverProcess.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/status`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || driverProcess.exitCode !== null) {
      stop();
      throw new Error(`WebKitWebDriver did not start on port ${port}: ${stderr.trim() || 'no output'}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  let driver;
  try {
    driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({
        browserName: 'MiniBrowser',
        'webkitgtk:browserOptions': { binary: PROGRAMS.webkit.browser, args: ['--automation'] },
      })
      .build();
  } catch (e) {
    stop();
    throw e;
  }
  await driver.manage().setTimeouts({ script: 120_000 });
  const version = (await driver.getCapabilities()).get('browserVersion');
  return {
    name: 'webkit',
    version,
    // One window per session: a tab is a fresh navigation of it.
    async open(url, { width = 1280, height = 900 } = {}) {
      await driver.manage().window().setRect({ width, height });
      await driver.get(url);
      return makeTab({
        evaluate: (e) => driver.executeAsyncScript(`const done = arguments[arguments.length - 1]; (${e}).then(done);`),
        screenshot: async (path) => writeFileSync(path, Buffer.from(await driver.takeScreenshot(), 'base64')),
        close: () => driver.get('about:blank'),
      });
    },
    async close() {
      try {
        await driver.quit();
      } finally {
        stop();
      }
    },
  };
}

const LAUNCHERS = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebKit };

/**
 * Starts `name` ('chromium', 'firefox' or 'webkit'). A start that fails is tried
 * once more (a slow start on a loaded machine is not a bug in the page under
 * test); a second failure throws both reasons.
 */
export async function launchEngine(name) {
  const launch = LAUNCHERS[name];
  if (!launch) throw new Error(`unknown engine ${name}`);
  try {
    return await launch();
  } catch (first) {
    console.warn(`${name} did not start (${first.message.split('\n')[0]}); trying once more`);
    try {
      return await launch();
    } catch (second) {
      throw new Error(`${name} did not start twice:\n  1: ${first.message}\n  2: ${second.message}`);
    }
  }
}
