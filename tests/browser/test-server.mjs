// The browser suites' server: the repository (scripts/serve.mjs) plus what
// the suites need to observe a page in any engine without driver-specific
// hooks. Pages POST results to /__report (read with report(key)); HTML pages
// get /__capture.js first in <head> (with capture: true), which records
// console errors and warnings, uncaught errors and unhandled rejections in
// window.__problems; requests for missing files are recorded (notFound);
// fileHeaders adds headers to the named files' responses (e.g. a CSP on one
// worker script); fileResponses replaces the named files' responses
// ({status, type, body}: a 404, a wrong MIME type, a script that does not parse);
// routes answers the named paths with a function (req, res, headers) of the test's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const CAPTURE = `(() => {
  const problems = (window.__problems = []);
  const text = (args) => args.map((a) => (a && a.stack) || String(a)).join(' ');
  for (const level of ['error', 'warn']) {
    const original = console[level].bind(console);
    console[level] = (...args) => { problems.push(level + ': ' + text(args)); original(...args); };
  }
  window.addEventListener('error', (e) => problems.push('uncaught: ' + e.message));
  window.addEventListener('unhandledrejection', (e) => problems.push('unhandled rejection: ' + text([e.reason])));
})();`;

export async function startTestServer({
  headers = {},
  capture = false,
  fileHeaders = {},
  fileResponses = {},
  routes = {},
} = {}) {
  const reports = new Map(); // key -> value
  const waiting = new Map(); // key -> resolve
  const notFound = [];
  const intercept = (req, res, path) => {
    if (path === '/__report' && req.method === 'POST') {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        const { key, value } = JSON.parse(body);
        reports.set(key, value);
        waiting.get(key)?.(value);
        res.writeHead(204, headers).end();
      });
      return true;
    }
    if (path === '/__capture.js') {
      res.writeHead(200, { ...headers, 'Content-Type': 'text/javascript' }).end(CAPTURE);
      return true;
    }
    if (Object.hasOwn(routes, path)) {
      routes[path](req, res, headers);
      return true;
    }
    const replaced = fileResponses[path];
    if (replaced) {
      res.writeHead(replaced.status ?? 200, { ...headers, 'Content-Type': replaced.type ?? 'text/javascript' });
      res.end(replaced.body ?? '');
      return true;
    }
    const file = join(ROOT, path);
    if (fileHeaders[path] && existsSync(file)) {
      const type = path.endsWith('.js') || path.endsWith('.mjs') ? 'text/javascript' : 'application/octet-stream';
      res.writeHead(200, { ...headers, ...fileHeaders[path], 'Content-Type': type, 'Cache-Control': 'no-cache' });
      res.end(readFileSync(file));
      return true;
    }
    if (!existsSync(file)) {
      if (!path.endsWith('favicon.ico')) notFound.push(path);
      return false;
    }
    if (capture && path.endsWith('.html')) {
      const html = readFileSync(file, 'utf8').replace('<head>', '<head><script src="/__capture.js"></script>');
      res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
      res.end(html);
      return true;
    }
    return false;
  };
  const server = await startServer(0, '127.0.0.1', { headers, intercept });
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    notFound,
    /** The value a page POSTed under key (waits for it up to timeout ms). */
    report(key, timeout = 120_000) {
      if (reports.has(key)) return Promise.resolve(reports.get(key));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no report '${key}' within ${timeout} ms`)), timeout);
        waiting.set(key, (v) => {
          clearTimeout(timer);
          resolve(v);
        });
      });
    },
    /** Forgets the reports (before the next page). */
    clear() {
      reports.clear();
      waiting.clear();
    },
    close: () => new Promise((r) => server.close(r)),
  };
}
