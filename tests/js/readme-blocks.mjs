// The README's code blocks, for the tests that run them as written. Each
// fenced block's info string says how it runs ("js node", "js cjs",
// "ts tsc", "html browser", "js vite main.js", "js esbuild main.js"; "sh"
// blocks are install commands, which the consumer suite performs); a
// `// → text` comment after a statement is the line it prints.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** [{ lang, runner, file, code, expected }] in README order. */
export function readmeBlocks() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```/gm)].map(([, lang, info, code]) => {
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

/** Removes the directories appWithQwasm made (the symlink, not the checkout). */
export function removeApps() {
  for (const dir of apps.splice(0)) rmSync(dir, { recursive: true, force: true });
}
