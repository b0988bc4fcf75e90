// Bad input: each case throws the right error class with a message that says
// what was expected and what came; the module keeps working; nothing leaks.
import * as qwasm from '../../../web/src/index.node.mjs';
import { expectThrows, runAll } from '../util.mjs';

const x4 = () =>
  qwasm.tensor(
    new Float32Array(2 * 3 * 4 * 5).map((_, i) => i / 7 - 8),
    [2, 3, 4, 5],
  );

beforeAll(() => qwasm.init());

const CASES = [
  // [name, thunk, error class, message fragment]
  ['tensor data not float', () => qwasm.tensor(new Int32Array(4), [4]), TypeError, 'Float32Array'],
  [
    'tensor shape mismatch',
    () => qwasm.tensor(new Float32Array(5), [2, 3]),
    RangeError,
    'holds 6 elements but data has 5',
  ],
  ['tensor negative dim', () => qwasm.tensor(new Float32Array(0), [2, -1]), RangeError, 'shape[1] must be >= 0'],
  ['tensor fractional dim', () => qwasm.tensor(new Float32Array(2), [1.5]), TypeError, 'shape[0] must be an integer'],
  [
    'x not a tensor',
    () => qwasm.quantizePerTensor([1, 2], 0.1, 0, 'quint8'),
    TypeError,
    'x must be a float tensor {data: Float32Array, shape: number[]}, got an array',
  ],
  [
    'x data Float64Array',
    () => qwasm.quantizePerTensor({ data: new Float64Array(2), shape: [2] }, 0.1, 0, 'quint8'),
    TypeError,
    'Float32Array',
  ],
  [
    'x data and shape disagree',
    () => qwasm.quantizePerTensor({ data: new Float32Array(3), shape: [2] }, 0.1, 0, 'quint8'),
    RangeError,
    'x.shape [2] holds 2 elements but x.data has 3',
  ],
  ['scale a string', () => qwasm.quantizePerTensor(x4(), '0.1', 0, 'quint8'), TypeError, 'scale must be a number'],
  [
    'scale zero',
    () => qwasm.quantizePerTensor(x4(), 0, 0, 'quint8'),
    RangeError,
    'scale must be a finite number > 0, got 0',
  ],
  ['scale negative', () => qwasm.quantizePerTensor(x4(), -0.5, 0, 'quint8'), RangeError, 'got -0.5'],
  ['scale NaN', () => qwasm.quantizePerTensor(x4(), NaN, 0, 'quint8'), RangeError, 'got NaN'],
  ['scale Infinity', () => qwasm.quantizePerTensor(x4(), Infinity, 0, 'quint8'), RangeError, 'got Infinity'],
  [
    'zero point above quint8',
    () => qwasm.quantizePerTensor(x4(), 0.1, 256, 'quint8'),
    RangeError,
    'zeroPoint 256 is above upper bound 255 of quint8',
  ],
  [
    'zero point below qint8',
    () => qwasm.quantizePerTensor(x4(), 0.1, -129, 'qint8'),
    RangeError,
    'zeroPoint -129 is below lower bound -128 of qint8',
  ],
  [
    'zero point fractional',
    () => qwasm.quantizePerTensor(x4(), 0.1, 1.5, 'quint8'),
    TypeError,
    'zeroPoint must be an integer, got 1.5',
  ],
  ['unknown dtype', () => qwasm.quantizePerTensor(x4(), 0.1, 0, 'uint8'), TypeError, "got the string 'uint8'"],
  [
    'axis negative',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], -1, 'quint8'),
    RangeError,
    'axis -1 is out of range for a tensor of rank 4 (expected 0..3)',
  ],
  [
    'axis too large',
    () => qwasm.quantizePerChannel(x4(), [1, 1], [0, 0], 4, 'quint8'),
    RangeError,
    'axis 4 is out of range',
  ],
  [
    'axis not a number',
    () => qwasm.quantizePerChannel(x4(), [1, 1], [0, 0], '0', 'quint8'),
    TypeError,
    "axis must be a number, got the string '0'",
  ],
  [
    'axis fractional',
    () => qwasm.quantizePerChannel(x4(), [1, 1], [0, 0], 0.5, 'quint8'),
    TypeError,
    'axis must be an integer, got 0.5',
  ],
  [
    'axis 2^32',
    () => qwasm.quantizePerChannel(x4(), [1, 1], [0, 0], 2 ** 32, 'quint8'),
    RangeError,
    'axis must be in -2147483648..2147483647, got 4294967296',
  ],
  [
    'scales length',
    () => qwasm.quantizePerChannel(x4(), [1, 1], [0, 0], 1, 'quint8'),
    RangeError,
    'expected 3 scales and zero points (the size of axis 1), got 2',
  ],
  [
    'scales vs zero points',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1], [0, 0], 1, 'quint8'),
    RangeError,
    'same length, got 3 and 2',
  ],
  [
    'scales not numbers',
    () => qwasm.quantizePerChannel(x4(), [1, 'a', 1], [0, 0, 0], 1, 'quint8'),
    TypeError,
    'scales[1] must be a number',
  ],
  [
    'scales not an array',
    () => qwasm.quantizePerChannel(x4(), 0.1, [0], 1, 'quint8'),
    TypeError,
    'scales must be an array',
  ],
  [
    'channel scale negative',
    () => qwasm.quantizePerChannel(x4(), [1, -1, 1], [0, 0, 0], 1, 'quint8'),
    RangeError,
    'scales[1] must be a finite number > 0, got -1',
  ],
  [
    'channel zero point out of range',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1], [0, 300, 0], 1, 'quint8'),
    RangeError,
    'zeroPoints[1] 300 is above upper bound 255',
  ],
  [
    'per channel quint4x2 with integer zero points',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1], [0, 0, 0], 1, 'quint4x2'),
    TypeError,
    'pass the zero points as a Float32Array',
  ],
  [
    'the same through makePerChannelQuantizedTensor',
    () =>
      qwasm.makePerChannelQuantizedTensor(
        { data: new Uint8Array(60), shape: [2, 3, 4, 5] },
        [1, 1, 1],
        [0, 0, 0],
        1,
        'quint4x2',
      ),
    TypeError,
    'pass the zero points as a Float32Array',
  ],
  [
    'float zero point Infinity',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1], Float32Array.of(0, Infinity, 0), 1, 'quint8'),
    RangeError,
    'zeroPoints[1] must be finite, got Infinity',
  ],
  [
    'float zero point NaN',
    () => qwasm.quantizePerChannel(x4(), [1, 1, 1], Float32Array.of(0, NaN, 0), 1, 'quint8'),
    RangeError,
    'zeroPoints[1] must be finite, got NaN',
  ],
  [
    'int data wrong type',
    () => qwasm.makePerTensorQuantizedTensor({ data: new Float32Array(2), shape: [2] }, 0.1, 0),
    TypeError,
    'Uint8Array, Int8Array or Int32Array',
  ],
  [
    'int data vs dtype',
    () => qwasm.makePerTensorQuantizedTensor({ data: new Uint8Array(2), shape: [2] }, 0.1, 0, 'qint8'),
    TypeError,
    'qint8 data must be an Int8Array',
  ],
  [
    'int data length',
    () => qwasm.makePerTensorQuantizedTensor({ data: new Uint8Array(3), shape: [2, 2] }, 0.1, 0),
    RangeError,
    'expected 4 bytes of quint8 data for 4 elements, got 3',
  ],
  [
    'packed quint4x2 length',
    () => qwasm.makePerTensorQuantizedTensor({ data: new Uint8Array(2), shape: [5] }, 0.1, 0, 'quint4x2'),
    RangeError,
    'expected 3 bytes of quint4x2 data for 5 elements, got 2',
  ],
  [
    'dequantize a non-tensor',
    () => qwasm.dequantize({}),
    TypeError,
    'dequantize(q): expected a QTensor, got an object',
  ],
  ['QTensor constructed directly', () => new qwasm.QTensor({}), TypeError, 'cannot be constructed directly'],
  ['unknown kernel isa', () => qwasm.setKernelIsa('avx'), RangeError, "'auto', 'scalar' or 'wasmsimd'"],
  ['kernel isa inherited name', () => qwasm.setKernelIsa('toString'), RangeError, "got the string 'toString'"],
  ['kernel isa not a string', () => qwasm.setKernelIsa(1), TypeError, 'got the number 1'],
  [
    'observer bad dtype',
    () => new qwasm.quantization.MinMaxObserver({ dtype: 'float' }),
    TypeError,
    "dtype must be one of 'quint8', 'qint8', 'qint32', 'quint4x2', got the string 'float'",
  ],
  [
    'observer unknown option',
    () => new qwasm.quantization.MinMaxObserver({ chAxis: 0 }),
    TypeError,
    "unknown option 'chAxis'",
  ],
  [
    'observer quantMin 2^62',
    () => new qwasm.quantization.MinMaxObserver({ dtype: 'qint32', quantMin: -(2 ** 62), quantMax: 2 ** 62 }),
    RangeError,
    'quantMin must be in -9007199254740992..9007199254740992',
  ],
  [
    'observer range spanning too much',
    () => new qwasm.quantization.MinMaxObserver({ dtype: 'qint32', quantMin: -(2 ** 52), quantMax: 2 ** 52 }),
    RangeError,
    'spans more than the 4294967296 values qint32 allows',
  ],
  [
    'observer per-channel scheme on per-tensor observer',
    () => new qwasm.quantization.MinMaxObserver({ qscheme: 'per_channel_affine' }),
    RangeError,
    'per-tensor observer takes qscheme',
  ],
  [
    'observer symmetric quint8 reduce range',
    () => new qwasm.quantization.MinMaxObserver({ qscheme: 'per_tensor_symmetric', reduceRange: true }),
    Error,
    'Cannot reduce range for symmetric quantization for quint8',
  ],
  [
    'observer range without 0',
    () => new qwasm.quantization.MinMaxObserver({ quantMin: 1, quantMax: 10 }),
    RangeError,
    'must include 0',
  ],
  [
    'observer only quantMin',
    () => new qwasm.quantization.MinMaxObserver({ quantMin: 0 }),
    TypeError,
    'give both quantMin and quantMax',
  ],
  [
    'observer reduceRange not boolean',
    () => new qwasm.quantization.MinMaxObserver({ reduceRange: 1 }),
    TypeError,
    'reduceRange must be a boolean',
  ],
  [
    'observer NaN input',
    () => new qwasm.quantization.MinMaxObserver().observe(qwasm.tensor([1, NaN, 2])),
    RangeError,
    'element 1 is NaN',
  ],
  [
    'observer Infinity input',
    () => new qwasm.quantization.PerChannelMinMaxObserver().observe(qwasm.tensor([1, 2, -Infinity, 0], [2, 2])),
    RangeError,
    'element 2 is -Infinity',
  ],
  [
    'observer chAxis beyond rank',
    () => new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: 2 }).observe(qwasm.tensor([1, 2], [2])),
    RangeError,
    'chAxis 2 is out of range for a tensor of rank 1',
  ],
  [
    'observer channel count changes',
    () => {
      const o = new qwasm.quantization.PerChannelMinMaxObserver();
      o.observe(qwasm.tensor([1, 2], [2]));
      o.observe(qwasm.tensor([1, 2, 3], [3]));
    },
    RangeError,
    'axis 0 has 3 channels but earlier batches had 2',
  ],
];

