#!/usr/bin/env node
import { createReadStream, statSync } from 'node:fs';
// Static file server for the demo: serves the repository root so the page loads
// the package's own files (web/src, dist/) exactly as a web app would.
// Usage: node scripts/serve.mjs [--port N] (default 8080, or $PORT; 0 = any free port)
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.npy': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
  '.ico': 'image/x-icon',
  '.map': 'application/json',
  '.webm': 'video/webm',
};

/**
 * Serves `root` (default: the repository, with / redirected to the demo).
 * The browser and consumer tests serve pages and built apps with it:
 * `headers` go on every response (e.g. a Content-Security-Policy),
 * `fallback` (a file in root) answers unknown paths with 200, as
 * single-page-app servers do, and `intercept(req, res, path)` may answer a
 * request itself (returning true), before any file is looked up.
 */
export function startServer(
  port = 8080,
  host = '127.0.0.1',
  { root = ROOT, headers = {}, fallback = null, intercept = null } = {},
) {
  const base = root.endsWith(sep) ? root : root + sep;
  const send = (res, file, size) => {
    res.writeHead(200, {
      ...headers,
      'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
      'Content-Length': size,
      'Cache-Control': 'no-cache',
    });
    createReadStream(file).pipe(res);
  };
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/' && root === ROOT) {
      res.writeHead(302, { Location: '/demo/' });
      res.end();
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    if (intercept?.(req, res, path)) return;
    const file = normalize(join(base, path));
    if (!file.startsWith(base)) {
      res.writeHead(403, headers).end('forbidden');
      return;
    }
    let stat = null;
    try {
      stat = statSync(file);
    } catch {
      // not there
    }
    if (stat?.isFile()) {
      send(res, file, stat.size);
    } else if (fallback !== null) {
      const page = join(base, fallback);
      send(res, page, statSync(page).size);
    } else {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end(`not found: ${path}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--port');
  const port = Number(i > 0 ? process.argv[i + 1] : (process.env.PORT ?? 8080));
  // Cross-origin isolation (COOP/COEP): the demo may then use qwasm's threaded
  // variant (SharedArrayBuffer); every file it loads is same-origin.
  const headers = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  startServer(port, '127.0.0.1', { headers }).then(
    (server) => {
      console.log(`qwasm demo: http://localhost:${server.address().port}/demo/`);
      console.log('(Ctrl+C to stop)');
    },
    (err) => {
      console.error(`cannot serve on port ${port}: ${err.message} (try PORT=8081 npm start)`);
      process.exit(1);
    },
  );
}
