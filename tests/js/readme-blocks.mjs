// The README's code blocks, for the tests that run them as written (the
// fenced-block reader, the app directory and the strict tsc run serve
// tests/js/package/dts-examples.test.mjs too). Each
// fenced block's info string says how it runs ("js node", "js cjs",
// "ts tsc", "html browser", "js vite main.js", "js esbuild main.js"; "sh"
// blocks are install commands, which the consumer suite performs); a
// `// → text` comment after a statement is the line it prints.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** [{ lang, runner, file, code, expected }] in README order. */
export function readmeBlocks() {
  return fencedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
}

/**
 * The fenced code blocks of a Markdown text (the README, a TSDoc @example),
 * in order: [{ lang, runner, file, code, expected }], expected being the text
 * of each `// → text` comment.
 */
export function fencedBlocks(markdown) {
  return [...markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```/gm)].map(([, lang, info, code]) => {
    const [runner = '', file = ''] = info.trim().split(/\s+/);
    const expected = [...code.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1].trim());
    return { lang, runner, file, code, expected };
  });
}

const apps = [];

/** A fresh directory whose node_modules/qwasm is this checkout, as an installed package would be. */
export function appWithQwasm(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  apps.push(dir);
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'qwasm'), 'dir');
  return dir;
}

/**
 * tsc --strict (nodenext, as a TypeScript app that installed qwasm compiles)
 * over `files` in `dir`, with the @types packages named in `types` (from this
 * checkout's node_modules). Returns { output, status }: tsc prints nothing
 * and exits 0 when they compile.
 */
export function compileStrict(dir, files, types = []) {
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022', 'dom'],
    types,
    typeRoots: [join(ROOT, 'node_modules/@types')],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { output: `${r.stdout}${r.stderr}`, status: r.status };
}

/** Removes the directories appWithQwasm made (the symlink, not the checkout). */
export function removeApps() {
  for (const dir of apps.splice(0)) rmSync(dir, { recursive: true, force: true });
}