test.each(CASES)('%s', (name, thunk, ErrorClass, fragment) => expectThrows(thunk, ErrorClass, fragment));

describe('scheme-specific methods', () => {
  test('per-channel methods on a per-tensor tensor name the scheme', () => {
    const q = qwasm.quantizePerTensor(x4(), 0.1, 3, 'quint8');
    for (const m of ['qPerChannelAxis', 'qPerChannelScales', 'qPerChannelZeroPoints']) {
      expect(() => q[m]()).toThrow(`QTensor.${m}() needs a per-channel tensor, but this one is per_tensor_affine`);
    }
    q.dispose();
  });
  test('per-tensor methods on a per-channel tensor name the scheme', () => {
    const q = qwasm.quantizePerChannel(x4(), [1, 2, 3], Float32Array.of(0, 1, 2), 1, 'quint8');
    for (const m of ['qScale', 'qZeroPoint']) {
      expect(() => q[m]()).toThrow(
        `QTensor.${m}() needs a per-tensor tensor, but this one is per_channel_affine_float_qparams`,
      );
    }
    q.dispose();
  });
  test('dequantize(out) checks out and writes into it', () => {
    const q = qwasm.quantizePerTensor(x4(), 0.1, 3, 'quint8');
    expect(() => q.dequantize(new Float64Array(120))).toThrow(TypeError);
    expect(() => q.dequantize(new Float32Array(119))).toThrow('out must hold 120 elements, got 119');
    const out = new Float32Array(120);
    const y = q.dequantize(out);
    expect(y.data).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(q.dequantize().data));
    q.dispose();
  });
  test('a disposed tensor refuses every method', () => {
    const q = qwasm.quantizePerTensor(x4(), 0.1, 3, 'quint8');
    q.dispose();
    q.dispose(); // twice is fine
    expect(q.disposed).toBe(true);
    for (const m of ['qscheme', 'qScale', 'intRepr', 'numel']) {
      expect(() => q[m]()).toThrow(`QTensor.${m}(): this tensor has been disposed`);
    }
    expect(() => q.dequantize()).toThrow('QTensor.dequantize(out): this tensor has been disposed');
    expect(String(q)).toBe('QTensor(disposed)');
  });
});

