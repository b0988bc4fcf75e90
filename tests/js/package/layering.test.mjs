// The JavaScript layers import downwards only: the static import graph of
// web/src has no cycle, and nn/ (PyTorch's modules) never reaches up into
// ops/ (each op's descriptor, over nn's modules), quantization/ (the eager
// flow that reads the descriptors' mappings) or model/ (the loader, which
// reads their file vocabulary, planner formulas and runners).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../../web/src', import.meta.url));

function importGraph() {
  const graph = new Map();
  for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.mjs')) continue;
    const file = join(entry.parentPath, entry.name);
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((m) =>
      relative(src, resolve(dirname(file), m[1])),
    );
    graph.set(relative(src, file), targets);
  }
  return graph;
}

test('web/src has no import cycle', () => {
  const graph = importGraph();
  expect(graph.size).toBeGreaterThan(40);
  const state = new Map(); // 1 visiting, 2 done
  const cycles = [];
  const visit = (node, path) => {
    if (state.get(node) === 2) return;
    if (state.get(node) === 1) {
      cycles.push([...path.slice(path.indexOf(node)), node].join(' -> '));
      return;
    }
    state.set(node, 1);
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 2);
  };
  for (const node of graph.keys()) visit(node, []);
  expect(cycles).toEqual([]);
});

// web/src groups its files by layer, lowest first. A file imports only from
// its own layer or a lower one; the root holds only what sits on top of every
// layer: the entries (the platform entries and the worker entries) and the
// public namespaces they assemble (api.mjs, io.mjs). ops/ sits between nn and
// quantization: both the eager flow (quantization/) and the loader (model/)
// read the op descriptors, which name nn's modules.
// volumes/ (NIfTI files and their geometry) sits below transforms/, whose
// VolumeSegmentation reads them.
const LAYERS = ['runtime', 'tensors', 'nn', 'ops', 'quantization', 'volumes', 'transforms', 'model'];
const layerOf = (file) => (file.includes('/') ? LAYERS.indexOf(file.split('/')[0]) : LAYERS.length);
const ROOT_FILES = [
  'api.mjs',
  'index.browser.mjs',
  'index.node.mjs',
  'io.mjs',
  'model-worker.mjs',
  'model-worker.node.mjs',
  'node-entry.mjs',
  'pool-worker.mjs',
];

test('every file of web/src sits in a known layer, and only entries and namespaces at its root', () => {
  const files = [...importGraph().keys()];
  expect(files.filter((f) => !f.includes('/')).sort()).toEqual(ROOT_FILES);
  expect(files.filter((f) => f.includes('/') && layerOf(f) < 0)).toEqual([]);
});

test('each layer imports only from itself and the layers below it (nn never reaches ops, quantization or model)', () => {
  const upward = [...importGraph()].flatMap(([file, targets]) =>
    targets.filter((t) => !t.startsWith('..') && layerOf(t) > layerOf(file)).map((t) => `${file} -> ${t}`),
  );
  expect(upward).toEqual([]);
});

test('no module below the root imports an entry or a namespace (the worker entries sit with the entries)', () => {
  const intoRoot = [...importGraph()]
    .filter(([file]) => file.includes('/'))
    .flatMap(([file, targets]) => targets.filter((t) => !t.includes('/')).map((t) => `${file} -> ${t}`));
  expect(intoRoot).toEqual([]);
});
