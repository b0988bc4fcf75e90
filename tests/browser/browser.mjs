// Shared by the browser suites: serve the repository on a free port, launch
// Debian's Chromium through playwright-core, collect console problems.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

export const OUTPUT_DIR = new URL('./output/', import.meta.url);

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export async function openBrowser() {
  const server = await startServer(0);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: CHROMIUM_FLAGS,
  });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    browser,
    async newPage() {
      const page = await browser.newPage();
      const problems = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      return { page, problems };
    },
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}
