// The model budget's work rates, re-measured: every node kind a model file
// may hold, in a graph where it repeats on a large activation, run through
// GraphModule.profile(). Each layer reports its time and the work it was
// charged (web/src/ops/work-rates.mjs); from them, the seconds a forward
// would take to spend the default maxWork on that kind alone. The budget's
// promise (docs/model-budget.md) is that this stays near the documented
// ~25 s for every kind: a kind far above it is under-charged (a small file
// could run for minutes), far below it over-charged (honest models refused).
import { graphModel, node, output, quantize, quantizedConv3d, ref } from '../tests/js/model-files.mjs';
import { DEFAULT_LIMITS } from '../web/src/model/plan.mjs';
import { WORK_PER_ELEMENT } from '../web/src/ops/work-rates.mjs';
import { initBench, machine, median, saveResult } from './harness.mjs';

const { qwasm } = await initBench();
const { io } = qwasm;
const ROUNDS = Number(process.env.QWASM_BENCH_RUNS ?? 5);

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const next = rng(7);
const floats = (n, spread = 2) => Array.from({ length: n }, () => (next() - 0.5) * spread);
const numel = (shape) => shape.reduce((a, b) => a * b, 1);

// One activation of 2M values: [1, 32, 8, 64, 128].
const X = [1, 32, 8, 64, 128];
const C = X[1];
const REPEAT = 4;

const qconv = (cin, cout, k, pad) => quantizedConv3d({ cin, cout, k, pad, weight: 'cw' });
const fconv = (cin, cout, k, pad) => ({
  type: 'Conv',
  dims: 3,
  relu: false,
  in_channels: cin,
  out_channels: cout,
  kernel_size: [k, k, k],
  stride: [1, 1, 1],
  padding: [pad, pad, pad],
  dilation: [1, 1, 1],
  groups: 1,
  weight: 'fw',
  bias: null,
});
const pool = (type, k) => ({
  type,
  dims: 3,
  kernel_size: [k, k, k],
  stride: [1, 1, 1],
  padding: [0, 0, 0],
  ...(type === 'MaxPool'
    ? { dilation: [1, 1, 1], ceil_mode: false }
    : { ceil_mode: false, count_include_pad: true, divisor_override: null }),
});
const bn = {
  type: 'BatchNorm',
  dims: 3,
  num_features: C,
  eps: 1e-5,
  weight: 'g',
  bias: 'b',
  running_mean: 'm',
  running_var: 'v',
};
// The normalisations: over the channels' spatial rows, groups of 4 channels, and the last dimension.
const norms = (quantized) => {
  const out = quantized ? { scale: 0.05, zero_point: 128 } : {};
  const prefix = quantized ? 'Quantized' : '';
  const running = quantized ? {} : { running_mean: null, running_var: null };
  return {
    in: {
      type: `${prefix}InstanceNorm`,
      dims: 3,
      num_features: C,
      eps: 1e-5,
      weight: 'g',
      bias: 'b',
      ...running,
      ...out,
    },
    gn: { type: `${prefix}GroupNorm`, num_groups: C / 4, num_channels: C, eps: 1e-5, weight: 'gg', bias: 'gb', ...out },
    ln: { type: `${prefix}LayerNorm`, normalized_shape: [X[4]], eps: 1e-5, weight: 'lg', bias: 'lb', ...out },
  };
};
const tensors = {
  lg: { dtype: 'F32', shape: [X[4]], data: floats(X[4]) },
  gg: { dtype: 'F32', shape: [C], data: floats(C) },
  gb: { dtype: 'F32', shape: [C], data: floats(C) },
  lb: { dtype: 'F32', shape: [X[4]], data: floats(X[4]) },
  cw: { dtype: 'I8', shape: [C, C, 3, 3, 3], data: floats(C * C * 27, 60).map(Math.round) },
  fw: { dtype: 'F32', shape: [C, C, 3, 3, 3], data: floats(C * C * 27, 0.1) },
  lw: { dtype: 'I8', shape: [512, 512], data: floats(512 * 512, 60).map(Math.round) },
  flw: { dtype: 'F32', shape: [512, 512], data: floats(512 * 512, 0.1) },
  g: { dtype: 'F32', shape: [C], data: floats(C) },
  b: { dtype: 'F32', shape: [C], data: floats(C) },
  m: { dtype: 'F32', shape: [C], data: floats(C) },
  v: { dtype: 'F32', shape: [C], data: floats(C).map((v) => 1 + Math.abs(v)) },
};

