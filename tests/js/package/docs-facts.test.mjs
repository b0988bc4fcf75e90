// The docs' lists and numbers that drift as the code does, tied to what they
// describe (readme-facts.test.mjs measures the README's download sizes,
// engine versions and bundler table; this file ties the rest):
// - no size is claimed anywhere but in the sentence readme-facts measures;
// - docs/toolchain.md's outputs table lists every file the package ships and
//   every file scripts/package.mjs writes, and the build made them;
// - the README's Debian packages are scripts/bootstrap's, npm start's and
//   npm test's, and their install times docs/toolchain.md's measurement;
// - the browser engines the README's contributor section names are those the
//   browser suites run (tests/browser/engines.mjs), and `.ci/run` runs the
//   README's test command;
// - what the docs say the benchmarks read, call or record: the code in bench/
//   does, and the numbers are the result files' (bench/results/*.json);
// - what the guides cite exists: every path, every symbol cited with its
//   file (in that file), every kernel name (in the lists), and every kernel
//   follows docs/kernels.md's naming grammar (the citation forms:
//   guide-citations.mjs, docs/testing.md).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_ENGINES } from '../../browser/engines.mjs';
import { ROOT } from '../readme-blocks.mjs';
import {
  citedKernels,
  citedPaths,
  citedSymbols,
  kernelNameGrammar,
  listedKernels,
  OTHER_PROJECTS,
  OUTPUTS,
  pathPattern,
  repositoryFiles,
  symbolCitations,
} from './guide-citations.mjs';

const read = (file) => readFileSync(join(ROOT, file), 'utf8');
const readme = read('README.md');
const flat = (text) => text.replace(/\s+/g, ' ');
const DOCS = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)];
const backticked = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
const result = (name) => JSON.parse(read(`bench/results/${name}.json`));
const benchSources = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => read(`bench/${f}`))
  .join('\n');

test('no doc claims a download size but the README sentence readme-facts measures', () => {
  const measured = /A page downloads about \d+ kB gzipped[^)]*with threads\)/;
  expect(measured.test(readme)).toBe(true);
  const claims = DOCS.flatMap((file) => {
    const text = file === 'README.md' ? readme.replace(measured, '') : read(file);
    return (text.match(/\d[\d.,]*\s*(kB|KB|KiB)\b/g) ?? []).map((claim) => `${file}: ${claim}`);
  });
  expect(claims).toEqual([]);
});

describe("docs/toolchain.md's outputs table", () => {
  const section = read('docs/toolchain.md').split('## Outputs')[1];
  const rows = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [first] = line.split(' | ');
      return { files: backticked(first), ships: /\| (yes|no) \|$/.exec(line)?.[1] };
    });
  const listed = rows.flatMap((r) => r.files);
  const shipped = rows.filter((r) => r.ships === 'yes').flatMap((r) => r.files);

  test('every row says whether it ships', () => {
    expect(rows.filter((r) => r.ships === undefined)).toEqual([]);
  });

  test("its shipped rows are package.json's files, no more and no fewer", () => {
    const files = JSON.parse(read('package.json')).files.filter((f) => !f.startsWith('!'));
    expect([...shipped].sort()).toEqual([...files].sort());
  });

  test('it lists every file scripts/package.mjs writes, threaded outputs included', () => {
    const written = [...read('scripts/package.mjs').matchAll(/\$\{(out|typesDir)\}([\w.-]+)/g)].map(
      ([, dir, name]) => `${dir === 'out' ? 'dist' : 'web/types'}/${name}`,
    );
    expect(written).toContain('dist/qwasm.mt.wasm');
    expect(written.filter((f) => !listed.includes(f))).toEqual([]);
  });

  test('the build made exactly the dist/ files it lists', () => {
    const built = readdirSync(join(ROOT, 'dist')).map((f) => `dist/${f}`);
    expect([...built].sort()).toEqual(listed.filter((f) => f.startsWith('dist/')).sort());
  });
});

