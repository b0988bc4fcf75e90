// The JS <-> wasm bridge is declared once (web/src/runtime/bridge.d.mts) and tsc
// checks every call against it. These tests tie that declaration to the other
// side: the names bindings/*.cpp registers with Embind, the arity Embind
// recorded for each in the built wasm, and the JS that calls them. What the
// codes among their arguments and results mean is bridge-codes.test.mjs's.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { initTesting, M } from '../testing.mjs';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const require = createRequire(import.meta.url);

// --- The declaration: interfaces of web/src/runtime/bridge.d.mts -------------------

function declared() {
  const file = join(root, 'web/src/runtime/bridge.d.mts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map();
  for (const node of source.statements) {
    if (!ts.isInterfaceDeclaration(node)) continue;
    const bound = ts
      .getJSDocTags(node)
      .find((t) => t.tagName.text === 'bound')
      ?.comment?.toString()
      .split(/\s/)[0];
    const members = new Map();
    for (const m of node.members) {
      if (!m.name) continue;
      const name = m.name.getText(source);
      // Methods: their parameter count; properties (value object fields): null.
      members.set(name, ts.isMethodSignature(m) ? m.parameters.length : null);
    }
    interfaces.set(node.name.text, { bound, members });
  }
  return interfaces;
}

// --- The registrations: EMSCRIPTEN_BINDINGS blocks of bindings/*.cpp --------

function registered() {
  const functions = new Map(); // name -> file
  const classes = new Map(); // Embind name -> Set of method names
  const valueObjects = new Map(); // Embind name -> Set of field names
  const dir = join(root, 'bindings');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpp'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const block = text.slice(text.indexOf('EMSCRIPTEN_BINDINGS('));
    // Each statement: a class_ / value_object chain, or a free function.
    for (const statement of block.split(';')) {
      const head = statement.match(/(class_|value_object)<[^>]+>\("(\w+)"\)/);
      const chained = [...statement.matchAll(/\.(function|field)\("(\w+)"/g)].map((m) => m[2]);
      if (head?.[1] === 'class_') classes.set(head[2], new Set(chained));
      else if (head?.[1] === 'value_object') valueObjects.set(head[2], new Set(chained));
      const free = statement.match(/^\s*function\("(\w+)"/);
      if (free) functions.set(free[1], file);
    }
  }
  return { functions, classes, valueObjects };
}

const sorted = (it) => [...it].sort();
const own = (interfaces, name) => interfaces.get(name).members;

test('bridge.d.mts declares exactly the functions bindings/*.cpp registers: Core the package, TestingCore the testing ones', () => {
  const decl = declared();
  const { functions } = registered();
  const testingFiles = new Set(['testing_bindings.cpp']);
  const shipped = [...functions].filter(([, f]) => !testingFiles.has(f)).map(([n]) => n);
  const testing = [...functions].filter(([, f]) => testingFiles.has(f)).map(([n]) => n);
  expect(shipped.length).toBeGreaterThan(30);
  expect(sorted(own(decl, 'Core').keys())).toEqual(sorted(shipped));
  expect(sorted(own(decl, 'TestingCore').keys())).toEqual(sorted(testing));
});

test('every bound class and value object has one declaration with the same methods or fields', () => {
  const decl = declared();
  const { classes, valueObjects } = registered();
  const byBound = new Map([...decl.values()].filter((i) => i.bound).map((i) => [i.bound, i.members]));
  expect(sorted(byBound.keys())).toEqual(sorted([...classes.keys(), ...valueObjects.keys()]));
  for (const [name, methods] of classes) {
    expect([name, sorted(byBound.get(name).keys())]).toEqual([name, sorted(methods)]);
  }
  for (const [name, fields] of valueObjects) {
    expect([name, sorted(byBound.get(name).keys())]).toEqual([name, sorted(fields)]);
    expect([name, [...byBound.get(name).values()].every((arity) => arity === null)]).toEqual([name, true]);
  }
});

// Embind records each function's and method's arity as `argCount`.
function arityMismatches(module, decl) {
  const wrong = [];
  const check = (label, fn, arity) => {
    if (typeof fn !== 'function') wrong.push(`${label}: not bound`);
    else if (fn.argCount !== arity) wrong.push(`${label}: bound with ${fn.argCount} parameters, declared ${arity}`);
  };
  for (const [name, arity] of own(decl, 'Core')) check(name, module[name], arity);
  for (const { bound, members } of decl.values()) {
    const proto = bound && module[bound]?.prototype;
    if (!proto) continue; // value objects have no constructor
    for (const [name, arity] of members) check(`${bound}.${name}`, proto[name], arity);
  }
  return wrong;
}

test('the package wasm binds every declared function and method with the declared arity, and nothing undeclared', async () => {
  const decl = declared();
  const factory = require(join(root, 'dist/qwasm.node.cjs'));
  const module = await factory({ wasmBinary: readFileSync(join(root, 'dist/qwasm.wasm')) });
  expect(arityMismatches(module, decl)).toEqual([]);
  const embindFunctions = Object.keys(module).filter(
    (k) => typeof module[k] === 'function' && typeof module[k].argCount === 'number',
  );
  expect(sorted(embindFunctions)).toEqual(sorted(own(decl, 'Core').keys()));
  for (const name of own(decl, 'TestingCore').keys()) expect([name, name in module]).toEqual([name, false]);
});

test('the testing wasm binds the testing functions with the declared arity', async () => {
  await initTesting();
  const decl = declared();
  expect(arityMismatches(M(), decl)).toEqual([]);
  for (const [name, arity] of own(decl, 'TestingCore')) {
    expect([name, typeof M()[name], M()[name].argCount]).toEqual([name, 'function', arity]);
  }
});

// --- Every binding is used ---------------------------------------------------

function sources(dir, exts) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && exts.some((e) => entry.name.endsWith(e))) {
      out.push(readFileSync(join(entry.parentPath, entry.name), 'utf8'));
    }
  }
  return out.join('\n');
}

const calls = (text, name) => new RegExp(`\\.${name}\\(`).test(text);

test('the library calls every function and method the package binds', () => {
  const decl = declared();
  const library = sources('web/src', ['.mjs']);
  const unused = [];
  for (const name of own(decl, 'Core').keys()) if (!calls(library, name)) unused.push(name);
  for (const { bound, members } of decl.values()) {
    if (!bound || bound.endsWith('Geometry')) continue;
    for (const [name, arity] of members) if (arity !== null && !calls(library, name)) unused.push(`${bound}.${name}`);
  }
  expect(unused).toEqual([]);
});

test('the tests or the benchmarks call every testing function', () => {
  const decl = declared();
  const users = [
    sources('tests/js', ['.mjs']).replaceAll(readFileSync(fileURLToPath(import.meta.url), 'utf8'), ''),
    sources('bench', ['.mjs']),
  ].join('\n');
  const unused = [...own(decl, 'TestingCore').keys()].filter((name) => !calls(users, name));
  expect(unused).toEqual([]);
});