// A chain x -> [quant] -> body[0] -> ... -> [dequant] -> output. `modules`: the
// body's modules; `nodes(prev)`: its nodes after `prev`. Names: 'n0', 'n1', ...
function chain(inputShape, { quantized, modules = {}, body }) {
  const mods = { ...modules };
  const nodes = [];
  let prev = 'x';
  if (quantized) {
    mods.quant = quantize(0.05, 10);
    nodes.push(node('quant', 'call_module', 'quant', [ref('x')]));
    prev = 'quant';
  }
  body.forEach((make, i) => {
    nodes.push(make(`n${i}`, prev));
    prev = `n${i}`;
  });
  if (quantized) {
    mods.dequant = { type: 'DeQuantize' };
    nodes.push(node('dequant', 'call_module', 'dequant', [ref(prev)]));
    prev = 'dequant';
  }
  nodes.push(output(prev));
  // Only the tensors the modules name (the loader refuses unused ones).
  const named = JSON.stringify(mods);
  const used = Object.fromEntries(Object.entries(tensors).filter(([k]) => named.includes(`"${k}"`)));
  return graphModel(inputShape, mods, nodes, used);
}
const times = (n, make) => Array.from({ length: n }, () => make);
const callModule = (target) => (name, prev) => node(name, 'call_module', target, [ref(prev)]);
const callFn =
  (target, extraArgs = [], kwargs = {}) =>
  (name, prev) =>
    node(name, 'call_function', target, [ref(prev), ...extraArgs], kwargs);
const callSelf =
  (target, kwargs = {}) =>
  (name, prev) =>
    node(name, 'call_function', target, [ref(prev), ref(prev)], kwargs);
const callMethod =
  (target, extra = []) =>
  (name, prev) =>
    node(name, 'call_method', target, [ref(prev), ...extra]);

