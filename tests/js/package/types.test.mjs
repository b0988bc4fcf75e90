// The shipped web/index.d.ts types a real usage file under `tsc --strict`
// (tests/types/usage.ts); a wrong declaration fails the compile.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Two configurations: with the newest libs, and with plain es2022 (the types
// must not need esnext-only declarations); and drift.ts, which checks that the
// implementation's exports are assignable to the declarations.
test.each(['tsconfig.json', 'tsconfig.es2022.json', 'tsconfig.drift.json'])(
  'tsc --strict -p tests/types/%s accepts usage.ts against web/index.d.ts',
  (config) => {
    const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));
    const project = fileURLToPath(new URL(`../../types/${config}`, import.meta.url));
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    } catch (e) {
      output = `${e.stdout}${e.stderr}`;
    }
    expect(output).toBe('');
  },
  60_000,
);
