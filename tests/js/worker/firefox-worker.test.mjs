// isFirefoxWorker (web/src/runtime/wasm-loader.mjs) keeps Firefox workers on one
// thread: a Firefox worker that constructs workers can hang for ever
// (scripts/repro/firefox-nested-workers.mjs). Here the detection on stand-in
// scopes; tests/browser/library.test.mjs checks it in the real engines
// (Firefox: threads on the page, one thread in the worker; Chromium: threads in both).
import { isFirefoxWorker } from '../../../web/src/runtime/wasm-loader.mjs';

const FIREFOX_UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0';
const CHROMIUM_UA =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36';

function workerScope(userAgent) {
  class WorkerGlobalScope {}
  const scope = Object.create(WorkerGlobalScope.prototype);
  return Object.assign(scope, { WorkerGlobalScope, navigator: { userAgent } });
}

function pageScope(userAgent) {
  class WorkerGlobalScope {}
  return { WorkerGlobalScope, navigator: { userAgent } }; // a window is no WorkerGlobalScope
}

test.each([
  { where: 'a Firefox worker', scope: workerScope(FIREFOX_UA), expected: true },
  { where: 'a Chromium worker ("like Gecko" is not Firefox)', scope: workerScope(CHROMIUM_UA), expected: false },
  { where: 'a Firefox page', scope: pageScope(FIREFOX_UA), expected: false },
  {
    where: 'a worker without navigator',
    scope: Object.assign(workerScope(''), { navigator: undefined }),
    expected: false,
  },
  { where: 'Node.js (no WorkerGlobalScope)', scope: globalThis, expected: false },
])('isFirefoxWorker in $where is $expected', ({ scope, expected }) => {
  expect(isFirefoxWorker(scope)).toBe(expected);
});
