// The model format's vocabulary is stated once, in web/src/model/vocabulary.json:
// the module types and their fields, the graph's functions and methods with
// their most positional arguments and allowed keyword arguments. The loader
// (module-builders.mjs, graph-functions.mjs) and the exporter
// (python/qwasm_export.py, imported by python3 with or without torch) each
// keep a table in their own language; both must equal the file, so a new op
// added on one side only fails here, naming what differs.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_NAME } from '../../../web/src/model/format-readers.mjs';
import { GRAPH_FUNCTIONS, GRAPH_METHODS } from '../../../web/src/model/graph-functions.mjs';
import { RESERVED_NAMES } from '../../../web/src/model/graph-module.mjs';
import { FORMAT, FORMAT_VERSION } from '../../../web/src/model/load.mjs';
import { MODULE_BUILDERS } from '../../../web/src/model/module-builders.mjs';
import { ROOT } from '../readme-blocks.mjs';

const vocabulary = JSON.parse(readFileSync(join(ROOT, 'web/src/model/vocabulary.json'), 'utf8'));
const signatures = (table) =>
  Object.fromEntries(Object.entries(table).map(([name, e]) => [name, { args: e.args, kwargs: e.kwargs }]));

test('the file names the format and version both sides write and read', () => {
  expect([vocabulary.format, vocabulary.version]).toEqual([FORMAT, FORMAT_VERSION]);
});

test("the loader's module builders have the vocabulary's types and fields", () => {
  const fields = Object.fromEntries(Object.entries(MODULE_BUILDERS).map(([type, b]) => [type, b.fields]));
  expect(fields).toEqual(vocabulary.modules);
});

test("the loader's graph functions and methods have the vocabulary's signatures, and each can run and be planned", () => {
  expect(signatures(GRAPH_FUNCTIONS)).toEqual(vocabulary.functions);
  expect(signatures(GRAPH_METHODS)).toEqual(vocabulary.methods);
  for (const e of [...Object.values(GRAPH_FUNCTIONS), ...Object.values(GRAPH_METHODS)]) {
    expect([typeof e.run, typeof e.cost]).toEqual(['function', 'function']);
  }
});

// The exporter's tables as JSON; the names it records for traced functions
// only where torch is installed (without it the exporter maps no functions).
const PYTHON = `import json, sys
sys.path.insert(0, "python")
import qwasm_export as q
p = None
if q.torch is not None:
    import qwasm_pt2e as p  # the PT2E lowering (python/qwasm_pt2e.py) needs torch
print(json.dumps({"format": q.FORMAT, "version": q.FORMAT_VERSION, "modules": q.MODULE_FIELDS,
  "functions": q.GRAPH_FUNCTIONS, "methods": q.GRAPH_METHODS,
  "recorded_functions": sorted(set(q._FUNCTIONS.values()) | set(p.RECORDED_FUNCTIONS if p else ())),
  "recorded_methods": sorted(set(q._METHODS.values()) | set(p.RECORDED_METHODS if p else ())),
  "reserved_names": list(q.RESERVED_NAMES), "max_name": q.MAX_NAME,
  "torch": q.torch is not None}))`;

describe('the exporter (python/qwasm_export.py)', () => {
  let exporter;
  beforeAll(() => {
    const r = spawnSync('python3', ['-c', PYTHON], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`python3 could not import the exporter:\n${r.stderr}`);
    exporter = JSON.parse(r.stdout);
  }, 120_000);

  test("its tables equal the vocabulary's", () => {
    const { format, version, modules, functions, methods } = exporter;
    const { about, ...stated } = vocabulary;
    expect({ format, version, modules, functions, methods }).toEqual(stated);
  });

  // The exporter refuses what the loader would: a module path with a part the
  // GraphModule already has as a property (graph-module.mjs), a name too long.
  test("its reserved module names and name limit are the loader's", () => {
    expect({ reserved: exporter.reserved_names, maxName: exporter.max_name }).toEqual({
      reserved: [...RESERVED_NAMES],
      maxName: MAX_NAME,
    });
  });

  test('every method it records, and with torch every function, is in the vocabulary', () => {
    expect(exporter.recorded_methods).toEqual(Object.keys(vocabulary.methods).sort());
    if (exporter.torch) expect(exporter.recorded_functions).toEqual(Object.keys(vocabulary.functions).sort());
    else expect(exporter.recorded_functions).toEqual([]);
  });
});
