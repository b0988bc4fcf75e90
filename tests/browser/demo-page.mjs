// The demo as the browser suites open it: served with the headers `npm start`
// serves it with (scripts/serve.mjs: cross-origin isolated), the page's
// console captured, one fresh page per test, and what went wrong in it.
import { ENGINE_LAUNCH_HOOK_MS, engineSkipReason, launchEngine } from './engines.mjs';
import { startTestServer } from './test-server.mjs';

/**
 * Jest hooks for one engine's demo suite: a server and the engine for the
 * suite, a fresh demo page for each test. Returns {tab(), problems()}:
 * the current page, and its console errors and missing files.
 */
export function useDemoPages(engineName, { beforeEachMs = 90_000, afterOpen = async () => {} } = {}) {
  let engine;
  let server;
  let tab;
  beforeAll(async () => {
    if (engineSkipReason(engineName)) return;
    server = await startTestServer({
      capture: true,
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    });
    engine = await launchEngine(engineName);
  }, ENGINE_LAUNCH_HOOK_MS);
  afterAll(async () => {
    await engine?.close();
    await server?.close();
  });
  beforeEach(async () => {
    if (!engine) return;
    server.notFound.length = 0;
    tab = await engine.open(`${server.base}/demo/`);
    await tab.waitFor(`document.getElementById('status').dataset.ready === 'true'`, 60_000);
    await afterOpen(tab);
  }, beforeEachMs);
  afterEach(async () => {
    await tab?.close();
    tab = undefined;
  });
  return {
    tab: () => tab,
    problems: async () => ({ inPage: await tab.evaluate('window.__problems'), missing: [...server.notFound] }),
  };
}
