// The README's Node.js examples run as written (with 'qwasm' resolved to this
// checkout), so the README stays true.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const node = readme.slice(readme.indexOf('## Node.js'), readme.indexOf('## Browser'));
const blocks = [...node.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
const entry = new URL('../../web/src/index.node.mjs', import.meta.url).href;

test('the README has Node.js examples', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
});

test.each(blocks.map((b, i) => [i + 1, b]))(
  'README Node.js example %d runs',
  (i, code) => {
    const dir = mkdtempSync(join(tmpdir(), 'qwasm-readme-'));
    const file = join(dir, `example${i}.mjs`);
    writeFileSync(file, code.replaceAll("from 'qwasm'", `from '${entry}'`));
    execFileSync(process.execPath, [file], { stdio: 'pipe' });
  },
  60_000,
);
