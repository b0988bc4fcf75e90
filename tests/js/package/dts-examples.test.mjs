// The @example blocks of the declarations (web/declarations/*.d.ts, which
// web/index.d.ts assembles: the TSDoc editors show and TypeDoc renders;
// scripts/package.mjs ships them as web/types/qwasm.d.mts and .d.cts)
// compile and run as written, as in an app that installed qwasm:
// in a directory where `qwasm` resolves to this checkout, each example in
// its own Node.js process, and all of them under tsc --strict against the
// shipped declarations.
//
// An example with import lines of its own is a whole module and runs as it
// is. Every other one runs after this prelude (PRELUDE below):
//   import * as qwasm from 'qwasm';   and each export by name, with the
//                                     types Tensor and OutOfMemoryError
//   import { readFile } from 'node:fs/promises';
//   await init();
// in a directory holding the files the examples read (FILES below: the
// README's small r3d_18 exports, an .npy array and a NIfTI volume, from tests/golden).
//
// `expr; // → text` (or `const name = expr; // → text`), on one line, says
// what the value is as Node.js shows it (util.inspect on one line, the
// README's `// →` convention for printed lines): the test asserts each.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { declarationFiles } from '../../../scripts/declarations.mjs';
import * as qwasm from '../../../web/src/index.node.mjs';
import { appWithQwasm, compileStrict, fencedBlocks, ROOT, removeApps } from '../readme-blocks.mjs';

const FILES = {
  'r3d_18.qwasm.safetensors': 'tests/golden/exported/r3d_18.qwasm.safetensors',
  'r3d_18_float.qwasm.safetensors': 'tests/golden/exported/r3d_18_float.qwasm.safetensors',
  'weight.npy': 'tests/golden/fixtures/weight_f32.npy',
  'lps_uint8.nii': 'tests/golden/volume/lps_uint8.nii',
};

const TYPES = ['Tensor', 'OutOfMemoryError'];
const PRELUDE = [
  "import * as qwasm from 'qwasm';",
  `import { ${Object.keys(qwasm).join(', ')}, ${TYPES.map((t) => `type ${t}`).join(', ')} } from 'qwasm';`,
  "import { readFile } from 'node:fs/promises';",
  'await init();',
].join('\n');

// What `// →` asserts: each value, in order, written to shown.json at exit.
const SHOWN = `
import { inspect as __inspect } from 'node:util';
import { writeFileSync as __writeFileSync } from 'node:fs';
const __values: string[] = [];
process.on('exit', () => __writeFileSync('shown.json', JSON.stringify(__values)));
function __shown(value: unknown): void {
  __values.push(__inspect(value, { breakLength: Infinity, depth: null }));
}
`;

/** Each `expr; // → text` line (or `const name = expr; // → text`) also records its value. */
function recordingResults(code) {
  return code.replace(/^(\s*)((?:const|let) (\w+) = )?(.+?);\s*\/\/ → .*$/gm, (_line, indent, decl, name, expr) =>
    decl ? `${indent}${decl}${expr}; __shown(${name});` : `${indent}__shown(${expr});`,
  );
}

/** An example as the module that runs it: the prelude unless it imports for itself, its values recorded. */
function moduleSource(code) {
  return `${SHOWN}${/^import /m.test(code) ? '' : `${PRELUDE}\n`}${recordingResults(code)}\n`;
}

const exampleFile = (i) => `example${String(i + 1).padStart(2, '0')}`;

const DECLARATIONS = declarationFiles(ROOT);

/** [{ name, blocks }]: each @example's fenced blocks, named by its file and the declaration it documents. */
function dtsExamples() {
  const KEYWORDS = /\b(?:export|declare|function|class|interface|type|static|abstract) /g;
  return DECLARATIONS.flatMap(({ path, text }) =>
    [...text.matchAll(/\/\*\*([\s\S]*?)\*\/\s*([^\n]*)/g)].flatMap(([, doc, declaration]) =>
      [...doc.matchAll(/@example\n([\s\S]*?)(?=\n\s*\*\s*@|$)/g)].map(([, tag]) => ({
        name: `${path.replace(/^web\/declarations\//, '')}: ${declaration.replace(KEYWORDS, '').match(/\w+/)[0]}`,
        blocks: fencedBlocks(tag.replace(/^\s*\* ?/gm, '')),
      })),
    ),
  );
}

const examples = dtsExamples();
let app;
beforeAll(() => {
  app = appWithQwasm('qwasm-dts-examples-');
  for (const [name, from] of Object.entries(FILES)) copyFileSync(join(ROOT, from), join(app, name));
});
afterAll(removeApps);

test('every @example in the declarations is one ts code block', () => {
  const tags = DECLARATIONS.flatMap(({ text }) => text.match(/^\s*\*\s*@example/gm) ?? []);
  expect(examples.length).toBe(tags.length);
  expect(examples.filter((e) => e.blocks.length !== 1 || e.blocks[0].lang !== 'ts').map((e) => e.name)).toEqual([]);
});

test('the examples compile under tsc --strict against the shipped declarations', () => {
  const files = examples.map((e, i) => {
    writeFileSync(join(app, `${exampleFile(i)}.mts`), moduleSource(e.blocks[0].code));
    return `${exampleFile(i)}.mts`;
  });
  expect(compileStrict(app, files, ['node'])).toEqual({ output: '', status: 0 });
}, 120_000);

test.each(examples.map((e, i) => [i + 1, e.name, e.blocks[0], i]))(
  'example %d (%s) runs and its values are what its comments say',
  (_n, _name, block, i) => {
    const js = transformSync(moduleSource(block.code), { loader: 'ts', format: 'esm', target: 'es2022' }).code;
    writeFileSync(join(app, `${exampleFile(i)}.mjs`), js);
    writeFileSync(join(app, 'shown.json'), 'null');
    const r = spawnSync(process.execPath, [`${exampleFile(i)}.mjs`], { cwd: app, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(readFileSync(join(app, 'shown.json'), 'utf8'))).toEqual(block.expected);
  },
  60_000,
);