// [label, input shape, graph, which nodes to read (by name prefix)]
const CASES = [
  [
    'quantized conv 3x3x3 (per MAC)',
    [1, C, 8, 32, 32],
    { quantized: true, modules: { c: qconv(C, C, 3, 1) }, body: times(REPEAT, callModule('c')) },
  ],
  [
    'float conv 3x3x3 (per MAC)',
    [1, C, 4, 32, 32],
    { quantized: false, modules: { c: fconv(C, C, 3, 1) }, body: times(2, callModule('c')) },
  ],
  [
    'quantized linear (per MAC)',
    [1024, 512],
    {
      quantized: true,
      modules: {
        l: {
          type: 'QuantizedLinear',
          relu: false,
          in_features: 512,
          out_features: 512,
          scale: 0.05,
          zero_point: 10,
          weight: { qscheme: 'per_tensor_affine', ints: 'lw', scale: 0.01, zero_point: 0 },
          bias: null,
        },
      },
      body: times(REPEAT, callModule('l')),
    },
  ],
  [
    'float linear (per MAC)',
    [1024, 512],
    {
      quantized: false,
      modules: { l: { type: 'Linear', relu: false, in_features: 512, out_features: 512, weight: 'flw', bias: null } },
      body: times(REPEAT, callModule('l')),
    },
  ],
  ['Quantize, DeQuantize', X, { quantized: true, body: [] }],
  [
    'quantized ReLU, ReLU6 (modules)',
    X,
    {
      quantized: true,
      modules: { r: { type: 'ReLU' }, r6: { type: 'ReLU6' } },
      body: [callModule('r'), callModule('r6'), callModule('r'), callModule('r6')],
    },
  ],
  [
    'quantized relu, add, add_relu, mul, mul_relu',
    X,
    {
      quantized: true,
      body: [
        callFn('relu'),
        callSelf('quantized.add', { scale: 0.1, zero_point: 5 }),
        callSelf('quantized.add_relu', { scale: 0.1, zero_point: 5 }),
        callSelf('quantized.mul', { scale: 0.1, zero_point: 5 }),
        callSelf('quantized.mul_relu', { scale: 0.1, zero_point: 5 }),
      ],
    },
  ],
  [
    'quantized add_scalar, mul_scalar, cat',
    X,
    {
      quantized: true,
      body: [
        callFn('quantized.add_scalar', [0.5]),
        callFn('quantized.mul_scalar', [1.5]),
        (name, prev) =>
          node(name, 'call_function', 'quantized.cat', [[ref(prev), ref(prev)]], { dim: 1, scale: 0.1, zero_point: 5 }),
      ],
    },
  ],
  [
    'quantized flatten, reshape, contiguous, Identity, Flatten',
    X,
    {
      quantized: true,
      modules: { id: { type: 'Identity' }, fl: { type: 'Flatten', start_dim: 1, end_dim: -1 } },
      body: [
        callModule('id'),
        callMethod('contiguous'),
        callMethod('reshape', [1, C, -1]),
        callFn('flatten', [1]),
        callModule('fl'),
      ],
    },
  ],
  [
    'float ReLU, ReLU6, relu, BatchNorm',
    X,
    {
      quantized: false,
      modules: { r: { type: 'ReLU' }, r6: { type: 'ReLU6' }, bn },
      body: [callModule('r'), callModule('r6'), callFn('relu'), callMethod('relu'), callModule('bn')],
    },
  ],
  ...[false, true].map((quantized) => [
    `${quantized ? 'quantized' : 'float'} InstanceNorm, GroupNorm, LayerNorm`,
    X,
    { quantized, modules: norms(quantized), body: [callModule('in'), callModule('gn'), callModule('ln')] },
  ]),
  [
    'float activations (LeakyReLU, Hardswish, Sigmoid, Tanh, SiLU, ELU, GELU, Softplus, Mish)',
    X,
    {
      quantized: false,
      modules: {
        lr: { type: 'LeakyReLU', negative_slope: 0.01 },
        hs: { type: 'Hardswish' },
        sg: { type: 'Sigmoid' },
        th: { type: 'Tanh' },
        si: { type: 'SiLU' },
        el: { type: 'ELU', alpha: 1 },
        ge: { type: 'GELU', approximate: 'tanh' },
        sp: { type: 'Softplus', beta: 1, threshold: 20 },
        mi: { type: 'Mish' },
      },
      body: ['lr', 'hs', 'sg', 'th', 'si', 'el', 'ge', 'sp', 'mi'].map((m) => callModule(m)),
    },
  ],
  [
    'float add, cat',
    X,
    {
      quantized: false,
      body: [callSelf('add'), (name, prev) => node(name, 'call_function', 'cat', [[ref(prev), ref(prev)]], { dim: 1 })],
    },
  ],
  [
    'dequantize (method), float flatten, reshape',
    X,
    {
      quantized: false,
      modules: { q: quantize(0.05, 10) },
      body: [callModule('q'), callMethod('dequantize'), callMethod('flatten', [1]), callMethod('reshape', [1, C, -1])],
    },
  ],
  // Pools, quantized and float.
  ...[true, false].flatMap((quantized) => {
    const kind = quantized ? 'quantized' : 'float';
    return [
      [
        `${kind} pools (per window element)`,
        X,
        {
          quantized,
          modules: { mp: pool('MaxPool', 2), ap: pool('AvgPool', 2) },
          body: [callModule('mp'), callModule('ap')],
        },
      ],
      [
        `${kind} AdaptiveAvgPool, down and up`,
        [1, C, 4, 16, 16],
        {
          quantized,
          modules: {
            down: { type: 'AdaptiveAvgPool', dims: 3, output_size: [2, 4, 4] },
            up: { type: 'AdaptiveAvgPool', dims: 3, output_size: [16, 128, 128] },
          },
          body: [callModule('up'), callModule('down')],
        },
      ],
    ];
  }),
];

