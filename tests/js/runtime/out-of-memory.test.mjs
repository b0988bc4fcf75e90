// Out of memory in every allocating call (testing build): the core's
// allocations are made to fail one after another (failAllocationsAfter(n) for
// n = 0, 1, 2, ... until the call succeeds), and so are the JS side's heap
// copies (_malloc returning 0). Each failure must be a RangeError that says
// "out of memory", leave the heap at its baseline, and leave the module working.
import { initTesting, M, qwasm } from '../testing.mjs';

const { nn, tensor } = qwasm;

beforeAll(() => initTesting());

const x4 = () =>
  tensor(
    Float32Array.from({ length: 2 * 3 * 4 * 5 }, (_, i) => i / 7 - 8),
    [2, 3, 4, 5],
  );
const disposeAll = (v) => {
  if (v && typeof v.dispose === 'function') v.dispose();
};

const CALLS = [
  ['quantizePerTensor', () => qwasm.quantizePerTensor(x4(), 0.1, 3, 'quint8')],
  ['quantizePerTensor quint4x2', () => qwasm.quantizePerTensor(x4(), 0.1, 3, 'quint4x2')],
  ['quantizePerChannel (runs)', () => qwasm.quantizePerChannel(x4(), [0.1, 0.2, 0.3], [0, 1, 2], 1, 'qint8')],
  [
    'quantizePerChannel (axis innermost: row kernels)',
    () => qwasm.quantizePerChannel(x4(), [0.1, 0.2, 0.3, 0.4, 0.5], [0, 1, 2, 3, 4], 3, 'qint8'),
  ],
  [
    'makePerChannelQuantizedTensor',
    () => qwasm.makePerChannelQuantizedTensor({ data: new Int8Array(6), shape: [2, 3] }, [1, 2], [0, 0], 0),
  ],
  ['dequantize quint4x2', (q4) => q4.dequantize()],
  ['QTensor.view', (q4) => q4.view([120]), 'shares storage: no input-sized allocation'],
  ['observer observe', () => new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: 1 }).observe(x4())],
  ['observer calculateQParams', (q4, obs) => obs.calculateQParams()],
  ['quantized conv constructor', () => new nn.quantized.Conv3d(3, 9, 3, { padding: 1 })],
  ['quantized conv forward', (q4, obs, qconv, qx) => qconv.forward(qx)],
  [
    'quantized conv constructor, Winograd weights forced',
    () => new nn.quantized.Conv3d(3, 9, 3, { padding: 1, winograd: true }),
  ],
  ['quantized conv forward on the Winograd path', (q4, obs, qconv, qx, dw, fx, wconv) => wconv.forward(qx)],
  ['depthwise conv forward', (q4, obs, qconv, qx, dw) => dw.forward(qx)],
  [
    'float conv forward (packs)',
    (q4, obs, qconv, qx, dw, fx) => {
      const f = new nn.Conv3d(3, 4, 3, { padding: 1 });
      try {
        return f.forward(fx);
      } finally {
        f.dispose();
      }
    },
  ],
  [
    'fromFloat',
    (q4, obs, qconv, qx, dw, fx) => {
      const f = new nn.intrinsic.ConvReLU3d(new nn.Conv3d(3, 4, 3));
      try {
        return nn.intrinsic.quantized.ConvReLU3d.fromFloat(f, { outputScale: 0.1, outputZeroPoint: 2 });
      } finally {
        f.dispose();
      }
    },
  ],
];

let fixtures;
beforeAll(() => {
  const q4 = qwasm.quantizePerTensor(x4(), 0.5, 7, 'quint4x2');
  const obs = new qwasm.quantization.PerChannelMinMaxObserver({ chAxis: 1 });
  obs.observe(x4());
  const qconv = new nn.quantized.Conv3d(3, 9, 3, { padding: 1 });
  qconv.scale = 0.2;
  const fx = tensor(new Float32Array(3 * 4 * 5 * 6).fill(0.5), [1, 3, 4, 5, 6]);
  const qx = qwasm.quantizePerTensor(fx, 0.05, 10, 'quint8');
  const dw = new nn.quantized.Conv3d(3, 3, 3, { groups: 3, padding: 1 });
  const wconv = new nn.quantized.Conv3d(3, 9, 3, { padding: 1, winograd: true });
  fixtures = [q4, obs, qconv, qx, dw, fx, wconv];
});
afterAll(() => {
  for (const f of fixtures) disposeAll(f);
});

function attempt(call) {
  try {
    disposeAll(call(...fixtures));
    return null;
  } catch (e) {
    return e;
  }
}

const ROWS = CALLS.map(([name, call, noAllocation]) => ({ name, call, noAllocation }));

test.each(ROWS)(
  '$name: every core allocation failing in turn gives a RangeError and no leak',
  ({ call, noAllocation }) => {
    expect(attempt(call)).toBe(null); // warm caches; the call works
    const baseline = qwasm.heapInUse();
    let failures = 0;
    for (let n = 0; n < 200; n++) {
      M()._failAllocationsAfter(n);
      const error = attempt(call);
      M()._failAllocationsAfter(-1);
      expect(qwasm.heapInUse()).toBe(baseline);
      if (error === null) break;
      expect({ n, type: error.constructor.name, kind: error.kind }).toEqual({
        n,
        type: 'RangeError',
        kind: 'outOfMemory',
      });
      expect(error.message).toContain('out of memory');
      failures += 1;
    }
    // A call that allocates must have been made to fail at least once.
    expect(failures > 0).toBe(noAllocation === undefined);
    expect(attempt(call)).toBe(null);
  },
);

test.each(ROWS)('$name: every JS-side heap copy failing in turn gives a RangeError and no leak', ({ call }) => {
  expect(attempt(call)).toBe(null);
  const baseline = qwasm.heapInUse();
  const malloc = M()._malloc;
  for (let n = 0; n < 50; n++) {
    let left = n;
    M()._malloc = (bytes) => (left-- > 0 ? malloc(bytes) : 0);
    const error = attempt(call);
    M()._malloc = malloc;
    expect(qwasm.heapInUse()).toBe(baseline);
    if (error === null) break;
    expect({ n, type: error.constructor.name, kind: error.kind }).toEqual({
      n,
      type: 'RangeError',
      kind: 'outOfMemory',
    });
    expect(error.message).toContain('out of memory');
  }
  expect(attempt(call)).toBe(null);
});

test('a RangeError that is not about memory (scale 0) carries no out-of-memory kind', () => {
  let error;
  try {
    qwasm.quantizePerTensor({ data: new Float32Array(4), shape: [4] }, 0, 0, 'quint8');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(RangeError);
  expect(error.kind).toBeUndefined();
});
