// The JavaScript layers import downwards only: the static import graph of
// web/src has no cycle, and nn/ (PyTorch's modules) never reaches up into
// quantization/ (the eager flow that builds on nn) or model/ (the loader).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../web/src', import.meta.url));

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

test('nn/ imports nothing from quantization/ or model/', () => {
  const upward = [...importGraph()]
    .filter(([file]) => file.startsWith('nn/'))
    .flatMap(([file, targets]) =>
      targets.filter((t) => /^(quantization|model)\//.test(t)).map((t) => `${file} -> ${t}`),
    );
  expect(upward).toEqual([]);
});
