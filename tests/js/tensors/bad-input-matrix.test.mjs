// The bad-input matrix: every public function, constructor, method and setter,
// each argument given every kind of bad value (wrong type, null / undefined,
// NaN, +-Infinity, -0, fractions, 2^31, 2^32, 2^53, 1e300, BigInt, Symbol, a
// Proxy or getter that throws, a detached buffer, a SharedArrayBuffer, a
// typed-array subclass). Each row expects one outcome: the error class (and,
// for the user's own thrown error, that very error), or success; every row is
// run twice and the heap must be back at its baseline after the second run.
// After the whole matrix one ordinary call still gives the right answer.
import { readFileSync } from 'node:fs';
import * as qwasm from '../../../web/src/index.node.mjs';

const { nn, tensor, quantization, io } = qwasm;

class Boom extends Error {}

// The winograd option's values: 'auto', true, false, and nothing else.
const WINOGRAD_MODE = [
  ['a number', 1, TypeError],
  ["'on'", 'on', TypeError],
  ["'AUTO'", 'AUTO', TypeError],
  ['null', null, TypeError],
  ['a String object', new String('auto'), TypeError], // eslint-disable-line no-new-wrappers
  ['a Boolean object', new Boolean(true), TypeError], // eslint-disable-line no-new-wrappers
  ['true', true, 'ok'],
  ['false', false, 'ok'],
];

await qwasm.init(); // the table below builds observers

// Values whose reading throws the user's own error.
const throwingProxy = () =>
  new Proxy(
    {},
    {
      get() {
        throw new Boom('proxy get');
      },
      has() {
        throw new Boom('proxy has');
      },
      ownKeys() {
        throw new Boom('proxy keys');
      },
    },
  );
const revokedProxy = () => {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
};
const detached = (Ctor = Float32Array) => {
  const a = new Ctor(4);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
};
const shared = (n) => new Float32Array(new SharedArrayBuffer(n * 4)).fill(0.5);
class LyingFloat32Array extends Float32Array {
  get length() {
    return 1e6;
  }
  get byteLength() {
    return 4e6;
  }
}

// Bad values by the type a position expects. [label, value, expected]; expected
// is an error class, Boom (the value's own error), or 'ok'.
const NOT_A_NUMBER = [
  ['a string', '1', TypeError],
  ['null', null, TypeError],
  ['undefined', undefined, TypeError],
  ['a BigInt', 1n, TypeError],
  ['a Symbol', Symbol('s'), TypeError],
  ['an object', {}, TypeError],
  ['an array', [1], TypeError],
  ['a boolean', true, TypeError],
  ['a throwing Proxy', throwingProxy(), TypeError],
];
const SCALE = [
  ...NOT_A_NUMBER,
  ['NaN', NaN, RangeError],
  ['Infinity', Infinity, RangeError],
  ['-Infinity', -Infinity, RangeError],
  ['0', 0, RangeError],
  ['-0', -0, RangeError],
  ['-1', -1, RangeError],
  ['1e300', 1e300, RangeError],
  ['1e-300', 1e-300, RangeError],
  ['0.37', 0.37, 'ok'],
  ['2^31', 2 ** 31, 'ok'],
  ['2^53', 2 ** 53, 'ok'],
];
const ZERO_POINT_QUINT8 = [
  ...NOT_A_NUMBER,
  ['NaN', NaN, TypeError],
  ['Infinity', Infinity, TypeError],
  ['-Infinity', -Infinity, TypeError],
  ['0.5', 0.5, TypeError],
  ['-0', -0, 'ok'],
  ['255', 255, 'ok'],
  ['256', 256, RangeError],
  ['-1', -1, RangeError],
  ['2^31', 2 ** 31, RangeError],
  ['2^32', 2 ** 32, RangeError],
  ['2^53', 2 ** 53, RangeError],
  ['1e300', 1e300, RangeError],
];
const INDEX = [
  // axis-like integers
  ...NOT_A_NUMBER,
  ['NaN', NaN, TypeError],
  ['Infinity', Infinity, TypeError],
  ['0.5', 0.5, TypeError],
  ['-0', -0, 'ok'],
  ['2^31', 2 ** 31, RangeError],
  ['2^32', 2 ** 32, RangeError],
  ['2^53', 2 ** 53, RangeError],
  ['1e300', 1e300, RangeError],
  ['-1', -1, RangeError],
];
const CHANNELS = [
  // inChannels / outChannels
  ...NOT_A_NUMBER.filter(([l]) => l !== 'an array'),
  ['NaN', NaN, TypeError],
  ['Infinity', Infinity, TypeError],
  ['0.5', 0.5, TypeError],
  ['-0', -0, RangeError],
  ['0', 0, RangeError],
  ['-1', -1, RangeError],
  ['2^31', 2 ** 31, RangeError],
  ['2^32', 2 ** 32, RangeError],
  ['2^53', 2 ** 53, RangeError],
  ['1e300', 1e300, RangeError],
];
const KERNEL_LIKE = [
  // kernelSize, stride, dilation (positive integers, or arrays of them)
  ...NOT_A_NUMBER.filter(([l]) => l !== 'an array' && l !== 'undefined'),
  ['NaN', NaN, TypeError],
  ['0.5', 0.5, TypeError],
  ['-0', -0, RangeError],
  ['0', 0, RangeError],
  ['2^31', 2 ** 31, RangeError],
  ['2^53', 2 ** 53, RangeError],
  ['1e300', 1e300, RangeError],
  ['an array of the wrong length', [1, 1], TypeError],
  ['an array with a hole', [1, , 1], TypeError], // eslint-disable-line no-sparse-arrays
];
const BOOLEAN = [
  ['a number', 1, TypeError],
  ['a string', 'true', TypeError],
  ['null', null, TypeError],
  ['a Symbol', Symbol('b'), TypeError],
];
const DTYPE = [
  ['an unknown name', 'uint8', TypeError],
  ["'toString'", 'toString', TypeError],
  ["'__proto__'", '__proto__', TypeError],
  ['a number', 0, TypeError],
  ['null', null, TypeError],
  ['a Symbol', Symbol('d'), TypeError],
  ['a String object', new String('quint8'), TypeError], // eslint-disable-line no-new-wrappers
];
const FLOAT_TENSOR = [
  ...NOT_A_NUMBER.map(([l, v]) => [l, v, l === 'a throwing Proxy' ? Boom : TypeError]),
  ['an Int32Array', new Int32Array(4), TypeError],
  ['{data: Float64Array}', { data: new Float64Array(4), shape: [4] }, TypeError],
  ['{data, shape} disagreeing', { data: new Float32Array(3), shape: [4] }, RangeError],
  ['a shape with a hole', { data: new Float32Array(4), shape: [2, , 2] }, TypeError], // eslint-disable-line no-sparse-arrays
  ['a shape with NaN', { data: new Float32Array(4), shape: [NaN] }, TypeError],
  ['a shape with -0', { data: new Float32Array(0), shape: [-0] }, 'ok'],
  ['a shape with 1e300', { data: new Float32Array(0), shape: [1e300, 0] }, RangeError],
  ['a shape of 65 dims', { data: new Float32Array(1), shape: Array(65).fill(1) }, RangeError],
  [
    'a shape getter that throws',
    {
      data: new Float32Array(4),
      get shape() {
        throw new Boom('shape');
      },
    },
    Boom,
  ],
  [
    'a data getter that throws',
    {
      get data() {
        throw new Boom('data');
      },
      shape: [4],
    },
    Boom,
  ],
  ['a detached buffer', { data: detached(), shape: [4] }, TypeError],
  ['a SharedArrayBuffer', { data: shared(4), shape: [4] }, 'ok'],
  ['a lying subclass', { data: new LyingFloat32Array(4), shape: [4] }, 'ok'],
  ['a BigInt in the shape', { data: new Float32Array(4), shape: [4n] }, TypeError],
];
const NUMBER_LIST = [
  // scales
  ...NOT_A_NUMBER.filter(([l]) => l !== 'an array').map(([l, v]) => [l, v, TypeError]),
  ['[NaN, 1]', [NaN, 1], RangeError],
  ['a list with a hole', [1, , 1], TypeError], // eslint-disable-line no-sparse-arrays
  ['a list with a string', [1, '2'], TypeError],
  ['a BigInt64Array', new BigInt64Array(2), TypeError],
  ['a detached Float32Array', detached(), TypeError],
  ['too few', [1], RangeError],
];
// An option given as undefined is an option not given (the JavaScript convention).
const asOption = (values) => values.map(([l, v, e]) => [l, v, l === 'undefined' ? 'ok' : e]);
const OPTIONS_OBJECT = [
  ['a number', 1, TypeError],
  ['a string', 's', TypeError],
  ['null', null, TypeError],
  ['a throwing Proxy', throwingProxy(), Boom],
  ['an unknown option', { bogus: 1 }, TypeError],
];

