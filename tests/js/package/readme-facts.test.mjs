// The README's facts that drift as the code does are measured here, and a
// test fails when the README no longer says them: what a page downloads
// (gzipped: the library's code minified as a bundler ships it, the glue and
// the wasm, for one thread and for threads), the versions of the browser
// engines and Node.js its support table says `npm test` ran, and its table of
// the bundlers the consumer suite builds (tests/consumer/bundlers.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundlerTable } from '../../consumer/bundlers.mjs';
import { ROOT } from '../readme-blocks.mjs';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const dist = (f) => gz(readFileSync(join(ROOT, 'dist', f)));
const kB = (n) => Math.round(n / 1000);

test("the README's download sizes are what a page loads, gzipped, within 10%", async () => {
  // The library's code as a bundler ships it (minified); the glues and wasm as shipped.
  const bundled = await build({
    entryPoints: [join(ROOT, 'web/src/index.browser.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
    external: ['../../dist/*', '../../../dist/*', './model/model-worker.mjs'],
    logLevel: 'error',
  });
  const code = gz(bundled.outputFiles[0].contents);
  const measured = {
    page: kB(code + dist('qwasm.web.mjs') + dist('qwasm.wasm')),
    wasm: kB(dist('qwasm.wasm')),
    threads: kB(code + dist('qwasm.mt.mjs') + dist('qwasm.mt.wasm') + dist('qwasm.mt.worker.mjs')),
  };
  const said = /A page downloads about (\d+) kB gzipped \((\d+) kB\s+of it the wasm; (\d+) kB with threads\)/.exec(
    readme,
  );
  expect(said).not.toBeNull();
  const [page, wasm, threads] = said.slice(1).map(Number);
  const within = (claim, actual) => Math.abs(claim - actual) <= 0.1 * actual;
  expect({ measured, said: { page, wasm, threads } }).toEqual({
    measured,
    said: {
      page: within(page, measured.page) ? page : `about ${measured.page}`,
      wasm: within(wasm, measured.wasm) ? wasm : `about ${measured.wasm}`,
      threads: within(threads, measured.threads) ? threads : `about ${measured.threads}`,
    },
  });
});

function version(command, args, pattern) {
  let out = '';
  try {
    out = execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null; // not installed here: the browser suites say so and skip it
  }
  return pattern.exec(out)?.[1] ?? null;
}

test('the support table names the engines and Node.js that npm test runs here', () => {
  const row = (name) => readme.split('\n').find((l) => l.startsWith(`| ${name}`)) ?? '';
  const engines = [
    ['Chrome / Edge (V8)', 'Chromium', version('chromium', ['--version'], /Chromium (\d+)\./)],
    ['Firefox (SpiderMonkey)', 'Firefox ESR', version('firefox-esr', ['--version'], /Firefox (\d+)\./)],
    [
      'Safari, iOS (JavaScriptCore)',
      'WebKitGTK',
      // dpkg-query's own format field, not a template placeholder
      // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's format, not a template
      version('dpkg-query', ['-W', '-f', '${Version}', 'libwebkit2gtk-4.1-0'], /^(\d+\.\d+)\./),
    ],
    ['Node.js', 'Node', process.versions.node.split('.')[0]],
  ];
  for (const [name, program, v] of engines) {
    if (v === null) continue;
    expect([name, row(name).includes(`${program} ${v}`)]).toEqual([name, true]);
  }
});

test("the bundler table is the consumer suite's list of bundlers, versions and setup steps", () => {
  const between = /<!-- bundlers:start -->\n([\s\S]*?)\n<!-- bundlers:end -->/.exec(readme);
  expect(between?.[1]).toBe(bundlerTable());
});

const result = (name) => JSON.parse(readFileSync(join(ROOT, 'bench/results', `${name}.json`), 'utf8'));

test("the default thread count's reasons are the benchmark's numbers (bench/results/3b-default-threads.json)", () => {
  const r = result('3b-default-threads');
  const range = (rows) => {
    const ratios = rows.map((x) => x.one / x.two);
    return `${Math.min(...ratios).toFixed(ratios.some((v) => v < 1) ? 2 : 1)}–${Math.max(...ratios).toFixed(ratios.some((v) => v < 1) ? 2 : 1)}×`;
  };
  const text = readme.replace(/\s+/g, ' ');
  expect({
    idle: text.includes(`second thread paid idle (${range(r.idle)} on`),
    saturated: text.includes(`with both cores taken by other work (${range(r.saturated)})`),
    busy: text.includes(`broke even with one core taken (${range(r.busy)})`),
  }).toEqual({ idle: true, saturated: true, busy: true });
});

test("the main-thread claim is the benchmark's: no long task while the model loads and runs in the worker", () => {
  const r = result('5b-main-thread');
  const worker = r.worst.filter((p) => p.name.startsWith('worker'));
  expect(worker.length).toBe(2); // the load and the forwards
  expect(worker.map((p) => [p.name, p.longTasks])).toEqual(worker.map((p) => [p.name, 0]));
  const text = readme.replace(/\s+/g, ' ');
  expect(text).toContain(
    "the page's main thread never ran a task longer than 50 ms while the model loaded and ran in the worker",
  );
  // The contrast: the longest task of the load and of a forward on the page's own thread.
  const [load, forward] = r.worst
    .filter((p) => p.name.startsWith('page'))
    .map((p) => (p.longestTaskMs / 1000).toFixed(1));
  expect(text).toContain(`(there: ${load} s and ${forward} s)`);
});

test("the Model view's claim is the benchmark's: its longest task while loading, comparing with the float twin and running", () => {
  const r = result('5c-model-view');
  expect(r.worst.map((p) => p.name)).toEqual([
    'load the int8 model (#m-file)',
    'load the float twin and compare (#m-float-file)',
    'run on the synthetic clip (#m-run)',
  ]);
  expect(r.runs.map((run) => run.comparedLayers)).toEqual(r.runs.map(() => 30)); // every layer of r3d_18 paired
  const longest = Math.max(...r.worst.map((p) => p.longestTaskMs));
  const text = readme.replace(/\s+/g, ' ');
  expect(text).toContain(
    `the page's longest task was ${longest === 0 ? 'under 50 ms' : `${longest.toFixed(0)} ms`} (BENCHMARKS.md, "The demo's Model view with a full-size model and its float twin")`,
  );
});
