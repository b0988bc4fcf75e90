#!/usr/bin/env node
// The documentation site: one static folder with the guides (README.md as
// the home page, docs/*.md under guides/), the API reference (TypeDoc, under
// api/) and the demo, every URL in it relative, so that it works served from
// any path (a project page: https://<user>.github.io/qwasm/).
//   node scripts/build-site.mjs [--out DIR]   (npm run build:site: build/site/)
// It needs the package's dist/ (npm run build:site builds it first).
//
// The demo keeps the repository's layout, so that its relative URLs hold
// unchanged: demo/, the package's browser files (web/src/, dist/ without the
// Node.js files), the golden models and clip it opens (tests/golden/...), and
// the libraries its import map names, copied from node_modules/ to vendor/
// (with their licences). A static host sends no COOP/COEP headers: the demo
// then runs on one thread and its status line says why (README.md,
// "Contributing").
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { guidePage, relativeLink, renderGuide } from './site/markdown.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
if (args.length !== (outAt < 0 ? 0 : 2) || (outAt >= 0 && !args[outAt + 1])) {
  console.error('usage: node scripts/build-site.mjs [--out DIR]');
  process.exit(2);
}
const out = resolve(outAt < 0 ? join(root, 'build/site') : args[outAt + 1]);

const say = (message) => console.log(`[build-site] ${message}`);
const fail = (message) => {
  console.error(`[build-site] ${message}`);
  process.exit(1);
};

// The browser's files of dist/: not the Node.js glues, bundles and workers.
const isBrowserFile = (name) => !name.endsWith('.cjs') && !name.includes('.node.');
const distFiles = existsSync(join(root, 'dist')) ? readdirSync(join(root, 'dist')).filter(isBrowserFile) : [];
for (const needed of ['qwasm.wasm', 'qwasm.web.mjs', 'qwasm.mt.wasm', 'qwasm.model-worker.mjs']) {
  if (!distFiles.includes(needed)) {
    fail(`dist/${needed} is missing: build the package first (bash scripts/build --package; npm run build:site does)`);
  }
}