// A quint8 per-tensor QTensor argument (names are fixtures, see pick()).
const QTENSOR_QUINT8 = [
  ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
  ['a float tensor', tensor(new Float32Array(24), [2, 3, 4]), TypeError],
  ['a qint8 tensor', 'i8', TypeError],
  ['a per-channel tensor', 'pc', TypeError],
  ['a disposed tensor', 'gone', Error],
];

// Fixture names in argument lists: the QTensors of beforeAll.
function pick(f, v) {
  if (typeof v !== 'string') return v;
  return { a: f.q, q5: f.qx5, a4: f.qx4, i8: f.i8, pc: f.w, gone: f.gone, small: f.small }[v] ?? v;
}

// A float model prepare() can observe: stub, conv + relu, stub.
function observedModel() {
  class M extends nn.Module {
    constructor() {
      super();
      this.quant = new quantization.QuantStub();
      this.conv = new nn.Conv3d(2, 4, 1);
      this.relu = new nn.ReLU();
      this.dequant = new quantization.DeQuantStub();
      this.qconfig = quantization.getDefaultQConfig('x86');
    }
    forward(x) {
      return this.dequant.forward(this.relu.forward(this.conv.forward(this.quant.forward(x))));
    }
  }
  return new M().eval();
}

let fixtures;
beforeAll(() => {
  const x = tensor(
    Float32Array.from({ length: 24 }, (_, i) => i / 5 - 2),
    [2, 3, 4],
  );
  const qx5 = qwasm.quantizePerTensor(tensor(new Float32Array(2 * 27).fill(0.5), [1, 2, 3, 3, 3]), 0.1, 3, 'quint8');
  const qconv = new nn.quantized.Conv3d(2, 4, 3, { padding: 1 });
  const fconv = new nn.Conv3d(2, 4, 3, { padding: 1 });
  const q = qwasm.quantizePerTensor(x, 0.1, 3, 'quint8');
  const w = qconv.weight();
  const i8 = qwasm.quantizePerTensor(x, 0.1, 3, 'qint8');
  const qx4 = qwasm.quantizePerTensor(tensor(new Float32Array(16), [1, 1, 4, 4]), 0.1, 3, 'quint8');
  const small = qwasm.quantizePerTensor(tensor(new Float32Array(1), [1, 1, 1, 1, 1]), 0.1, 3, 'quint8');
  const gone = qwasm.quantizePerTensor(x, 0.1, 3, 'quint8');
  gone.dispose();
  const zoo = new Uint8Array(readFileSync(new URL('../../golden/exported/zoo.qwasm.safetensors', import.meta.url)));
  fixtures = { x, qx5, qconv, fconv, q, w, i8, qx4, small, gone, zoo };
});
afterAll(() => {
  for (const f of Object.values(fixtures)) if (f && typeof f.dispose === 'function') f.dispose();
});

const dispose = (v) => {
  if (v && typeof v.dispose === 'function') v.dispose();
};

