// The shipped web/index.d.ts types a real usage file under `tsc --strict`
// (tests/types/usage.ts); a wrong declaration fails the compile.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('tsc --strict accepts tests/types/usage.ts against web/index.d.ts', () => {
  const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
  const project = fileURLToPath(new URL('../types/tsconfig.json', import.meta.url));
  let output = '';
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  } catch (e) {
    output = `${e.stdout}${e.stderr}`;
  }
  expect(output).toBe('');
}, 60_000);