// A layer's kind: a module's file type (float or quantized by its output), a
// function's or method's target (float by its output).
const kindOf = (graph, layer) => {
  const float = layer.output?.dtype === 'float32';
  if (layer.op === 'call_module') {
    const type = graph.modules?.[layer.target]?.type ?? (layer.target === 'quant' ? 'Quantize' : 'DeQuantize');
    const quantizedType = /^(Quantized|Quantize$|DeQuantize$)/.test(type);
    return `${type}${float && !quantizedType ? ' (float)' : ''}`;
  }
  const dequantizes = layer.target === 'dequantize';
  return `${layer.op === 'call_method' ? '.' : ''}${layer.target}${float && !dequantizes ? ' (float)' : ''}`;
};

const rows = new Map(); // kind -> {ms: [], work, elements}
for (const [label, shape, graph] of CASES) {
  const model = io.loadModel(chain(shape, graph), {
    maxWork: Number.POSITIVE_INFINITY,
    maxActivationBytes: 2 ** 31,
    maxLiveBytes: 2 ** 32,
  });
  const x = { data: Float32Array.from(floats(numel(shape))), shape };
  const per = new Map();
  for (let r = 0; r < ROUNDS + 1; r++) {
    const { output: y, layers } = model.profile(x);
    if (typeof y.dispose === 'function') y.dispose();
    if (r === 0) continue; // warm-up
    for (const l of layers) {
      // Nodes on small outputs time the call's fixed cost, not the kind's rate.
      if (l.outputBytes < 2 ** 16 && l.work > 0) continue;
      const key = `${kindOf(graph, l)}|${l.name}`;
      const e = per.get(key) ?? { ms: [], work: l.work };
      e.ms.push(l.ms);
      per.set(key, e);
    }
  }
  model.dispose();
  for (const [key, e] of per) {
    const kind = key.split('|')[0];
    const secondsAtMaxWork = e.work > 0 ? ((median(e.ms) / 1000) * DEFAULT_LIMITS.maxWork) / e.work : 0;
    const prev = rows.get(kind);
    // A kind seen in several cases or positions: its worst.
    if (!prev || secondsAtMaxWork > prev.secondsAtMaxWork)
      rows.set(kind, { kind, label, ms: median(e.ms), work: e.work, secondsAtMaxWork });
  }
  console.log(`${label}: done`);
}

const table = [...rows.values()].sort((a, b) => b.secondsAtMaxWork - a.secondsAtMaxWork);
const date = new Date().toISOString().slice(0, 10);
const worst = table[0];
const charged = table.filter((r) => r.work > 0);
const lines = [
  '## The model budget: seconds to spend the default maxWork, per node kind',
  '',
  `${date}, ${machine()}. Each node kind repeated on an activation of about 2M values (bench/budget.bench.mjs), ` +
    `timed by \`GraphModule.profile()\` against the work it was charged (web/src/ops/work-rates.mjs); ` +
    `seconds = median ms / charged work x maxWork (${DEFAULT_LIMITS.maxWork.toExponential(0)}). ` +
    `Documented: about 25 s. Worst: ${worst.kind}, ${worst.secondsAtMaxWork.toFixed(1)} s; ` +
    `range over the ${charged.length} charged kinds ${Math.min(...charged.map((r) => r.secondsAtMaxWork)).toFixed(1)}-${worst.secondsAtMaxWork.toFixed(1)} s. ` +
    'Views (reshape, flatten, Identity) are charged nothing and take microseconds.',
  '',
  '| node kind | ms (median) | charged work | s at default maxWork |',
  '|---|---:|---:|---:|',
  ...table.map(
    (r) =>
      `| ${r.kind} | ${r.ms.toFixed(2)} | ${r.work === 0 ? '0' : r.work.toExponential(2)} | ${r.work === 0 ? '-' : r.secondsAtMaxWork.toFixed(1)} |`,
  ),
  '',
  `Rates in force: ${Object.entries(WORK_PER_ELEMENT)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}.`,
];
const markdown = lines.join('\n');
saveResult('9-budget', { date, machine: machine(), rows: table, rates: WORK_PER_ELEMENT, markdown });
console.log(markdown);