test('after every error the module still quantizes correctly and the heap is back where it was', () => {
  const everyCase = () => runAll(CASES);
  everyCase(); // the first round may allocate Embind's one-time caches
  const before = qwasm.heapInUse();
  for (let round = 0; round < 3; round++) everyCase();
  const q = qwasm.quantizePerTensor(qwasm.tensor([0.273939937]), 0.00214854861, 0, 'quint8');
  expect(Array.from(q.intRepr())).toEqual([128]);
  q.dispose();
  expect(qwasm.heapInUse()).toBe(before);
});

test('1000 create/dispose cycles leave no growth', () => {
  const x = x4();
  const run = () => {
    const a = qwasm.quantizePerTensor(x, 0.05, 10, 'quint8');
    const b = qwasm.quantizePerChannel(x, [0.1, 0.2, 0.3], [0, 1, 2], 1, 'qint8');
    const c = qwasm.quantizePerChannel(x, [0.1, 0.2, 0.3, 0.4], Float32Array.of(1, 2, 3, 4), 2, 'quint4x2');
    a.dequantize();
    b.qPerChannelScales();
    c.intRepr();
    a.dispose();
    b.dispose();
    c.dispose();
    new qwasm.quantization.PerChannelMinMaxObserver().observe(x).data.length;
  };
  run(); // warm caches (Embind type registration)
  const before = qwasm.heapInUse();
  for (let i = 0; i < 1000; i++) run();
  expect(qwasm.heapInUse()).toBe(before);
});
