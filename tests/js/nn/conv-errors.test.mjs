// Bad input to the conv modules: a clear error of the right class, no leak,
// and the module keeps working afterwards.
import * as qwasm from '../../../web/src/index.node.mjs';
import { expectThrows, runAll } from '../util.mjs';

const { nn } = qwasm;
let m;
let qx;

beforeAll(async () => {
  await qwasm.init();
  m = new nn.intrinsic.quantized.ConvReLU3d(4, 6, 3, { padding: 1 });
  m.scale = 0.05;
  m.zeroPoint = 10;
  qx = qwasm.quantizePerTensor(
    qwasm.tensor(new Float32Array(4 * 3 * 4 * 5).fill(0.5), [1, 4, 3, 4, 5]),
    0.02,
    5,
    'quint8',
  );
});

afterAll(() => {
  m.dispose();
  qx.dispose();
});

const x5 = (shape) => qwasm.tensor(new Float32Array(shape.reduce((a, b) => a * b, 1)), shape);
const withQ = (shape, dtype, fn) => {
  const t =
    dtype === 'per_channel'
      ? qwasm.quantizePerChannel(x5(shape), Array(shape[0]).fill(0.1), Array(shape[0]).fill(0), 0, 'quint8')
      : qwasm.quantizePerTensor(x5(shape), 0.1, 0, dtype);
  try {
    return fn(t);
  } finally {
    t.dispose();
  }
};

const CASES = [
  [
    'input of rank 4',
    () => withQ([1, 4, 5, 5], 'quint8', (t) => m.forward(t)),
    RangeError,
    'expected a 5-D input [N, C, D, H, W], got shape [1, 4, 5, 5]',
  ],
  [
    'input channels differ from the weight',
    () => withQ([1, 3, 4, 4, 4], 'quint8', (t) => m.forward(t)),
    RangeError,
    'expected 4 input channels (shape[1]), got 3',
  ],
  [
    'input qint8',
    () => withQ([1, 4, 4, 4, 4], 'qint8', (t) => m.forward(t)),
    TypeError,
    'input must be a quint8 per_tensor_affine tensor, got qint8',
  ],
  [
    'input per channel',
    () => withQ([1, 4, 4, 4, 4], 'per_channel', (t) => m.forward(t)),
    TypeError,
    'got quint8 per_channel_affine',
  ],
  [
    'input a float tensor',
    () => m.forward(x5([1, 4, 4, 4, 4])),
    TypeError,
    'forward(x): expected a QTensor, got an object',
  ],
  [
    'kernel larger than the padded input',
    () =>
      withQ([1, 4, 4, 4, 4], 'quint8', (t) => {
        const big = new nn.quantized.Conv3d(4, 2, 7);
        try {
          return big.forward(t);
        } finally {
          big.dispose();
        }
      }),
    RangeError,
    'kernel extent 7 is larger than the padded input depth 4',
  ],
  [
    'groups not dividing inChannels',
    () => new nn.quantized.Conv3d(6, 4, 3, { groups: 4 }),
    RangeError,
    'inChannels (6) must be divisible by groups (4)',
  ],
  [
    'groups not dividing outChannels',
    () => new nn.Conv3d(4, 6, 3, { groups: 4 }),
    RangeError,
    'outChannels (6) must be divisible by groups (4)',
  ],
  [
    'stride 0',
    () => new nn.quantized.Conv3d(4, 4, 3, { stride: 0 }),
    RangeError,
    'new nn.quantized.Conv3d(...): stride must be >= 1, got [0, 0, 0]',
  ],
  [
    'Conv1d stride 0 names one value',
    () => new nn.Conv1d(4, 4, 3, { stride: 0 }),
    RangeError,
    'new nn.Conv1d(...): stride must be >= 1, got 0',
  ],
  [
    'Linear with 2^40 features',
    () => new nn.Linear(2 ** 40, 2),
    RangeError,
    'inFeatures must be at most 2147483647, got 1099511627776',
  ],
  [
    'Linear whose weight cannot fit',
    () => new nn.Linear(2 ** 30, 2),
    RangeError,
    'the weight would need 8589934592 bytes',
  ],
  [
    'dilation 0 in one dimension',
    () => new nn.quantized.Conv3d(4, 4, 3, { dilation: [1, 0, 1] }),
    RangeError,
    'dilation must be >= 1',
  ],
  [
    'kernel size of the wrong arity',
    () => new nn.quantized.Conv3d(4, 4, [3, 3]),
    TypeError,
    'kernelSize must be an integer or an array of 3 integers',
  ],
  [
    'padding mode reflect',
    () => new nn.Conv3d(4, 4, 3, { paddingMode: 'reflect' }),
    RangeError,
    "paddingMode must be 'zeros' (the only mode quantized convolutions have), got the string 'reflect'",
  ],
  [
    'same padding with stride',
    () => new nn.quantized.Conv3d(4, 4, 3, { padding: 'same', stride: 2 }),
    RangeError,
    "padding='same' is not supported for strided convolutions",
  ],
  ['unknown padding string', () => new nn.Conv3d(4, 4, 3, { padding: 'full' }), RangeError, "got the string 'full'"],
  [
    'weight of the wrong dtype',
    () => withQ([6, 4, 3, 3, 3], 'quint8', (t) => m.setWeightBias(t, null)),
    TypeError,
    'weight must be qint8, got quint8',
  ],
  [
    'weight of the wrong shape',
    () => {
      const w = qwasm.quantizePerTensor(x5([6, 4, 3, 3, 1]), 0.1, 0, 'qint8');
      try {
        m.setWeightBias(w, null);
      } finally {
        w.dispose();
      }
    },
    RangeError,
    'weight shape must be [6, 4, 3, 3, 3], got [6, 4, 3, 3, 1]',
  ],
  [
    'weight per channel on axis 1',
    () => {
      const w = qwasm.quantizePerChannel(x5([6, 4, 3, 3, 3]), [1, 1, 1, 1], [0, 0, 0, 0], 1, 'qint8');
      try {
        m.setWeightBias(w, null);
      } finally {
        w.dispose();
      }
    },
    Error,
    'per_channel_affine on axis 0, got per_channel_affine on axis 1',
  ],
  [
    'bias of the wrong length',
    () => {
      const w = m.weight();
      try {
        m.setWeightBias(w, new Float32Array(5));
      } finally {
        w.dispose();
      }
    },
    RangeError,
    'setWeightBias(weight, bias): bias must have 6 elements (outChannels), got 5',
  ],
  [
    'output scale 0',
    () => {
      m.scale = 0;
    },
    RangeError,
    'ConvReLU3d.scale: scale (the output scale) must be a finite number > 0 as float32, got 0',
  ],
  [
    'output zero point 300',
    () => {
      m.zeroPoint = 300;
    },
    RangeError,
    'zeroPoint (the output zero point) must be in 0..255 (quint8), got 300',
  ],
  [
    'float weight of the wrong shape',
    () => {
      new nn.Conv3d(4, 6, 3).weight = x5([6, 4, 3, 3]);
    },
    RangeError,
    'nn.Conv3d.weight: expected shape [6, 4, 3, 3, 3], got [6, 4, 3, 3]',
  ],
  [
    'float input of the wrong rank',
    () => new nn.Conv2d(4, 6, 3).forward(x5([1, 4, 5, 5, 5])),
    RangeError,
    'expected a 4-D input [N, C, H, W], got shape [1, 4, 5, 5, 5]',
  ],
  [
    'fromFloat of the wrong module',
    () => nn.intrinsic.quantized.ConvReLU3d.fromFloat(new nn.Conv3d(4, 4, 3), { outputScale: 1, outputZeroPoint: 0 }),
    TypeError,
    'mod must be an nn.intrinsic.ConvReLU3d',
  ],
  [
    'fromFloat with a bad output scale',
    () => nn.quantized.Conv3d.fromFloat(new nn.Conv3d(4, 4, 3), { outputScale: -1, outputZeroPoint: 0 }),
    RangeError,
    'fromFloat(mod, options): scale (the output scale) must be a finite number > 0 as float32, got -1',
  ],
  [
    'fromFloat with a weight observer on axis 1',
    () =>
      nn.quantized.Conv3d.fromFloat(new nn.Conv3d(4, 4, 3), {
        outputScale: 1,
        outputZeroPoint: 0,
        weightObserver: new qwasm.quantization.PerChannelMinMaxObserver({ dtype: 'qint8', chAxis: 1 }),
      }),
    Error,
    'per_channel_affine on axis 0, got per_channel_affine on axis 1',
  ],
  [
    'fromFloat without output qparams',
    () => nn.quantized.Conv3d.fromFloat(new nn.Conv3d(4, 4, 3), {}),
    Error,
    'give activationObserver',
  ],
  [
    'fused module around the wrong conv',
    () => new nn.intrinsic.ConvReLU3d(new nn.Conv2d(4, 4, 3)),
    TypeError,
    'module must be an nn.Conv3d',
  ],
];