// Replaces an earlier site, never a folder of something else (--out . would otherwise empty the checkout).
if (existsSync(out) && readdirSync(out).length > 0 && !existsSync(join(out, '.nojekyll'))) {
  fail(`${out} is not empty and holds no site built here: name an empty or new folder`);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// GitHub Pages: serve the folder as it is (Jekyll would drop vendor/ files and anything starting with _).
writeFileSync(join(out, '.nojekyll'), '');

// --- The demo and what it loads -------------------------------------------
cpSync(join(root, 'demo'), join(out, 'demo'), { recursive: true });
cpSync(join(root, 'web/src'), join(out, 'web/src'), {
  recursive: true,
  filter: (src) => !/\.\w+$/.test(src) || src.endsWith('.mjs'),
});
mkdirSync(join(out, 'dist'));
for (const name of distFiles) cpSync(join(root, 'dist', name), join(out, 'dist', name));

// Files outside demo/ the demo opens by `new URL('<literal>', import.meta.url)`, and the zoo's models.
const demoModules = readdirSync(join(root, 'demo')).filter((f) => f.endsWith('.mjs'));
const opened = demoModules.flatMap((f) =>
  [...readFileSync(join(root, 'demo', f), 'utf8').matchAll(/new URL\(\s*'([^']+)',\s*import\.meta\.url\s*\)/g)].map(
    ([, url]) => relative(root, resolve(root, 'demo', url)),
  ),
);
const { ZOO, zooUrl } = await import(pathToFileURL(join(root, 'demo/zoo.mjs')).href);
opened.push(...ZOO.map((entry) => relative(root, fileURLToPath(zooUrl(entry)))));
for (const file of opened) {
  if (file.startsWith('..') || file.startsWith('demo/') || file.startsWith('web/') || file.startsWith('dist/'))
    continue;
  if (!existsSync(join(root, file))) fail(`the demo opens ${file}, which does not exist`);
  mkdirSync(dirname(join(out, file)), { recursive: true });
  cpSync(join(root, file), join(out, file));
}

// The import map's libraries: node_modules/<package>/<file> -> vendor/<package>/<file>, with
// the files it imports by relative path (and their source maps and legal notices), and the package's licence.
const html = readFileSync(join(root, 'demo/index.html'), 'utf8');
const mapText = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
if (!mapText) fail('demo/index.html has no import map');
for (const url of Object.values(JSON.parse(mapText).imports)) {
  const m = /^\.\.\/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)\/(.+)$/.exec(url);
  if (!m) continue;
  const [, pkg, entry] = m;
  const from = join(root, 'node_modules', pkg);
  const to = join(out, 'vendor', pkg);
  const files = [entry];
  for (const file of files) {
    const code = readFileSync(join(from, file), 'utf8');
    for (const [, spec] of code.matchAll(/(?:\bfrom|\bimport)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const imported = posix.join(posix.dirname(file), spec);
      if (!files.includes(imported)) files.push(imported);
    }
    for (const copied of [file, `${file}.map`, `${file}.LEGAL.txt`]) {
      if (copied === file || existsSync(join(from, copied))) {
        mkdirSync(dirname(join(to, copied)), { recursive: true });
        cpSync(join(from, copied), join(to, copied));
      }
    }
  }
  const licences = readdirSync(from).filter((f) => /^(licen[cs]e|copying)/i.test(f));
  if (licences.length === 0) fail(`node_modules/${pkg} has no licence file to ship beside its code`);
  for (const f of licences) cpSync(join(from, f), join(to, f));
}
writeFileSync(
  join(out, 'demo/index.html'),
  html.replace(mapText, mapText.replaceAll('"../node_modules/', '"../vendor/')),
);

// --- The API reference ------------------------------------------------------
const api = spawnSync(process.execPath, [join(root, 'scripts/api-docs.mjs'), '--out', join(out, 'api')], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (api.status !== 0) fail('TypeDoc failed (node scripts/api-docs.mjs says why)');

// --- The guides ---------------------------------------------------------------
const guides = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
for (const f of ['site.css', 'favicon.svg']) cpSync(join(root, 'scripts/site', f), join(out, f));
for (const file of guides) {
  const page = guidePage(file);
  const { html: body, title, sections } = renderGuide(file, readFileSync(join(root, file), 'utf8'));
  const link = (to) => relativeLink(page, to);
  const escaped = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  // A long page opens with its sections.
  const contents =
    sections.length < 3
      ? ''
      : `<nav class="contents" aria-label="On this page"><strong>On this page:</strong>\n${sections
          .map((s) => `  <a href="#${escaped(s.id)}">${escaped(s.text)}</a>`)
          .join('\n')}\n</nav>\n`;
  mkdirSync(dirname(join(out, page)), { recursive: true });
  writeFileSync(
    join(out, page),
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escaped(title === 'qwasm' ? 'qwasm' : `${title} · qwasm`)}</title>
  <link rel="icon" href="${link('favicon.svg')}">
  <link rel="stylesheet" href="${link('site.css')}">
</head>
<body>
  <header class="site">
    <a class="home" href="${link('index.html')}">qwasm</a>
    <nav>
      <a href="${link('demo/')}">Demo</a>
      <a href="${link('api/index.html')}">API reference</a>
      <a href="${link('guides/index.html')}">Guides</a>
    </nav>
  </header>
  <main>
${body.includes('</h1>\n') ? body.replace('</h1>\n', `</h1>\n${contents}`) : contents + body}  </main>
</body>
</html>
`,
  );
}

const shown = relative(process.cwd(), out);
say(`the site is in ${shown.startsWith('..') ? out : shown || '.'}/ (serve the folder, and open its index.html)`);
