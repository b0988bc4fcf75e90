// Committed files never name a path of the machine they were made on: a
// user's checkout has none of them (a golden generator once recorded an
// ExportError quoting its source file by absolute path). Such a path starts
// at a home, workspace or temporary root and runs into one of the
// repository's own folders (a URL path like /web/src/... or a system path
// like /usr/src/googletest is not one).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../readme-blocks.mjs';

const BINARY = /\.(safetensors|webm|wasm|png|npy|bin|gz)$/;
const FOLDERS = 'tests|web|python|src|bench|scripts|bindings|demo|docs';
const ROOTS = 'work|root|home|tmp|Users|mnt|builds|srv|opt|var';
const ABSOLUTE = new RegExp(`(?:^|["'\`( =])(/(?:${ROOTS})/(?:[\\w.-]+/)*(?:${FOLDERS})/[\\w./-]+)`, 'g');

/** The absolute repository paths in `text`. */
const machinePaths = (text) => [...text.matchAll(ABSOLUTE)].map((m) => m[1]);

test('the pattern finds a traceback path and leaves repository-relative ones', () => {
  expect(machinePaths('(File "/srv/build/qwasm/tests/golden/generators/layout.py", line 232')).toEqual([
    '/srv/build/qwasm/tests/golden/generators/layout.py',
  ]);
  expect(machinePaths('see tests/golden/generators/layout.py and web/src/io.mjs')).toEqual([]);
  expect(machinePaths('"source": "/web/src/model/worker-model.mjs:1344" (/usr/src/googletest/src)')).toEqual([]);
  expect(machinePaths("at '/home/ci/qwasm/web/src/io.mjs'")).toEqual(['/home/ci/qwasm/web/src/io.mjs']);
});

test('no committed text file names an absolute path into a checkout', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    // This file's own examples are such paths.
    .filter((f) => f && !BINARY.test(f) && f !== 'tests/js/package/machine-paths.test.mjs');
  const found = files.flatMap((f) => machinePaths(readFileSync(join(ROOT, f), 'utf8')).map((p) => `${f}: ${p}`));
  expect(found).toEqual([]);
});
