// scripts/check-toolchain against fake programs: each version it pins is
// read from the program's own output, a mismatch names the expected and the
// found version and the fix and fails, QWASM_ANY_VERSIONS=1 goes on, and its
// `serve` mode (npm start) checks only Emscripten. scripts/bootstrap: `serve`
// (npm start) installs only what building the package and serving it need,
// `all` (npm test) everything; it says what apt-get will download and about
// how long that takes before installing, and how long it took after; it
// installs as root without sudo (a fresh Debian machine) and refuses clearly
// as a user without it. Nothing real is installed: the fakes come first on
// PATH, and apt-get is a fake that records its arguments.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../readme-blocks.mjs';

// What each program prints on this Debian 12 machine, at the pinned versions.
const PINNED = {
  'em++': 'emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) 3.1.6 ()',
  'clang++-14': 'Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu',
  'clang-format-14': 'Debian clang-format version 14.0.6',
  chromium: 'Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)',
  'firefox-esr': 'Mozilla Firefox 153.8.0esr',
  'dpkg-query': '2.50.6-1~deb12u2',
};

let dir;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qwasm-toolchain-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fake(name, script) {
  writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, name), 0o755);
}

function fakes(outputs) {
  for (const [name, out] of Object.entries(outputs)) {
    if (out === null) fake(name, 'exit 127');
    else fake(name, `cat <<'EOF'\n${out}\nEOF`);
  }
}

function run(script, env = {}) {
  const r = spawnSync('/bin/bash', ['-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir, ...env },
  });
  return { status: r.status, stderr: r.stderr };
}

const check = (env) => run('bash scripts/check-toolchain', env);

test('the pinned versions pass, silently', () => {
  fakes(PINNED);
  expect(check()).toEqual({ status: 0, stderr: '' });
});

test.each([
  ['Emscripten', { 'em++': PINNED['em++'].replace('3.1.6', '3.1.50') }, 'expected Emscripten 3.1.6, found 3.1.50'],
  ['clang', { 'clang++-14': 'Debian clang version 15.0.7' }, 'expected clang 14, found 15.0.7'],
  [
    'clang-format',
    { 'clang-format-14': 'Ubuntu clang-format version 18.1.3' },
    'expected clang-format 14, found 18.1.3',
  ],
  ['a missing Chromium', { chromium: null }, 'expected Chromium 156, found none'],
])('%s that differs fails, naming the expected and found versions and the fix', (_, changed, message) => {
  fakes({ ...PINNED, ...changed });
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(message);
  expect(r.stderr).toMatch(/apt-get install [\w.+-]+/); // the fix
  expect(r.stderr).toContain('1 version(s) differ');
  expect(r.stderr).toContain('QWASM_ANY_VERSIONS=1 goes on anyway');
});

test.each([
  ['Chromium', { chromium: 'Chromium 157.0.8100.1 built on Debian' }, 'expected Chromium 156, found 157.0.8100.1'],
  ['Firefox ESR', { 'firefox-esr': 'Mozilla Firefox 140.2.0esr' }, 'expected Firefox ESR 153, found 140.2.0'],
  ['WebKitGTK', { 'dpkg-query': '2.48.1-2' }, 'expected WebKitGTK 2.50, found 2.48.1'],
  [
    'a major that only starts like the pin',
    { chromium: 'Chromium 1560.0.1 built on Debian' },
    'expected Chromium 156, found 1560.0.1',
  ],
])(
  "another browser major (%s: Debian's security updates move them) warns, naming both and the fix, and goes on",
  (_, changed, message) => {
    fakes({ ...PINNED, ...changed });
    const r = check();
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`warning: ${message}`);
    expect(r.stderr).toContain('the browser suites run on it untested');
    expect(r.stderr).toMatch(/apt-get install [\w.+-]+/);
  },
);

