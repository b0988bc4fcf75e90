// The public declarations as the package ships them: one file per module
// format (web/types/qwasm.d.mts and .d.cts, written by scripts/package.mjs),
// assembled from their source, web/index.d.ts and web/declarations/*.d.ts.
//
// web/index.d.ts re-exports the public files (`export * from
// './declarations/nn.js'`); the files import from each other only with
// `import type { ... } from './x.js'`, and a file that index.d.ts does not
// re-export (nn-bases.d.ts) is internal: its exports are for the other files.
// One shipped file, rather than the parts beside it, keeps `import` and
// `require` on a single self-contained declaration file each (no relative
// imports to resolve under two module formats) and the shipped file list as
// it was.
//
// The assembled text: a line saying so, index.d.ts's header comment, then each file in
// index.d.ts's order and the internal ones after, without the imports among
// them (one module scope now), internal files without their `export`s, and
// one `export {}` at the end (so that nothing unmarked is exported).
import { readdirSync, readFileSync } from 'node:fs';

const SIBLING_IMPORT = /^import type \{[^}]*\} from '\.\/([\w-]+)\.js';\n/gm;
const PUBLIC_FILE = /^export \* from '\.\/declarations\/([\w-]+)\.js';$/gm;
const EXPORT_NOTHING = /\n*(?:\/\/[^\n]*\n)*export \{\};\n$/;

/**
 * The declaration files, public (re-exported by web/index.d.ts, in its order)
 * then internal (imported by those): [{ name, path, text, internal }].
 * @param {string} root The repository's directory, ending in '/'.
 */
export function declarationFiles(root) {
  const index = readFileSync(`${root}web/index.d.ts`, 'utf8');
  const files = new Map();
  const add = (name, internal) => {
    if (files.has(name)) return;
    const path = `web/declarations/${name}.d.ts`;
    files.set(name, { name, path, text: readFileSync(`${root}${path}`, 'utf8'), internal });
  };
  for (const [, name] of index.matchAll(PUBLIC_FILE)) add(name, false);
  for (const file of files.values()) {
    for (const [, name] of file.text.matchAll(SIBLING_IMPORT)) add(name, true);
  }
  const unused = readdirSync(`${root}web/declarations`).filter((f) => !files.has(f.replace(/\.d\.ts$/, '')));
  if (unused.length > 0) {
    throw new Error(
      `web/declarations/${unused[0]} is neither re-exported by web/index.d.ts nor imported by a file that is`,
    );
  }
  return [...files.values()];
}

/**
 * The text of the shipped declaration files (both: ESM and CJS read the same).
 * @param {string} root The repository's directory, ending in '/'.
 */
export function assembledDeclarations(root) {
  const index = readFileSync(`${root}web/index.d.ts`, 'utf8');
  const header = index.slice(0, index.search(PUBLIC_FILE)).trimEnd();
  const parts = declarationFiles(root).map(({ path, text, internal }) => {
    let body = text.replace(SIBLING_IMPORT, '');
    if (!EXPORT_NOTHING.test(body)) throw new Error(`${path} must end with export {} (as the others do)`);
    body = body.replace(EXPORT_NOTHING, '\n');
    if (/^import /m.test(body))
      throw new Error(`${path}: imports only from its siblings, as import type { ... } from './x.js'`);
    if (internal) body = body.replace(/^export /gm, '');
    return body.trim();
  });
  return [
    '// Generated from web/index.d.ts and web/declarations/ by scripts/package.mjs. Do not edit.\n' + header,
    ...parts,
    '// In a declaration file every top-level declaration is exported unless the\n' +
      '// file says export {}: only what is marked export above is public.\nexport {};\n',
  ].join('\n\n');
}
