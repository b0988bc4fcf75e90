// What the guides (README.md, docs/*.md) cite from the repository, read by
// the forms docs/testing.md ("What the guides cite") lists, for
// docs-facts.test.mjs to check against the files:
// - paths from the repository's root (`web/src/model/plan.mjs`, also
//   unbackticked), and backticked file names or partial paths
//   (`conv_requant.cpp`, `qwasm/conv_types.h`); `*`, `**`, `{a,b}` and
//   `<placeholder>` are wildcards;
// - symbols cited with their file: the backticked names of a clause before
//   "in `path`" or "(`path`)" belong to that path;
// - kernel names (`..._scalar`, `..._wasmsimd[_<instruction>]`).
// Fenced code blocks are examples, not citations.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../readme-blocks.mjs';

export const GUIDES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)];

// The repository's top-level folders: a path starting with one is a path from the root.
const ROOTS = ['src', 'bindings', 'web', 'python', 'tests', 'bench', 'scripts', 'docs', 'demo', 'dist', '.ci'];
// Backticked names with these endings are file names (`.wasm`, `.safetensors`
// and the like are left out: the README's examples name the user's files).
const FILE_NAME = /(^|\/)[\w*<{-][^/]*\.(mjs|cjs|js|mts|cts|ts|py|cpp|h|inc|json|md|txt|toml|html)$/;
// What scripts and suites write and the sources never hold; not checked.
export const OUTPUTS = ['build/', 'tests/browser/output/', 'bench/output/'];
// Other projects' sources, cited by their path in that project's repository
// (folders qwasm does not have): PyTorch's (FBGEMM's under third_party/),
// torchvision's, torchao's, onnxruntime's. Not checked.
export const OTHER_PROJECTS = ['aten/', 'c10/', 'torch/', 'third_party/', 'torchvision/', 'torchao/', 'js/web/'];
// docs/numerics.md cites PyTorch's and FBGEMM's files by their bare names
// (`qconv.cpp`): there, qwasm's own are cited with a folder.
const UPSTREAM_BARE_NAMES_IN = 'docs/numerics.md';

const read = (file) => readFileSync(join(ROOT, file), 'utf8');
// What a user imports (`qwasm/qwasm.wasm`): the package's exports, not paths.
const PACKAGE_SPECIFIERS = Object.keys(JSON.parse(read('package.json')).exports).map((key) => `qwasm${key.slice(1)}`);
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '__pycache__']);

/** Every file and folder (with a trailing /) of the checkout, outputs left out; dist/ and web/types/ as built. */
export function repositoryFiles(dir = '') {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}${entry.name}`;
    if (SKIPPED_DIRS.has(entry.name) || OUTPUTS.includes(`${path}/`)) return [];
    return entry.isDirectory() ? [`${path}/`, ...repositoryFiles(`${path}/`)] : [path];
  });
}

/** The prose of a guide: its fenced code blocks dropped, lines joined. */
export function prose(file) {
  return read(file)
    .replace(/^[ \t]*```[\s\S]*?^[ \t]*```/gm, ' ')
    .replace(/\s+/g, ' ');
}

const escapeRegExp = (s) => s.replace(/[.+?^$()|[\]\\]/g, '\\$&');

/** A cited path as a regular expression over repository paths (wildcards expanded); `suffix`: a partial path. */
export function pathPattern(cited, { suffix = false } = {}) {
  const body = escapeRegExp(cited.replace(/\/$/, ''))
    .replace(/\{([^}]*)\}/g, (_, alternatives) => `(${alternatives.split(',').join('|')})`)
    .replace(/<[^>]*>/g, '[^/]+')
    .replace(/\*\*/g, '\u0000')
    .replace(/\*/g, '[^/]*')
    .replaceAll('\u0000', '.*');
  return new RegExp(`${suffix ? '(^|/)' : '^'}${body}/?$`);
}

const ROOTED = new RegExp(`(?<![\\w./<>-])(?:${ROOTS.map(escapeRegExp).join('|')})/[\\w.*<>{},/-]*[\\w*>}/]`, 'g');
const MEDIA_TYPE = /^(application|audio|font|image|text|video)\//;
const isRooted = (token) => ROOTS.some((root) => token.startsWith(`${root}/`));
const skipped = (path) => [...OUTPUTS, ...OTHER_PROJECTS].some((prefix) => path.startsWith(prefix));

/**
 * A backticked token read as a path: {path, suffix} (suffix: a file name or
 * partial path, found at the end of a repository path), or null.
 */
function asPath(token, guide) {
  if (/\s/.test(token)) return null;
  if (isRooted(token)) return { path: token, suffix: false };
  if (token.startsWith('node_modules/') || PACKAGE_SPECIFIERS.includes(token)) return null;
  if (FILE_NAME.test(token)) {
    return guide === UPSTREAM_BARE_NAMES_IN && !token.includes('/') ? null : { path: token, suffix: true };
  }
  // A partial folder path (`kernels/scalar`, `qwasm/`); not an API name
  // (`nn.Conv1d/2d/3d`) or a media type (`application/wasm`).
  const folder = /^[\w-]+\/[\w.*<>{},/-]*$/.test(token) && !MEDIA_TYPE.test(token);
  return folder ? { path: token, suffix: true } : null;
}

/** [{guide, path, suffix}]: every path a guide cites (other projects' and outputs left out). */
export function citedPaths() {
  return GUIDES.flatMap((guide) => {
    const text = prose(guide);
    const rooted = (text.match(ROOTED) ?? []).map((path) => ({ path, suffix: false }));
    const backticked = [...text.matchAll(/`([^`]+)`/g)].map((m) => asPath(m[1], guide)).filter(Boolean);
    const seen = new Set();
    return [...rooted, ...backticked]
      .filter(({ path }) => !skipped(path) && !seen.has(path) && seen.add(path))
      .map((cited) => ({ guide, ...cited }));
  });
}

