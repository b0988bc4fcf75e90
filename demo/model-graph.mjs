// The Model view's graph: the model's nodes as a DAG (residual adds show as
// two incoming edges), laid out by dagre and drawn as SVG. Identity nodes
// (what a fused BatchNorm and ReLU become, dropout, a FloatFunctional's
// activation_post_process) are folded: their edges pass through. Each box
// shows the node's op, output shape, dtype and qparams, and, once known, its
// kernel path, time and SQNR against the float model.
import dagre from '@dagrejs/dagre';

const SVG = 'http://www.w3.org/2000/svg';
const BOX_W = 250;
const LINE_H = 15;

/** Node names a node reads ({node: name} anywhere in its args and kwargs). */
export function inputsOf(node) {
  const out = [];
  const walk = (a) => {
    if (Array.isArray(a)) a.forEach(walk);
    else if (a !== null && typeof a === 'object') {
      if (typeof a.node === 'string') out.push(a.node);
      else Object.values(a).forEach(walk);
    }
  };
  walk(node.args);
  walk(node.kwargs);
  return out;
}

/**
 * The graph to draw: {nodes: [{name, lines, node}], edges: [[from, to]]}, with
 * Identity modules folded (a folded node's readers read its input instead).
 * @param nodes the model's nodes (GraphModule.nodes)
 * @param typeOf path -> module type name
 * @param lines node -> its text lines
 */
export function foldedGraph(nodes, typeOf, lines) {
  const through = new Map(); // folded node -> the node it passes on
  const source = (name) => (through.has(name) ? source(through.get(name)) : name);
  const kept = [];
  const edges = [];
  for (const node of nodes) {
    const ins = inputsOf(node);
    if (node.op === 'call_module' && typeOf(node.target) === 'Identity' && ins.length === 1) {
      through.set(node.name, ins[0]);
      continue;
    }
    kept.push({ name: node.name, lines: lines(node), node });
    for (const from of new Set(ins.map(source))) edges.push([from, node.name]);
  }
  return { nodes: kept, edges };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

// The last layout, reused while the boxes keep their sizes: a redraw after a
// run or a comparison (new text, new highlights) skips dagre's 50-70 ms.
let lastLayout = { key: '', g: null };

function layout(graph) {
  const key = JSON.stringify([graph.nodes.map((n) => [n.name, n.lines.length]), graph.edges]);
  if (key === lastLayout.key) return lastLayout.g;
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 28, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of graph.nodes) g.setNode(n.name, { width: BOX_W, height: 10 + LINE_H * n.lines.length });
  for (const [from, to] of graph.edges) g.setEdge(from, to);
  dagre.layout(g);
  lastLayout = { key, g };
  return g;
}

/**
 * Draws `graph` (foldedGraph's) into the <svg> `svg`; onPick(node) runs when
 * a box is clicked (or chosen with Enter). `highlight(name)` says which boxes
 * to mark (the layers under the SQNR threshold).
 */
export function drawGraph(svg, graph, { onPick, highlight = () => false }) {
  const g = layout(graph);
  svg.replaceChildren();
  const { width, height } = g.graph();
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  const defs = el('defs', {}, svg);
  const marker = el(
    'marker',
    { id: 'm-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' },
    defs,
  );
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#7a8793' }, marker);
  for (const e of g.edges()) {
    const points = g
      .edge(e)
      .points.map((p) => `${p.x},${p.y}`)
      .join(' ');
    el(
      'polyline',
      { points, fill: 'none', stroke: '#7a8793', 'stroke-width': 1.2, 'marker-end': 'url(#m-arrow)', class: 'edge' },
      svg,
    );
  }
  for (const n of graph.nodes) {
    const { x, y, width: w, height: h } = g.node(n.name);
    const box = el(
      'g',
      {
        class: `node${highlight(n.name) ? ' low' : ''}`,
        'data-node': n.name,
        tabindex: 0,
        role: 'button',
        'aria-label': n.lines.join(', '),
        transform: `translate(${x - w / 2},${y - h / 2})`,
      },
      svg,
    );
    el('rect', { width: w, height: h, rx: 6 }, box);
    n.lines.forEach((line, i) => {
      const t = el('text', { x: 8, y: 16 + i * LINE_H, class: i === 0 ? 'title' : '' }, box);
      t.textContent = line;
    });
    box.addEventListener('click', () => onPick(n.node));
    box.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        onPick(n.node);
      }
    });
  }
  return { width, height, nodes: graph.nodes.length, edges: graph.edges.length };
}