// Call sites: [name, kinds of each argument position, call(f, args)]; `valid`
// gives each position's good value, so that one position at a time is bad.
const SITES = [
  [
    'tensor(data, shape)',
    [[NUMBER_LIST.filter(([l]) => !['too few', '[NaN, 1]'].includes(l)), [1, 2]]],
    (f, [d]) => tensor(d),
  ],
  [
    'quantizePerTensor(x, scale, zeroPoint, dtype)',
    [
      [FLOAT_TENSOR, 'x'],
      [SCALE, 0.1],
      [ZERO_POINT_QUINT8, 3],
      [DTYPE, 'quint8'],
    ],
    (f, [x, s, z, d]) => qwasm.quantizePerTensor(x === 'x' ? f.x : x, s, z, d),
  ],
  // A tensor other than f.x has a first dimension of 4 (or 3), so three scales
  // on axis 0 can fail on their count: those rows expect that RangeError.
  [
    'quantizePerChannel(x, scales, zeroPoints, axis, dtype)',
    [
      [
        FLOAT_TENSOR.filter(([l]) => !l.includes('shape with') || l.includes('hole')).map(([l, v, e]) => [
          l,
          v,
          e === 'ok' ? RangeError : e,
        ]),
        'x',
      ],
      [NUMBER_LIST, [0.1, 0.2, 0.3]],
      [NUMBER_LIST.map(([l, v, e]) => [l, v, l === '[NaN, 1]' ? RangeError : e]), [0, 1, 2]],
      [INDEX.map(([l, v, e]) => [l, v, l === '-0' ? RangeError : e]), 1],
      [DTYPE, 'quint8'],
    ],
    (f, [x, s, z, a, d]) => qwasm.quantizePerChannel(x === 'x' ? f.x : x, s, z, a === 1 && x !== 'x' ? 0 : a, d),
  ],
  [
    'makePerTensorQuantizedTensor(intTensor, scale, zeroPoint, dtype)',
    [
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, l === 'a throwing Proxy' ? Boom : TypeError]),
          ['Float32Array data', { data: new Float32Array(2), shape: [2] }, TypeError],
          ['too few bytes', { data: new Uint8Array(1), shape: [2] }, RangeError],
          ['a detached Uint8Array', { data: detached(Uint8Array), shape: [0] }, TypeError],
          [
            'a shape getter that throws',
            {
              data: new Uint8Array(2),
              get shape() {
                throw new Boom('s');
              },
            },
            Boom,
          ],
        ],
        'i',
      ],
      [SCALE, 0.1],
      [ZERO_POINT_QUINT8, 3],
    ],
    (f, [t, s, z]) => qwasm.makePerTensorQuantizedTensor(t === 'i' ? { data: new Uint8Array(2), shape: [2] } : t, s, z),
  ],
  [
    'dequantize(q)',
    [[[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), ['a tensor', tensor([1]), TypeError]], 'q']],
    (f, [q]) => qwasm.dequantize(q === 'q' ? f.q : q),
  ],
  [
    'QTensor.dequantize(out)',
    [
      [
        [
          ['a Float64Array', new Float64Array(24), TypeError],
          ['too short', new Float32Array(23), RangeError],
          ['detached', detached(), TypeError],
          ['a Proxy', throwingProxy(), TypeError],
          ['shared', shared(24), 'ok'],
          ['a string', 'x', TypeError],
        ],
        new Float32Array(24),
      ],
    ],
    (f, [out]) => f.q.dequantize(out),
  ],
  [
    'QTensor.view(shape)',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'an array').map(([l, v]) => [l, v, TypeError]),
          ['two -1', [-1, -1], RangeError],
          ['wrong count', [5], RangeError],
          ['fractional', [2.5, 8], TypeError],
          ['[-1, 4]', [-1, 4], 'ok'],
        ],
        [24],
      ],
    ],
    (f, [s]) => f.q.view(s),
  ],
  [
    'setKernelIsa(name)',
    [
      [
        [
          ['a number', 1, TypeError],
          ["'toString'", 'toString', RangeError],
          ["'__proto__'", '__proto__', RangeError],
          ['null', null, TypeError],
          ["'scalar'", 'scalar', 'ok'],
        ],
        'auto',
      ],
    ],
    (f, [n]) => {
      try {
        qwasm.setKernelIsa(n);
      } finally {
        qwasm.setKernelIsa('auto');
      }
    },
  ],
  [
    'quantization.setEngine(name)',
    [
      [
        [
          ['a number', 1, TypeError],
          ['an engine qwasm does not reproduce', 'qnnpack', TypeError],
          ["'toString'", 'toString', TypeError],
          ["'__proto__'", '__proto__', TypeError],
          ['null', null, TypeError],
          ['a String object', new String('x86'), TypeError], // eslint-disable-line no-new-wrappers
          ["'fbgemm'", 'fbgemm', 'ok'],
        ],
        'x86',
      ],
    ],
    (f, [e]) => {
      try {
        quantization.setEngine(e);
      } finally {
        quantization.setEngine('x86');
      }
    },
  ],
  [
    'quantization.setWinograd(mode)',
    [[WINOGRAD_MODE, 'auto']],
    (f, [m]) => {
      try {
        quantization.setWinograd(m);
      } finally {
        quantization.setWinograd('auto');
      }
    },
  ],
  [
    'io.loadModel(bytes, options)',
    [
      [
        [
          ['a number', 1, TypeError],
          ['winograd a string', { winograd: 'on' }, TypeError],
          ['winograd a number', { winograd: 1 }, TypeError],
          ['winograd false', { winograd: false }, 'ok'],
          ['a string', 'big', TypeError],
          ['an unknown option', { maxBytes: 1 }, TypeError],
          ['a negative budget', { maxWork: -1 }, RangeError],
          ['a zero budget', { maxActivationBytes: 0 }, RangeError],
          ['NaN', { maxWork: Number.NaN }, RangeError],
          ['a budget as a string', { maxWork: '1e12' }, TypeError],
          ['Infinity (no limit)', { maxWork: Number.POSITIVE_INFINITY }, 'ok'],
          // The options for loading off the calling thread (the worker's own bad inputs: worker-model.test.mjs).
          ['worker a string', { worker: 'yes' }, TypeError],
          ['worker false', { worker: false }, 'ok'],
          ['onProgress without a download', { onProgress: () => {} }, TypeError],
          ['onProgress a number', { onProgress: 1 }, TypeError],
          ['numThreads without worker: true', { numThreads: 2 }, TypeError],
          ['locateFile without worker: true', { locateFile: () => 'x' }, TypeError],
          ['locateFile a string', { locateFile: 'x' }, TypeError],
        ],
        {},
      ],
    ],
    (f, [o]) => qwasm.io.loadModel(f.zoo, o).dispose(),
  ],
  [
    'setNumThreads(n)',
    [
      [
        [
          ['a string', '1', TypeError],
          ['a fraction', 1.5, TypeError],
          ['NaN', Number.NaN, TypeError],
          ['null', null, TypeError],
          ['0', 0, RangeError],
          ['more than init started', 65, RangeError],
          ['1', 1, 'ok'],
        ],
        1,
      ],
    ],
    (f, [n]) => {
      const threads = qwasm.getNumThreads();
      try {
        qwasm.setNumThreads(n);
      } finally {
        qwasm.setNumThreads(threads);
      }
    },
  ],
  ['new MinMaxObserver(options)', [[OPTIONS_OBJECT, {}]], (f, [o]) => new quantization.MinMaxObserver(o)],
  ['MinMaxObserver option dtype', [[DTYPE, 'quint8']], (f, [d]) => new quantization.MinMaxObserver({ dtype: d })],
  [
    'MinMaxObserver option reduceRange',
    [[BOOLEAN, false]],
    (f, [r]) => new quantization.MinMaxObserver({ reduceRange: r }),
  ],
  [
    'MinMaxObserver option eps',
    [[asOption(SCALE).map(([l, v, e]) => [l, v, ['2^31', '2^53'].includes(l) ? 'ok' : e]), 1e-5]],
    (f, [e]) => new quantization.MinMaxObserver({ eps: e }),
  ],
  [
    'MinMaxObserver options quantMin/quantMax',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'undefined'),
          ['NaN', NaN, TypeError],
          ['0.5', 0.5, TypeError],
          ['1e300', 1e300, RangeError],
          ['2^53', -(2 ** 53), RangeError],
          ['1', 1, RangeError],
        ],
        0,
      ],
    ],
    (f, [m]) => new quantization.MinMaxObserver({ quantMin: m, quantMax: 100 }),
  ],
  [
    'PerChannelMinMaxObserver option chAxis',
    [[asOption(INDEX).map(([l, v, e]) => [l, v, l === '-1' ? 'ok' : e]), 0]],
    (f, [a]) => new quantization.PerChannelMinMaxObserver({ chAxis: a }).observe(f.x),
  ],
  [
    'MovingAverageMinMaxObserver option averagingConstant',
    [
      [
        [
          ...asOption(NOT_A_NUMBER),
          ['0', 0, RangeError],
          ['NaN', NaN, RangeError],
          ['1.5', 1.5, RangeError],
          ['1', 1, 'ok'],
        ],
        0.01,
      ],
    ],
    (f, [c]) => new quantization.MovingAverageMinMaxObserver({ averagingConstant: c }),
  ],
  [
    'MinMaxObserver.observe(x)',
    [[FLOAT_TENSOR.map(([l, v, e]) => [l, v, l === 'a shape with -0' ? 'ok' : e]), 'x']],
    (f, [x]) => new quantization.MinMaxObserver().observe(x === 'x' ? f.x : x),
  ],
  ['new HistogramObserver(options)', [[OPTIONS_OBJECT, {}]], (f, [o]) => new quantization.HistogramObserver(o)],
  [
    'HistogramObserver option bins',
    [[asOption(CHANNELS).map(([l, v, e]) => [l, v, l === '2^31' || l === '2^32' ? RangeError : e]), 64]],
    (f, [b]) => new quantization.HistogramObserver({ bins: b }),
  ],
  [
    'HistogramObserver option qscheme',
    [
      [
        [
          ['per_channel_affine', 'per_channel_affine', RangeError],
          ['a number', 1, TypeError],
          ['per_tensor_symmetric', 'per_tensor_symmetric', 'ok'],
        ],
        'per_tensor_affine',
      ],
    ],
    (f, [q]) => new quantization.HistogramObserver({ qscheme: q }),
  ],
  [
    'HistogramObserver.observe(x)',
    [
      [
        [
          ...FLOAT_TENSOR.map(([l, v, e]) => [l, v, l === 'a shape with -0' ? 'ok' : e]),
          ['NaN data', { data: Float32Array.of(1, NaN), shape: [2] }, RangeError],
          ['infinite data', { data: Float32Array.of(1, Infinity), shape: [2] }, 'ok'],
        ],
        'x',
      ],
    ],
    (f, [x]) => new quantization.HistogramObserver({ bins: 64 }).observe(x === 'x' ? f.x : x),
  ],
  [
    'new nn.Conv3d(inChannels, outChannels, kernelSize, options)',
    [
      [CHANNELS, 2],
      [CHANNELS, 4],
      [KERNEL_LIKE, 3],
      [OPTIONS_OBJECT, {}],
    ],
    (f, [i, o, k, opts]) => new nn.Conv3d(i, o, k, opts),
  ],
  [
    'nn.Conv3d options stride/dilation',
    [[KERNEL_LIKE.filter(([l]) => l !== 'an array of the wrong length'), 1]],
    (f, [s]) => new nn.Conv3d(2, 2, 1, { stride: s, dilation: s }),
  ],
  [
    'nn.Conv3d option padding',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'an array' && l !== 'undefined' && l !== 'a string'),
          ['-1', -1, RangeError],
          ['2^31', 2 ** 31, RangeError],
          ['0.5', 0.5, TypeError],
          ["'full'", 'full', RangeError],
          ["'same'", 'same', 'ok'],
        ],
        0,
      ],
    ],
    (f, [p]) => new nn.Conv3d(2, 2, 3, { padding: p }),
  ],
  [
    'nn.Conv3d options groups/bias',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'undefined'),
          ['0', 0, RangeError],
          ['3', 3, RangeError],
          ['2^53', 2 ** 53, RangeError],
        ],
        1,
      ],
      [BOOLEAN, true],
    ],
    (f, [g, b]) => new nn.Conv3d(2, 2, 3, { groups: g, bias: b }),
  ],
  // The table's tensors are not 5-D: the rank is checked before the data's buffer.
  [
    'nn.Conv3d.forward(x)',
    [[FLOAT_TENSOR.map(([l, v, e]) => [l, v, e === 'ok' || l === 'a detached buffer' ? RangeError : e]), 'x']],
    (f, [x]) => f.fconv.forward(x === 'x' ? tensor(new Float32Array(2 * 27), [1, 2, 3, 3, 3]) : x),
  ],
  [
    'nn.Conv3d.weight = w',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'a throwing Proxy').map(([l, v]) => [l, v, TypeError]),
          ['wrong shape', tensor(new Float32Array(4)), RangeError],
          ['a throwing Proxy', throwingProxy(), Boom],
        ],
        'w',
      ],
    ],
    (f, [w]) => {
      if (w !== 'w') f.fconv.weight = w;
    },
  ],
  [
    'nn.Conv3d.weight.data = d',
    [
      [
        [
          ['a Float64Array', new Float64Array(216), TypeError],
          ['too short', new Float32Array(5), RangeError],
          ['detached', detached(), TypeError],
          ['a number', 1, TypeError],
        ],
        'd',
      ],
    ],
    (f, [d]) => {
      if (d !== 'd') f.fconv.weight.data = d;
    },
  ],
  [
    'new nn.quantized.Conv3d(...)',
    [
      [CHANNELS, 2],
      [KERNEL_LIKE, 3],
    ],
    (f, [i, k]) => new nn.quantized.Conv3d(i, 4, k),
  ],
  [
    'nn.quantized.Conv3d option winograd',
    [[WINOGRAD_MODE, 'auto']],
    (f, [w]) => new nn.quantized.Conv3d(2, 4, 3, { padding: 1, winograd: w }),
  ],
  [
    'nn.quantized.Conv3d.scale = s',
    [[SCALE, 0.1]],
    (f, [s]) => {
      f.qconv.scale = s;
      f.qconv.scale = 0.1;
    },
  ],
  [
    'nn.quantized.Conv3d.zeroPoint = z',
    [[ZERO_POINT_QUINT8, 3]],
    (f, [z]) => {
      f.qconv.zeroPoint = z;
      f.qconv.zeroPoint = 3;
    },
  ],
  [
    'nn.quantized.Conv3d.setWeightBias(weight, bias)',
    [
      [[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), ['a float tensor', tensor([1]), TypeError]], 'w'],
      [
        [
          ['a Float64Array', new Float64Array(4), TypeError],
          ['too short', new Float32Array(3), RangeError],
          ['a number', 1, TypeError],
          ['detached', detached(), TypeError],
          ['NaN inside', new Float32Array([NaN, 0, 0, 0]), RangeError],
        ],
        null,
      ],
    ],
    (f, [w, b]) => f.qconv.setWeightBias(w === 'w' ? f.w : w, b),
  ],
  [
    'nn.quantized.Conv3d.forward(x)',
    [
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
          ['a float tensor', tensor(new Float32Array(54), [1, 2, 3, 3, 3]), TypeError],
        ],
        'x',
      ],
    ],
    (f, [x]) => f.qconv.forward(x === 'x' ? f.qx5 : x),
  ],
  [
    'nn.quantized.Conv3d.fromFloat(mod, options)',
    [
      [[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), ['a quantized module', 'q', TypeError]], 'm'],
      [
        [
          ...OPTIONS_OBJECT.filter(([l]) => l !== 'a number' && l !== 'a string' && l !== 'null'),
          ['activationObserver {}', { activationObserver: {} }, TypeError],
          ['outputScale NaN', { outputScale: NaN, outputZeroPoint: 0 }, RangeError],
          ['winograd a string', { outputScale: 1, outputZeroPoint: 0, winograd: 'on' }, TypeError],
          ['winograd true', { outputScale: 1, outputZeroPoint: 0, winograd: true }, 'ok'],
          ['outputZeroPoint 1e300', { outputScale: 1, outputZeroPoint: 1e300 }, RangeError],
          [
            'activationObserver and outputScale',
            { activationObserver: new quantization.MinMaxObserver(), outputScale: 1, outputZeroPoint: 0 },
            TypeError,
          ],
          [
            'weightObserver quint8',
            { outputScale: 1, outputZeroPoint: 0, weightObserver: new quantization.MinMaxObserver() },
            TypeError,
          ],
        ],
        { outputScale: 0.1, outputZeroPoint: 2 },
      ],
    ],
    (f, [m, o]) => nn.quantized.Conv3d.fromFloat(m === 'm' ? f.fconv : m === 'q' ? f.qconv : m, o),
  ],
  [
    'new nn.intrinsic.ConvReLU3d(module, relu)',
    [
      [[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError])], 'c'],
      [
        [
          ['an object', {}, TypeError],
          ['a number', 1, TypeError],
        ],
        'r',
      ],
    ],
    (f, [c, r]) => new nn.intrinsic.ConvReLU3d(c === 'c' ? f.fconv : c, r === 'r' ? new nn.ReLU() : r),
  ],
  [
    'nn.quantized.functional.add(a, b, scale, zeroPoint)',
    [
      [QTENSOR_QUINT8, 'a'],
      [[...QTENSOR_QUINT8, ['a shape that does not broadcast', 'q5', RangeError]], 'a'],
      [SCALE, 0.1],
      [ZERO_POINT_QUINT8, 3],
    ],
    (f, [a, b, s, z]) => nn.quantized.functional.add(pick(f, a), pick(f, b), s, z),
  ],
  [
    'nn.quantized.functional.cat(tensors, dim, scale, zeroPoint)',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'an array').map(([l, v]) => [l, v, TypeError]),
          ['an empty array', [], TypeError],
          ['an array holding a number', [1], TypeError],
          ['mismatched shapes', ['a', 'q5'], RangeError],
          ['a qint8 tensor', ['a', 'i8'], TypeError],
          ['a disposed tensor', ['a', 'gone'], Error],
        ],
        ['a', 'a'],
      ],
      [[...INDEX.filter(([l]) => l !== '-1'), ['-1', -1, 'ok'], ['-4', -4, RangeError]], 1],
      [SCALE, 0.1],
      [ZERO_POINT_QUINT8, 3],
    ],
    (f, [xs, d, s, z]) =>
      nn.quantized.functional.cat(
        Array.isArray(xs) ? xs.map((x) => (typeof x === 'string' ? pick(f, x) : x)) : xs,
        d,
        s,
        z,
      ),
  ],
  [
    'nn.quantized.functional.addScalar(x, c)',
    [
      [QTENSOR_QUINT8, 'a'],
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
          ['NaN', NaN, RangeError],
          ['Infinity', Infinity, RangeError],
          ['1e300', 1e300, RangeError],
          ['-1e300', -1e300, RangeError],
          ['1e9 (round(c / scale) past int32, as PyTorch refuses)', 1e9, RangeError],
          ['1e8', 1e8, 'ok'],
        ],
        0.5,
      ],
    ],
    (f, [x, c]) => nn.quantized.functional.addScalar(pick(f, x), c),
  ],
  [
    'nn.quantized.functional.mulScalar(x, c)',
    [
      [QTENSOR_QUINT8, 'a'],
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
          ['NaN', NaN, RangeError],
          ['-Infinity', -Infinity, RangeError],
          ['1e300 (a scale beyond float32)', 1e300, RangeError],
          ['-0', -0, 'ok'],
        ],
        0.5,
      ],
    ],
    (f, [x, c]) => nn.quantized.functional.mulScalar(pick(f, x), c),
  ],
  [
    'nn.quantized.functional.hardtanh(x, minVal, maxVal)',
    [
      [QTENSOR_QUINT8, 'a'],
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'undefined').map(([l, v]) => [l, v, TypeError]),
          ['NaN', NaN, RangeError],
        ],
        -1,
      ],
      [
        [
          ['a string', '1', TypeError],
          ['NaN', NaN, RangeError],
          ['-1e300', -1e300, 'ok'],
        ],
        1,
      ],
    ],
    (f, [x, lo, hi]) => nn.quantized.functional.hardtanh(pick(f, x), lo, hi),
  ],
  [
    'new nn.MaxPool3d(kernelSize, options)',
    [
      [KERNEL_LIKE.map(([l, v, e]) => [l, v, l === 'an array of the wrong length' ? TypeError : e]), 2],
      [
        [
          ...OPTIONS_OBJECT,
          ['stride 0', { stride: 0 }, RangeError],
          ['padding -1', { padding: -1 }, RangeError],
          ['padding 2^31', { padding: 2 ** 31 }, RangeError],
          ['dilation 1e300', { dilation: 1e300 }, RangeError],
          ['ceilMode 1', { ceilMode: 1 }, TypeError],
          ['returnIndices true', { returnIndices: true }, TypeError],
          ['divisorOverride (an AvgPool option)', { divisorOverride: 2 }, TypeError],
        ],
        {},
      ],
    ],
    (f, [k, o]) => new nn.MaxPool3d(k, o),
  ],
  [
    'new nn.AvgPool2d(kernelSize, options)',
    [
      [[['a string', '2', TypeError]], 2],
      [
        [
          ['divisorOverride 0', { divisorOverride: 0 }, RangeError],
          ['divisorOverride 0.5', { divisorOverride: 0.5 }, TypeError],
          ['countIncludePad "no"', { countIncludePad: 'no' }, TypeError],
          ['dilation (a MaxPool option)', { dilation: 2 }, TypeError],
        ],
        {},
      ],
    ],
    (f, [k, o]) => new nn.AvgPool2d(k, o),
  ],
  [
    'nn.MaxPool3d.forward(x)',
    [
      [
        [
          ...QTENSOR_QUINT8.map(([l, v, e]) => [
            l,
            v,
            l === 'a throwing Proxy' ? Boom : l === 'a float tensor' ? RangeError : e,
          ]),
          ['a 4-D QTensor (PyTorch takes 5-D only)', 'a4', RangeError],
          ['a window larger than the padded input', 'small', RangeError],
          ['a float tensor of rank 2', tensor(new Float32Array(4), [2, 2]), RangeError],
          ['a float tensor with a 0 dimension', { data: new Float32Array(0), shape: [1, 1, 0, 2, 2] }, RangeError],
          ['a float tensor', tensor(new Float32Array(64), [1, 1, 4, 4, 4]), 'ok'],
        ],
        'q5',
      ],
    ],
    (f, [x]) => new nn.MaxPool3d(2).forward(pick(f, x)),
  ],
  [
    'new nn.AdaptiveAvgPool3d(outputSize)',
    [
      [
        [
          ...KERNEL_LIKE.filter(([l]) => l !== 'an array with a hole' && l !== 'null'),
          ['[null, 1, 1]', [null, 1, 1], 'ok'],
          ['null (keep every size)', null, 'ok'],
          ['[2^31 - 1, 1, 1]', [2 ** 31 - 1, 1, 1], 'ok'],
        ],
        1,
      ],
    ],
    (f, [o]) => new nn.AdaptiveAvgPool3d(o),
  ],
  [
    'nn.AdaptiveAvgPool3d([2^31 - 1, 1, 1]).forward(x)',
    [
      [
        [
          ['a QTensor', 'q5', RangeError],
          ['a float tensor', tensor(new Float32Array(8), [1, 1, 2, 2, 2]), RangeError],
        ],
        'q5',
      ],
    ],
    (f, [x]) => new nn.AdaptiveAvgPool3d([2 ** 31 - 1, 2 ** 31 - 1, 2]).forward(pick(f, x)),
  ],
  [
    'nn.AdaptiveMaxPool2d.forward(x)',
    [[[['a QTensor (PyTorch has no quantized kernel)', 'a4', TypeError]], tensor(new Float32Array(16), [1, 1, 4, 4])]],
    (f, [x]) => new nn.AdaptiveMaxPool2d(2).forward(pick(f, x)),
  ],
  [
    'QTensor.contiguous(options)',
    [
      [
        [
          ...OPTIONS_OBJECT,
          ["memoryFormat 'nhwc'", { memoryFormat: 'nhwc' }, TypeError],
          ['memoryFormat a number', { memoryFormat: 1 }, TypeError],
          ["memoryFormat 'channels_last' on a 5-D tensor", { memoryFormat: 'channels_last' }, RangeError],
          ["memoryFormat 'channels_last_3d'", { memoryFormat: 'channels_last_3d' }, 'ok'],
        ],
        {},
      ],
    ],
    (f, [o]) => f.qx5.contiguous(o),
  ],
  [
    'QTensor.isContiguous(memoryFormat)',
    [
      [
        [
          ['an unknown name', 'nchw', TypeError],
          ['null', null, TypeError],
          ['a Symbol', Symbol('m'), TypeError],
          ["'__proto__'", '__proto__', TypeError],
        ],
        'contiguous',
      ],
    ],
    (f, [m]) => f.qx5.isContiguous(m),
  ],
  [
    'quantization.prepare(model, options)',
    [
      [[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), ['a model with nothing to observe', 'empty', Error]], 'm'],
      [
        [
          ['inplace false', { inplace: false }, TypeError],
          ['an unknown option', { bogus: 1 }, TypeError],
        ],
        undefined,
      ],
    ],
    (f, [m, o]) => quantization.prepare(m === 'm' ? observedModel() : m === 'empty' ? new nn.Sequential() : m, o),
  ],
  [
    'quantization.convert(model)',
    [[[...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), ['a model not prepared', 'raw', Error]], 'm']],
    (f, [m]) => {
      if (m === 'raw') return quantization.convert(observedModel());
      if (m !== 'm') return quantization.convert(m);
      const model = quantization.prepare(observedModel());
      model.forward(tensor(new Float32Array(2 * 27).fill(0.5), [1, 2, 3, 3, 3]));
      return quantization.convert(model);
    },
  ],
  [
    'quantization.fuseModules(model, modulesToFuse)',
    [
      [NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]), 'm'],
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'an array').map(([l, v]) => [l, v, TypeError]),
          ['a missing path', ['conv', 'nope'], Error],
          ['an unsupported pair', ['relu', 'conv'], Error],
        ],
        ['conv', 'relu'],
      ],
    ],
    (f, [m, names]) => quantization.fuseModules(m === 'm' ? observedModel() : m, names),
  ],
  [
    'new nn.BatchNorm3d(numFeatures, options)',
    [
      [CHANNELS, 4],
      [
        [
          ...OPTIONS_OBJECT,
          ['eps -1', { eps: -1 }, RangeError],
          ['eps NaN', { eps: NaN }, RangeError],
          ['trackRunningStats false', { trackRunningStats: false }, RangeError],
        ],
        {},
      ],
    ],
    (f, [n, o]) => new nn.BatchNorm3d(n, o),
  ],
  [
    'io.loadNpy(bytes)',
    [
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
          ['empty', new Uint8Array(0), Error],
          ['detached', detached(), TypeError],
        ],
        'b',
      ],
    ],
    (f, [b]) => io.loadNpy(b === 'b' ? npyBytes() : b),
  ],
  [
    'io.loadSafetensors(bytes)',
    [
      [
        [
          ...NOT_A_NUMBER.map(([l, v]) => [l, v, TypeError]),
          ['empty', new Uint8Array(0), Error],
          ['huge header size', Uint8Array.of(255, 255, 255, 255, 255, 255, 255, 255), Error],
        ],
        'b',
      ],
    ],
    (f, [b]) => io.loadSafetensors(b === 'b' ? new Uint8Array([2, 0, 0, 0, 0, 0, 0, 0, 123, 125]) : b),
  ],
  [
    'new transforms.VideoClassification(options)',
    [
      [
        [
          ...OPTIONS_OBJECT,
          ['no cropSize', { resizeSize: [128, 171] }, TypeError],
          ['cropSize 0', { cropSize: 0, resizeSize: [128] }, RangeError],
          ['cropSize 1e300', { cropSize: 1e300, resizeSize: [128] }, RangeError],
          ['cropSize a fraction', { cropSize: [112.5, 112], resizeSize: [128] }, RangeError],
          ['cropSize of 3 sizes', { cropSize: [1, 2, 3], resizeSize: [128] }, RangeError],
          ['resizeSize a string', { cropSize: 112, resizeSize: '128' }, TypeError],
          ['resizeSize with a hole', { cropSize: 112, resizeSize: [, 128] }, TypeError], // eslint-disable-line no-sparse-arrays
          ['mean with NaN', { cropSize: 112, resizeSize: [128], mean: [NaN, 0, 0] }, RangeError],
          ['mean empty', { cropSize: 112, resizeSize: [128], mean: [], std: [] }, RangeError],
          ['std with 1e-50 (0 in float32)', { cropSize: 112, resizeSize: [128], std: [1e-50, 1, 1] }, RangeError],
          ['std of 2 values', { cropSize: 112, resizeSize: [128], std: [1, 1] }, RangeError],
          ['mean of 4 values', { cropSize: 112, resizeSize: [128], mean: [0, 0, 0, 0] }, RangeError],
          [
            'one mean and one std for all channels',
            { cropSize: 112, resizeSize: [128], mean: [0.5], std: [0.5] },
            'ok',
          ],
          ['mean a detached array', { cropSize: 112, resizeSize: [128], mean: detached() }, TypeError],
          ["interpolation 'nearest'", { cropSize: 112, resizeSize: [128], interpolation: 'nearest' }, TypeError],
          ['the Kinetics recipe', { cropSize: [112, 112], resizeSize: [128, 171] }, 'ok'],
        ],
        { cropSize: 112, resizeSize: [128] },
      ],
    ],
    (f, [o]) => new qwasm.transforms.VideoClassification(o),
  ],
  [
    'VideoClassification.forward(frames)',
    [
      [
        [
          ...NOT_A_NUMBER.filter(([l]) => l !== 'an array'),
          ['no frames', [], RangeError],
          ['a frame that is null', [null], TypeError],
          ['a frame of Float32Array data', [{ data: new Float32Array(12), width: 2, height: 2 }], TypeError],
          ['a frame of 5 bytes per pixel', [{ data: new Uint8Array(20), width: 2, height: 2 }], RangeError],
          ['a frame 0 wide', [{ data: new Uint8Array(0), width: 0, height: 2 }], RangeError],
          ['a frame 2^31 wide', [{ data: new Uint8Array(12), width: 2 ** 31, height: 1 }], RangeError],
          ['a frame of NaN height', [{ data: new Uint8Array(12), width: 2, height: NaN }], RangeError],
          ['a detached frame', [{ data: detached(Uint8Array), width: 2, height: 2 }], TypeError],
          [
            'frames of two sizes',
            [
              { data: new Uint8Array(12), width: 2, height: 2 },
              { data: new Uint8Array(18), width: 3, height: 2 },
            ],
            RangeError,
          ],
          [
            'a frame whose width getter throws',
            [
              {
                data: new Uint8Array(12),
                get width() {
                  throw new Boom('width');
                },
                height: 2,
              },
            ],
            Boom,
          ],
          ['a revoked Proxy', revokedProxy(), TypeError],
          ['a frame that is a revoked Proxy', [revokedProxy()], TypeError],
          [
            'an array Proxy whose length is NaN',
            new Proxy([], { get: (t, k) => (k === 'length' ? NaN : t[k]) }),
            RangeError,
          ],
          [
            'an array Proxy whose length is 1.5',
            new Proxy([], { get: (t, k) => (k === 'length' ? 1.5 : t[k]) }),
            RangeError,
          ],
          ['a 16384x16384 frame', [{ data: new Uint8Array(0), width: 16384, height: 16384 }], RangeError],
          ['a shared RGBA frame', [{ data: new Uint8Array(new SharedArrayBuffer(16)), width: 2, height: 2 }], 'ok'],
        ],
        [{ data: new Uint8ClampedArray(12), width: 2, height: 2 }],
      ],
    ],
    (f, [frames]) => new qwasm.transforms.VideoClassification({ cropSize: 2, resizeSize: [3, 4] }).forward(frames),
  ],
  [
    'init(options)',
    [
      [
        [
          ['a number', 1, TypeError],
          ['an unknown option', { bogus: 1 }, TypeError],
          ['wasmBinary a string', { wasmBinary: 'x' }, TypeError],
          ['locateFile a string', { locateFile: 'x' }, TypeError],
          ['numThreads a string', { numThreads: '2' }, TypeError],
          ['numThreads a fraction', { numThreads: 1.5 }, TypeError],
          ['numThreads 0', { numThreads: 0 }, RangeError],
          ['numThreads past 64', { numThreads: 65 }, RangeError],
          ['a throwing Proxy', throwingProxy(), Boom],
        ],
        {},
      ],
    ],
    (f, [o]) => qwasm.init(o),
  ],
];

