// The public API's prose has one home, the TSDoc of web/declarations/ (what
// web/index.d.ts assembles, editors show and TypeDoc renders). In web/src a
// JSDoc block on something the declarations document keeps what tsc needs
// (@type, @param / @returns types, @template) and at most one line of prose:
// a pointer to the declaration, or a one-line summary. No @throws or
// @example there: those are the declarations' too. Why the code does what it
// does goes in // comments beside the code, not in the JSDoc.
//
// "Something the declarations document": each value the API module
// (web/src/api.mjs) exports, followed into its namespaces and classes, whose
// path (`nn.quantized.Conv3d`, its `forward`, `quantization.prepare`) is also
// declared by web/index.d.ts; TypeScript resolves both sides.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_PROSE_LINES = 1;

// Files other engineers are rewriting for issue #31 while this test landed;
// their JSDoc still repeats the declarations' prose. Each entry must still
// offend (the test fails once it does not): delete it when its file points
// to the declarations instead.
const PENDING = new Set([]);

function program() {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}web/tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  return ts.createProgram([`${ROOT}web/src/api.mjs`, `${ROOT}web/index.d.ts`], config.options);
}

const resolved = (checker, symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

/** path -> symbol for every exported value of a module (or namespace), recursively. */
function declaredValues(checker, moduleSymbol, prefix = '', out = new Map()) {
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    const symbol = resolved(checker, exported);
    const path = `${prefix}${exported.name}`;
    if (symbol.flags & ts.SymbolFlags.Module) declaredValues(checker, symbol, `${path}.`, out);
    else if (symbol.flags & ts.SymbolFlags.Value) out.set(path, symbol);
  }
  return out;
}

/** The object literal a namespace object is written as (`Object.freeze({ ... })` or `{ ... }`), if it is one. */
function objectLiteralOf(node) {
  if (node && ts.isCallExpression(node) && node.arguments.length === 1) node = node.arguments[0];
  return node && ts.isObjectLiteralExpression(node) ? node : undefined;
}

/** path -> symbol for every value the implementation exports, into its namespace modules and objects. */
function implementedValues(checker, moduleSymbol) {
  const out = new Map();
  const visitSymbol = (symbol, path) => {
    if (!symbol) return;
    symbol = resolved(checker, symbol);
    if (symbol.flags & ts.SymbolFlags.ValueModule) {
      for (const exported of checker.getExportsOfModule(symbol)) visitSymbol(exported, `${path}.${exported.name}`);
      return;
    }
    const declaration = symbol.valueDeclaration;
    if (declaration && ts.isVariableDeclaration(declaration) && objectLiteralOf(declaration.initializer)) {
      visitExpression(declaration.initializer, path);
      return;
    }
    out.set(path, symbol);
  };
  // A namespace object's property: `fuseModules,`, `Module: m.Module`, `intrinsic: Object.freeze({ ... })`.
  const visitExpression = (node, path) => {
    const literal = objectLiteralOf(node);
    if (!literal) {
      visitSymbol(checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node), path);
      return;
    }
    for (const property of literal.properties) {
      const at = `${path}.${property.name.text}`;
      if (ts.isShorthandPropertyAssignment(property)) {
        visitSymbol(checker.getShorthandAssignmentValueSymbol(property), at);
      } else visitExpression(property.initializer, at);
    }
  };
  for (const exported of checker.getExportsOfModule(moduleSymbol)) visitSymbol(exported, exported.name);
  return out;
}

/** A class's (or a class factory's) instance and static sides: the types whose members it documents. */
function classSides(checker, symbol) {
  const statics = checker.getTypeOfSymbol(symbol);
  const construct = statics.getConstructSignatures()[0];
  if (!construct) return undefined;
  const instance =
    symbol.flags & ts.SymbolFlags.Class ? checker.getDeclaredTypeOfSymbol(symbol) : construct.getReturnType();
  return { instance, statics, constructor: construct.getDeclaration() };
}

/** [member path, implementation declarations] for each member a class's declaration documents. */
function documentedMembers(checker, declaredClass, implementedClass) {
  const declared = classSides(checker, declaredClass);
  const implemented = classSides(checker, implementedClass);
  if (!declared || !implemented) return [];
  const members = [['#constructor', implemented.constructor ? [implemented.constructor] : []]];
  for (const [side, separator] of [
    ['instance', '#'],
    ['statics', '.'],
  ]) {
    for (const member of checker.getPropertiesOfType(declared[side])) {
      const implementation = member.name !== 'prototype' && checker.getPropertyOfType(implemented[side], member.name);
      if (implementation) members.push([`${separator}${member.name}`, implementation.declarations ?? []]);
    }
  }
  return members;
}

