// The shipped declarations (web/types/qwasm.d.mts and .d.cts, assembled from
// web/index.d.ts and web/declarations/) type real usage files under
// `tsc --strict` (tests/types/usage.mts, usage-cjs.cts, negative.mts); a wrong
// declaration fails the compile.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assembledDeclarations } from '../../../scripts/declarations.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// The compiles below read the shipped files: they must be the current sources
// assembled, not an earlier build's (node scripts/package.mjs writes them).
test.each(['qwasm.d.mts', 'qwasm.d.cts'])('web/types/%s is the declarations as assembled now', (file) => {
  expect(readFileSync(`${ROOT}web/types/${file}`, 'utf8')).toBe(assembledDeclarations(ROOT));
});

// Two configurations: with the newest libs, and with plain es2022 (the types
// must not need esnext-only declarations); and drift.ts, which checks that the
// implementation's exports are assignable to the declarations.
test.each(['tsconfig.json', 'tsconfig.es2022.json', 'tsconfig.drift.json'])(
  'tsc --strict -p tests/types/%s accepts the usage files against the declarations',
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