function npyBytes() {
  const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }".padEnd(117) + '\n';
  const bytes = new Uint8Array(10 + header.length + 4);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
  bytes.set(new TextEncoder().encode(header), 10);
  return bytes;
}

const ROWS = [];
for (const [site, positions, call] of SITES) {
  positions.forEach(([values], p) => {
    for (const [label, value, expected] of values) {
      const args = positions.map(([, good], i) => (i === p ? value : good));
      ROWS.push({ site, position: p, label, expected, run: () => call(fixtures, args) });
    }
  });
}

function outcome(run) {
  try {
    dispose(run());
    return 'ok';
  } catch (e) {
    return e;
  }
}

test.each(ROWS)('$site, argument $position: $label', ({ run, expected }) => {
  outcome(run); // the first run may fill one-time caches
  const before = qwasm.heapInUse();
  const got = outcome(run);
  if (expected === 'ok') {
    expect(got === 'ok' ? 'ok' : `${got.constructor.name}: ${got.message}`).toBe('ok');
  } else {
    expect(got).not.toBe('ok');
    expect(`${got.constructor.name}: ${got.message}`).toMatch(new RegExp(`^${expected.name}: `));
    if (expected !== Boom) expect(got.message.length).toBeGreaterThan(20);
  }
  expect(qwasm.heapInUse()).toBe(before);
});

test('after the whole matrix, an ordinary call gives the right answer', () => {
  const q = qwasm.quantizePerTensor(tensor([0.273939937]), 0.00214854861, 0, 'quint8');
  expect(Array.from(q.intRepr())).toEqual([128]);
  q.dispose();
  const y = fixtures.qconv.forward(fixtures.qx5);
  expect(y.shape).toEqual([1, 4, 3, 3, 3]);
  y.dispose();
});