// A backticked identifier (`name`, `name()`, `obj.name(x)`, `ns::name`): its last name.
const IDENTIFIER = /^[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)*(?:\(.*\))?$/;
const lastName = (token) =>
  token
    .replace(/\(.*\)$/, '')
    .split(/\.|::/)
    .at(-1);

/**
 * [{guide, path, suffix, names}]: the symbols cited with their file in every guide.
 * A guide's prose is cut into clauses (at `.`, `;`, `:`, `!`, `?` before a
 * space, and at table cells); in each, the identifiers before a path cited as
 * "in `path`" or "(`path`)" are that path's: those since the clause's
 * previous path, parenthesis, or "in" naming something else.
 */
export function citedSymbols() {
  return GUIDES.flatMap((guide) => symbolCitations(guide, prose(guide)));
}

/** citedSymbols for one guide's prose. */
export function symbolCitations(guide, text) {
  return text.split(/(?<=[.;:!?])\s+|\s\|\s/).flatMap((clause) => {
    const found = [];
    let names = [];
    let end = 0; // where the previous backticked token ended
    for (const m of clause.matchAll(/`([^`]+)`/g)) {
      const cited = asPath(m[1], guide);
      const before = clause.slice(0, m.index);
      const after = clause.slice(m.index + m[0].length);
      const inParentheses = cited !== null && /\($/.test(before) && /^\)/.test(after);
      // Prose that ends a run of names: a parenthesis (but the citation's
      // own), or "in" naming something else ("`quantize4` in the wasmsimd kernels").
      const gap = clause.slice(end, inParentheses ? m.index - 1 : m.index);
      if (/[()]|\bin (?!$)/.test(gap)) names = [];
      end = m.index + m[0].length;
      if (cited === null) {
        if (IDENTIFIER.test(m[1])) names.push(lastName(m[1]));
        continue;
      }
      if ((/\bin $/.test(before) || inParentheses) && names.length > 0 && !skipped(cited.path)) {
        found.push({ guide, ...cited, names });
      }
      names = [];
    }
    return found;
  });
}

/** The kernel names of the registry's lists (src/kernels/*.inc), in list order. */
export function listedKernels() {
  return readdirSync(join(ROOT, 'src/kernels'))
    .filter((f) => f.endsWith('.inc'))
    .flatMap((f) => [...read(`src/kernels/${f}`).matchAll(/^\s*(?:QWASM_\w+)\((\w+),/gm)].map((m) => m[1]));
}

// A kernel's name ends in its ISA, or its ISA and an instruction.
const KERNEL_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)+_(scalar|wasmsimd)(_[a-z0-9]+)?$/;

/** [{guide, name}]: every backticked kernel name in the guides. */
export function citedKernels() {
  return GUIDES.flatMap((guide) =>
    [...prose(guide).matchAll(/`([^`]+)`/g)].filter((m) => KERNEL_NAME.test(m[1])).map((m) => ({ guide, name: m[1] })),
  );
}

/**
 * docs/kernels.md's naming grammar as a regular expression: the grammar line
 * (`<op>[_<variant>]...`) with each <part> one of the backticked values of its
 * row in the table below it; <types> takes one or more.
 */
export function kernelNameGrammar() {
  const section = read('docs/kernels.md').split('## Naming')[1].split('\n## ')[0];
  const grammar = /`(<op>[^`]*)`/.exec(section)[1];
  const parts = Object.fromEntries(
    [...section.matchAll(/^\| (\w+) \| (.*) \|$/gm)].map(([, part, values]) => [
      part,
      [...values.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]),
    ]),
  );
  const source = grammar
    .replace(/\[/g, '(?:')
    .replace(/\]/g, ')?')
    .replace(/<(\w+)>/g, (_, part) => {
      const one = `(?:${(parts[part] ?? []).join('|')})`;
      return part === 'types' ? `${one}(?:_${one})*` : one;
    });
  return { grammar, parts, pattern: new RegExp(`^${source}$`) };
}
