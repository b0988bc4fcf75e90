// docs/ops.md, the ops table an ExportError points users to, is generated
// from the op descriptors (scripts/ops_doc.py reads python/qwasm_ops.py) and
// must stay what they say. Without torch (CI) the script checks the rows,
// their numerics and which flows each op has; with torch (a developer's
// machine) also PyTorch's names in each row, so both are run here: python3
// -S leaves site-packages, and torch, out.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../readme-blocks.mjs';

const SCRIPT = join(ROOT, 'scripts', 'ops_doc.py');
const DOC = join(ROOT, 'docs', 'ops.md');
const vocabulary = JSON.parse(readFileSync(join(ROOT, 'web', 'src', 'model', 'vocabulary.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'qwasm-opsdoc-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function check(pythonArgs, doc = DOC) {
  const r = spawnSync('python3', [...pythonArgs, SCRIPT, '--check', '--doc', doc], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? `${r.error}`}` };
}

// The op names of the tables' rows: `Type`, `function()`, `.method()`.
function rowNames(text) {
  return [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
}

test.each([
  ['without torch (python3 -S, as on CI)', ['-S']],
  ['with whatever python3 has (torch on a developer machine: every cell)', []],
])('docs/ops.md is what the descriptors say, %s', (_, args) => {
  const r = check(args);
  expect(r.out).toContain('docs/ops.md is true to the descriptors');
  expect(r.status).toBe(0);
});

test('docs/ops.md has one row per op of the format (vocabulary.json), and no other', () => {
  const want = [
    ...Object.keys(vocabulary.modules),
    ...Object.keys(vocabulary.functions).map((f) => `${f}()`),
    ...Object.keys(vocabulary.methods).map((m) => `.${m}()`),
  ].sort();
  expect(rowNames(readFileSync(DOC, 'utf8')).sort()).toEqual(want);
});

test('a row edited by hand, or missing, fails the check, naming it', () => {
  const text = readFileSync(DOC, 'utf8');
  const edited = join(work, 'edited.md');
  writeFileSync(edited, text.replace(/^(\| `MaxPool` \| )exact/m, '$1bit for bit'));
  const r1 = check(['-S'], edited);
  expect(r1.status).toBe(1);
  expect(r1.out).toMatch(/`MaxPool`, column 2: 'bit for bit: the integer maximum'/);
  const missing = join(work, 'missing.md');
  writeFileSync(missing, text.replace(/^\| `Flatten` \|.*\n/m, ''));
  const r2 = check(['-S'], missing);
  expect(r2.status).toBe(1);
  expect(r2.out).toMatch(/lacks `Flatten`/);
});
