#!/usr/bin/env node
// The API reference: TypeDoc over web/index.d.ts and the files it assembles
// (web/declarations/: the source of the shipped declarations), with the
// options in typedoc.json.
//   node scripts/api-docs.mjs           (npm run docs:api) writes HTML to build/api/
//   node scripts/api-docs.mjs --check   (scripts/lint, so npm test) writes nothing
//   node scripts/api-docs.mjs --out DIR (scripts/build-site.mjs) writes HTML to DIR
// Both treat every TypeDoc warning as an error: a {@link} that does not
// resolve, an export or member without documentation, a type that is
// referenced but not part of the reference. The reference is not committed.
//
// TypeDoc is a devDependency run from node_modules/.bin; TYPEDOC_BIN names
// another binary (one installed outside the repository, to try a version).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const check = args.includes('--check');
const outAt = args.indexOf('--out');
const out = outAt < 0 ? null : args[outAt + 1];
if (args.length !== (check ? 1 : 0) + (outAt < 0 ? 0 : 2) || out === undefined || (check && out !== null)) {
  console.error('usage: node scripts/api-docs.mjs [--check | --out DIR]');
  process.exit(2);
}

const typedoc = process.env.TYPEDOC_BIN || `${root}node_modules/.bin/typedoc`;
if (!existsSync(typedoc)) {
  console.error(
    `[api-docs] TypeDoc is not installed (${typedoc} is missing): run npm install (typedoc is a devDependency)`,
  );
  process.exit(1);
}

const options = ['--options', 'typedoc.json', ...(check ? ['--emit', 'none'] : []), ...(out ? ['--out', out] : [])];
const run = spawnSync(typedoc, options, {
  cwd: root,
  stdio: 'inherit',
});
if (run.error) {
  console.error(`[api-docs] could not run ${typedoc}: ${run.error.message}`);
  process.exit(1);
}
if (run.status !== 0) {
  console.error('[api-docs] TypeDoc failed: document what it names in web/declarations/, or fix the {@link}');
  process.exit(1);
}
if (!check) console.log(`[api-docs] the API reference is in ${out ?? 'build/api'}/index.html`);