describe("the README's Debian packages and install times (scripts/bootstrap, docs/toolchain.md)", () => {
  // What find_missing_packages lists for `mode` when every package is missing.
  const installs = (mode) =>
    spawnSync(
      '/bin/bash',
      ['-c', `source scripts/bootstrap && need() { echo "$2"; } && find_missing_packages ${mode}`],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .stdout.trim()
      .split('\n');
  const contributing = flat(readme.slice(readme.indexOf('## Contributing')));
  // A list runs to the first full stop after a package name (names have dots: libwebkit2gtk-4.1-0).
  const listed = (pattern) => backticked(pattern.exec(contributing)?.[1] ?? '');

  test("npm start's are scripts/bootstrap serve's, npm test's all the others", () => {
    const serve = listed(/`npm start` \(`scripts\/bootstrap serve`\) installs only what[^:]*:([^.]*`)\./);
    const tests = listed(/`npm test` installs those and the test tools:([\s\S]*?`)\./);
    expect(serve).toEqual(installs('serve'));
    expect(installs('all').length).toBeGreaterThan(10);
    expect([...serve, ...tests].sort()).toEqual([...installs('all')].sort());
  });

  test("the sizes and times are docs/toolchain.md's measurement, at scripts/bootstrap's rate", () => {
    const toolchain = flat(read('docs/toolchain.md'));
    const rate = Number(/^SECONDS_PER_100MB=(\d+)$/m.exec(read('scripts/bootstrap'))?.[1]);
    const m =
      /took (\d+) s \([\d.]+ MB\/s\) and unpacking them .*? (\d+) s: (\d+) s for (\d+) MB, (\d+) s per 100 MB/.exec(
        toolchain,
      );
    const [download, unpack, total, mb, perHundred] = m.slice(1).map(Number);
    expect([download + unpack, Math.round((100 * total) / mb), perHundred]).toEqual([total, rate, rate]);
    const rows = [...toolchain.matchAll(/\| `(npm \w+)`[^|]*\| (\d+) \| (\d+) MB \|/g)].map((row) => row.slice(1));
    expect(rows.map(([command]) => command)).toEqual(['npm start', 'npm test']);
    expect(Number(rows[0][2])).toBe(mb); // the measured install is npm start's
    for (const [command, packages, size] of rows) {
      const minutes = Math.round((size * rate) / 100 / 60);
      expect(contributing).toMatch(
        new RegExp(`for \`${command}\`,? ${packages} packages and ${size} MB[^,]*, about ${minutes} minutes`),
      );
    }
  });
});

describe('the browser engines', () => {
  // Each engine the browser suites run, as the docs name it.
  const NAMES = { chromium: 'Chromium', firefox: 'Firefox ESR', webkit: 'WebKitGTK' };
  const names = ALL_ENGINES.map((engine) => NAMES[engine]);
  const phrase = `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

  test("the README's contributor section names the browser suites' engines, and no other", () => {
    expect(names).not.toContain(undefined); // a new engine needs its name here and in the docs
    const contributing = flat(readme.slice(readme.indexOf('## Contributing')).replace(/\n\s*# /g, ' '));
    expect(contributing).toContain(`the browser suites in ${phrase}`);
    expect(contributing).toContain(`browser (${phrase})`);
    expect(
      contributing
        .split(phrase)
        .join('')
        .match(/Chrom\w*|Firefox|WebKit\w*|Safari|Edge/g),
    ).toBeNull();
  });

  test("docs/testing.md's browser row runs them", () => {
    expect(flat(read('docs/testing.md'))).toContain(`| browser | in ${phrase}:`);
  });
});

test(".ci/run runs the README's test command", () => {
  const command = /^ {4}(npm \w+) +# installs what is missing, builds, runs every suite/m.exec(readme)?.[1];
  expect(command).toBe('npm test');
  const commands = read('.ci/run')
    .split('\n')
    .filter((line) => line && !line.startsWith('#') && !/^(set|cd) /.test(line));
  expect(commands).toEqual([command]);
});

describe('what the docs say the benchmarks read, call or record', () => {
  test('every bench/ path the docs name exists', () => {
    const named = DOCS.flatMap((file) => (read(file).match(/bench\/[\w./-]*\w/g) ?? []).map((p) => [file, p])).filter(
      ([, p]) => !OUTPUTS.some((out) => `${p}/`.startsWith(out)),
    );
    expect(named.length).toBeGreaterThan(5);
    const existing = (p) => {
      try {
        readFileSync(join(ROOT, p));
        return true;
      } catch (err) {
        return err.code === 'EISDIR';
      }
    };
    expect(named.filter(([, p]) => !existing(p))).toEqual([]);
  });

  test('every BENCHMARKS.md section the docs cite by title exists', () => {
    const headings = (read('BENCHMARKS.md').match(/^#+ .*$/gm) ?? []).map((h) => h.replace(/^#+ /, ''));
    const cited = DOCS.flatMap((file) => [...flat(read(file)).matchAll(/BENCHMARKS\.md, "([^"]+)"/g)].map((m) => m[1]));
    expect(cited.length).toBeGreaterThan(2);
    expect(cited.filter((title) => !headings.some((h) => h.startsWith(title)))).toEqual([]);
  });

  test('a binding or method a sentence about the benchmarks names is called in bench/', () => {
    const sentences = DOCS.flatMap((file) =>
      flat(read(file))
        .split(/(?<=[.;:])\s/)
        .filter((s) => /\bbenchmarks?\b/.test(s))
        .map((s) => [file, s]),
    );
    const calls = sentences.flatMap(([file, s]) =>
      backticked(s)
        .map((code) => /^(_\w+)$|^(?:[\w.]+\.)?(\w+)\(\)$/.exec(code))
        .filter(Boolean)
        .map((m) => [file, m[1] ?? m[2]]),
    );
    expect(calls).toContainEqual(['docs/kernels.md', 'lastKernel']);
    expect(calls.filter(([, name]) => !new RegExp(`\\.${name}\\(`).test(benchSources))).toEqual([]);
  });

  test('the kernel names the conv benchmark records are kernels of the lists (docs/kernels.md)', () => {
    const lists = readdirSync(join(ROOT, 'src/kernels'))
      .filter((f) => f.endsWith('.inc'))
      .map((f) => read(`src/kernels/${f}`))
      .join('\n');
    const r = result('2-conv');
    const kernels = [...r.rows.map((row) => row.kernel), r.linear.kernel];
    expect(kernels.filter((k) => !new RegExp(`\\(${k},`).test(lists))).toEqual([]);
  });

  test("bench/threads.bench.mjs records each thread's share of tiles (docs/architecture.md)", () => {
    expect(flat(read('docs/architecture.md'))).toContain(
      "`bench/threads.bench.mjs` records each thread's share of tiles at 2 and 4 threads",
    );
    expect(read('bench/threads.bench.mjs')).toMatch(/shares = M\._lastLoopShares\(\)/);
    const r = result('3-threads');
    for (const t of ['2', '4']) {
      expect([t, r.byThreads[t].every((row) => row.shares.length === Number(t))]).toEqual([t, true]);
    }
  });

  test("docs/winograd.md's memory and time split are the benchmarks' (5-models, 2d-winograd)", () => {
    const text = flat(read('docs/winograd.md'));
    const r3d = result('5-models').byThreads['1'].find((m) => m.arch === 'r3d_18');
    const ratio = /- r3d_18:.*? (\d+\.\d+)x the packed weights plus/.exec(result('5-models').markdown)?.[1];
    const held =
      `r3d_18 holds ${Math.round(r3d.packed / 1e6)} MB of packed weights, ${(r3d.packed / r3d.int8).toFixed(2)}x its ` +
      `${Math.round(r3d.int8 / 1e6)} MB of int8 weights (${Math.round(r3d.winograd / 1e6)} MB of them the Winograd ` +
      `layers'), and one forward's heap high-water mark is ${ratio}x the packed weights`;
    expect(text).toContain(held);
    // README's memory claim (issue 34): the same numbers, every model at most 2x.
    expect(flat(readme)).toContain(held);
    expect(result('5-models').byThreads['1'].filter((m) => m.packed > 2 * m.int8)).toEqual([]);
    // README's loading bullet: the loaded size and the high-water mark of the same run.
    const line =
      /- r3d_18: exported file (\d+\.\d) MB.*?the loaded model holds (\d+\.\d) MB.*?high-water mark \(model included\) is (\d+\.\d) MB/.exec(
        result('5-models').markdown,
      );
    expect(flat(readme)).toContain(
      `r3d_18: its ${line[1]} MB file holds ${line[2]} MB, ${(r3d.packed / r3d.int8).toFixed(2)}x its int8 weights`,
    );
    expect(flat(readme)).toContain(`r3d_18's heap high-water mark: ${line[3]} MB`);
    const gemmShares = Object.values(result('2d-winograd').byThreads)
      .flat()
      .filter((row) => row.kind === '3x3x3' && row.split)
      .map((row) => (100 * row.split[1]) / row.split.reduce((a, b) => a + b, 0));
    const range = `${Math.round(Math.min(...gemmShares))}-${Math.round(Math.max(...gemmShares))}%`;
    expect(text).toContain(`3-D layers: the GEMMs take ${range} of the time`);
  });

  test("the relaxed-SIMD decision is the benchmark's (README, docs/toolchain.md; 2c-relaxed)", () => {
    const r = result('2c-relaxed');
    const best = Math.max(...['node', 'chromium'].map((engine) => r[engine].relaxed / r[engine].dot16)).toFixed(2);
    expect(flat(readme)).toContain(`its exact int8 dot measured at most ${best}x SIMD128's rate`);
    const toolchain = flat(read('docs/toolchain.md'));
    expect(toolchain).toContain(`at most ${best}x \`i32x4.dot_i16x8_s\`'s rate per multiply-add`);
    // "pmaddubsw + pmaddwd + paddd (no VNNI)": the instructions V8 emitted for the relaxed dot.
    const code = r.lowering.sequence.join('\n');
    expect(toolchain).toContain('pmaddubsw + pmaddwd + paddd (no VNNI)');
    expect([/vpmaddubsw/.test(code), /vpmaddwd/.test(code), /vpaddd/.test(code), /vpdpbusd/.test(code)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('what the guides cite exists', () => {
  const files = repositoryFiles();
  const matching = ({ path, suffix }) => {
    const pattern = pathPattern(path, { suffix });
    return files.filter((f) => pattern.test(f));
  };
  // The text of a cited file, or of every file under a cited folder or glob.
  const textOf = (cited) =>
    matching(cited)
      .flatMap((f) => (f.endsWith('/') ? files.filter((g) => g.startsWith(f) && !g.endsWith('/')) : [f]))
      .map(read)
      .join('\n');

  test("other projects' folders, which the check skips, are not qwasm's", () => {
    expect(OTHER_PROJECTS.filter((folder) => files.includes(folder))).toEqual([]);
  });

  test('every path and file name a guide cites names a file or folder of the repository', () => {
    const cited = citedPaths();
    expect(cited.length).toBeGreaterThan(300);
    const missing = cited.filter((c) => matching(c).length === 0).map(({ guide, path }) => `${guide}: ${path}`);
    expect(missing).toEqual([]);
  });

  test('the symbol citations are read as docs/testing.md says', () => {
    const text =
      'Add its rule to `moduleCost()` / `Plan.moduleOutput` in `web/src/model/plan.mjs`; its case in ' +
      '`_module_entry` and its fields in `MODULE_FIELDS` (`python/qwasm_export.py`), and `ns::quantize4` in ' +
      'the wasmsimd kernels, `quantize_value` in `tests/reference/quantize_ref.cpp`. `init()` reads ' +
      '`numThreads` (the default is 8) in `runtime.mjs`. | `a` | (`b.mjs`) |';
    // Not `quantize4` (cited "in the wasmsimd kernels"), nor `init` and
    // `numThreads` (a parenthesis between them and the file), nor across cells.
    expect(symbolCitations('x.md', text).map(({ path, names }) => [path, names])).toEqual([
      ['web/src/model/plan.mjs', ['moduleCost', 'moduleOutput']],
      ['python/qwasm_export.py', ['_module_entry', 'MODULE_FIELDS']],
      ['tests/reference/quantize_ref.cpp', ['quantize_value']],
    ]);
  });

  test('every symbol a guide cites with its file is in that file', () => {
    const cited = citedSymbols();
    expect(cited.flatMap((c) => c.names).length).toBeGreaterThan(40);
    const missing = cited.flatMap((c) => {
      const text = textOf(c);
      return c.names
        .filter((name) => !new RegExp(`\\b${name}\\b`).test(text))
        .map((name) => `${c.guide}: ${name} in ${c.path}`);
    });
    expect(missing).toEqual([]);
  });

  test('every kernel name a guide cites is a kernel of the lists (src/kernels/*.inc)', () => {
    const listed = listedKernels();
    expect(listed.length).toBeGreaterThan(60);
    const cited = citedKernels();
    expect(cited.map((k) => k.guide)).toContain('docs/kernels.md');
    expect(cited.filter(({ name }) => !listed.includes(name)).map(({ guide, name }) => `${guide}: ${name}`)).toEqual(
      [],
    );
  });

  test("every kernel of the lists follows docs/kernels.md's naming grammar, and every value it lists is used", () => {
    const { grammar, parts, pattern } = kernelNameGrammar();
    expect(grammar).toContain('<op>');
    const listed = listedKernels();
    expect(listed.filter((name) => !pattern.test(name))).toEqual([]);
    const values = Object.entries(parts).flatMap(([part, vs]) => vs.map((v) => [part, v]));
    expect(values.length).toBeGreaterThan(20);
    const used = (v) => listed.some((name) => `_${name}_`.includes(`_${v}_`));
    expect(values.filter(([, v]) => !used(v))).toEqual([]);
  });
});
