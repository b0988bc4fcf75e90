// The model format's vocabulary is stated once, in web/src/model/vocabulary.json:
// the header's entries, the module types and their fields, the graph's
// functions and methods with their most positional arguments and allowed
// keyword arguments. The loader (the tables web/src/ops/registry.mjs derives
// from its op descriptors; the header, description.mjs) and the exporter (the
// descriptors of python/qwasm_ops.py, read by python3 with or without torch)
// each keep their own in their own language; both must equal the file, so a
// new op added on one side only fails here, naming what differs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEADER_ENTRIES, PREPROCESSING_TRANSFORMS } from '../../../web/src/model/description.mjs';
import { RESERVED_NAMES } from '../../../web/src/model/graph-module.mjs';
import { FORMAT, FORMAT_VERSION } from '../../../web/src/model/load.mjs';
import { MAX_NAME } from '../../../web/src/ops/format-readers.mjs';
import { GRAPH_FUNCTIONS, GRAPH_METHODS, MODULE_TYPES } from '../../../web/src/ops/registry.mjs';
import { ROOT } from '../readme-blocks.mjs';

const vocabulary = JSON.parse(readFileSync(join(ROOT, 'web/src/model/vocabulary.json'), 'utf8'));
const signatures = (table) =>
  Object.fromEntries(Object.entries(table).map(([name, e]) => [name, { args: e.args, kwargs: e.kwargs }]));

test('the file names the format and version both sides write and read', () => {
  expect([vocabulary.format, vocabulary.version]).toEqual([FORMAT, FORMAT_VERSION]);
});

test("the loader's header entries are the vocabulary's, and they are the metadata entries it reads", () => {
  expect(HEADER_ENTRIES).toEqual(vocabulary.header);
  // Every `meta.<entry>` the loader reads (load.mjs: the format and graph; description.mjs: what it describes).
  const read = ['load.mjs', 'description.mjs'].flatMap((file) => [
    ...readFileSync(join(ROOT, 'web/src/model', file), 'utf8').matchAll(/\bmeta\.(\w+)/g),
  ]);
  expect([...new Set(read.map((m) => m[1]))].sort()).toEqual([...vocabulary.header].sort());
});

test("the loader's preprocessing transforms and their fields are the vocabulary's", () => {
  expect(PREPROCESSING_TRANSFORMS).toEqual(vocabulary.preprocessing);
});

test("the loader's module types have the vocabulary's types and fields, and each can be built and planned", () => {
  const fields = Object.fromEntries(Object.entries(MODULE_TYPES).map(([type, t]) => [type, t.fields]));
  expect(fields).toEqual(vocabulary.modules);
  for (const [type, t] of Object.entries(MODULE_TYPES)) {
    expect([type, typeof t.build, typeof t.info, typeof t.cost, typeof t.output]).toEqual([
      type,
      'function',
      'function',
      'function',
      'function',
    ]);
    // A field added by a later format version is one of the type's, added after version 1 and by this one.
    for (const [field, version] of Object.entries(t.fieldVersions ?? {})) {
      expect([type, field, t.fields.includes(field), version > 1 && version <= vocabulary.version]).toEqual([
        type,
        field,
        true,
        true,
      ]);
    }
  }
});

test("the loader's graph functions and methods have the vocabulary's signatures, and each can run and be planned", () => {
  expect(signatures(GRAPH_FUNCTIONS)).toEqual(vocabulary.functions);
  expect(signatures(GRAPH_METHODS)).toEqual(vocabulary.methods);
  for (const e of [...Object.values(GRAPH_FUNCTIONS), ...Object.values(GRAPH_METHODS)]) {
    expect([typeof e.run, typeof e.cost]).toEqual(['function', 'function']);
  }
});

// The exporter's tables as JSON: views of its ops' descriptors
// (python/qwasm_ops.py), which import without torch, as the exporter does.
// With torch, every descriptor's torch objects are resolved too (a module
// class, traced function or ATen op that does not exist, or one two
// descriptors claim, fails the import here), and the PT2E lowering imports.
const PYTHON = `import json, sys
sys.path.insert(0, "python")
import qwasm_export, qwasm_format as f, qwasm_ops as o
if o.torch is not None:
    import qwasm_pt2e
    for table in (o.eager_modules, o.traced_functions, o.traced_methods, o.pt2e_lowerings, o.int8_patterns):
        table()
print(json.dumps({"format": f.FORMAT, "version": f.FORMAT_VERSION, "header": list(f.HEADER_ENTRIES),
  "preprocessing": f.PREPROCESSING_TRANSFORMS, "modules": o.MODULE_FIELDS,
  "functions": o.GRAPH_FUNCTIONS, "methods": o.GRAPH_METHODS,
  "recorded_functions": sorted(o.RECORDED_FUNCTIONS), "recorded_methods": sorted(o.RECORDED_METHODS),
  "reserved_names": list(f.RESERVED_NAMES), "max_name": f.MAX_NAME}))`;

describe('the exporter (python/qwasm_ops.py, qwasm_format.py)', () => {
  let exporter;
  beforeAll(() => {
    const r = spawnSync('python3', ['-c', PYTHON], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`python3 could not import the exporter:\n${r.stderr}`);
    exporter = JSON.parse(r.stdout);
  }, 120_000);

  test("its tables equal the vocabulary's", () => {
    const { format, version, header, preprocessing, modules, functions, methods } = exporter;
    const { about, ...stated } = vocabulary;
    expect({ format, version, header, preprocessing, modules, functions, methods }).toEqual(stated);
  });

  // The exporter refuses what the loader would: a module path with a part the
  // GraphModule already has as a property (graph-module.mjs), a name too long.
  test("its reserved module names and name limit are the loader's", () => {
    expect({ reserved: exporter.reserved_names, maxName: exporter.max_name }).toEqual({
      reserved: [...RESERVED_NAMES],
      maxName: MAX_NAME,
    });
  });

  // A descriptor neither flow writes (no traced target, no PT2E lowering or pattern) is dead vocabulary.
  test('every function and method of the vocabulary is one it records', () => {
    expect(exporter.recorded_functions).toEqual(Object.keys(vocabulary.functions).sort());
    expect(exporter.recorded_methods).toEqual(Object.keys(vocabulary.methods).sort());
  });
});