test("`serve` (npm start) checks only Emscripten: the tests' tools may be missing", () => {
  fakes({ 'em++': PINNED['em++'], 'clang++-14': null, 'clang-format-14': null, chromium: null, 'firefox-esr': null });
  expect(run('bash scripts/check-toolchain serve')).toEqual({ status: 0, stderr: '' });
  expect(check().status).toBe(1); // all of them, by default
  fakes({ 'em++': PINNED['em++'].replace('3.1.6', '3.1.50') });
  const r = run('bash scripts/check-toolchain serve');
  expect([r.status, r.stderr.includes('expected Emscripten 3.1.6, found 3.1.50')]).toEqual([1, true]);
  expect(run('bash scripts/check-toolchain tests').status).toBe(2);
});

test('QWASM_ANY_VERSIONS=1 reports the mismatch and goes on', () => {
  fakes({ ...PINNED, 'clang++-14': 'Debian clang version 15.0.7' });
  const r = check({ QWASM_ANY_VERSIONS: '1' });
  expect(r.status).toBe(0);
  expect(r.stderr).toContain('expected clang 14, found 15.0.7');
  expect(r.stderr).toContain('going on with 1 untested version(s)');
});

test("QWASM_ANY_EMSCRIPTEN=1 skips only Emscripten's check, as in scripts/build", () => {
  fakes({ ...PINNED, 'em++': 'emcc (Emscripten) 4.0.1 ()' });
  expect(check({ QWASM_ANY_EMSCRIPTEN: '1' })).toEqual({ status: 0, stderr: '' });
  fakes({ ...PINNED, 'em++': 'emcc (Emscripten) 4.0.1 ()', 'clang-format-14': 'clang-format version 18.1.3' });
  const r = check({ QWASM_ANY_EMSCRIPTEN: '1' });
  expect([r.status, r.stderr.includes('Emscripten'), r.stderr.includes('expected clang-format 14')]).toEqual([
    1,
    false,
    true,
  ]);
});

test("the pins are the versions docs/toolchain.md and the README's support table state", () => {
  const pins = Object.fromEntries(
    [...readFileSync(join(ROOT, 'scripts/check-toolchain'), 'utf8').matchAll(/^EXPECTED_(\w+)=(\S+)$/gm)].map((m) => [
      m[1],
      m[2],
    ]),
  );
  const toolchain = readFileSync(join(ROOT, 'docs/toolchain.md'), 'utf8');
  expect(toolchain).toContain(`| Emscripten | ${pins.EMSCRIPTEN} (clang ${pins.CLANG}) |`);
  expect(toolchain).toContain(`| clang-format | ${pins.CLANG} |`);
  expect(toolchain).toContain(
    `| Chromium, Firefox ESR, WebKitGTK | ${pins.CHROMIUM}, ${pins.FIREFOX}, ${pins.WEBKITGTK} |`,
  );
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const said of [`Chromium ${pins.CHROMIUM}:`, `Firefox ESR ${pins.FIREFOX}:`, `WebKitGTK ${pins.WEBKITGTK} `]) {
    expect([said, readme.includes(said)]).toEqual([said, true]);
  }
});

describe('what scripts/bootstrap installs for npm start and for npm test', () => {
  // find_missing_packages with every package missing: `need` reports each one.
  const listed = (mode) => {
    const r = spawnSync(
      '/bin/bash',
      ['-c', `source scripts/bootstrap && need() { echo "$2"; } && find_missing_packages ${mode}`],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    expect([r.status, r.stderr]).toEqual([0, '']);
    return r.stdout.trim().split('\n');
  };

  test('npm start (serve): only what building the package and serving it need, no browser', () => {
    expect(listed('serve')).toEqual(['emscripten', 'cmake', 'ninja-build']);
  });

  test("npm test's first install (build): what scripts/build compiles with, before the build starts", () => {
    expect(listed('build')).toEqual([...listed('serve'), 'g++', 'libgtest-dev']);
  });

  test('npm test (all): those and the test tools', () => {
    const all = listed('all');
    expect(all.slice(0, 5)).toEqual(listed('build'));
    expect(all).toEqual(expect.arrayContaining(['g++', 'libgtest-dev', 'chromium', 'firefox-esr', 'xvfb', 'clang-14']));
  });

  test("package.json's scripts: npm start and build:site bootstrap `serve`, npm test `all`", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect([scripts.start, scripts['build:site'], scripts.test].map((s) => /bootstrap( \w+)?/.exec(s)?.[0])).toEqual([
      'bootstrap serve',
      'bootstrap serve',
      'bootstrap',
    ]);
  });

  test('an unknown mode is a usage error, and installs nothing', () => {
    const r = run('bash scripts/bootstrap tests');
    expect([r.status, r.stderr.trim()]).toEqual([2, '[bootstrap] usage: bash scripts/bootstrap [serve|all]']);
  });
});