/**
 * Every JSDoc block written before a declaration: a block of prose followed by
 * one of types counts too (TypeScript's parser keeps them all as node.jsDoc;
 * ts.getJSDocCommentsAndTags would give the last one only).
 */
function jsdocBlocks(node) {
  // A variable's comment is on its statement, `this.x = ...`'s on the expression statement.
  let host = node;
  if (ts.isVariableDeclaration(host)) host = host.parent.parent;
  else if (ts.isPropertyAccessExpression(host) && ts.isBinaryExpression(host.parent)) host = host.parent.parent;
  return host.jsDoc ?? [];
}

const lineCount = (comment) =>
  (ts.getTextOfJSDocComment(comment) ?? '').split('\n').filter((line) => line.trim() !== '').length;

/** Lines of prose in a JSDoc block: its description and every tag's text (types and names are not prose). */
function proseLines(jsdoc) {
  return lineCount(jsdoc.comment) + (jsdoc.tags ?? []).reduce((n, tag) => n + lineCount(tag.comment), 0);
}

/**
 * The documented paths the implementation has, and { file, where, path, lines, tags } for each JSDoc
 * block on their implementation.
 */
function documentedBlocks() {
  const p = program();
  const checker = p.getTypeChecker();
  const declared = declaredValues(checker, checker.getSymbolAtLocation(p.getSourceFile(`${ROOT}web/index.d.ts`)));
  const implemented = implementedValues(
    checker,
    checker.getSymbolAtLocation(p.getSourceFile(`${ROOT}web/src/api.mjs`)),
  );
  const targets = []; // [path, declarations]
  for (const [path, symbol] of implemented) {
    const declaration = declared.get(path);
    if (!declaration) continue;
    targets.push([path, symbol.declarations ?? []]);
    for (const [member, nodes] of documentedMembers(checker, declaration, symbol))
      targets.push([`${path}${member}`, nodes]);
  }
  const blocks = new Map(); // a base class's member is reached from each subclass: one entry per block
  for (const [path, nodes] of targets) {
    for (const node of nodes) {
      const file = node.getSourceFile();
      if (!file.fileName.startsWith(`${ROOT}web/src/`)) continue;
      for (const jsdoc of jsdocBlocks(node)) {
        if (blocks.has(jsdoc)) continue;
        const line = file.getLineAndCharacterOfPosition(jsdoc.getStart()).line + 1;
        blocks.set(jsdoc, {
          file: file.fileName.slice(ROOT.length),
          where: `${file.fileName.slice(ROOT.length)}:${line}`,
          path,
          lines: proseLines(jsdoc),
          tags: (jsdoc.tags ?? []).map((t) => t.tagName.text),
        });
      }
    }
  }
  return { paths: new Set(targets.map(([path]) => path)), blocks: [...blocks.values()] };
}

const { paths, blocks } = documentedBlocks();
const offends = (b) => b.lines > MAX_PROSE_LINES || b.tags.includes('throws') || b.tags.includes('example');

test('the walk reaches the implementation of the documented API', () => {
  // One path for each kind of step: an export, a module namespace, a frozen
  // object (a property, a shorthand one, a nested object), a class member, a
  // class factory's static, an inherited member, an observer from the top level.
  for (const path of [
    'init',
    'io.loadNpy',
    'quantization.prepare',
    'quantization.ns.computeSqnr',
    'nn.intrinsic.quantized.ConvReLU3d',
    'QTensor#dequantize',
    'nn.quantized.Conv3d.fromFloat',
    'nn.quantized.Conv3d#setWeightBias',
    'MinMaxObserver#calculateQParams',
  ]) {
    expect([path, paths.has(path)]).toEqual([path, true]);
  }
  expect(blocks.length).toBeGreaterThan(40);
});

test(`JSDoc on what the declarations document has at most ${MAX_PROSE_LINES} line of prose, no @throws or @example`, () => {
  const offenders = blocks
    .filter((b) => offends(b) && !PENDING.has(b.file))
    .map((b) => `${b.where} ${b.path}: prose lines ${b.lines}${b.tags.length ? `, @${b.tags.join(' @')}` : ''}`);
  expect(offenders).toEqual([]);
});

test('each file still pending repeats prose (delete it from PENDING once it does not)', () => {
  const stillPending = new Set(blocks.filter(offends).map((b) => b.file));
  expect([...PENDING].filter((file) => !stillPending.has(file))).toEqual([]);
});
