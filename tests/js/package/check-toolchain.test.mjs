// scripts/check-toolchain against fake programs: each version it pins is
// read from the program's own output, a mismatch names the expected and the
// found version and the fix and fails, QWASM_ANY_VERSIONS=1 goes on, and
// scripts/bootstrap installs as root without sudo (a fresh Debian machine)
// and refuses clearly as a user without it. Nothing real is installed: the
// fakes come first on PATH, and apt-get is a fake that records its arguments.
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

  beforeEach(() => {
    fake('apt-get', `echo "apt-get $*" >> "${dir}/calls"`);
  });

  test('as root without sudo (a fresh Debian machine): apt-get directly', () => {
    fake('id', 'echo 0');
    const r = install();
    expect(r.stderr).toContain('installed');
    expect(calls()).toEqual(['apt-get update -qq', 'apt-get install -y -qq cmake xvfb']);
  });

  test('as a user with sudo: through sudo', () => {
    fake('id', 'echo 1000');
    fake('sudo', `echo "sudo $*" >> "${dir}/calls"`);
    install();
    expect(calls()).toEqual(['sudo apt-get update -qq', 'sudo apt-get install -y -qq cmake xvfb']);
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