describe("scripts/bootstrap's install step", () => {
  // Sourced, bootstrap only defines its functions; install_packages is called
  // with fake `id`, `apt-get` and (maybe) `sudo`.
  const install = () => run('source scripts/bootstrap && install_packages cmake xvfb && echo installed >&2');
  const calls = () => {
    try {
      return readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n');
    } catch {
      return [];
    }
  };

  // With --print-uris, apt-get lists the files it would download ('URI' file size checksum): 332 MB here.
  const aptGet = () => `echo "apt-get $*" >> "${dir}/calls"
case "$*" in *--print-uris*)
  echo "'http://deb.debian.org/debian/pool/main/c/cmake/cmake_3.25.1-1_amd64.deb' cmake_3.25.1-1_amd64.deb 150000000 SHA256:00"
  echo "'http://deb.debian.org/debian/pool/main/x/xvfb/xvfb_21.1.7-3_amd64.deb' xvfb_21.1.7-3_amd64.deb 182000000 SHA256:11" ;;
esac`;
  beforeEach(() => {
    fake('apt-get', aptGet());
  });

  test('as root without sudo (a fresh Debian machine): apt-get directly', () => {
    fake('id', 'echo 0');
    const r = install();
    expect(r.stderr).toContain('installed');
    expect(calls()).toEqual([
      'apt-get update -qq',
      'apt-get install -y -qq --print-uris cmake xvfb',
      'apt-get install -y -qq cmake xvfb',
    ]);
  });

  test('says what it installs, the download size and about how long, before; how long it took, after', () => {
    fake('id', 'echo 0');
    const lines = install().stderr.trim().split('\n');
    expect(lines).toEqual([
      '[bootstrap] missing Debian packages: cmake xvfb',
      // 332 MB at the measured 32 s per 100 MB: 106 s.
      '[bootstrap] installing them with apt-get: 2 packages, 332 MB to download: about 2 min',
      expect.stringMatching(/^\[bootstrap\] installed in \d+ s$/),
      'installed',
    ]);
  });

  test('the estimate: seconds below a minute, minutes above', () => {
    const estimate = (bytes) =>
      spawnSync('/bin/bash', ['-c', `source scripts/bootstrap && download_estimate echo "'u' f ${bytes} x"`], {
        cwd: ROOT,
        encoding: 'utf8',
      }).stdout;
    expect([estimate(50e6), estimate(833e6)]).toEqual([
      '1 packages, 50 MB to download: about 16 s',
      '1 packages, 833 MB to download: about 4 min',
    ]);
  });

  test('as a user with sudo: through sudo', () => {
    fake('id', 'echo 1000');
    fake('sudo', `echo "sudo $*" >> "${dir}/calls"`);
    install();
    expect(calls()).toEqual([
      'sudo apt-get update -qq',
      'sudo apt-get install -y -qq --print-uris cmake xvfb',
      'sudo apt-get install -y -qq cmake xvfb',
    ]);
  });

  test('a failing apt-get shows its output and the command to run by hand', () => {
    fake('id', 'echo 0');
    fake('apt-get', 'echo "E: Unable to locate package xvfb" >&2; exit 100');
    const r = install();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('E: Unable to locate package xvfb');
    expect(r.stderr).toContain('apt-get failed (no network, or no Debian mirror?). Install by hand: cmake xvfb');
    expect(r.stderr).not.toContain('installed');
  });

  test('as a user without sudo: says what to run as root, installs nothing', () => {
    fake('id', 'echo 1000');
    // Only the fakes on PATH: no sudo, wherever this runs.
    const r = run('source scripts/bootstrap && install_packages cmake xvfb', { PATH: dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not root and no sudo. Run as root: apt-get install -y cmake xvfb');
    expect(calls()).toEqual([]);
  });
});