test.each(CASES)('%s', (name, thunk, ErrorClass, fragment) => expectThrows(thunk, ErrorClass, fragment));

test('a disposed module refuses forward() and its accessors', () => {
  const d = new nn.quantized.Conv3d(4, 6, 3, { padding: 1 });
  d.dispose();
  d.dispose();
  expect(d.disposed).toBe(true);
  expect(() => d.forward(qx)).toThrow('nn.quantized.Conv3d.forward(x): this module has been disposed');
  expect(() => d.weight()).toThrow('has been disposed');
});

test('after every error the module still gives the same output, and the heap is back where it was', () => {
  const reference = m.forward(qx);
  const want = Array.from(reference.intRepr());
  reference.dispose();
  const everyCase = () => runAll(CASES);
  everyCase();
  const before = qwasm.heapInUse();
  for (let i = 0; i < 3; i++) everyCase();
  const after = m.forward(qx);
  expect(Array.from(after.intRepr())).toEqual(want);
  after.dispose();
  expect(qwasm.heapInUse()).toBe(before);
});

test('200 module create / forward / dispose cycles leave no growth', () => {
  const x = x5([1, 4, 3, 4, 5]);
  const cycle = () => {
    const f = new nn.intrinsic.ConvReLU3d(new nn.Conv3d(4, 6, 3, { padding: 1 }));
    const obs = new qwasm.quantization.MinMaxObserver();
    obs.observe(f.forward(x));
    const q = nn.intrinsic.quantized.ConvReLU3d.fromFloat(f, { activationObserver: obs });
    q.forward(qx).dispose();
    const w = q.weight();
    w.dispose();
    q.dispose();
    f.dispose();
  };
  cycle();
  const before = qwasm.heapInUse();
  for (let i = 0; i < 200; i++) cycle();
  expect(qwasm.heapInUse()).toBe(before);
});
